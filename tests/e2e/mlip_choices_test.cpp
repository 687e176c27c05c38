// What the compiler chooses for the MLIP on its own and says it chose
// (issue 30, items 1, 10 and 11):
// - -quantize unset on "mrvl, c": every quantized suite model (quant_qdq_*,
//   quant_qop_*) builds as -quantize=int8 did, file for file, with int8 MLIP
//   layers; a float model builds fp16; an explicit -quantize=fp16 on a
//   quantized model stays fp16 and says so; compile, inspect and a mesh
//   (--pes) build print the choice and why;
// - "MACs on the MLIP: X of Y (Z%)" in compile, inspect and run --profile,
//   and the CPU layers' MACs, on a model counted by hand here;
// - inspect's fp16 decisions: the folded epsilon guards of
//   torch_mlip_eps_guards, and a node whose constant binary16 cannot hold
//   (an overflowing Conv weight, an underflowing Mul operand) kept on the
//   CPU in float, outputs finite and as the "c" build's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "driver/compile.h"
#include "io/npz.h"
#include "mlf/archive.h"
#include "models.h"
#include "support/file_util.h"
#include "support/process.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/tensors.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

namespace mlipc::test::e2e_mlip_choices {
namespace {

fs::path suite_model(const std::string& name) { return fs::path(MLIPC_TEST_DATA) / "models" / name / "model.onnx"; }

// The one module of a metadata.json (TVM's {"modules": {"<name>": {...}}}).
nlohmann::json module_of(const std::string& text) {
  const nlohmann::json md = nlohmann::json::parse(text);
  EXPECT_EQ(md.at("modules").size(), 1u);
  return md.at("modules").begin().value();
}

struct Cli {
  TempDir dir{"mlipc-mlip-choices"};
  ProcessResult mlipc(std::vector<std::string> args) const {
    args.insert(args.begin(), MLIPC_BINARY);
    return run_process(args, dir.path(), 600);
  }
  nlohmann::json metadata(const std::string& tar) const { return module_of(mlf::read_tar(dir.path() / tar).at("metadata.json")); }
};

// The int8 (or uint8) layers of a compiled model's regions that compute.
int q8_layers(const nlohmann::json& md) {
  int n = 0;
  for (const auto& r : md.at("mlip").at("regions"))
    for (const auto& l : r.at("layers")) {
      const std::string kind = l.at("kind"), dtype = l.at("dtype");
      if (kind != "convert_in" && kind != "convert_out" && (dtype == "int8" || dtype == "uint8")) ++n;
    }
  return n;
}

// Item 1: unset is int8 for a quantized model, the same build file for
// file as an explicit -quantize=int8 (metadata.json differs only in why).
TEST(MlipChoices, QuantizedModelsDefaultToInt8AsAnExplicitInt8Build) {
  Cli cli;
  int seen = 0;
  for (const ModelCase& m : quantized_model_cases()) {
    SCOPED_TRACE(m.name);
    ++seen;
    const std::string model = (m.dir / "model.onnx").string();
    const ProcessResult unset = cli.mlipc({"compile", model, "--target", "mrvl, c", "-o", "unset.tar"});
    ASSERT_EQ(unset.exit_code, 0) << unset.err;
    EXPECT_THAT(unset.out, HasSubstr("MLIP quantization: int8 (the model is quantized: "));
    EXPECT_THAT(unset.out, HasSubstr("; set -quantize=fp16 to override)"));
    const ProcessResult int8 = cli.mlipc({"compile", model, "--target", "mrvl, c", "--target-mrvl-mattr",
                                          "sim -quantize=int8", "-o", "int8.tar"});
    ASSERT_EQ(int8.exit_code, 0) << int8.err;
    EXPECT_THAT(int8.out, HasSubstr("MLIP quantization: int8 (set by -quantize=int8; the model is quantized: "));
    mlf::FileMap a = mlf::read_tar(cli.dir.path() / "unset.tar"), b = mlf::read_tar(cli.dir.path() / "int8.tar");
    ASSERT_EQ(a.size(), b.size());
    for (const auto& [path, bytes] : a) {
      if (path == "metadata.json") continue;
      ASSERT_TRUE(b.count(path)) << path;
      EXPECT_TRUE(bytes == b.at(path)) << path << " differs from the -quantize=int8 build";
    }
    nlohmann::json ma = module_of(a.at("metadata.json")), mb = module_of(b.at("metadata.json"));
    EXPECT_EQ(ma["mlip"]["quantize"], "int8");
    EXPECT_EQ(ma["mlipc"]["quantize"], "int8");
    EXPECT_GT(q8_layers(ma), 0);
    // Apart from its export time and the why, the same metadata.
    for (nlohmann::json* md : {&ma, &mb}) {
      md->erase("export_datetime");
      (*md)["mlip"].erase("quantize_why");
    }
    EXPECT_EQ(ma, mb);
  }
  EXPECT_EQ(seen, 28);
}

// An explicit -quantize=fp16 still wins on a quantized model, and says so;
// a float model gets fp16. inspect prints the same line as compile.
TEST(MlipChoices, ExplicitFp16WinsAndFloatModelsStayFp16) {
  Cli cli;
  for (const char* name : {"quant_qdq_mlip_dense", "quant_qop_mlip_dense"}) {
    SCOPED_TRACE(name);
    const ProcessResult r = cli.mlipc({"compile", suite_model(name).string(), "--target", "mrvl, c",
                                       "--target-mrvl-mattr", "sim -quantize=fp16", "-o", "fp16.tar"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string line = "MLIP quantization: fp16 (set by -quantize=fp16; the model is quantized: ";
    EXPECT_THAT(r.out, HasSubstr(line));
    EXPECT_THAT(r.out, HasSubstr(", whose int8 operators stay on the CPU)"));
    const nlohmann::json md = cli.metadata("fp16.tar");
    EXPECT_EQ(md["mlip"]["quantize"], "fp16");
    EXPECT_EQ(md["mlipc"]["quantize"], "none");
    EXPECT_EQ(q8_layers(md), 0);
    const ProcessResult i = cli.mlipc({"inspect", "fp16.tar"});
    ASSERT_EQ(i.exit_code, 0) << i.err;
    EXPECT_THAT(i.out, HasSubstr(line));
  }
  // The QDQ model counts its QuantizeLinear and DequantizeLinear nodes.
  const ProcessResult q = cli.mlipc({"compile", suite_model("quant_qdq_mlip_dense").string(), "--target", "mrvl, c",
                                     "-o", "q.tar"});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  EXPECT_THAT(q.out, HasSubstr("MLIP quantization: int8 (the model is quantized: 10 QDQ nodes; set -quantize=fp16 "
                               "to override)"));
  const ProcessResult f = cli.mlipc({"compile", (fs::path(MLIPC_EXAMPLES) / "digits" / "model.onnx").string(),
                                     "--target", "mrvl, c", "-o", "f.tar"});
  ASSERT_EQ(f.exit_code, 0) << f.err;
  EXPECT_THAT(f.out, HasSubstr("MLIP quantization: fp16 (the model is not quantized; -quantize=int8 with "
                               "--calibration quantizes it)"));
  EXPECT_EQ(cli.metadata("f.tar")["mlip"]["quantize"], "fp16");
  const ProcessResult i = cli.mlipc({"inspect", "f.tar"});
  EXPECT_THAT(i.out, HasSubstr("MLIP quantization: fp16 (the model is not quantized"));
  // --quantize int8 with calibration data asks int8 when -quantize is unset.
  const std::string calib = (fs::path(MLIPC_TEST_DATA) / "ptq" / "digits_calib200.npz").string();
  const ProcessResult p = cli.mlipc({"compile", (fs::path(MLIPC_EXAMPLES) / "digits" / "model.onnx").string(),
                                     "--target", "mrvl, c", "--quantize", "int8", "--calibration", calib, "-o", "p.tar"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_THAT(p.out, HasSubstr("MLIP quantization: int8 (--quantize int8; the model is not quantized: --calibration "
                               "quantizes it)"));
  EXPECT_GT(q8_layers(cli.metadata("p.tar")), 0);
  // --target c has no MLIP quantization to speak of.
  const ProcessResult c = cli.mlipc({"compile", suite_model("quant_qdq_mlip_dense").string(), "--target", "c", "-o",
                                     "c.tar"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_THAT(c.out, Not(HasSubstr("MLIP quantization")));
}

// A mesh build follows the same rule: every stage int8.
TEST(MlipChoices, MeshBuildsFollowTheModel) {
  Cli cli;
  const ProcessResult r = cli.mlipc({"compile", suite_model("quant_qdq_mlperf_tiny_ad_fc_autoencoder").string(),
                                     "--target", "mrvl, c", "--pes", "2", "-o", "mesh.tar"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("MLIP quantization: int8 (the model is quantized: "));
  const mlf::FileMap files = mlf::read_tar(cli.dir.path() / "mesh.tar");
  int stages = 0, q8 = 0;
  for (const auto& [path, bytes] : files)
    if (path.size() > 14 && path.compare(path.size() - 14, 14, "/metadata.json") == 0) {
      const nlohmann::json md = module_of(bytes);
      ++stages;
      EXPECT_EQ(md["mlip"]["quantize"], "int8") << path;
      q8 += q8_layers(md);
    }
  EXPECT_EQ(stages, 2);
  EXPECT_GT(q8, 0);
  // inspect says it too, with the pipeline's MAC share.
  const ProcessResult i = cli.mlipc({"inspect", "mesh.tar"});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  EXPECT_THAT(i.out, HasSubstr("\n  MLIP quantization: int8 (the model is quantized: "));
  EXPECT_THAT(i.out, HasSubstr("\n  MACs on the MLIP: "));
}

// Item 10: x [1,3,8,8] -> Conv 3x3 pads 1 to 4 channels (on the MLIP) ->
// ConvTranspose 1x1 stride 2 to 2 channels (its odd rows and columns take
// no tap: on the CPU). By hand: the Conv has 1*4*8*8 = 256 outputs of
// 3*3*3 = 27 MACs: 6,912; the ConvTranspose scatters each of its 1*4*8*8 =
// 256 inputs into 2 outputs: 512. MLIP share 6,912 of 7,424 = 93.10%.
TEST(MlipChoices, MacShareCountsCpuOperators) {
  Cli cli;
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 3, 8, 8});
  b.initializer("w", random_tensor(DType::Float32, {4, 3, 3, 3}, 1));
  b.initializer("wt", random_tensor(DType::Float32, {4, 2, 1, 1}, 2));
  b.node("Conv", {"x", "w"}, {"c"}, {{"pads", ints{1, 1, 1, 1}}}, "conv");
  b.node("ConvTranspose", {"c", "wt"}, {"y"}, {{"strides", ints{2, 2}}}, "up");
  b.output("y");
  const fs::path model = b.save(cli.dir.path());
  const std::string line = "MACs on the MLIP: 6,912 of 7,424 (93.1%)";
  const ProcessResult r = cli.mlipc({"compile", model.string(), "--target", "mrvl, c", "-o", "m.tar"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(line));
  const nlohmann::json md = cli.metadata("m.tar");
  bool cpu_row = false;
  for (const auto& l : md["mlipc"]["layers"])
    if (l["op"] == "ConvTranspose") {
      EXPECT_EQ(l["macs"], 512u);
      cpu_row = true;
    }
  EXPECT_TRUE(cpu_row);
  const ProcessResult i = cli.mlipc({"inspect", "m.tar"});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  EXPECT_THAT(i.out, HasSubstr(line));
  EXPECT_THAT(i.out, HasSubstr("up (ConvTranspose)  [512 MACs]"));
  const ProcessResult p = cli.mlipc({"run", "m.tar", "--fill-mode", "random", "--profile"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_THAT(p.out, HasSubstr(line));
  EXPECT_THAT(p.out, ::testing::ContainsRegex("cpu +ConvTranspose +up \\(ConvTranspose\\) +512 +- "));
  // --target c: every MAC on the CPU, the rows still counted.
  ASSERT_EQ(cli.mlipc({"compile", model.string(), "--target", "c", "-o", "c.tar"}).exit_code, 0);
  uint64_t total = 0;
  const nlohmann::json c = cli.metadata("c.tar");
  for (const auto& l : c["mlipc"]["layers"]) total += l.value("macs", uint64_t{0});
  EXPECT_EQ(total, 7424u);
}

// Item 11: the guards of torch_mlip_eps_guards are folded, and inspect says
// which and why.
TEST(MlipChoices, InspectListsFoldedEpsilonGuards) {
  Cli cli;
  ASSERT_EQ(cli.mlipc({"compile", suite_model("torch_mlip_eps_guards").string(), "--target", "mrvl, c", "-o", "g.tar"})
                .exit_code,
            0);
  const ProcessResult i = cli.mlipc({"inspect", "g.tar"});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  EXPECT_THAT(i.out, HasSubstr("fp16 decisions (epsilon guards, constants binary16 cannot hold):\n"));
  EXPECT_THAT(i.out, HasSubstr("(Add): guard folded: constant 1e-15 underflows to 0 in binary16; Div '"));
  EXPECT_THAT(i.out, HasSubstr("(Add): guard folded: constant 1e-12 underflows to 0 in binary16; Div '"));
  // A LayerNormalization's epsilon of 1e-12: LAYERNORM adds it in fp32.
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 4, 8});
  b.initializer("gamma", random_tensor(DType::Float32, {8}, 5));
  b.initializer("beta", random_tensor(DType::Float32, {8}, 6));
  b.node("LayerNormalization", {"x", "gamma", "beta"}, {"y"}, {{"axis", int64_t{-1}}, {"epsilon", 1e-12f}}, "ln");
  b.output("y");
  ASSERT_EQ(cli.mlipc({"compile", b.save(cli.dir.path()).string(), "--target", "mrvl, c", "-o", "ln.tar"}).exit_code, 0);
  const ProcessResult l = cli.mlipc({"inspect", "ln.tar"});
  ASSERT_EQ(l.exit_code, 0) << l.err;
  EXPECT_THAT(l.out, HasSubstr("  ln (LayerNormalization): epsilon folded: constant 1e-12 underflows to 0 in binary16; "
                               "LAYERNORM adds it to the variance in fp32 inside its command\n"));
}

// Item 11: a Conv whose weights hold 1e5 (binary16's largest is 65504) and a
// Mul by 1e-9 (binary16's smallest is 6e-8) would mean something else in
// fp16: both stay on the CPU in float, inspect says why, and the outputs
// are the "c" build's up to the fp16 Conv before them.
TEST(MlipChoices, ConstantsBinary16CannotHoldKeepTheirNodesInFloat) {
  Cli cli;
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 2, 6, 6});
  TensorData w = random_tensor(DType::Float32, {3, 3, 3, 3}, 3);
  w.data<float>()[5] = 1e5f;
  b.initializer("w2", random_tensor(DType::Float32, {3, 2, 1, 1}, 4));
  b.initializer("w", w);
  b.initializer("tiny", TensorData::from<float>({1}, {1e-9f}));
  b.node("Conv", {"x", "w2"}, {"c"}, {}, "fine_conv");
  b.node("Conv", {"c", "w"}, {"d"}, {{"pads", ints{1, 1, 1, 1}}}, "big_conv");
  b.node("Mul", {"d", "tiny"}, {"y"}, {}, "tiny_mul");
  b.output("y");
  const fs::path model = b.save(cli.dir.path());
  ASSERT_EQ(cli.mlipc({"compile", model.string(), "--target", "mrvl, c", "-o", "m.tar"}).exit_code, 0);
  const ProcessResult i = cli.mlipc({"inspect", "m.tar"});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  EXPECT_THAT(i.out, HasSubstr("big_conv (Conv): kept on the CPU in float: constant 'w' holds 100000, which binary16 "
                               "cannot hold (it would become infinity)\n"));
  EXPECT_THAT(i.out, HasSubstr("tiny_mul (Mul): kept on the CPU in float: constant 'tiny' holds 1e-09, which "
                               "binary16 cannot hold (it would become 0)\n"));
  EXPECT_THAT(i.out, HasSubstr("-- on the CPU: constant 'w' holds 100000, which binary16 cannot hold"));
  const nlohmann::json md = cli.metadata("m.tar");
  ASSERT_EQ(md["mlip"]["regions"].size(), 1u);  // fine_conv alone
  ASSERT_EQ(cli.mlipc({"compile", model.string(), "--target", "c", "-o", "c.tar"}).exit_code, 0);
  ASSERT_EQ(cli.mlipc({"run", "m.tar", "--fill-mode", "random", "--outputs", "m.npz"}).exit_code, 0);
  ASSERT_EQ(cli.mlipc({"run", "c.tar", "--fill-mode", "random", "--outputs", "c.npz"}).exit_code, 0);
  const io::NamedTensors ym = io::read_npz(cli.dir.path() / "m.npz"), yc = io::read_npz(cli.dir.path() / "c.npz");
  ASSERT_EQ(ym.size(), 1u);
  ASSERT_EQ(yc.size(), 1u);
  // big_conv and tiny_mul compute in fp32 as on "c"; fine_conv, before
  // them, in fp16: within fp16's rounding of the "c" output, all finite
  // (an fp16 big_conv would have made infinities, an fp16 tiny_mul zeros).
  double peak = 0;
  for (double v : yc[0].second.as_double()) peak = std::max(peak, std::fabs(v));
  ASSERT_GT(peak, 1e-6);  // 1e-9 times a sum of 1e5-sized products: not 0
  for (double v : ym[0].second.as_double()) ASSERT_TRUE(std::isfinite(v));
  EXPECT_EQ(compare(ym[0].second, yc[0].second, 0, 2e-3 * peak), "");
}

}  // namespace
}  // namespace mlipc::test::e2e_mlip_choices
