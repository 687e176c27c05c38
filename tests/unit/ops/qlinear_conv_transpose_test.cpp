// The integer ConvTranspose (mlipc.QLinearConvTranspose) that
// passes/fold_qdq makes of a QDQ ConvTranspose: the reference on
// hand-computed values, the generated C against the reference bit for bit
// over groups, strides, dilations, pads, output_padding, auto_pad and
// output_shape (negative pads), 1-D to 3-D, int8 and uint8, per-tensor and
// per-channel (axis 1) weight scales, with and without bias and a fused
// Relu; and the integers within one step of the float graph (DequantizeLinear
// -> float ConvTranspose -> QuantizeLinear, what onnxruntime runs).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "ops/evaluator.h"
#include "ops/conv_transpose.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_qlinear_conv_transpose {
namespace {

namespace fs = std::filesystem;
using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using Attr = std::pair<std::string, AttrValue>;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("qconvt_{}.onnx", k++));
}

int64_t group_of(const std::vector<Attr>& attrs) {
  for (const auto& [k, v] : attrs)
    if (k == "group") return std::get<int64_t>(v);
  return 1;
}

// x (int8/uint8 input) -> DequantizeLinear -> ConvTranspose (weights and bias
// through DequantizeLinear) [-> Relu] -> QuantizeLinear -> y (the input's type).
struct QCase {
  std::string name;
  Shape x, w;  // w: [C, M/group, k...]
  std::vector<Attr> attrs;
  bool uint8 = false, bias = true, per_channel = true, relu = false;
};

fs::path qdq_model(const QCase& c, uint32_t seed) {
  const DType t = c.uint8 ? DType::UInt8 : DType::Int8;
  const int64_t ocg = c.w[1], m = ocg * group_of(c.attrs);
  OnnxBuilder b(13);
  b.input("x", t, c.x);
  b.initializer("xs", TensorData::scalar<float>(0.04f));
  b.initializer("ys", TensorData::scalar<float>(0.09f));
  if (c.uint8) {
    b.initializer("xz", TensorData::scalar<uint8_t>(121)).initializer("yz", TensorData::scalar<uint8_t>(118));
  } else {
    b.initializer("xz", TensorData::scalar<int8_t>(-7)).initializer("yz", TensorData::scalar<int8_t>(5));
  }
  b.initializer("w", random_tensor(DType::Int8, c.w, seed, -127, 127));
  std::vector<float> ws;
  for (int64_t j = 0; j < ocg; ++j) ws.push_back(0.003f + 0.0011f * static_cast<float>(j));
  if (c.per_channel) {
    b.initializer("ws", TensorData::from<float>({ocg}, ws));
    b.initializer("wz", TensorData::from<int8_t>({ocg}, std::vector<int8_t>(static_cast<size_t>(ocg), 0)));
  } else {
    b.initializer("ws", TensorData::scalar<float>(ws[0])).initializer("wz", TensorData::scalar<int8_t>(0));
  }
  b.node("DequantizeLinear", {"x", "xs", "xz"}, {"xd"}, {}, "dqx");
  b.node("DequantizeLinear", {"w", "ws", "wz"}, {"wd"}, {{"axis", int64_t{1}}}, "dqw");
  std::vector<std::string> in = {"xd", "wd"};
  if (c.bias) {
    b.initializer("b", random_tensor(DType::Float32, {m}, seed + 1, -0.5, 0.5));
    in.push_back("b");  // a float bias: the folding quantizes it at x_scale * w_scale[c % (M/group)]
  }
  b.node("ConvTranspose", in, {"c"}, c.attrs, "convt");
  std::string q_in = "c";
  if (c.relu) {
    b.node("Relu", {"c"}, {"r"}, {}, "relu");
    q_in = "r";
  }
  b.node("QuantizeLinear", {q_in, "ys", "yz"}, {"y"}, {}, "qy").output("y");
  return save(b);
}

// The generated C gives the folded graph's reference bits, and the integers
// are within one step of the float graph's.
void expect_case(const QCase& c, uint32_t seed) {
  SCOPED_TRACE(c.name);
  const fs::path p = qdq_model(c, seed);
  const DType t = c.uint8 ? DType::UInt8 : DType::Int8;
  const TensorData x = random_tensor(t, c.x, seed + 2, c.uint8 ? 0 : -128, c.uint8 ? 255 : 127);
  driver::CompileResult r;
  const io::NamedTensors got = test::compile_and_run(p, {{"x", x}}, {}, &r);
  ASSERT_EQ(std::count_if(r.graph.nodes.begin(), r.graph.nodes.end(),
                          [](const Node& n) { return n.op == ops::kQConvTransposeOp; }),
            1);
  EXPECT_TRUE(r.float_notes.empty());
  const std::vector<TensorData> want = evaluate(r.graph, {x});
  EXPECT_EQ(test::compare(got[0].second, want[0], 0, 0), "");
  EXPECT_EQ(test::compare(got[0].second, test::reference_run(p, {{"x", x}})[0].second, 0, 1), "");
}

