// 16x8 quantization (--quantize int16x8: int16 activations, int8 weights)
// end to end, issue 29's acceptance figures:
// - the MLPerf Tiny anomaly-detection autoencoder and keyword-spotting
//   DS-CNN calibrated on 32 random inputs, int8 and 16x8, built and run on
//   100 other inputs beside the fp32 build: the output's SQNR against fp32.
//   16x8 must stay above int8 by the margin measured less 2 dB (issue 29
//   asked for 15 dB: not reached with round-to-nearest weights,
//   docs/user-guide.md "16x8 quantization" has the table and why). "Their
//   int8 versions" read as the suite's int8 models of the two (quant_qdq_*
//   and quant_qop_*, made by tests/gen/gen_quantized.py from the same float
//   weights) give the same margins, measured on the same inputs. With
//   --weight-rounding gptq (ptq/weight_rounding.h) 16x8 is at least 15 dB
//   above every int8 version, nearest or gptq;
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
#include "ops/qlinear.h"
#include "ptq/calibration.h"
#include "support/file_util.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/tensors.h"
#include "normal_samples.h"

namespace fs = std::filesystem;

namespace mlipc::test::e2e_ptq_16x8 {
namespace {

const fs::path kModels = fs::path(MLIPC_TEST_DATA) / "models";


driver::CompileOptions options(const std::string& target, const std::string& quantize, const fs::path& calib,
                               ptq::WeightRounding rounding = ptq::WeightRounding::Nearest) {
  driver::CompileOptions o;
  o.target = target;
  o.quantize = quantize;
  o.quantize_options.weight_rounding = rounding;
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
  // --weight-rounding gptq (ptq/weight_rounding.h): int8 and 16x8.
  double int8_gptq = 0.0, w16_gptq = 0.0;
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
  const auto gptq = ptq::WeightRounding::Gptq;
  host::HostModel h8g =
      digits_ptq::build_program(driver::compile_model(onnx, options("c", "int8", calib, gptq)), "ptq16_" + model + "_int8g");
  host::HostModel h16g = digits_ptq::build_program(driver::compile_model(onnx, options("c", "int16x8", calib, gptq)),
                                                   "ptq16_" + model + "_16x8g");
  host::HostModel hqdq = digits_ptq::build_program(
      driver::compile_model(kModels / ("quant_qdq_" + model) / "model.onnx", {}), "ptq16_" + model + "_qdq");
  host::HostModel hqop = digits_ptq::build_program(
      driver::compile_model(kModels / ("quant_qop_" + model) / "model.onnx", {}), "ptq16_" + model + "_qop");
  const io::NamedTensors others = samples::normal_samples(g, 100, 2);
  std::vector<io::NamedTensors> ins(100);
  for (int64_t i = 0; i < 100; ++i)
    for (size_t k = 0; k < g.inputs.size(); ++k)
      ins[static_cast<size_t>(i)].emplace_back(
          g.inputs[k].name, digits_ptq::sample(others[k].second, i, g.value(g.inputs[k].value).shape));
  // Each program once on the 100 inputs (HostModel::run_each: the same
  // bits per input as one run each, without 700 processes).
  const auto run_all = [&](const host::HostModel& h) {
    std::vector<std::vector<double>> o;
    for (const io::NamedTensors& out : h.run_each(ins)) o.push_back(out[0].second.as_double());
    return o;
  };
  const auto o32 = run_all(h32), o8 = run_all(h8), o16 = run_all(h16), oqdq = run_all(hqdq), oqop = run_all(hqop),
             o8g = run_all(h8g), o16g = run_all(h16g);
  double signal = 0.0, noise8 = 0.0, noise16 = 0.0, noise_qdq = 0.0, noise_qop = 0.0, noise8g = 0.0, noise16g = 0.0;
  for (size_t i = 0; i < ins.size(); ++i) {
    const std::vector<double>& y = o32[i];
    const std::vector<double>& a = o8[i];
    const std::vector<double>& b = o16[i];
    const std::vector<double>& c = oqdq[i];
    const std::vector<double>& d = oqop[i];
    const std::vector<double>& a2 = o8g[i];
    const std::vector<double>& b2 = o16g[i];
    for (size_t k = 0; k < y.size(); ++k) {
      signal += y[k] * y[k];
      noise8 += (a[k] - y[k]) * (a[k] - y[k]);
      noise16 += (b[k] - y[k]) * (b[k] - y[k]);
      noise_qdq += (c[k] - y[k]) * (c[k] - y[k]);
      noise_qop += (d[k] - y[k]) * (d[k] - y[k]);
      noise8g += (a2[k] - y[k]) * (a2[k] - y[k]);
      noise16g += (b2[k] - y[k]) * (b2[k] - y[k]);
    }
  }
  Figures f;
  f.int8 = calib::sqnr_db(signal, noise8);
  f.w16 = calib::sqnr_db(signal, noise16);
  f.qdq = calib::sqnr_db(signal, noise_qdq);
  f.qop = calib::sqnr_db(signal, noise_qop);
  f.int8_gptq = calib::sqnr_db(signal, noise8g);
  f.w16_gptq = calib::sqnr_db(signal, noise16g);
  for (const auto& l : r16.quantization->layers) {
    f.layers16 += l.int8 && l.act_bits == 16;
    f.layers += 1;
  }
  fmt::print("16x8 {}: output SQNR int8 {:.1f} dB, 16x8 {:.1f} dB (+{:.1f}); {} of {} layers 16x8\n", model, f.int8,
             f.w16, f.w16 - f.int8, f.layers16, f.layers);
  fmt::print("16x8 {}: the suite's int8 versions: QDQ {:.1f} dB (16x8 +{:.1f}), QOperator {:.1f} dB (+{:.1f})\n", model,
             f.qdq, f.w16 - f.qdq, f.qop, f.w16 - f.qop);
  fmt::print("16x8 {}: --weight-rounding gptq: int8 {:.1f} dB ({:+.1f}), 16x8 {:.1f} dB ({:+.1f}; +{:.1f} above int8 gptq, +{:.1f} "
             "above int8 nearest)\n",
             model, f.int8_gptq, f.int8_gptq - f.int8, f.w16_gptq, f.w16_gptq - f.w16, f.w16_gptq - f.int8_gptq,
             f.w16_gptq - f.int8);
  return f;
}

// Measured (this test's print): autoencoder 43.6 -> 51.8 dB (+8.2), DS-CNN
// 46.6 -> 55.3 dB (+8.7): less than issue 29's goal of 15 dB, because the
// int8 weights bound both (the autoencoder's first Gemm: 48.3 dB alone in
// 16x8, 48.2 dB with only its weights quantized; docs/user-guide.md "16x8
// quantization"). The bounds: the measured figures less 2 dB.
// The suite's int8 models: autoencoder QDQ and QOperator 43.7 dB (16x8
// +8.1), DS-CNN 46.6 dB both (+8.7).
// With --weight-rounding gptq: autoencoder int8 44.3 dB, 16x8 74.6 dB
// (+31.0 above int8 nearest, +30.3 above int8 gptq, +30.9 above the
// suite's int8 models); DS-CNN int8 48.7 dB, 16x8 67.1 dB (+20.5, +18.4,
// +20.5). Bounded the same way, and at least issue 29's 15 dB.
TEST(Ptq16x8, AutoencoderAboveInt8) {
  const Figures f = measure("mlperf_tiny_ad_fc_autoencoder");
  EXPECT_EQ(f.layers16, f.layers);
  EXPECT_GE(f.w16 - f.int8, 8.2 - 2.0);
  EXPECT_GE(f.w16, 51.8 - 2.0);
  EXPECT_GE(f.w16 - f.qdq, 8.1 - 2.0);
  EXPECT_GE(f.w16 - f.qop, 8.1 - 2.0);
  EXPECT_GE(f.int8_gptq, 44.3 - 2.0);
  EXPECT_GE(f.w16_gptq, 74.6 - 2.0);
  EXPECT_GE(f.w16_gptq - f.int8, 31.0 - 2.0);
  EXPECT_GE(f.w16_gptq - f.int8_gptq, 30.3 - 2.0);
  for (double int8 : {f.int8, f.int8_gptq, f.qdq, f.qop}) EXPECT_GE(f.w16_gptq - int8, 15.0);
}

TEST(Ptq16x8, KeywordSpottingAboveInt8) {
  const Figures f = measure("mlperf_tiny_kws_dscnn");
  EXPECT_EQ(f.layers16, f.layers);  // the GlobalAveragePool too (its int64 sum)
  EXPECT_GE(f.w16 - f.int8, 8.7 - 2.0);
  EXPECT_GE(f.w16, 55.3 - 2.0);
  EXPECT_GE(f.w16 - f.qdq, 8.7 - 2.0);
  EXPECT_GE(f.w16 - f.qop, 8.7 - 2.0);
  EXPECT_GE(f.int8_gptq, 48.7 - 2.0);
  EXPECT_GE(f.w16_gptq, 67.1 - 2.0);
  EXPECT_GE(f.w16_gptq - f.int8, 20.5 - 2.0);
  EXPECT_GE(f.w16_gptq - f.int8_gptq, 18.4 - 2.0);
  for (double int8 : {f.int8, f.int8_gptq, f.qdq, f.qop}) EXPECT_GE(f.w16_gptq - int8, 15.0);
}

// "mrvl, c": the 16x8 QLinearConvs (the autoencoder's ten Gemms, dense;
// the DS-CNN's convolutions, depthwise ones and its Gemm) are MLIP CONV2D
// and FC layers in int16 (docs/mlip-spec.md 4a), every MAC on the MLIP,
// and the DS-CNN's QLinearGlobalAveragePool an int16 GLOBAL_AVGPOOL: each
// model one region; the outputs are the "c" build's, bit for bit, on every
// tiling of tilings().
void expect_mlip_bits(const std::string& model, size_t regions, size_t convs, size_t pools) {
  const fs::path onnx = kModels / model / "model.onnx";
  const Graph g = frontend::import_onnx(onnx);
  const fs::path calib = scratch_dir() / fmt::format("ptq16_mrvl_{}_calib.npz", model);
  io::write_npz(calib, samples::normal_samples(g, 8, 1));
  const driver::CompileResult rc = driver::compile_model(onnx, options("c", "int16x8", calib));
  host::HostModel hc = digits_ptq::build_program(rc, "ptq16_mrvl_c_" + model);
  const io::NamedTensors in = samples::normal_samples(g, 1, 5);
  io::NamedTensors one = {{in[0].first, digits_ptq::sample(in[0].second, 0, g.value(g.inputs[0].value).shape)}};
  const TensorData want = hc.run(one).outputs[0].second;
  for (const Tiling& t : tilings()) {
    const int tiles = t.tiles;
    const bool pin = t.pin;
    driver::CompileOptions o = options("mrvl, c", "int16x8", calib);
    o.mlip.quantize.clear();  // no -quantize=int8: --quantize int16x8 chooses the int8 (and int16) region
    o.mlip.num_tiles = tiles;
    o.mlip.wb_pin_ocm = pin;
    const driver::CompileResult rm = driver::compile_model(onnx, o);
    SCOPED_TRACE(fmt::format("{} tiles {} pin {}", model, tiles, pin));
    ASSERT_EQ(rm.mlip.regions.size(), regions);
    size_t wide = 0, wide_pools = 0;
    for (const auto& region : rm.mlip.regions)
      for (const auto& l : region->report.layers) {
        wide += (l.kind == "conv2d" || l.kind == "fc") && l.dtype == "int16";
        wide_pools += l.kind == "global_avgpool" && l.dtype == "int16";
      }
    EXPECT_EQ(wide, convs);  // every QLinearConv an int16 CONV2D or FC
    EXPECT_EQ(wide_pools, pools);
    for (const auto& n : rm.mlip.cpu_nodes) {
      EXPECT_NE(n.op, "QLinearConv") << n.node << ": " << n.reason;
      EXPECT_NE(n.op, "QLinearGlobalAveragePool") << n.node << ": " << n.reason;
    }
    host::HostModel hm = digits_ptq::build_program(rm, fmt::format("ptq16_mrvl_{}_{}_{}", model, tiles, pin));
    EXPECT_EQ(hm.run(one).outputs[0].second, want);
  }
}

TEST(Ptq16x8, MrvlRunsTheAutoencoderOnTheMlip) { expect_mlip_bits("mlperf_tiny_ad_fc_autoencoder", 1, 10, 0); }

TEST(Ptq16x8, MrvlRunsTheKeywordSpotterOnTheMlip) { expect_mlip_bits("mlperf_tiny_kws_dscnn", 1, 10, 1); }

// 16x8 tables on the MLIP: a small float MLP (Gemm, Sigmoid, Gemm, Tanh,
// Gemm, HardSigmoid) quantized by --quantize int16x8: its activations are
// 16x8 lookups of 513 interpolated knots (mlip/lut16.h), each an int16
// TABLE layer on "mrvl, c", the model one region with nothing on the CPU
// but x's quantization and the output's dequantization; the outputs "c"'s,
// bit for bit, on the short tilings.
TEST(Ptq16x8, TableActivationsOnTheMlip) {
  std::mt19937 rng(29);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  OnnxBuilder b(13);
  b.input("x", DType::Float32, {5, 12});
  auto gemm = [&](const std::string& in, const std::string& out, int64_t k, int64_t n) {
    std::vector<float> w(static_cast<size_t>(k * n)), bias(static_cast<size_t>(n));
    for (float& v : w) v = 0.5f * nd(rng);
    for (float& v : bias) v = 0.2f * nd(rng);
    b.initializer(out + "_w", TensorData::from<float>({k, n}, w));
    b.initializer(out + "_b", TensorData::from<float>({n}, bias));
    b.node("Gemm", {in, out + "_w", out + "_b"}, {out}, {}, out);
  };
  gemm("x", "g1", 12, 16);
  b.node("Sigmoid", {"g1"}, {"s1"}, {}, "sigmoid");
  gemm("s1", "g2", 16, 16);
  b.node("Tanh", {"g2"}, {"t2"}, {}, "tanh");
  gemm("t2", "g3", 16, 8);
  b.node("HardSigmoid", {"g3"}, {"y"}, {}, "hardsigmoid");
  b.output("y");
  const fs::path onnx = b.save(scratch_dir(), "q16_tables.onnx");
  const Graph g = frontend::import_onnx(onnx);
  const fs::path calib = scratch_dir() / "ptq16_tables_calib.npz";
  io::write_npz(calib, samples::normal_samples(g, 8, 1));
  const io::NamedTensors drawn = samples::normal_samples(g, 1, 5);
  const io::NamedTensors in = {
      {drawn[0].first, digits_ptq::sample(drawn[0].second, 0, g.value(g.inputs[0].value).shape)}};
  driver::CompileResult rc;
  const io::NamedTensors want = compile_and_run(onnx, in, options("c", "int16x8", calib), &rc);
  int lookups = 0;
  for (const Node& n : rc.graph.nodes)
    lookups += n.op == ops::kQLookupOp && rc.graph.value(n.inputs[0]).dtype == DType::Int16;
  EXPECT_EQ(lookups, 3);
  for (const Tiling& t : tilings()) {
    driver::CompileOptions o = options("mrvl, c", "int16x8", calib);
    o.mlip.quantize.clear();  // --quantize int16x8 chooses the int8 (and int16) region
    o.mlip.num_tiles = t.tiles;
    o.mlip.wb_pin_ocm = t.pin;
    SCOPED_TRACE(fmt::format("tiles {} pin {}", t.tiles, t.pin));
    driver::CompileResult rm;
    EXPECT_EQ(compile_and_run(onnx, in, o, &rm)[0].second, want[0].second);
    EXPECT_EQ(rm.mlip.regions.size(), 1u);
    for (const auto& cn : rm.mlip.cpu_nodes)
      if (cn.op != "QuantizeLinear" && cn.op != "DequantizeLinear")
        ADD_FAILURE() << cn.op << " '" << cn.node << "' on the CPU: " << cn.reason;
    size_t tables = 0;
    for (const auto& region : rm.mlip.regions)
      for (const auto& l : region->report.layers) tables += l.kind == "activation" && l.dtype == "int16";
    EXPECT_EQ(tables, 3u);
  }
}

// Import: a QDQ model with int16 activations (tests/gen/gen_q16.py: Conv,
// Relu, MaxPool, depthwise Conv, Relu, Flatten, Gemm; com.microsoft's int16
// QuantizeLinear/DequantizeLinear, int8 weights, float biases) folds into
// 16x8 QLinearConvs and MaxPool on int16, the Relus (each quantized on its
// own at its convolution's scale: a Clip on the int16 values) the clamps
// of the convolutions before them; its output is within one output
// step of onnxruntime-node's on every element (onnxruntime computes the
// groups in float: DequantizeLinear, float Conv, QuantizeLinear), the
// generated C gives the reference evaluator's bits, and "mrvl, c" with no
// other option gives "c"'s bits with its three QLinearConvs and its
// MaxPool as int16 MLIP layers in one region, on every tiling of tilings()
// (all eight with MLIPC_TEST_FULL=1).
TEST(Qdq16x8, WithinOneStepOfOnnxruntime) {
  const fs::path dir = kModels / "q16_qdq_cnn";
  const fs::path onnx = dir / "model.onnx";
  const Graph g = frontend::import_onnx(onnx);
  io::NamedTensors in = {{g.inputs[0].name, frontend::load_tensor_pb(dir / "test_data_set_0/input_0.pb")}};
  driver::CompileResult r;
  const io::NamedTensors got = compile_and_run(onnx, in, {}, &r);
  int convs = 0, clips = 0, floats = 0, clamped = 0;
  for (const Node& n : r.graph.nodes) {
    convs += n.op == "QLinearConv" && r.graph.value(n.inputs[0]).dtype == DType::Int16;
    clamped += n.op == "QLinearConv" && n.attrs.get_int("mlipc_clamp_lo", -32768) == 0;  // the Relus
    clips += n.op == "Clip";
    floats += n.op == "Conv" || n.op == "Gemm" || (n.op == "MaxPool" && r.graph.value(n.inputs[0]).dtype != DType::Int16);
  }
  EXPECT_EQ(convs, 3);
  EXPECT_EQ(clamped, 2);
  EXPECT_EQ(clips, 0);
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
  EXPECT_EQ(rm.mlip.regions.size(), 1u);
  for (const auto& n : rm.mlip.cpu_nodes)  // x's quantization and the output's dequantization only
    if (n.op != "QuantizeLinear" && n.op != "DequantizeLinear")
      ADD_FAILURE() << n.op << " '" << n.node << "' on the CPU: " << n.reason;
  size_t maxpools = 0;  // the MaxPool an int16 MAXPOOL layer
  for (const auto& region : rm.mlip.regions)
    for (const auto& l : region->report.layers) maxpools += l.kind == "maxpool" && l.dtype == "int16";
  EXPECT_EQ(maxpools, 1u);
  // The same bits on every tiling of tilings() (the MAXPOOL's rows split
  // across the tiles), weights pinned in OCM or streamed.
  for (const Tiling& t : tilings()) {
    driver::CompileOptions mt = m;
    mt.mlip.num_tiles = t.tiles;
    mt.mlip.wb_pin_ocm = t.pin;
    SCOPED_TRACE(fmt::format("tiles {} pin {}", t.tiles, t.pin));
    driver::CompileResult rt;
    EXPECT_EQ(compile_and_run(onnx, in, mt, &rt)[0].second, got[0].second);
    EXPECT_EQ(rt.mlip.regions.size(), 1u);
  }
}

// AveragePool in 16x8: tests/gen/gen_q16.py's q16_qdq_pool (Conv, Relu,
// AveragePool 3x3 stride 2 pads 1, Conv 1x1, AveragePool 2x2 with a padded
// first row, ceil_mode and count_include_pad as the output; int16
// activations) folds into two int16 QLinearAveragePools (int64 sums,
// mlip_requantize64), nothing left float; its output is within one output
// step of onnxruntime-node's (which averages in float between
// DequantizeLinear and QuantizeLinear), the generated C gives the reference
// evaluator's bits, and "mrvl, c" runs the whole model as one int16 region
// (two AVGPOOL layers) with "c"'s bits on 1, 2 and 8 tiles (the pools' rows
// split across them), pinned or streamed weights.
TEST(Qdq16x8, AveragePoolWithinOneStepOfOnnxruntime) {
  const fs::path dir = kModels / "q16_qdq_pool";
  const fs::path onnx = dir / "model.onnx";
  const Graph g = frontend::import_onnx(onnx);
  io::NamedTensors in = {{g.inputs[0].name, frontend::load_tensor_pb(dir / "test_data_set_0/input_0.pb")}};
  driver::CompileResult r;
  const io::NamedTensors got = compile_and_run(onnx, in, {}, &r);
  int pools = 0, floats = 0;
  for (const Node& n : r.graph.nodes) {
    pools += n.op == "QLinearAveragePool" && r.graph.value(n.inputs[0]).dtype == DType::Int16;
    floats += n.op == "AveragePool" || n.op == "Conv";
  }
  EXPECT_EQ(pools, 2);
  EXPECT_EQ(floats, 0);
  EXPECT_TRUE(r.float_notes.empty());
  const TensorData want = frontend::load_tensor_pb(dir / "test_data_set_0/output_0.pb");
  const float step = output_step(r.graph, 0);
  ASSERT_TRUE(std::isfinite(step));
  const StepCounts c = step_counts(got[0].second, want, step);
  fmt::print("q16_qdq_pool vs onnxruntime: {} elements, {} within one step (step {}, worst {:.3f})\n", c.n, c.one,
             step, c.worst);
  // One step, measured on float32 outputs: two dequantized values up to
  // 32767 steps large each carry up to half an ulp, 32767 * 2^-24 steps.
  EXPECT_LE(c.worst, 1.0 + 2 * 32767.0 / 16777216.0);
  EXPECT_EQ(got[0].second, evaluate(r.graph, {in[0].second})[0]);
  for (auto [tiles, pin] : {std::pair{1, false}, std::pair{2, true}, std::pair{8, false}}) {
    driver::CompileOptions m;
    m.target = "mrvl, c";
    m.mlip.num_tiles = tiles;
    m.mlip.wb_pin_ocm = pin;
    SCOPED_TRACE(fmt::format("tiles {} pin {}", tiles, pin));
    driver::CompileResult rm;
    EXPECT_EQ(compile_and_run(onnx, in, m, &rm)[0].second, got[0].second);
    EXPECT_EQ(rm.mlip.regions.size(), 1u);
    for (const auto& n : rm.mlip.cpu_nodes)  // x's quantization and the output's dequantization only
      if (n.op != "QuantizeLinear" && n.op != "DequantizeLinear")
        ADD_FAILURE() << n.op << " '" << n.node << "' on the CPU: " << n.reason;
    size_t avgpools = 0;
    for (const auto& region : rm.mlip.regions)
      for (const auto& l : region->report.layers) avgpools += l.kind == "avgpool" && l.dtype == "int16";
    EXPECT_EQ(avgpools, 2u);
  }
}

// MatMul in 16x8: tests/gen/gen_q16.py's q16_qdq_attn (attention's
// products on int16: q, k, v projections by constant int8 matrices, q k^T
// and s v of two computed int16 tensors, a product by a constant int8
// batch of matrices [2, 8, 4]) folds into three QLinearConvs (the
// projections) and three 16x8 QLinearMatMuls (int64 sums), nothing left
// float; within one output step of onnxruntime-node, the generated C gives
// the reference evaluator's bits, and "mrvl, c" runs the whole model as one
// int16 region (three FCs, a PERMUTE of two-byte elements for k^T, three
// int16 MATMULs: two of int16 operands, one by the constant int8 batch)
// with "c"'s bits on the short tilings (onnxruntime's requantization mode
// on one of them).
TEST(Qdq16x8, MatMulOfTwoInt16TensorsWithinOneStepOfOnnxruntime) {
  const fs::path dir = kModels / "q16_qdq_attn";
  const fs::path onnx = dir / "model.onnx";
  const Graph g = frontend::import_onnx(onnx);
  io::NamedTensors in = {{g.inputs[0].name, frontend::load_tensor_pb(dir / "test_data_set_0/input_0.pb")}};
  driver::CompileResult r;
  const io::NamedTensors got = compile_and_run(onnx, in, {}, &r);
  int matmuls = 0, convs = 0, floats = 0;
  for (const Node& n : r.graph.nodes) {
    matmuls += n.op == "QLinearMatMul" && r.graph.value(n.inputs[0]).dtype == DType::Int16;
    convs += n.op == "QLinearConv";
    floats += n.op == "MatMul";
  }
  EXPECT_EQ(matmuls, 3);
  EXPECT_EQ(convs, 3);
  EXPECT_EQ(floats, 0);
  EXPECT_TRUE(r.float_notes.empty());
  const TensorData want = frontend::load_tensor_pb(dir / "test_data_set_0/output_0.pb");
  const float step = output_step(r.graph, 0);
  ASSERT_TRUE(std::isfinite(step));
  const StepCounts c = step_counts(got[0].second, want, step);
  fmt::print("q16_qdq_attn vs onnxruntime: {} elements, {} within one step (step {}, worst {:.3f})\n", c.n, c.one,
             step, c.worst);
  EXPECT_LE(c.worst, 1.0 + 1e-3);
  EXPECT_EQ(got[0].second, evaluate(r.graph, {in[0].second})[0]);
  for (const bool ort : {false, true}) {
    io::NamedTensors want_c = got;
    if (ort) {  // onnxruntime's arithmetic: "c" in that mode is the reference
      driver::CompileOptions co;
      co.requant = "ort";
      want_c = compile_and_run(onnx, in, co);
    }
    // onnxruntime's mode on one tiling (2 tiles, pinned): its records are
    // the same layers' with float32 pairs
    const std::vector<Tiling> ts = ort ? std::vector<Tiling>{{2, true}} : tilings();
    for (const Tiling& t : ts) {
      driver::CompileOptions m;
      m.target = "mrvl, c";
      m.mlip.num_tiles = t.tiles;
      m.mlip.wb_pin_ocm = t.pin;
      if (ort) m.requant = "ort";
      SCOPED_TRACE(fmt::format("tiles {} pin {} ort {}", t.tiles, t.pin, ort));
      driver::CompileResult rm;
      EXPECT_EQ(compile_and_run(onnx, in, m, &rm)[0].second, want_c[0].second);
      EXPECT_EQ(rm.mlip.regions.size(), 1u);
      for (const auto& cn : rm.mlip.cpu_nodes)  // x's quantization and the output's dequantization only
        if (cn.op != "QuantizeLinear" && cn.op != "DequantizeLinear")
          ADD_FAILURE() << cn.op << " '" << cn.node << "' on the CPU: " << cn.reason;
      size_t mm16 = 0, permutes = 0;
      for (const auto& region : rm.mlip.regions)
        for (const auto& l : region->report.layers) {
          mm16 += l.kind == "matmul" && l.dtype == "int16";
          permutes += l.kind == "permute";
        }
      EXPECT_EQ(mm16, 3u);
      EXPECT_EQ(permutes, 1u);
    }
  }
}

// A com.microsoft int16 QuantizeLinear/DequantizeLinear pair (zero point
// 0, as tests/gen/gen_q16.py writes them) on t at `scale`: the
// DequantizeLinear's output.
std::string qdq16(OnnxBuilder& b, const std::string& t, float scale) {
  b.initializer(t + "_s", TensorData::from<float>({}, {scale}));
  b.initializer(t + "_z", TensorData::from<int16_t>({}, {0}));
  b.node("QuantizeLinear", {t, t + "_s", t + "_z"}, {t + "_q"}, {}, t + "_Q").in_domain("com.microsoft");
  b.node("DequantizeLinear", {t + "_q", t + "_s", t + "_z"}, {t + "_dq"}, {}, t + "_DQ").in_domain("com.microsoft");
  return t + "_dq";
}

// A 16x8 QDQ residual block of random shape (com.microsoft int16
// QuantizeLinear/DequantizeLinear, zero points 0, as tests/gen/gen_q16.py
// writes them): x [n, c, h, w] quantized; a Conv 3x3 (pads 1, int8 weights
// per channel, float bias) quantized, then a Relu quantized again at the
// same scale (passes/fold_qdq: a Clip on the int16 values, which becomes
// the QLinearConv's clamp); the sum of the Relu and x, quantized; the
// product of the sum and x, quantized; its GlobalAveragePool, quantized.
// The scales are drawn so that some values saturate. Returns the model.
fs::path residual16(uint32_t seed, const Shape& x) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.5f, 2.0f);
  OnnxBuilder b(17);
  const int64_t c = x[1];
  b.input("x", DType::Float32, x);
  const std::string xd = qdq16(b, "x", 4.0f / 32767.0f);
  std::vector<int8_t> w(static_cast<size_t>(c * c * 9));
  for (int8_t& v : w) v = static_cast<int8_t>(static_cast<int>(rng() % 255) - 127);
  std::vector<float> ws(static_cast<size_t>(c)), bias(static_cast<size_t>(c));
  for (int64_t k = 0; k < c; ++k) {
    ws[static_cast<size_t>(k)] = 0.01f * u(rng);
    bias[static_cast<size_t>(k)] = u(rng) - 1.25f;
  }
  b.initializer("w_q", TensorData::from<int8_t>({c, c, 3, 3}, w));
  b.initializer("w_s", TensorData::from<float>({c}, ws));
  b.initializer("w_z", TensorData::from<int8_t>({c}, std::vector<int8_t>(static_cast<size_t>(c), 0)));
  b.initializer("bias", TensorData::from<float>({c}, bias));
  b.node("DequantizeLinear", {"w_q", "w_s", "w_z"}, {"w_dq"}, {{"axis", int64_t{0}}}, "w_DQ");
  b.node("Conv", {xd, "w_dq", "bias"}, {"conv"}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}, "conv");
  const float sc = 0.5f * u(rng) * static_cast<float>(c) / 32767.0f;
  const std::string cd = qdq16(b, "conv", sc);
  b.node("Relu", {cd}, {"relu"}, {}, "relu");
  const std::string rd = qdq16(b, "relu", sc);
  b.node("Add", {rd, xd}, {"sum"}, {}, "add");
  const std::string sd = qdq16(b, "sum", 0.7f * u(rng) * (4.0f + static_cast<float>(c)) / 32767.0f);
  b.node("Mul", {sd, xd}, {"prod"}, {}, "mul");
  const std::string pd = qdq16(b, "prod", 2.0f * u(rng) * (4.0f + static_cast<float>(c)) / 32767.0f);
  b.node("GlobalAveragePool", {pd}, {"gap"}, {}, "gap");
  const std::string gd = qdq16(b, "gap", 0.3f * u(rng) * (4.0f + static_cast<float>(c)) / 32767.0f);
  b.output(gd);
  return b.save(scratch_dir(), fmt::format("q16_residual_{}.onnx", seed));
}

