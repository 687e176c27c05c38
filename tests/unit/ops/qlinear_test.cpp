// The com.microsoft QOperator operators (QLinearAdd, QLinearMul,
// QLinearGlobalAveragePool, QLinearAveragePool, QLinearConcat,
// QLinearSigmoid, QLinearLeakyRelu) and passes/fold_qdq: the reference on
// hand-computed values, the refusals (one line naming the node), the
// generated C against the reference bit for bit, and what the fold makes of
// QDQ groups (and the note it leaves for what stays float).
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "driver/compile.h"
#include "ops/evaluator.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_qlinear {
namespace {

using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

constexpr const char* kMs = "com.microsoft";

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("qlinear_{}.onnx", k++));
}

template <class T>
std::vector<int> values(const TensorData& t) {
  return std::vector<int>(t.data<T>(), t.data<T>() + t.numel());
}

// A binary QOperator node on int8 (or uint8) inputs a [n] and b [n].
void binary(OnnxBuilder& m, const std::string& op, DType t, const Shape& sa, const Shape& sb, float as, int az, float bs,
            int bz, float cs, int cz) {
  auto zp = [&](int v) {
    return t == DType::Int8 ? TensorData::scalar<int8_t>(static_cast<int8_t>(v))
                            : TensorData::scalar<uint8_t>(static_cast<uint8_t>(v));
  };
  m.input("a", t, sa).input("b", t, sb);
  m.initializer("as", TensorData::scalar<float>(as)).initializer("az", zp(az));
  m.initializer("bs", TensorData::scalar<float>(bs)).initializer("bz", zp(bz));
  m.initializer("cs", TensorData::scalar<float>(cs)).initializer("cz", zp(cz));
  m.node(op, {"a", "as", "az", "b", "bs", "bz", "cs", "cz"}, {"c"}, {}, "q").in_domain(kMs).output("c");
}

TEST(QLinearAdd, ReferenceRoundsTiesAwayFromZero) {
  OnnxBuilder m;
  binary(m, "QLinearAdd", DType::Int8, {2}, {2}, 0.5f, 0, 0.5f, 0, 1.0f, 0);
  const auto out = test::reference_run(save(m), {{"a", TensorData::from<int8_t>({2}, {4, -3})},
                                                 {"b", TensorData::from<int8_t>({2}, {2, -2})}});
  // 0.5 * (4 + 2) = 3; 0.5 * (-3 - 2) = -2.5: the final right shift rounds the tie away from zero.
  EXPECT_EQ(values<int8_t>(out[0].second), (std::vector<int>{3, -3}));
}

TEST(QLinearMul, ReferenceSaturates) {
  OnnxBuilder m;
  binary(m, "QLinearMul", DType::UInt8, {3}, {3}, 0.1f, 10, 0.2f, 20, 0.05f, 5);
  const auto out = test::reference_run(save(m), {{"a", TensorData::from<uint8_t>({3}, {20, 0, 255})},
                                                 {"b", TensorData::from<uint8_t>({3}, {30, 20, 255})}});
  // M = 0.1 * 0.2 / 0.05 = 0.4: 10 * 10 * 0.4 = 40 + 5; -10 * 0 = 0 + 5; 245 * 235 * 0.4 saturates.
  EXPECT_EQ(values<uint8_t>(out[0].second), (std::vector<int>{45, 5, 255}));
}

TEST(QLinearGlobalAveragePool, ReferenceRoundsTiesUp) {
  OnnxBuilder m;
  m.input("x", DType::Int8, {1, 2, 1, 2});
  m.initializer("s", TensorData::scalar<float>(1.0f)).initializer("z", TensorData::scalar<int8_t>(0));
  m.node("QLinearGlobalAveragePool", {"x", "s", "z", "s", "z"}, {"y"}, {{"channels_last", int64_t{0}}}, "gap")
      .in_domain(kMs)
      .output("y");
  const auto out = test::reference_run(save(m), {{"x", TensorData::from<int8_t>({1, 2, 1, 2}, {-1, -2, 3, 4})}});
  // -3 / 2 = -1.5 and 7 / 2 = 3.5: one rounding, the doubling high multiply's (ties toward +infinity).
  EXPECT_EQ(out[0].second.shape(), (Shape{1, 2, 1, 1}));
  EXPECT_EQ(values<int8_t>(out[0].second), (std::vector<int>{-1, 4}));
}