TEST(QLinearConvTranspose, ReferenceHandComputed) {
  // x = [3, -1] - 1 = [2, -2]; w = [1, 10, 100]; stride 2: the sums are 2,
  // 20, 200 - 2, -20, -200; bias 6 (1.5 at 0.25) gives 8, 26, 204, -14,
  // -194; times 0.25 (q 2^30, shift -1: high multiply ties toward
  // +infinity, then the shift's ties away from zero) 2, 7, 51, -4, -49;
  // plus 10.
  OnnxBuilder b(13);
  b.input("x", DType::Int8, {1, 1, 2});
  b.initializer("xs", TensorData::scalar<float>(0.5f)).initializer("xz", TensorData::scalar<int8_t>(1));
  b.initializer("w", TensorData::from<int8_t>({1, 1, 3}, {1, 10, 100}));
  b.initializer("ws", TensorData::scalar<float>(0.5f));
  b.initializer("b", TensorData::from<float>({1}, {1.5f}));
  b.initializer("ys", TensorData::scalar<float>(1.0f)).initializer("yz", TensorData::scalar<int8_t>(10));
  b.node("DequantizeLinear", {"x", "xs", "xz"}, {"xd"}, {}, "dqx");
  b.node("DequantizeLinear", {"w", "ws"}, {"wd"}, {}, "dqw");
  b.node("ConvTranspose", {"xd", "wd", "b"}, {"c"}, {{"strides", ints{2}}}, "convt");
  b.node("QuantizeLinear", {"c", "ys", "yz"}, {"y"}, {}, "qy").output("y");
  const fs::path p = save(b);
  driver::CompileResult r;
  const TensorData x = TensorData::from<int8_t>({1, 1, 2}, {3, -1});
  const io::NamedTensors got = test::compile_and_run(p, {{"x", x}}, {}, &r);
  const TensorData want = TensorData::from<int8_t>({1, 1, 5}, {12, 17, 61, 6, -39});
  EXPECT_EQ(test::compare(got[0].second, want, 0, 0), "");
  EXPECT_EQ(test::compare(evaluate(r.graph, {x})[0], want, 0, 0), "");
}

TEST(QLinearConvTranspose, GeneratedCMatchesReference) {
  const std::vector<QCase> cases = {
      {"2d", {2, 3, 5, 4}, {3, 2, 3, 3}, {{"strides", ints{2, 3}}, {"pads", ints{1, 0, 2, 1}}, {"output_padding", ints{1, 2}}}},
      {"2d_dil_group_uint8_relu", {1, 4, 4, 5}, {4, 3, 2, 3},
       {{"group", int64_t{2}}, {"dilations", ints{2, 1}}, {"strides", ints{1, 2}}}, true, true, true, true},
      {"2d_same_upper_per_tensor", {1, 2, 3, 4}, {2, 2, 3, 3},
       {{"auto_pad", std::string("SAME_UPPER")}, {"strides", ints{2, 2}}}, false, false, false},
      {"2d_output_shape", {1, 1, 3, 3}, {1, 2, 3, 3}, {{"output_shape", ints{10, 8}}, {"strides", ints{3, 2}}}},
      {"2d_valid_depthwise_relu", {1, 3, 4, 4}, {3, 1, 2, 2},
       {{"auto_pad", std::string("VALID")}, {"group", int64_t{3}}, {"strides", ints{2, 2}}}, true, true, true, true},
      {"1d", {2, 4, 7}, {4, 3, 4}, {{"group", int64_t{2}}, {"strides", ints{3}}, {"pads", ints{2, 1}}, {"dilations", ints{2}}}},
      {"3d_uint8", {1, 2, 3, 4, 3}, {2, 2, 2, 3, 2},
       {{"strides", ints{2, 1, 2}}, {"pads", ints{1, 0, 0, 0, 1, 1}}, {"output_padding", ints{1, 0, 1}}}, true},
  };
  uint32_t seed = 1;
  for (const QCase& c : cases) expect_case(c, seed += 10);
}

// Random geometries, one model per seed.
TEST(QLinearConvTranspose, GeneratedCMatchesReferenceRandomized) {
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    std::mt19937 rng(seed * 31);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int64_t group = pick(1, 2);
    Shape x = {pick(1, 2), group * pick(1, 3), pick(2, 6), pick(2, 6)}, w = {x[1], pick(1, 3)};
    ints strides, dil, pads_b, pads_e, opad;
    for (int i = 0; i < 2; ++i) {
      w.push_back(pick(1, 3));
      strides.push_back(pick(1, 3));
      dil.push_back(pick(1, 2));
      opad.push_back(pick(0, static_cast<int>(std::max(strides.back(), dil.back())) - 1));
      pads_b.push_back(pick(0, static_cast<int>(w.back() - 1)));
      pads_e.push_back(pick(0, static_cast<int>(w.back() - 1)));
    }
    ints pads = pads_b;
    pads.insert(pads.end(), pads_e.begin(), pads_e.end());
    expect_case({"rand" + std::to_string(seed), x, w,
                 {{"group", group}, {"strides", strides}, {"dilations", dil}, {"pads", pads}, {"output_padding", opad}},
                 seed % 2 == 0, seed % 3 != 0, true, seed % 2 == 1},
                seed * 100);
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_qlinear_conv_transpose