// 16x8 Clip (folded into the QLinearConv's clamp), QLinearAdd, QLinearMul
// and QLinearGlobalAveragePool on the MLIP (docs/mlip-spec.md 4a): the
// residual block above on random shapes is one int16 region (CONV2D, ADD,
// ELTWISE, GLOBAL_AVGPOOL; on the CPU only x's QuantizeLinear and the
// output's DequantizeLinear), its output the "c" build's
// bit for bit on every tiling of tilings(); the
// "c" build's the reference evaluator's (the Clip gone: the convolution
// clamps).
TEST(Residual16x8, ClipAddMulAndGlobalAveragePoolOnTheMlip) {
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    std::mt19937 rng(seed * 7919u);
    const Shape x = {static_cast<int64_t>(1 + rng() % 2), static_cast<int64_t>(1 + rng() % 12),
                     static_cast<int64_t>(1 + rng() % 9), static_cast<int64_t>(1 + rng() % 9)};
    SCOPED_TRACE(fmt::format("seed {} x [{}, {}, {}, {}]", seed, x[0], x[1], x[2], x[3]));
    const fs::path onnx = residual16(seed, x);
    const io::NamedTensors in = {{"x", random_tensor(DType::Float32, x, seed, -4.5, 4.5)}};
    driver::CompileOptions c_opt;
    c_opt.target = "c";
    driver::CompileResult rc;
    const io::NamedTensors want = compile_and_run(onnx, in, c_opt, &rc);
    size_t clips = 0, clamped = 0;
    for (const Node& n : rc.graph.nodes) {
      clips += n.op == "Clip";
      clamped += n.op == "QLinearConv" && n.attrs.get_int("mlipc_clamp_lo", -32768) == 0;
    }
    EXPECT_EQ(clips, 0u);
    EXPECT_EQ(clamped, 1u);  // the Relu: the convolution's clamp [0, 32767]
    EXPECT_TRUE(rc.float_notes.empty());
    EXPECT_EQ(want[0].second, evaluate(rc.graph, {in[0].second})[0]);
    for (const Tiling& t : tilings()) {
      SCOPED_TRACE(fmt::format("tiles {} pin {}", t.tiles, t.pin));
      driver::CompileResult r;
      const io::NamedTensors got = compile_and_run(onnx, in, mrvl_options(t.tiles, t.pin), &r);
      ASSERT_EQ(r.mlip.regions.size(), 1u);
      for (const auto& n : r.mlip.cpu_nodes)  // x's quantization and the output's dequantization only
        if (n.op != "QuantizeLinear" && n.op != "DequantizeLinear")
          ADD_FAILURE() << n.op << " '" << n.node << "' on the CPU: " << n.reason;
      std::vector<std::string> wide;  // the compute layers (not the border's relayouts, convert_in/out)
      for (const auto& l : r.mlip.regions[0]->report.layers)
        if (l.dtype == "int16" && l.kind.rfind("convert", 0) != 0) wide.push_back(l.kind);
      EXPECT_EQ(wide, (std::vector<std::string>{"conv2d", "add", "eltwise", "global_avgpool"}));
      EXPECT_EQ(got[0].second, want[0].second);
    }
  }
}

