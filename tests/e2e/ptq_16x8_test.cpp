// 16x8 quantization (--quantize int16x8: int16 activations, int8 weights)
// end to end, issue 29's acceptance figures:
// - the MLPerf Tiny anomaly-detection autoencoder and keyword-spotting
//   DS-CNN calibrated on 32 random inputs, int8 and 16x8, built and run on
//   100 other inputs beside the fp32 build: the output's SQNR against fp32.
//   16x8 must stay above int8 by the margin measured less 2 dB (issue 29
//   asked for 15 dB: not reached, docs/user-guide.md "16x8 quantization"
//   has the table and why). "Their int8 versions" read as the suite's
//   int8 models of the two (quant_qdq_* and quant_qop_*, made by
//   tests/gen/gen_quantized.py from the same float weights) give the same
//   margins, measured on the same inputs;
// - on "mrvl, c" the 16x8 layers stay on the CPU with their reason and the
//   outputs are the "c" build's, bit for bit;
// - a QDQ model with int16 activations from tests/gen/gen_q16.py
//   (tests/data/models/q16_qdq_cnn) within one output step of
//   onnxruntime-node's outputs.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <random>

#include "digits_ptq.h"
#include "driver/compile.h"
#include "frontend/onnx_import.h"
#include "host/host_model.h"
#include "frontend/tensor_proto.h"
#include "io/npz.h"
#include "models.h"
#include "ops/evaluator.h"
#include "ptq/calibration.h"
#include "support/file_util.h"
#include "testlib/model_runner.h"
#include "normal_samples.h"

namespace fs = std::filesystem;