// 16x8 (int16 X and Y, what fold_qdq makes of a 16x8 GlobalAveragePool):
// the sum in int64 (two values already pass int16), one rounding as for
// int8. The generated C (qlinear_global_avgpool16.c) gives the reference's
// bits on random planes of 200 values.
TEST(QLinearGlobalAveragePool, Int16SumsInInt64) {
  OnnxBuilder m;
  m.input("x", DType::Int16, {1, 2, 1, 2});
  m.initializer("s", TensorData::scalar<float>(1.0f)).initializer("z", TensorData::scalar<int16_t>(0));
  m.node("QLinearGlobalAveragePool", {"x", "s", "z", "s", "z"}, {"y"}, {{"channels_last", int64_t{0}}}, "gap")
      .in_domain(kMs)
      .output("y");
  const auto out =
      test::reference_run(save(m), {{"x", TensorData::from<int16_t>({1, 2, 1, 2}, {32767, 32766, -32768, -32767})}});
  // 65533 / 2 = 32766.5 -> 32767; -65535 / 2 = -32767.5 -> -32767 (ties toward +infinity).
  EXPECT_EQ(values<int16_t>(out[0].second), (std::vector<int>{32767, -32767}));
  OnnxBuilder r;
  r.input("x", DType::Int16, {2, 3, 10, 20});
  r.initializer("xs", TensorData::scalar<float>(0.001f)).initializer("xz", TensorData::scalar<int16_t>(0));
  r.initializer("ys", TensorData::scalar<float>(0.0007f)).initializer("yz", TensorData::scalar<int16_t>(0));
  r.node("QLinearGlobalAveragePool", {"x", "xs", "xz", "ys", "yz"}, {"y"}, {{"channels_last", int64_t{0}}}, "gap")
      .in_domain(kMs)
      .output("y");
  test::expect_matches_reference(save(r), {{"x", test::random_tensor(DType::Int16, {2, 3, 10, 20}, 3, -32768, 32767)}},
                                 0.0, 0.0);
}

TEST(QLinearSigmoid, ReferenceIsTheQuantizedFunction) {
  OnnxBuilder m;
  m.input("x", DType::Int8, {3});
  m.initializer("xs", TensorData::scalar<float>(1.0f)).initializer("xz", TensorData::scalar<int8_t>(0));
  m.initializer("ys", TensorData::scalar<float>(1.0f / 256)).initializer("yz", TensorData::scalar<int8_t>(-128));
  m.node("QLinearSigmoid", {"x", "xs", "xz", "ys", "yz"}, {"y"}, {}, "sig").in_domain(kMs).output("y");
  const auto out = test::reference_run(save(m), {{"x", TensorData::from<int8_t>({3}, {0, 127, -128})}});
  // sigmoid(0) = 0.5 -> 128 - 128; sigmoid(127) ~ 1 -> 256 - 128 saturates; sigmoid(-128) ~ 0 -> -128.
  EXPECT_EQ(values<int8_t>(out[0].second), (std::vector<int>{0, 127, -128}));
}

std::string add_error(DType t, float as, DType zt = DType::Int8) {
  OnnxBuilder m;
  m.input("a", t, {4}).input("b", t, {4});
  m.initializer("as", TensorData::scalar<float>(as));
  m.initializer("az", zt == DType::Int8 ? TensorData::scalar<int8_t>(0) : TensorData::scalar<uint8_t>(0));
  m.initializer("s", TensorData::scalar<float>(0.5f)).initializer("z", TensorData::scalar<int8_t>(0));
  m.node("QLinearAdd", {"a", "as", "az", "b", "s", "z", "s", "z"}, {"c"}, {}, "qa").in_domain(kMs).output("c");
  return test::import_error(save(m));
}

TEST(QLinearAdd, Refusals) {
  EXPECT_THAT(add_error(DType::Int8, 0.0f), HasSubstr("node 'qa' (QLinearAdd): A_scale is 0"));
  EXPECT_THAT(add_error(DType::Int8, -2.0f), HasSubstr("node 'qa' (QLinearAdd): A_scale is -2"));
  EXPECT_THAT(add_error(DType::Int8, 0.5f, DType::UInt8),
              HasSubstr("node 'qa' (QLinearAdd): A_zero_point is uint8 but A is int8"));
  EXPECT_THAT(add_error(DType::Int16, 0.5f),
              HasSubstr("node 'qa' (QLinearAdd): A_zero_point is int8 but A is int16"));
  EXPECT_THAT(add_error(DType::UInt16, 0.5f),
              HasSubstr("node 'qa' (QLinearAdd): A is uint16; supported quantized types: int8, uint8"));
}