// A 16x8 QDQ MLP: x [3, 20] quantized, Gemm (int8 weights per output
// channel, float bias) quantized, Relu quantized again at the Gemm's
// scale, Gemm quantized. passes/fold_qdq makes each Gemm Reshape,
// QLinearConv 1x1, Reshape; the Relu's Clip on the int16 values becomes
// the first convolution's clamp through its Reshape. On "mrvl, c" one
// int16 region of two FC layers, bits equal to "c" on every tiling of
// tilings(); "c" equal to the reference evaluator.
TEST(Residual16x8, DenseReluIsTheDenseLayersClamp) {
  OnnxBuilder b(17);
  auto dense = [&](const std::string& name, const std::string& x, int64_t k, int64_t m, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<int8_t> w(static_cast<size_t>(m * k));
    for (int8_t& v : w) v = static_cast<int8_t>(static_cast<int>(rng() % 255) - 127);
    std::vector<float> ws(static_cast<size_t>(m)), bias(static_cast<size_t>(m));
    for (int64_t j = 0; j < m; ++j) {
      ws[static_cast<size_t>(j)] = 0.002f * static_cast<float>(1 + rng() % 8);
      bias[static_cast<size_t>(j)] = 0.1f * static_cast<float>(static_cast<int>(rng() % 21) - 10);
    }
    b.initializer(name + "_wq", TensorData::from<int8_t>({m, k}, w));
    b.initializer(name + "_ws", TensorData::from<float>({m}, ws));
    b.initializer(name + "_wz", TensorData::from<int8_t>({m}, std::vector<int8_t>(static_cast<size_t>(m), 0)));
    b.initializer(name + "_b", TensorData::from<float>({m}, bias));
    b.node("DequantizeLinear", {name + "_wq", name + "_ws", name + "_wz"}, {name + "_w"}, {{"axis", int64_t{0}}},
           name + "_wDQ");
    b.node("Gemm", {x, name + "_w", name + "_b"}, {name}, {{"transB", int64_t{1}}}, name);
    return name;
  };
  b.input("x", DType::Float32, {3, 20});
  const std::string xd = qdq16(b, "x", 4.0f / 32767.0f);
  const std::string h = qdq16(b, dense("fc1", xd, 20, 12, 3), 3.0f / 32767.0f);
  b.node("Relu", {h}, {"relu"}, {}, "relu");
  const std::string r = qdq16(b, "relu", 3.0f / 32767.0f);
  b.output(qdq16(b, dense("fc2", r, 12, 5, 4), 2.0f / 32767.0f));
  const fs::path onnx = b.save(scratch_dir(), "q16_mlp_relu.onnx");
  const io::NamedTensors in = {{"x", random_tensor(DType::Float32, {3, 20}, 9, -4.0, 4.0)}};
  driver::CompileOptions c_opt;
  c_opt.target = "c";
  driver::CompileResult rc;
  const io::NamedTensors want = compile_and_run(onnx, in, c_opt, &rc);
  size_t clips = 0, clamped = 0;
  for (const Node& n : rc.graph.nodes) {
    clips += n.op == "Clip";
    clamped += n.op == "QLinearConv" && n.attrs.get_int("mlipc_clamp_lo", -32768) == 0;
  }
  EXPECT_EQ(clips, 0u);
  EXPECT_EQ(clamped, 1u);
  EXPECT_TRUE(rc.float_notes.empty());
  EXPECT_EQ(want[0].second, evaluate(rc.graph, {in[0].second})[0]);
  for (const Tiling& t : tilings()) {
    SCOPED_TRACE(fmt::format("tiles {} pin {}", t.tiles, t.pin));
    driver::CompileResult r2;
    const io::NamedTensors got = compile_and_run(onnx, in, mrvl_options(t.tiles, t.pin), &r2);
    ASSERT_EQ(r2.mlip.regions.size(), 1u);
    size_t fcs = 0;
    for (const auto& l : r2.mlip.regions[0]->report.layers) fcs += l.kind == "fc" && l.dtype == "int16";
    EXPECT_EQ(fcs, 2u);
    EXPECT_EQ(got[0].second, want[0].second);
  }
}

