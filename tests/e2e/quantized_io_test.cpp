// --io-dtype int8 (passes/quantize_io): the AOT entry of a quantized model
// reads and writes the int8/uint8 tensors at its borders. Its outputs are the
// float build's outputs quantized, exactly (the border QuantizeLinear and
// DequantizeLinear are the only difference); the header gives each quantized
// tensor's scale and zero point as defines a C program reads back; `mlipc
// run` takes and writes .npz files of that type; metadata.json records the
// types. A model whose input or output is float at the border is refused,
// naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <fstream>

#include "driver/compile.h"
#include "frontend/tensor_proto.h"
#include "io/npz.h"
#include "ops/quant.h"
#include "support/error.h"
#include "support/file_util.h"
#include "support/process.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace mlipc::test::e2e_quantized_io {
namespace {

fs::path model_dir(const std::string& name) { return fs::path(MLIPC_TEST_DATA) / "models" / name; }

driver::CompileOptions int8_io() {
  driver::CompileOptions o;
  o.io_dtype = "int8";
  return o;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// t (float) quantized as QuantizeLinear does, to `type`.
TensorData quantized(const TensorData& t, DType type, float scale, int32_t zero_point) {
  TensorData q(type, t.shape());
  const std::vector<double> v = t.as_double();
  for (size_t i = 0; i < v.size(); ++i) {
    const int32_t x = ops::quantize_value(static_cast<float>(v[i]), scale, zero_point, ops::quant_min(type),
                                          ops::quant_max(type));
    if (type == DType::Int8)
      q.data<int8_t>()[i] = static_cast<int8_t>(x);
    else
      q.data<uint8_t>()[i] = static_cast<uint8_t>(x);
  }
  return q;
}

io::NamedTensors stored_inputs(const std::string& model, const Graph& g) {
  io::NamedTensors in;
  for (size_t i = 0; i < g.inputs.size(); ++i)
    in.emplace_back(g.inputs[i].name, frontend::load_tensor_pb(model_dir(model) /
                                                               fmt::format("test_data_set_0/input_{}.pb", i)));
  return in;
}

class QuantizedIo : public ::testing::TestWithParam<std::string> {};

TEST_P(QuantizedIo, OutputsAreTheFloatBuildsQuantizedExactly) {
  const fs::path onnx = model_dir(GetParam()) / "model.onnx";
  driver::CompileResult fr, qr;
  const io::NamedTensors fin = stored_inputs(GetParam(), driver::compile_model(onnx, {}).graph);
  const io::NamedTensors fout = compile_and_run(onnx, fin, {}, &fr);
  const driver::CompileResult probe = driver::compile_model(onnx, int8_io());
  io::NamedTensors qin;
  for (size_t i = 0; i < fin.size(); ++i) {
    const GraphIO& in = probe.graph.inputs[i];
    ASSERT_TRUE(in.quantized) << in.name;
    qin.emplace_back(in.name, quantized(fin[i].second, probe.graph.value(in.value).dtype, in.scale, in.zero_point));
  }
  const io::NamedTensors qout = compile_and_run(onnx, qin, int8_io(), &qr);
  ASSERT_EQ(qout.size(), fout.size());
  for (size_t k = 0; k < qout.size(); ++k) {
    const GraphIO& out = qr.graph.outputs[k];
    ASSERT_TRUE(out.quantized) << out.name;
    const DType t = qout[k].second.dtype();
    EXPECT_TRUE(t == DType::Int8 || t == DType::UInt8) << dtype_name(t);
    EXPECT_EQ(compare(qout[k].second, quantized(fout[k].second, t, out.scale, out.zero_point), 0, 0), "")
        << GetParam() << " output " << out.name;
  }
  // No border conversion is left: the float build has one QuantizeLinear
  // per input and one DequantizeLinear per output more.
  auto count = [](const driver::CompileResult& r, const std::string& op) {
    int n = 0;
    for (const Node& node : r.graph.nodes) n += node.op == op;
    return n;
  };
  EXPECT_EQ(count(qr, "QuantizeLinear"), count(fr, "QuantizeLinear") - static_cast<int>(fin.size()));
  EXPECT_EQ(count(qr, "DequantizeLinear"), count(fr, "DequantizeLinear") - static_cast<int>(fout.size()));
  // The int8 I/O takes a quarter of the float I/O's bytes.
  for (size_t k = 0; k < qr.module.inputs.size(); ++k)
    EXPECT_EQ(qr.module.inputs[k].size_bytes * 4, fr.module.inputs[k].size_bytes);
}

INSTANTIATE_TEST_SUITE_P(Models, QuantizedIo,
                         ::testing::Values("quant_qdq_mlperf_tiny_kws_dscnn", "quant_qdq_mlperf_tiny_ad_fc_autoencoder",
                                           "quant_qdq_mlperf_tiny_ic_resnet8", "quant_qop_mlperf_tiny_kws_dscnn"));

// The header's defines, compiled into a C program, give back the exact
// scale and zero point of every border tensor; metadata.json has the types.
TEST(QuantizedIoHeader, DefinesScaleAndZeroPointAFirmwareReads) {
  const fs::path onnx = model_dir("quant_qdq_mlperf_tiny_kws_dscnn") / "model.onnx";
  const driver::CompileResult r = driver::compile_model(onnx, int8_io());
  const std::string header = r.files.at("codegen/host/include/tvmgen_default.h");
  const GraphIO& in = r.graph.inputs[0];
  const GraphIO& out = r.graph.outputs[0];
  // onnxruntime's quantizer made this model's activations uint8.
  EXPECT_THAT(header, HasSubstr("Input tensor input is uint8, quantized (--io-dtype int8):\n * real value = "));
  EXPECT_THAT(header, HasSubstr("Output tensor output is uint8, quantized"));
  EXPECT_THAT(header, HasSubstr("#define TVMGEN_DEFAULT_INPUT_SCALE "));
  EXPECT_THAT(header, HasSubstr("#define TVMGEN_DEFAULT_OUTPUT_ZERO_POINT "));
  EXPECT_THAT(header, HasSubstr(fmt::format("#define TVMGEN_DEFAULT_INPUT_SIZE {}", r.module.inputs[0].size_bytes)));

  TempDir dir("mlipc-qio");
  { std::ofstream(dir.path() / "tvmgen_default.h") << header; }
  {
    std::ofstream c(dir.path() / "main.c");
    c << "#include <stdio.h>\n#include \"tvmgen_default.h\"\n"
         "int main(void) {\n"
         "  printf(\"%.9g %d %.9g %d\\n\", (double)TVMGEN_DEFAULT_INPUT_SCALE, TVMGEN_DEFAULT_INPUT_ZERO_POINT,\n"
         "         (double)TVMGEN_DEFAULT_OUTPUT_SCALE, TVMGEN_DEFAULT_OUTPUT_ZERO_POINT);\n"
         "  return 0;\n}\n";
  }
  ProcessResult cc = run_process({"cc", "-std=c99", "-Wall", "-Werror", "-pedantic", "main.c", "-o", "main"}, dir.path(), 120);
  ASSERT_EQ(cc.exit_code, 0) << cc.err;
  ProcessResult p = run_process({(dir.path() / "main").string()}, dir.path(), 60);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.out, fmt::format("{:.9g} {} {:.9g} {}\n", in.scale, in.zero_point, out.scale, out.zero_point));
  EXPECT_GT(in.scale, 0.0f);

  const nlohmann::json md = nlohmann::json::parse(r.files.at("metadata.json"));
  const auto& fn = md["modules"]["default"]["memory"]["functions"]["main"][0];
  EXPECT_EQ(fn["inputs"]["input"]["dtype"], "uint8");
  EXPECT_EQ(fn["outputs"]["output"]["dtype"], "uint8");
  EXPECT_EQ(fn["inputs"]["input"]["size"], 490);
  const auto& mlipc = md["modules"]["default"]["mlipc"];
  EXPECT_EQ(mlipc["io_dtype"], "int8");
  ASSERT_EQ(mlipc["quantized_io"].size(), 2u);
  EXPECT_EQ(mlipc["quantized_io"][0]["name"], "input");
  EXPECT_EQ(mlipc["quantized_io"][0]["kind"], "input");
  EXPECT_EQ(mlipc["quantized_io"][0]["zero_point"], in.zero_point);
  EXPECT_EQ(mlipc["quantized_io"][1]["kind"], "output");
  EXPECT_EQ(std::stof(mlipc["quantized_io"][1]["scale"].get<std::string>()), out.scale);
  EXPECT_EQ(mlipc["quantized_io"][1]["dtype"], "uint8");

  // The float build says nothing of quantization.
  const driver::CompileResult f = driver::compile_model(onnx, {});
  EXPECT_THAT(f.files.at("codegen/host/include/tvmgen_default.h"), ::testing::Not(HasSubstr("ZERO_POINT")));
  EXPECT_EQ(nlohmann::json::parse(f.files.at("metadata.json"))["modules"]["default"]["mlipc"]["io_dtype"], "float32");
}

// The command line: compile --io-dtype int8, run on an int8 .npz, int8 .npz out.
TEST(QuantizedIoCli, RunReadsAndWritesInt8Npz) {
  const std::string name = "quant_qdq_mlperf_tiny_ad_fc_autoencoder";
  const fs::path onnx = model_dir(name) / "model.onnx";
  const driver::CompileResult probe = driver::compile_model(onnx, int8_io());
  const GraphIO& in = probe.graph.inputs[0];
  const io::NamedTensors fin = stored_inputs(name, probe.graph);
  const DType t = probe.graph.value(in.value).dtype;
  const io::NamedTensors qin = {{in.name, quantized(fin[0].second, t, in.scale, in.zero_point)}};
  TempDir dir("mlipc-qio");
  io::write_npz(dir.path() / "in.npz", qin);
  auto mlipc = [&](std::vector<std::string> args) {
    args.insert(args.begin(), MLIPC_BINARY);
    return run_process(args, dir.path(), 600);
  };
  ProcessResult c = mlipc({"compile", onnx.string(), "--io-dtype", "int8", "-o", "m.tar"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  ProcessResult r = mlipc({"run", "m.tar", "--inputs", "in.npz", "--outputs", "out.npz"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const io::NamedTensors got = io::read_npz(dir.path() / "out.npz");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].second.dtype(), probe.graph.value(probe.graph.outputs[0].value).dtype);
  EXPECT_EQ(compare(got[0].second, compile_and_run(onnx, qin, int8_io())[0].second, 0, 0), "");

  // inspect gives each border tensor's parameters.
  ProcessResult i = mlipc({"inspect", "m.tar"});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  EXPECT_THAT(i.out, HasSubstr(fmt::format("  input  input {} {}, quantized: real = {:.9g} * (q - {})\n",
                                           dtype_name(t), shape_str(qin[0].second.shape()), in.scale, in.zero_point)));
  EXPECT_THAT(i.out, HasSubstr("  output output "));
  EXPECT_THAT(i.out, HasSubstr(fmt::format(", quantized: real = {:.9g} * (q - {})\n", probe.graph.outputs[0].scale,
                                           probe.graph.outputs[0].zero_point)));

  // A float .npz for an int8 input is refused, naming the input and the types.
  io::write_npz(dir.path() / "float.npz", fin);
  ProcessResult bad = mlipc({"run", "m.tar", "--inputs", "float.npz"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_THAT(bad.err, HasSubstr(fmt::format("float.npz: array 'input' is float32, but the input 'input' of m.tar is {}",
                                             dtype_name(t))));

  // An unknown --io-dtype.
  ProcessResult u = mlipc({"compile", onnx.string(), "--io-dtype", "int16", "-o", "u.tar"});
  EXPECT_NE(u.exit_code, 0);
  EXPECT_THAT(u.err, HasSubstr("--io-dtype 'int16' (allowed: float32, int8)"));
  EXPECT_FALSE(fs::exists(dir.path() / "u.tar"));
}

// Float at the border: refused in one line naming the input or output.
TEST(QuantizedIoErrors, FloatBordersAreRefusedNamingTheTensor) {
  // The digits model pads its float input before quantizing it.
  const std::string pad = error_of([] {
    driver::compile_model(model_dir("quant_qdq_seed_digits_cnn") / "model.onnx", int8_io());
  });
  EXPECT_THAT(pad, HasSubstr("--io-dtype int8: input 'Input3' is not quantized at the border: it feeds node"));
  EXPECT_THAT(pad, HasSubstr("(Pad), not a QuantizeLinear; compile with --io-dtype float32"));
  EXPECT_EQ(pad.find('\n'), std::string::npos);
  // An fp32 model.
  const std::string fp32 = error_of([] {
    driver::compile_model(model_dir("mlperf_tiny_kws_dscnn") / "model.onnx", int8_io());
  });
  EXPECT_THAT(fp32, HasSubstr("--io-dtype int8: input 'input' is not quantized at the border"));

  // x -> QuantizeLinear -> DequantizeLinear -> Relu -> y: the input is
  // quantized, the output is float.
  TempDir dir("mlipc-qio");
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 4});
  b.initializer("s", TensorData::from<float>({}, {0.5f}));
  b.initializer("z", TensorData::from<int8_t>({}, {3}));
  b.node("QuantizeLinear", {"x", "s", "z"}, {"xq"});
  b.node("DequantizeLinear", {"xq", "s", "z"}, {"xd"});
  b.node("Relu", {"xd"}, {"y"}, {}, "relu_out");
  b.output("y");
  const fs::path m = b.save(dir.path(), "float_out.onnx");
  const std::string out = error_of([&] { driver::compile_model(m, int8_io()); });
  EXPECT_THAT(out, HasSubstr("--io-dtype int8: output 'y' is not dequantized at the border: node 'relu_out' (Relu) "
                             "writes it, not a DequantizeLinear"));
  // The same model without the Relu builds, its I/O int8 with the given scale and zero point.
  OnnxBuilder ok;
  ok.input("x", DType::Float32, {1, 4});
  ok.initializer("s", TensorData::from<float>({}, {0.5f}));
  ok.initializer("z", TensorData::from<int8_t>({}, {3}));
  ok.node("QuantizeLinear", {"x", "s", "z"}, {"xq"});
  ok.node("DequantizeLinear", {"xq", "s", "z"}, {"y"});
  ok.output("y");
  const fs::path okm = ok.save(dir.path(), "identity.onnx");
  driver::CompileResult r;
  const TensorData q = TensorData::from<int8_t>({1, 4}, {-128, 3, 4, 127});
  const io::NamedTensors got = compile_and_run(okm, {{"x", q}}, int8_io(), &r);
  EXPECT_EQ(got[0].second, q);
  EXPECT_EQ(r.graph.inputs[0].scale, 0.5f);
  EXPECT_EQ(r.graph.outputs[0].zero_point, 3);
}

}  // namespace
}  // namespace mlipc::test::e2e_quantized_io
