// 4-bit weights (--weight-bits 4) end to end:
// - the digits CNN calibrated on 200 images (tests/data/ptq/
//   digits_calib200.npz) and scored on the 397 test images through the
//   generated program at 4 bits on "c": top-1 accuracy within 2 points of
//   fp32 (388/397), its constants about half the 8-bit build's; on
//   "mrvl, c" (the full mode: MLIPC_TEST_FULL=1) the 4-bit layers run on
//   the MLIP (CONV2D and FC reading packed rows), their weights about half
//   the 8-bit build's, and the outputs are those of "c" on every tiling of
//   tilings();
// - a small Conv + Relu + Gemm model: the 4-bit build's outputs are
//   bit-identical to an 8-bit build of the same weight values (its
//   --emit-qdq model compiled as a QDQ model), on "c" (the generated code
//   reads nibbles, mlip_kq4_conv) and on "mrvl, c" (both layers on the MLIP
//   with 4-bit weights, on every tiling of tilings()).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <random>

#include "driver/compile.h"
#include "frontend/onnx_import.h"
#include "host/host_model.h"
#include "io/npz.h"
#include "ops/evaluator.h"
#include "support/file_util.h"
#include "digits_ptq.h"
#include "models.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/tensors.h"

namespace fs = std::filesystem;

