// ConvInteger and QLinearConv: shape rules and refusals, the reference on
// hand-computed values, and the generated C against the reference bit for
// bit over groups, strides, pads, dilations, auto_pad, bias, per-channel
// weight scales and zero points, int8 and uint8, 16x8 (int16 x or y, int64
// or int32 bias, sums beyond int32), 1-D to 3-D.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_conv_integer {
namespace {

using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("conv_integer_{}.onnx", k++));
}

template <class T>
std::vector<T> values(const TensorData& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}

TEST(ConvInteger, ReferencePaddingHoldsTheZeroPoint) {
  OnnxBuilder m;
  m.input("x", DType::UInt8, {1, 1, 2, 2});
  m.initializer("w", TensorData::from<uint8_t>({1, 1, 2, 2}, {1, 1, 1, 1}));
  m.initializer("zx", TensorData::scalar<uint8_t>(1));
  m.node("ConvInteger", {"x", "w", "zx"}, {"y"}, {{"pads", ints{1, 1, 0, 0}}}).output("y");
  const auto out = test::reference_run(save(m), {{"x", TensorData::from<uint8_t>({1, 1, 2, 2}, {2, 3, 4, 5})}});
  // x - 1 = [[1, 2], [3, 4]]; the padded row and column add nothing.
  EXPECT_EQ(out[0].second.shape(), (Shape{1, 1, 2, 2}));
  EXPECT_EQ(values<int32_t>(out[0].second), (std::vector<int32_t>{1, 3, 4, 10}));
}