// 16x8 (int16, zero points 0): Add with 2^15 of headroom (mlip_qadd16_sum),
// Mul's product in int32 (|a * b| <= 2^30); hand values, then the generated
// C against the reference on random values and scales that differ.
TEST(QLinearAdd, Int16AddAndMul) {
  OnnxBuilder m;
  m.input("a", DType::Int16, {4}).input("b", DType::Int16, {4});
  m.initializer("s", TensorData::scalar<float>(1.0f)).initializer("z", TensorData::scalar<int16_t>(0));
  m.initializer("s256", TensorData::scalar<float>(256.0f));
  m.node("QLinearAdd", {"a", "s", "z", "b", "s", "z", "s", "z"}, {"c"}, {}, "qa").in_domain(kMs).output("c");
  m.node("QLinearMul", {"a", "s", "z", "b", "s", "z", "s256", "z"}, {"d"}, {}, "qm").in_domain(kMs).output("d");
  const auto out = test::reference_run(save(m), {{"a", TensorData::from<int16_t>({4}, {1000, -1000, 32767, -20000})},
                                                 {"b", TensorData::from<int16_t>({4}, {234, -5, 1, -20000})}});
  EXPECT_EQ(values<int16_t>(out[0].second), (std::vector<int>{1234, -1005, 32767, -32768}));  // saturated
  // 234000 / 256 = 914.06; 5000 / 256 = 19.53; 32767 / 256 = 128.0; 4e8 / 256 saturates.
  EXPECT_EQ(values<int16_t>(out[1].second), (std::vector<int>{914, 20, 128, 32767}));
  OnnxBuilder r;
  r.input("a", DType::Int16, {3, 40}).input("b", DType::Int16, {40});
  r.initializer("as", TensorData::scalar<float>(0.0013f)).initializer("bs", TensorData::scalar<float>(0.0007f));
  r.initializer("cs", TensorData::scalar<float>(0.0019f)).initializer("ms", TensorData::scalar<float>(0.03f));
  r.initializer("z", TensorData::scalar<int16_t>(0));
  r.node("QLinearAdd", {"a", "as", "z", "b", "bs", "z", "cs", "z"}, {"c"}, {}, "qa").in_domain(kMs).output("c");
  r.node("QLinearMul", {"a", "as", "z", "b", "bs", "z", "ms", "z"}, {"d"}, {}, "qm").in_domain(kMs).output("d");
  test::expect_matches_reference(save(r),
                                 {{"a", test::random_tensor(DType::Int16, {3, 40}, 5, -32768, 32767)},
                                  {"b", test::random_tensor(DType::Int16, {40}, 6, -32768, 32767)}},
                                 0.0, 0.0);
}

TEST(QOperators, DomainRules) {
  OnnxBuilder a;
  a.input("x", DType::Int8, {4});
  a.node("QGemm", {"x"}, {"y"}, {}, "qg").in_domain(kMs).output("y");
  EXPECT_THAT(test::import_error(save(a)),
              HasSubstr("node 'qg' (QGemm): operator QGemm of domain 'com.microsoft' is not supported"));
  OnnxBuilder b;
  binary(b, "QLinearAdd", DType::Int8, {2}, {2}, 0.5f, 0, 0.5f, 0, 1.0f, 0);
  OnnxBuilder c;  // the same operator without its domain
  c.input("a", DType::Int8, {2});
  c.node("QLinearSigmoid", {"a"}, {"y"}, {}, "nodomain").output("y");
  EXPECT_THAT(test::import_error(save(c)),
              HasSubstr("node 'nodomain' (QLinearSigmoid): QLinearSigmoid is not an operator of the default ONNX "
                        "domain (it is com.microsoft's)"));
  EXPECT_EQ(test::import_error(save(b)), "no error");
}