// 16x8 Concat on the MLIP: the channel Concat of an int16 MaxPool (x's
// scale) and an int16 AveragePool (its own scale), quantized at a third
// scale (passes/fold_qdq rescales each input by a QLinearMul by an int16 1,
// int16 ELTWISEs), is an int16 CONCAT of two-byte elements in the one
// region; the output "c"'s, bit for bit, on the short tilings.
TEST(Residual16x8, ConcatOnTheMlip) {
  OnnxBuilder b(17);
  const float s = 3.0f / 32767.0f;
  b.input("x", DType::Float32, {2, 3, 6, 6});
  const std::string xd = qdq16(b, "x", s);
  const std::vector<std::pair<std::string, AttrValue>> win = {{"kernel_shape", std::vector<int64_t>{2, 2}},
                                                               {"strides", std::vector<int64_t>{2, 2}}};
  b.node("MaxPool", {xd}, {"pool"}, win, "pool");
  const std::string pd = qdq16(b, "pool", s);
  b.node("AveragePool", {xd}, {"avg"}, win, "avg");
  const std::string ad = qdq16(b, "avg", 1.7f / 32767.0f);
  b.node("Concat", {pd, ad}, {"cat"}, {{"axis", int64_t{1}}}, "cat");
  b.output(qdq16(b, "cat", 2.5f / 32767.0f));
  const fs::path onnx = b.save(scratch_dir(), "q16_concat.onnx");
  const io::NamedTensors in = {{"x", random_tensor(DType::Float32, {2, 3, 6, 6}, 12, -3.0, 3.0)}};
  driver::CompileOptions c_opt;
  c_opt.target = "c";
  driver::CompileResult rc;
  const io::NamedTensors want = compile_and_run(onnx, in, c_opt, &rc);
  size_t concats = 0;
  for (const Node& n : rc.graph.nodes) concats += n.op == "Concat" && rc.graph.value(n.outputs[0]).dtype == DType::Int16;
  EXPECT_EQ(concats, 1u);
  EXPECT_EQ(want[0].second, evaluate(rc.graph, {in[0].second})[0]);
  for (const Tiling& t : tilings()) {
    SCOPED_TRACE(fmt::format("tiles {} pin {}", t.tiles, t.pin));
    driver::CompileResult r;
    const io::NamedTensors got = compile_and_run(onnx, in, mrvl_options(t.tiles, t.pin), &r);
    ASSERT_EQ(r.mlip.regions.size(), 1u);
    for (const auto& n : r.mlip.cpu_nodes)
      if (n.op != "QuantizeLinear" && n.op != "DequantizeLinear")
        ADD_FAILURE() << n.op << " '" << n.node << "' on the CPU: " << n.reason;
    size_t cat16 = 0;
    for (const auto& l : r.mlip.regions[0]->report.layers) cat16 += l.kind == "concat" && l.dtype == "int16";
    EXPECT_EQ(cat16, 1u);
    EXPECT_EQ(got[0].second, want[0].second);
  }
}