TEST(QLinearConv, ReferencePerChannelWithBias) {
  OnnxBuilder m;
  m.input("x", DType::Int8, {1, 1, 1, 3});
  m.initializer("xs", TensorData::scalar<float>(0.5f)).initializer("xz", TensorData::scalar<int8_t>(1));
  m.initializer("w", TensorData::from<int8_t>({2, 1, 1, 1}, {2, -3}));
  m.initializer("ws", TensorData::from<float>({2}, {0.5f, 1.0f}));
  m.initializer("wz", TensorData::from<int8_t>({2}, {0, 0}));
  m.initializer("ys", TensorData::scalar<float>(1.0f)).initializer("yz", TensorData::scalar<uint8_t>(100));
  m.initializer("b", TensorData::from<int32_t>({2}, {4, -1}));
  m.node("QLinearConv", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"}, {"y"}).output("y");
  const auto out = test::reference_run(save(m), {{"x", TensorData::from<int8_t>({1, 1, 1, 3}, {3, -1, 127})}});
  // x - 1 = [2, -2, 126]. Channel 0: 2 * [2, -2, 126] + 4 = [8, 0, 256], * 0.25 -> [2, 0, 64] + 100.
  // Channel 1: -3 * [2, -2, 126] - 1 = [-7, 5, -379], * 0.5 -> [-3.5 -> -3, 2.5 -> 3, -189.5 -> -189] + 100 -> 0.
  EXPECT_EQ(values<uint8_t>(out[0].second), (std::vector<uint8_t>{102, 100, 164, 97, 103, 0}));
}

std::string conv_error(const std::vector<std::pair<std::string, TensorData>>& consts, DType w_type = DType::Int8) {
  OnnxBuilder m;
  m.input("x", DType::UInt8, {1, 4, 5, 5});
  m.input("w", w_type, {6, 2, 3, 3});
  std::vector<std::string> ins = {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"};
  std::map<std::string, TensorData> c = {{"xs", TensorData::scalar<float>(0.1f)},
                                         {"xz", TensorData::scalar<uint8_t>(0)},
                                         {"ws", TensorData::scalar<float>(0.1f)},
                                         {"wz", TensorData::scalar<int8_t>(0)},
                                         {"ys", TensorData::scalar<float>(0.1f)},
                                         {"yz", TensorData::scalar<uint8_t>(0)},
                                         {"b", TensorData::from<int32_t>({6}, {0, 0, 0, 0, 0, 0})}};
  for (const auto& [k, v] : consts) c[k] = v;
  for (const auto& [k, v] : c) m.initializer(k, v);
  m.node("QLinearConv", ins, {"y"}, {{"group", int64_t{2}}}, "qc").output("y");
  return test::import_error(save(m));
}

TEST(QLinearConv, Refusals) {
  EXPECT_THAT(conv_error({{"ws", TensorData::from<float>({6}, {1, 1, 0, 1, 1, 1})},
                          {"wz", TensorData::from<int8_t>({6}, {0, 0, 0, 0, 0, 0})}}),
              HasSubstr("node 'qc' (QLinearConv): w_scale[2] is 0; a scale must be positive and finite"));
  EXPECT_THAT(conv_error({{"ws", TensorData::from<float>({4}, {1, 1, 1, 1})}}),
              HasSubstr("w_scale has shape [4]; it must be one value or one per output channel ([6])"));
  EXPECT_THAT(conv_error({{"wz", TensorData::from<int8_t>({4}, {0, 0, 0, 0})}}),
              HasSubstr("w_zero_point has shape [4]; it must be one value or one per output channel ([6])"));
  EXPECT_THAT(conv_error({{"xz", TensorData::scalar<int8_t>(0)}}), HasSubstr("x_zero_point is int8 but x is uint8"));
  EXPECT_THAT(conv_error({}, DType::UInt8), HasSubstr("w_zero_point is int8 but w is uint8"));
  EXPECT_THAT(conv_error({{"b", TensorData::from<int32_t>({3}, {0, 0, 0})}}),
              HasSubstr("bias B has shape [3]; it must be [6]"));
  EXPECT_THAT(conv_error({{"xs", TensorData::scalar<float>(-1.0f)}}), HasSubstr("x_scale is -1"));
  EXPECT_THAT(conv_error({{"yz", TensorData::scalar<uint16_t>(0)}}),
              HasSubstr("y_zero_point is uint16; supported quantized types: int8, uint8"));
  EXPECT_THAT(conv_error({{"yz", TensorData::scalar<int16_t>(0)}}, DType::UInt8),
              HasSubstr("w is uint8; with int16 x or y (16x8) the weights must be int8"));
  EXPECT_THAT(conv_error({{"b", TensorData::from<int64_t>({6}, {0, 0, 0, 0, 0, 0})}}),
              HasSubstr("input #8 ('b') has element type int64; supported: int32"));  // int64: 16x8 only
}

TEST(ConvInteger, Refusals) {
  OnnxBuilder m;
  m.input("x", DType::Int8, {1, 4, 5, 5}).input("w", DType::Int8, {6, 2, 3, 3});
  m.initializer("zw", TensorData::from<int8_t>({5}, {0, 0, 0, 0, 0}));
  m.node("ConvInteger", {"x", "w", "", "zw"}, {"y"}, {{"group", int64_t{2}}}, "ci").output("y");
  EXPECT_THAT(test::import_error(save(m)),
              HasSubstr("node 'ci' (ConvInteger): w_zero_point has shape [5]; it must be one value or one per output "
                        "channel ([6])"));
}

// One model per case with every type and zero-point combination.
struct ConvCase {
  Shape x, w;
  std::vector<std::pair<std::string, AttrValue>> attrs;
};

void check_case(const ConvCase& c, uint32_t seed) {
  const int64_t m_out = c.w[0];
  OnnxBuilder m;
  m.input("xu", DType::UInt8, c.x).input("x8", DType::Int8, c.x);
  io::NamedTensors in = {{"xu", random_tensor(DType::UInt8, c.x, seed, 0, 255)},
                         {"x8", random_tensor(DType::Int8, c.x, seed + 1, -128, 127)}};
  m.initializer("w8", random_tensor(DType::Int8, c.w, seed + 2, -128, 127));
  m.input("wu", DType::UInt8, c.w);  // run-time weights
  in.push_back({"wu", random_tensor(DType::UInt8, c.w, seed + 3, 0, 255)});
  m.initializer("zxu", TensorData::scalar<uint8_t>(131)).initializer("zx8", TensorData::scalar<int8_t>(-9));
  m.initializer("zw8c", random_tensor(DType::Int8, {m_out}, seed + 4, -10, 10));
  m.initializer("zwu", TensorData::scalar<uint8_t>(128)).initializer("zw8", TensorData::scalar<int8_t>(0));
  std::vector<float> ws;
  for (int64_t i = 0; i < m_out; ++i) ws.push_back(0.001f + 0.00037f * static_cast<float>(i));
  m.initializer("wsc", TensorData::from<float>({m_out}, ws));
  m.initializer("xs", TensorData::scalar<float>(0.02f)).initializer("wst", TensorData::scalar<float>(0.0031f));
  m.initializer("ys", TensorData::scalar<float>(0.011f)).initializer("ys_big", TensorData::scalar<float>(0.7f));
  m.initializer("zyu", TensorData::scalar<uint8_t>(128)).initializer("zy8", TensorData::scalar<int8_t>(-4));
  m.initializer("b", random_tensor(DType::Int32, {m_out}, seed + 5, -3000, 3000));
  m.node("ConvInteger", {"xu", "w8", "zxu"}, {"c0"}, c.attrs).output("c0");
  m.node("ConvInteger", {"x8", "wu", "", "zwu"}, {"c1"}, c.attrs).output("c1");
  m.node("ConvInteger", {"xu", "wu"}, {"c2"}, c.attrs).output("c2");
  m.node("ConvInteger", {"x8", "w8", "zx8", "zw8c"}, {"c3"}, c.attrs).output("c3");
  m.node("QLinearConv", {"xu", "xs", "zxu", "w8", "wsc", "zw8c", "ys", "zyu", "b"}, {"q0"}, c.attrs).output("q0");
  m.node("QLinearConv", {"x8", "xs", "zx8", "w8", "wst", "zw8", "ys_big", "zy8"}, {"q1"}, c.attrs).output("q1");
  m.node("QLinearConv", {"x8", "xs", "zx8", "wu", "wst", "zwu", "ys", "zyu", "b"}, {"q2"}, c.attrs).output("q2");
  // 16x8: int16 x and/or y with int8 weights; an int64 bias up to 2^40 puts
  // the sums beyond int32 (mlip_requantize64's wide path), an int32 one
  // keeps them within (its int32 path).
  m.input("x16", DType::Int16, c.x);
  in.push_back({"x16", random_tensor(DType::Int16, c.x, seed + 6, -32768, 32767)});
  m.initializer("zx16", TensorData::scalar<int16_t>(0)).initializer("zy16", TensorData::scalar<int16_t>(0));
  m.initializer("b64", random_tensor(DType::Int64, {m_out}, seed + 7, -(int64_t{1} << 40), int64_t{1} << 40));
  m.initializer("ys16", TensorData::scalar<float>(2e-4f)).initializer("ys16_big", TensorData::scalar<float>(700.0f));
  m.node("QLinearConv", {"x16", "xs", "zx16", "w8", "wsc", "zw8c", "ys16_big", "zy16", "b64"}, {"q3"}, c.attrs)
      .output("q3");
  m.node("QLinearConv", {"x16", "xs", "zx16", "w8", "wsc", "zw8", "ys16", "zy16", "b"}, {"q4"}, c.attrs).output("q4");
  m.node("QLinearConv", {"x16", "xs", "zx16", "w8", "wst", "zw8", "ys_big", "zy8"}, {"q5"}, c.attrs).output("q5");
  m.node("QLinearConv", {"x8", "xs", "zx8", "w8", "wst", "zw8", "ys16", "zy16", "b"}, {"q6"}, c.attrs).output("q6");
  SCOPED_TRACE(fmt::format("x {} w {}", shape_str(c.x), shape_str(c.w)));
  test::expect_matches_reference(save(m), in, 0.0, 0.0);
}

TEST(QLinearConv, GeneratedCMatchesReference) {
  const std::vector<ConvCase> cases = {
      {{1, 3, 7, 9}, {5, 3, 3, 3}, {{"pads", ints{1, 0, 2, 1}}, {"strides", ints{2, 1}}}},
      {{2, 4, 6, 5}, {6, 2, 3, 2}, {{"group", int64_t{2}}, {"dilations", ints{2, 1}}, {"auto_pad", std::string("SAME_UPPER")}}},
      {{1, 3, 11}, {3, 1, 3}, {{"group", int64_t{3}}, {"auto_pad", std::string("SAME_LOWER")}, {"strides", ints{2}}}},
      {{1, 2, 3, 5, 4}, {3, 2, 2, 3, 1}, {{"pads", ints{1, 1, 0, 0, 1, 0}}, {"strides", ints{1, 2, 1}}}},
  };
  uint32_t seed = 1;
  for (const ConvCase& c : cases) check_case(c, seed += 10);
}

// Random odd geometries.
TEST(QLinearConv, GeneratedCMatchesReferenceRandom) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    std::mt19937 rng(seed * 77);
    auto pick = [&](int lo, int hi) { return static_cast<int64_t>(std::uniform_int_distribution<int>(lo, hi)(rng)); };
    const int64_t group = pick(1, 3), icg = pick(1, 3) | 1, ocg = pick(1, 3);
    const int64_t kh = pick(1, 3), kw = pick(1, 3);
    const Shape x = {pick(1, 2), group * icg, pick(5, 9) | 1, pick(5, 9) | 1};
    const Shape w = {group * ocg, icg, kh, kw};
    ConvCase c{x, w, {{"group", group}, {"strides", ints{pick(1, 2), pick(1, 3)}}, {"pads", ints{pick(0, 2), pick(0, 1), pick(0, 1), pick(0, 2)}},
                      {"dilations", ints{pick(1, 2), 1}}}};
    check_case(c, seed);
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_conv_integer