// Generated C against the reference (bit for bit), broadcasting, both types.
TEST(QOperators, GeneratedCMatchesReference) {
  for (DType t : {DType::Int8, DType::UInt8}) {
    const double lo = t == DType::Int8 ? -128 : 0, hi = t == DType::Int8 ? 127 : 255;
    for (const char* op : {"QLinearAdd", "QLinearMul"}) {
      OnnxBuilder m;
      binary(m, op, t, {2, 3, 4, 4}, {1, 3, 1, 1}, 0.031f, 3, 0.017f, -2 + (t == DType::UInt8 ? 130 : 0), 0.05f, 7);
      test::expect_matches_reference(save(m), {{"a", random_tensor(t, {2, 3, 4, 4}, 1, lo, hi)},
                                               {"b", random_tensor(t, {1, 3, 1, 1}, 2, lo, hi)}},
                                     0, 0);
    }
    auto zp = [&](int v) {
      return t == DType::Int8 ? TensorData::scalar<int8_t>(static_cast<int8_t>(v))
                              : TensorData::scalar<uint8_t>(static_cast<uint8_t>(v + 128));
    };
    OnnxBuilder m;
    m.input("x", t, {1, 4, 7, 6});
    m.initializer("xs", TensorData::scalar<float>(0.023f)).initializer("xz", zp(5));
    m.initializer("ys", TensorData::scalar<float>(0.011f)).initializer("yz", zp(-3));
    m.initializer("ys2", TensorData::scalar<float>(0.04f)).initializer("yz2", zp(9));
    m.node("QLinearGlobalAveragePool", {"x", "xs", "xz", "ys", "yz"}, {"g"}).in_domain(kMs);
    m.node("QLinearAveragePool", {"x", "xs", "xz", "ys", "yz"}, {"p"},
           {{"kernel_shape", ints{3, 3}}, {"strides", ints{2, 2}}, {"pads", ints{1, 1, 1, 1}}})
        .in_domain(kMs);
    m.node("QLinearAveragePool", {"x", "xs", "xz", "ys", "yz"}, {"pc"},
           {{"kernel_shape", ints{3, 2}}, {"pads", ints{1, 0, 1, 1}}, {"count_include_pad", int64_t{1}}})
        .in_domain(kMs);
    m.node("QLinearSigmoid", {"x", "xs", "xz", "ys2", "yz2"}, {"s"}).in_domain(kMs);
    m.node("QLinearLeakyRelu", {"x", "xs", "xz", "ys", "yz"}, {"l"}, {{"alpha", 0.2f}}).in_domain(kMs);
    m.node("QLinearConcat", {"ys", "yz", "x", "xs", "xz", "l", "ys", "yz"}, {"c"}, {{"axis", int64_t{1}}})
        .in_domain(kMs);
    m.output("g").output("p").output("pc").output("s").output("l").output("c");
    test::expect_matches_reference(save(m), {{"x", random_tensor(t, {1, 4, 7, 6}, 3, lo, hi)}}, 0, 0);
  }
}

// x (float) -> Q -> DQ -> Conv (per-channel int8 weights, int32 bias) -> Relu -> Q -> DQ -> y,
// and a second branch DQ -> Softmax that has no integer form.
// `clip`: a Clip(min 4, max 1) in place of the Relu.
void qdq_conv(OnnxBuilder& m, const TensorData& w_scale, int64_t axis = 0, bool clip = false) {
  m.input("x", DType::Float32, {1, 2, 5, 5});
  m.initializer("xs", TensorData::scalar<float>(0.02f)).initializer("xz", TensorData::scalar<uint8_t>(128));
  m.initializer("w", random_tensor(DType::Int8, {3, 2, 3, 3}, 7, -127, 127));
  m.initializer("ws", w_scale);
  m.initializer("b", TensorData::from<int32_t>({3}, {100, -250, 3}));
  m.initializer("bs", TensorData::from<float>({3}, {0.02f * 0.01f, 0.02f * 0.02f, 0.02f * 0.03f}));
  m.initializer("ys", TensorData::scalar<float>(0.03f)).initializer("yz", TensorData::scalar<uint8_t>(0));
  m.node("QuantizeLinear", {"x", "xs", "xz"}, {"xq"}, {}, "qx");
  m.node("DequantizeLinear", {"xq", "xs", "xz"}, {"xd"}, {}, "dqx");
  m.node("DequantizeLinear", {"w", "ws"}, {"wd"}, {{"axis", axis}}, "dqw");
  m.node("DequantizeLinear", {"b", "bs"}, {"bd"}, {{"axis", int64_t{0}}}, "dqb");
  m.node("Conv", {"xd", "wd", "bd"}, {"c"}, {{"pads", ints{1, 1, 1, 1}}}, "conv");
  if (clip) {
    m.initializer("cmin", TensorData::scalar<float>(4.0f)).initializer("cmax", TensorData::scalar<float>(1.0f));
    m.node("Clip", {"c", "cmin", "cmax"}, {"r"}, {}, "clip");
  } else {
    m.node("Relu", {"c"}, {"r"}, {}, "relu");
  }
  m.node("QuantizeLinear", {"r", "ys", "yz"}, {"yq"}, {}, "qy");
  m.node("DequantizeLinear", {"yq", "ys", "yz"}, {"y"}, {}, "dqy");
  m.node("Softmax", {"xd"}, {"sm"}, {}, "softmax");
  m.output("y").output("sm");
}