namespace mlipc::test::e2e_ptq_int4 {
namespace {

const fs::path kData = fs::path(MLIPC_TEST_DATA);

using digits_ptq::digits_model;
using digits_ptq::sample;

host::HostModel build(const driver::CompileResult& r, const std::string& tag) {
  return digits_ptq::build_program(r, "ptq_int4_" + tag);
}

driver::CompileOptions options(const std::string& target, const fs::path& calibration, int bits) {
  driver::CompileOptions o;
  o.target = target;
  if (target == "c") o.quantize = "int8";
  else o.mlip.quantize = "int8";
  o.calibration = calibration;
  o.quantize_options.weight_bits = bits;
  return o;
}

int digits_correct(const driver::CompileResult& r, const std::string& tag, std::vector<TensorData>* outputs) {
  return digits_ptq::digits_correct(r, "ptq_int4_" + tag, outputs);
}

size_t four_bit_layers(const driver::CompileResult& r) {
  size_t n = 0;
  for (const auto& l : r.quantization->layers) n += l.int8 && l.weight_bits == 4;
  return n;
}

TEST(PtqInt4, DigitsWithinTwoPointsOfFp32AndHalfTheConstants) {
  const fs::path calib = kData / "ptq" / "digits_calib200.npz";
  // The 8-bit build only for its constants' size, which the samples do not
  // change: calibrated on 8 of them, to keep the test short.
  io::NamedTensors few = io::read_npz(calib);
  few[0].second = sample(few[0].second, 0, {8, 1, 28, 28});
  const fs::path calib8 = scratch_dir() / "ptq_int4_digits_calib8.npz";
  io::write_npz(calib8, few);
  const driver::CompileResult r8 = driver::compile_model(digits_model(), options("c", calib8, 8));
  const driver::CompileResult r4 = driver::compile_model(digits_model(), options("c", calib, 4));
  EXPECT_EQ(four_bit_layers(r8), 0u);
  EXPECT_EQ(four_bit_layers(r4), 4u);  // both Convs and both Gemms (of 6 layers: the MaxPools have no weights)
  for (const auto& l : r4.quantization->layers) EXPECT_TRUE(l.int8) << l.node << ": " << l.why;
  const std::string lib = r4.files.at("codegen/host/src/default_lib1.c");
  EXPECT_THAT(lib, ::testing::HasSubstr("mlip_kq4_conv("));
  EXPECT_THAT(lib, ::testing::Not(::testing::HasSubstr("mlip_kq8_conv(")));
  const double ratio = static_cast<double>(r4.module.constants_size) / static_cast<double>(r8.module.constants_size);
  const int correct = digits_correct(r4, "digits_c", nullptr);
  fmt::print("digits --weight-bits 4 on c: {}/397 = {:.2f}% (fp32 388/397 = 97.73%), output SQNR {:.1f} dB; constants "
             "{} bytes (8-bit {}, ratio {:.3f})\n",
             correct, 100.0 * correct / 397, r4.quantization->outputs[0].sqnr_db, r4.module.constants_size,
             r8.module.constants_size, ratio);
  EXPECT_LE(std::abs(correct - 388) * 100.0 / 397, 2.0);
  EXPECT_LT(ratio, 0.6);
}

// The bytes of the MLIP's weights (every region's WEIGHTS section), and how
// many CONV2D and FC layers read 4-bit weights (their nodes JSON says so).
struct MlipWeights {
  uint64_t bytes = 0;
  size_t four_bit_layers = 0, layers = 0;
};
MlipWeights mlip_weights(const driver::CompileResult& r) {
  MlipWeights w;
  for (const auto& region : r.mlip.regions) {
    w.bytes += region->report.weight_bytes;
    w.layers += region->report.layers.size();
    // the key only a 4-bit layer has (layers::json_weights)
    for (size_t at = region->nodes_json.find("\"weight_bits\""); at != std::string::npos;
         at = region->nodes_json.find("\"weight_bits\"", at + 1))
      ++w.four_bit_layers;
  }
  return w;
}

driver::CompileOptions tiled(driver::CompileOptions o, const Tiling& t) {
  o.mlip.num_tiles = t.tiles;
  o.mlip.wb_pin_ocm = t.pin;
  return o;
}

// "mrvl, c": the 4-bit layers run on the MLIP (no node stays on the CPU for
// its 4-bit weights), their weights about half the 8-bit build's, and the
// outputs on the 397 images are "c"'s on every tiling. Left to the full
// mode by scripts/test.sh's FULL_ONLY (PTQ builds are slow; the small model
// below checks the same in the default mode).
TEST(PtqInt4, DigitsOnMrvlRunsFourBitLayersOnTheMlip) {
  const fs::path calib = kData / "ptq" / "digits_calib200.npz";
  const driver::CompileResult rc = driver::compile_model(digits_model(), options("c", calib, 4));
  std::vector<TensorData> oc;
  const int cc = digits_correct(rc, "digits_c_again", &oc);
  bool first = true;
  for (const Tiling& t : tilings()) {
    SCOPED_TRACE(fmt::format("{} tiles, pin {}", t.tiles, t.pin));
    const driver::CompileResult rm = driver::compile_model(digits_model(), tiled(options("mrvl, c", calib, 4), t));
    for (const auto& n : rm.mlip.cpu_nodes)
      EXPECT_EQ(n.reason.find("4-bit weights"), std::string::npos) << n.node << ": " << n.reason;
    const MlipWeights w4 = mlip_weights(rm);
    EXPECT_EQ(w4.four_bit_layers, 4u);  // both Convs and both Gemms
    if (first) {  // the 8-bit build's weights (its calibration does not change their size)
      const driver::CompileResult r8 = driver::compile_model(digits_model(), tiled(options("mrvl, c", calib, 8), t));
      const MlipWeights w8 = mlip_weights(r8);
      EXPECT_EQ(w8.four_bit_layers, 0u);
      fmt::print("digits on \"mrvl, c\": MLIP weights {} bytes at 4 bits, {} at 8 (ratio {:.3f}), {} layers on the "
                 "MLIP\n",
                 w4.bytes, w8.bytes, static_cast<double>(w4.bytes) / static_cast<double>(w8.bytes), w4.layers);
      EXPECT_LT(static_cast<double>(w4.bytes), 0.6 * static_cast<double>(w8.bytes));
      first = false;
    }
    std::vector<TensorData> om;
    const int cm = digits_correct(rm, fmt::format("digits_mrvl_t{}p{}", t.tiles, t.pin), &om);
    EXPECT_EQ(cc, cm);
    EXPECT_EQ(oc, om);
  }
}

// Conv (3 -> 8, 3x3) + Relu + Flatten + Gemm (8*6*6 -> 10, K = 288: nine blocks of 32).
fs::path small_model() {
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 3, 6, 6});
  b.initializer("w", random_tensor(DType::Float32, {8, 3, 3, 3}, 21));
  b.initializer("b", random_tensor(DType::Float32, {8}, 22));
  TensorData fw = random_tensor(DType::Float32, {10, 288}, 23);
  for (int64_t k = 0; k < 32; ++k) fw.data<float>()[k] *= 0.01f;  // a block far below its row's largest
  b.initializer("fw", fw);
  b.initializer("fb", random_tensor(DType::Float32, {10}, 24));
  b.node("Conv", {"x", "w", "b"}, {"c"}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}, "conv");
  b.node("Relu", {"c"}, {"r"}, {}, "relu");
  b.node("Flatten", {"r"}, {"f"}, {}, "flatten");
  b.node("Gemm", {"f", "fw", "fb"}, {"y"}, {{"transB", int64_t{1}}}, "fc");
  b.output("y");
  return b.save(scratch_dir(), "ptq_int4_small.onnx");
}