namespace mlipc::test::e2e_ptq_16x8 {
namespace {

const fs::path kModels = fs::path(MLIPC_TEST_DATA) / "models";


driver::CompileOptions options(const std::string& target, const std::string& quantize, const fs::path& calib) {
  driver::CompileOptions o;
  o.target = target;
  o.quantize = quantize;
  if (target != "c") o.mlip.quantize = "int8";
  o.calibration = calib;
  return o;
}

struct Figures {
  double int8 = 0.0, w16 = 0.0;
  // The suite's int8 versions of the model (tests/gen/gen_quantized.py:
  // quant_qdq_<model> and quant_qop_<model>, weights the float model's
  // within half a step), on the same inputs.
  double qdq = 0.0, qop = 0.0;
  size_t layers16 = 0, layers = 0;
};

// The output SQNR against fp32 over 100 inputs of the int8 and 16x8 builds.
Figures measure(const std::string& model) {
  const fs::path onnx = kModels / model / "model.onnx";
  const Graph g = frontend::import_onnx(onnx);
  const fs::path calib = scratch_dir() / fmt::format("ptq16_{}_calib.npz", model);
  io::write_npz(calib, samples::normal_samples(g, 32, 1));
  const driver::CompileResult r32 = driver::compile_model(onnx, {});
  const driver::CompileResult r8 = driver::compile_model(onnx, options("c", "int8", calib));
  const driver::CompileResult r16 = driver::compile_model(onnx, options("c", "int16x8", calib));
  host::HostModel h32 = digits_ptq::build_program(r32, "ptq16_" + model + "_fp32");
  host::HostModel h8 = digits_ptq::build_program(r8, "ptq16_" + model + "_int8");
  host::HostModel h16 = digits_ptq::build_program(r16, "ptq16_" + model + "_16x8");
  host::HostModel hqdq = digits_ptq::build_program(
      driver::compile_model(kModels / ("quant_qdq_" + model) / "model.onnx", {}), "ptq16_" + model + "_qdq");
  host::HostModel hqop = digits_ptq::build_program(
      driver::compile_model(kModels / ("quant_qop_" + model) / "model.onnx", {}), "ptq16_" + model + "_qop");
  const io::NamedTensors others = samples::normal_samples(g, 100, 2);
  double signal = 0.0, noise8 = 0.0, noise16 = 0.0, noise_qdq = 0.0, noise_qop = 0.0;
  for (int64_t i = 0; i < 100; ++i) {
    io::NamedTensors in;
    for (size_t k = 0; k < g.inputs.size(); ++k)
      in.emplace_back(g.inputs[k].name, digits_ptq::sample(others[k].second, i, g.value(g.inputs[k].value).shape));
    const std::vector<double> y = h32.run(in).outputs[0].second.as_double();
    const std::vector<double> a = h8.run(in).outputs[0].second.as_double();
    const std::vector<double> b = h16.run(in).outputs[0].second.as_double();
    const std::vector<double> c = hqdq.run(in).outputs[0].second.as_double();
    const std::vector<double> d = hqop.run(in).outputs[0].second.as_double();
    for (size_t k = 0; k < y.size(); ++k) {
      signal += y[k] * y[k];
      noise8 += (a[k] - y[k]) * (a[k] - y[k]);
      noise16 += (b[k] - y[k]) * (b[k] - y[k]);
      noise_qdq += (c[k] - y[k]) * (c[k] - y[k]);
      noise_qop += (d[k] - y[k]) * (d[k] - y[k]);
    }
  }
  Figures f;
  f.int8 = calib::sqnr_db(signal, noise8);
  f.w16 = calib::sqnr_db(signal, noise16);
  f.qdq = calib::sqnr_db(signal, noise_qdq);
  f.qop = calib::sqnr_db(signal, noise_qop);
  for (const auto& l : r16.quantization->layers) {
    f.layers16 += l.int8 && l.act_bits == 16;
    f.layers += 1;
  }
  fmt::print("16x8 {}: output SQNR int8 {:.1f} dB, 16x8 {:.1f} dB (+{:.1f}); {} of {} layers 16x8\n", model, f.int8,
             f.w16, f.w16 - f.int8, f.layers16, f.layers);
  fmt::print("16x8 {}: the suite's int8 versions: QDQ {:.1f} dB (16x8 +{:.1f}), QOperator {:.1f} dB (+{:.1f})\n", model,
             f.qdq, f.w16 - f.qdq, f.qop, f.w16 - f.qop);
  return f;
}

// Measured (this test's print): autoencoder 43.6 -> 51.8 dB (+8.2), DS-CNN
// 46.6 -> 55.3 dB (+8.7): less than issue 29's goal of 15 dB, because the
// int8 weights bound both (the autoencoder's first Gemm: 48.3 dB alone in
// 16x8, 48.2 dB with only its weights quantized; docs/user-guide.md "16x8
// quantization"). The bounds: the measured figures less 2 dB.
// The suite's int8 models: autoencoder QDQ and QOperator 43.7 dB (16x8
// +8.1), DS-CNN 46.6 dB both (+8.7).
TEST(Ptq16x8, AutoencoderAboveInt8) {
  const Figures f = measure("mlperf_tiny_ad_fc_autoencoder");
  EXPECT_EQ(f.layers16, f.layers);
  EXPECT_GE(f.w16 - f.int8, 8.2 - 2.0);
  EXPECT_GE(f.w16, 51.8 - 2.0);
  EXPECT_GE(f.w16 - f.qdq, 8.1 - 2.0);
  EXPECT_GE(f.w16 - f.qop, 8.1 - 2.0);
}

TEST(Ptq16x8, KeywordSpottingAboveInt8) {
  const Figures f = measure("mlperf_tiny_kws_dscnn");
  EXPECT_EQ(f.layers16, f.layers);  // the GlobalAveragePool too (its int64 sum)
  EXPECT_GE(f.w16 - f.int8, 8.7 - 2.0);
  EXPECT_GE(f.w16, 55.3 - 2.0);
  EXPECT_GE(f.w16 - f.qdq, 8.7 - 2.0);
  EXPECT_GE(f.w16 - f.qop, 8.7 - 2.0);
}

// "mrvl, c": the 16x8 QLinearConvs (the autoencoder's ten Gemms, dense;
// the DS-CNN's convolutions, depthwise ones and its Gemm) are MLIP CONV2D
// and FC layers in int16 (docs/mlip-spec.md 4a), every MAC on the MLIP: the
// autoencoder one region, the DS-CNN two (its GlobalAveragePool runs on
// the CPU between them, saying why); the outputs are the "c" build's, bit
// for bit, on 1, 2, 4 and 8 tiles with and without pinned weights.
void expect_mlip_bits(const std::string& model, size_t regions, size_t convs) {
  const fs::path onnx = kModels / model / "model.onnx";
  const Graph g = frontend::import_onnx(onnx);
  const fs::path calib = scratch_dir() / fmt::format("ptq16_mrvl_{}_calib.npz", model);
  io::write_npz(calib, samples::normal_samples(g, 8, 1));
  const driver::CompileResult rc = driver::compile_model(onnx, options("c", "int16x8", calib));
  host::HostModel hc = digits_ptq::build_program(rc, "ptq16_mrvl_c_" + model);
  const io::NamedTensors in = samples::normal_samples(g, 1, 5);
  io::NamedTensors one = {{in[0].first, digits_ptq::sample(in[0].second, 0, g.value(g.inputs[0].value).shape)}};
  const TensorData want = hc.run(one).outputs[0].second;
  for (int tiles : {1, 2, 4, 8})
    for (bool pin : {false, true}) {
      driver::CompileOptions o = options("mrvl, c", "int16x8", calib);
      o.mlip.num_tiles = tiles;
      o.mlip.wb_pin_ocm = pin;
      const driver::CompileResult rm = driver::compile_model(onnx, o);
      SCOPED_TRACE(fmt::format("{} tiles {} pin {}", model, tiles, pin));
      ASSERT_EQ(rm.mlip.regions.size(), regions);
      size_t wide = 0;
      for (const auto& region : rm.mlip.regions)
        for (const auto& l : region->report.layers) wide += (l.kind == "conv2d" || l.kind == "fc") && l.dtype == "int16";
      EXPECT_EQ(wide, convs);  // every QLinearConv an int16 CONV2D or FC
      for (const auto& n : rm.mlip.cpu_nodes) EXPECT_NE(n.op, "QLinearConv") << n.node << ": " << n.reason;
      host::HostModel hm = digits_ptq::build_program(rm, fmt::format("ptq16_mrvl_{}_{}_{}", model, tiles, pin));
      EXPECT_EQ(hm.run(one).outputs[0].second, want);
    }
}

TEST(Ptq16x8, MrvlRunsTheAutoencoderOnTheMlip) { expect_mlip_bits("mlperf_tiny_ad_fc_autoencoder", 1, 10); }

TEST(Ptq16x8, MrvlRunsTheKeywordSpotterOnTheMlip) { expect_mlip_bits("mlperf_tiny_kws_dscnn", 2, 10); }

// Import: a QDQ model with int16 activations (tests/gen/gen_q16.py: Conv,
// Relu, MaxPool, depthwise Conv, Relu, Flatten, Gemm; com.microsoft's int16
// QuantizeLinear/DequantizeLinear, int8 weights, float biases) folds into
// 16x8 QLinearConvs, Clips (the Relus) and MaxPool on int16; its output is within one output
// step of onnxruntime-node's on every element (onnxruntime computes the
// groups in float: DequantizeLinear, float Conv, QuantizeLinear), the
// generated C gives the reference evaluator's bits, and "mrvl, c" gives
// "c"'s bits with its three QLinearConvs and its MaxPool as int16 MLIP
// layers, on 1 to 8 tiles (three regions: the int16 Clips between them run
// on the CPU).
TEST(Qdq16x8, WithinOneStepOfOnnxruntime) {
  const fs::path dir = kModels / "q16_qdq_cnn";
  const fs::path onnx = dir / "model.onnx";
  const Graph g = frontend::import_onnx(onnx);
  io::NamedTensors in = {{g.inputs[0].name, frontend::load_tensor_pb(dir / "test_data_set_0/input_0.pb")}};
  driver::CompileResult r;
  const io::NamedTensors got = compile_and_run(onnx, in, {}, &r);
  int convs = 0, clips = 0, floats = 0;
  for (const Node& n : r.graph.nodes) {
    convs += n.op == "QLinearConv" && r.graph.value(n.inputs[0]).dtype == DType::Int16;
    clips += n.op == "Clip" && r.graph.value(n.inputs[0]).dtype == DType::Int16;  // the Relus
    floats += n.op == "Conv" || n.op == "Gemm" || (n.op == "MaxPool" && r.graph.value(n.inputs[0]).dtype != DType::Int16);
  }
  EXPECT_EQ(convs, 3);
  EXPECT_EQ(clips, 2);
  EXPECT_EQ(floats, 0);
  EXPECT_TRUE(r.float_notes.empty());
  const TensorData want = frontend::load_tensor_pb(dir / "test_data_set_0/output_0.pb");
  const float step = output_step(r.graph, 0);
  ASSERT_TRUE(std::isfinite(step));
  const StepCounts c = step_counts(got[0].second, want, step);
  fmt::print("q16_qdq_cnn vs onnxruntime: {} elements, {} within one step (step {}, worst {:.3f})\n", c.n, c.one,
             step, c.worst);
  EXPECT_LE(c.worst, 1.0 + 1e-3);
  EXPECT_EQ(got[0].second, evaluate(r.graph, {in[0].second})[0]);
  driver::CompileOptions m;
  m.target = "mrvl, c";
  driver::CompileResult rm;
  EXPECT_EQ(compile_and_run(onnx, in, m, &rm)[0].second, got[0].second);
  EXPECT_EQ(rm.mlip.regions.size(), 3u);
  for (const auto& n : rm.mlip.cpu_nodes) {
    EXPECT_NE(n.op, "QLinearConv") << n.node << ": " << n.reason;
    EXPECT_NE(n.op, "MaxPool") << n.node << ": " << n.reason;
  }
  size_t maxpools = 0;  // the MaxPool an int16 MAXPOOL layer
  for (const auto& region : rm.mlip.regions)
    for (const auto& l : region->report.layers) maxpools += l.kind == "maxpool" && l.dtype == "int16";
  EXPECT_EQ(maxpools, 1u);
  // The same bits on 1, 2, 4 and 8 tiles (the MAXPOOL's rows split across them).
  for (int tiles : {2, 4, 8}) {
    driver::CompileOptions mt = m;
    mt.mlip.num_tiles = tiles;
    SCOPED_TRACE(fmt::format("tiles {}", tiles));
    EXPECT_EQ(compile_and_run(onnx, in, mt, nullptr)[0].second, got[0].second);
  }
}

}  // namespace
}  // namespace mlipc::test::e2e_ptq_16x8