TEST(FoldQdq, ConvWithReluBecomesQLinearConvAndSoftmaxIsNoted) {
  OnnxBuilder m;
  qdq_conv(m, TensorData::from<float>({3}, {0.01f, 0.02f, 0.03f}));
  const fs::path p = save(m);
  const driver::CompileResult r = driver::compile_model(p, {});
  std::vector<std::string> ops;
  for (const Node& n : r.graph.nodes) ops.push_back(n.op);
  EXPECT_THAT(ops, ::testing::Contains("QLinearConv"));
  EXPECT_THAT(ops, ::testing::Not(::testing::Contains("Conv")));
  EXPECT_THAT(ops, ::testing::Not(::testing::Contains("Relu")));
  ASSERT_EQ(r.float_notes.size(), 1u);
  EXPECT_EQ(r.float_notes[0].node, "dqx");
  EXPECT_EQ(r.float_notes[0].why,
            "feeds node 'softmax' (Softmax): its output is not quantized by a QuantizeLinear alone");
  // The generated C gives the folded graph's reference bits.
  const io::NamedTensors in = {{"x", random_tensor(DType::Float32, {1, 2, 5, 5}, 11, -2.0, 2.0)}};
  const io::NamedTensors got = test::compile_and_run(p, in);
  const std::vector<TensorData> want = evaluate(r.graph, {in[0].second});
  EXPECT_EQ(test::compare(got[0].second, want[0], 0, 0), "");
  EXPECT_EQ(test::compare(got[1].second, want[1], 0, 0), "");
  // The float graph's reference (nothing folded) within one output step.
  const io::NamedTensors unfolded = test::reference_run(p, in);
  EXPECT_EQ(test::compare(got[0].second, unfolded[0].second, 0, 0.03 * 1.001), "");
}

// ONNX's Clip applies min, then max: with min > max every value is max. The
// folded clamp [lo, hi] is then the one value hi, on the CPU and the MLIP
// (whose CONV2D requires lo <= hi).
TEST(FoldQdq, ClipWithMinAboveMaxGivesMaxEverywhere) {
  OnnxBuilder m;
  qdq_conv(m, TensorData::from<float>({3}, {0.01f, 0.02f, 0.03f}), 0, true);
  const fs::path p = save(m);
  const io::NamedTensors in = {{"x", random_tensor(DType::Float32, {1, 2, 5, 5}, 11, -2.0, 2.0)}};
  const io::NamedTensors unfolded = test::reference_run(p, in);
  for (const double v : unfolded[0].second.as_double()) ASSERT_NEAR(v, 0.99, 0.01);  // 1.0, quantized by 0.03
  for (const char* target : {"c", "mrvl, c"}) {
    driver::CompileOptions o;
    o.target = target;
    o.mlip.quantize = "int8";
    const io::NamedTensors got = test::compile_and_run(p, in, o);
    EXPECT_EQ(test::compare(got[0].second, unfolded[0].second, 0, 0), "") << target;
  }
}

TEST(FoldQdq, PerAxisScaleOfTheWrongLengthNamesTheNode) {
  OnnxBuilder m;
  qdq_conv(m, TensorData::from<float>({2}, {0.01f, 0.02f}));
  EXPECT_THAT(test::import_error(save(m)), HasSubstr("node 'dqw' (DequantizeLinear)"));
}

}  // namespace
}  // namespace mlipc::unit_ops_qlinear