// A 16x8 Clip that follows no QLinearConv, QLinearAdd or QLinearMul (here
// a MaxPool's output) stays a Clip on the int16 values; on the MLIP it is
// an int16 ELTWISE of its own (a product by 1, exact, with the Clip's
// bounds as the clamp): x [2, 5, 6, 6] quantized, MaxPool 2x2, Clip to
// [-0.5, 1.0] at the same scale, GlobalAveragePool. One int16 region
// (MAXPOOL, ELTWISE, GLOBAL_AVGPOOL), bits equal to "c" on every tiling of
// tilings(); "c" equal to the reference evaluator.
TEST(Residual16x8, ClipAfterAPoolIsAnInt16Eltwise) {
  OnnxBuilder b(17);
  const float s = 3.0f / 32767.0f;
  b.input("x", DType::Float32, {2, 5, 6, 6});
  const std::string xd = qdq16(b, "x", s);
  b.node("MaxPool", {xd}, {"pool"}, {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}},
         "pool");
  const std::string pd = qdq16(b, "pool", s);
  b.initializer("lo", TensorData::from<float>({}, {-0.5f}));
  b.initializer("hi", TensorData::from<float>({}, {1.0f}));
  b.node("Clip", {pd, "lo", "hi"}, {"clip"}, {}, "clip");
  const std::string cd = qdq16(b, "clip", s);
  b.node("GlobalAveragePool", {cd}, {"gap"}, {}, "gap");
  b.output(qdq16(b, "gap", 1.0f / 32767.0f));
  const fs::path onnx = b.save(scratch_dir(), "q16_pool_clip.onnx");
  const io::NamedTensors in = {{"x", random_tensor(DType::Float32, {2, 5, 6, 6}, 11, -3.0, 3.0)}};
  driver::CompileOptions c_opt;
  c_opt.target = "c";
  driver::CompileResult rc;
  const io::NamedTensors want = compile_and_run(onnx, in, c_opt, &rc);
  size_t clips = 0;
  for (const Node& n : rc.graph.nodes) clips += n.op == "Clip" && rc.graph.value(n.inputs[0]).dtype == DType::Int16;
  EXPECT_EQ(clips, 1u);
  EXPECT_TRUE(rc.float_notes.empty());
  EXPECT_EQ(want[0].second, evaluate(rc.graph, {in[0].second})[0]);
  for (const Tiling& t : tilings()) {
    SCOPED_TRACE(fmt::format("tiles {} pin {}", t.tiles, t.pin));
    driver::CompileResult r;
    const io::NamedTensors got = compile_and_run(onnx, in, mrvl_options(t.tiles, t.pin), &r);
    ASSERT_EQ(r.mlip.regions.size(), 1u);
    for (const auto& n : r.mlip.cpu_nodes)
      if (n.op != "QuantizeLinear" && n.op != "DequantizeLinear")
        ADD_FAILURE() << n.op << " '" << n.node << "' on the CPU: " << n.reason;
    std::vector<std::string> wide;
    for (const auto& l : r.mlip.regions[0]->report.layers)
      if (l.dtype == "int16" && l.kind.rfind("convert", 0) != 0) wide.push_back(l.kind);
    EXPECT_EQ(wide, (std::vector<std::string>{"maxpool", "eltwise", "global_avgpool"}));
    EXPECT_EQ(got[0].second, want[0].second);
  }
}

}  // namespace
}  // namespace mlipc::test::e2e_ptq_16x8