io::NamedTensors random_set(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d;
  TensorData t(DType::Float32, {n, 1, 3, 6, 6});
  for (int64_t k = 0; k < t.numel(); ++k) t.data<float>()[k] = d(rng);
  return {{"x", std::move(t)}};
}

void expect_same_bits_as_int8_values(const std::string& target) {
  const fs::path model = small_model();
  const fs::path calib = scratch_dir() / "ptq_int4_small_calib.npz";
  io::write_npz(calib, random_set(32, 1));
  const std::string tag = target == "c" ? "c" : "mrvl";
  const fs::path qdq = scratch_dir() / fmt::format("ptq_int4_small_{}.onnx", tag);
  fs::remove(qdq);
  driver::CompileOptions o = options(target, calib, 4);
  o.quantize_options.min_sqnr_db = 0.0;  // both layers at 4 bits, whatever their SQNR
  o.emit_qdq = qdq;
  const driver::CompileResult r4 = driver::compile_model(model, o);
  EXPECT_EQ(four_bit_layers(r4), 2u);
  // The emitted QDQ model (int8 DequantizeLinear of the int4 values, no
  // marks) compiled as it is: the same weights stored as int8.
  driver::CompileOptions back;
  back.target = target;
  if (target == "c") back.quantize = "int8";
  const driver::CompileResult r8 = driver::compile_model(qdq, back);
  EXPECT_LT(r4.module.constants_size, r8.module.constants_size);
  host::HostModel m8 = build(r8, "small8_" + tag);
  const io::NamedTensors others = random_set(8, 2);
  std::vector<TensorData> want;
  for (int64_t i = 0; i < 8; ++i) want.push_back(m8.run({{"x", sample(others[0].second, i, {1, 3, 6, 6})}}).outputs[0].second);
  auto expect_same = [&](const driver::CompileResult& r, const std::string& name) {
    host::HostModel m4 = build(r, name);
    for (int64_t i = 0; i < 8; ++i)
      EXPECT_EQ(m4.run({{"x", sample(others[0].second, i, {1, 3, 6, 6})}}).outputs[0].second,
                want[static_cast<size_t>(i)])
          << "input " << i;
  };
  if (target == "c") return expect_same(r4, "small4_c");
  // "mrvl, c": both layers on the MLIP with 4-bit weights (the Gemm's K =
  // 288 reads a flattened NHWC input, so its blocks are the MLIP's order's:
  // layers::q8_weight_bytes), fewer weight bytes than the 8-bit build's,
  // the 8-bit build's bits on every tiling (each its own PTQ build: the
  // model is small).
  EXPECT_EQ(mlip_weights(r4).four_bit_layers, 2u);
  EXPECT_LT(mlip_weights(r4).bytes, mlip_weights(r8).bytes);
  for (const auto& n : r4.mlip.cpu_nodes) EXPECT_NE(n.op, "QLinearConv") << n.node << ": " << n.reason;
  expect_same(r4, "small4_mrvl");
  const mlip::Options defaults;
  for (const Tiling& t : tilings()) {
    if (t.tiles == defaults.num_tiles && t.pin == defaults.wb_pin_ocm) continue;  // r4's
    SCOPED_TRACE(fmt::format("{} tiles, pin {}", t.tiles, t.pin));
    driver::CompileOptions ot = tiled(options(target, calib, 4), t);
    ot.quantize_options.min_sqnr_db = 0.0;
    const driver::CompileResult rt = driver::compile_model(model, ot);
    EXPECT_EQ(mlip_weights(rt).four_bit_layers, 2u);
    expect_same(rt, fmt::format("small4_mrvl_t{}p{}", t.tiles, t.pin));
  }
}

TEST(PtqInt4, SmallModelBitsEqualInt8ValuesOnC) { expect_same_bits_as_int8_values("c"); }
TEST(PtqInt4, SmallModelBitsEqualInt8ValuesOnMrvl) { expect_same_bits_as_int8_values("mrvl, c"); }

}  // namespace
}  // namespace mlipc::test::e2e_ptq_int4
