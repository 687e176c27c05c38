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
#include <cmath>

#include "driver/compile.h"
#include "ops/evaluator.h"
#include "ops/quant.h"
#include "ops/qlinear.h"
#include "mlip/lut16.h"
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

// 16x8 QLinearAveragePool (int16 X and Y, what fold_qdq makes of a 16x8
// AveragePool), on hand-computed values, x_scale = 1 (so the multiplier is
// 1 / count, or 2 / count for `sat`):
//   sat  {32767, 32767 | -32768, -32768}, y_scale 0.5: 65534 and -65536
//        saturate to both int16 ends;
//   tie  {1, 2 | -3, 0 | 2, 3}: 1.5, -1.5, 2.5 -> 2, -1, 3 (fixed point: the
//        doubling high multiply's ties toward +infinity), 2, -2, 2 (--requant
//        ort: half to even);
//   pad0, pad1  {100, 200, 300, 400, 501}, kernel 3, stride 2, one pad
//        before, ceil_mode (a third window of taps 3, 4 and 5, past the
//        padded end): sums 300, 900, 901 over counts 2, 3, 2
//        (count_include_pad 0) or 3, 3, 2 (1: the first window's pad
//        counts, the ceil window's tap past the padded end does not);
//   wide 70000 taps of 32767 in one window: the sum, 2293690000, passes
//        int32 (an int32 sum wraps negative and saturates at -32768).
// The generated C (qlinear_averagepool.c's int16 form) gives the same
// values in both modes.
TEST(QLinearAveragePool, Int16HandValuesBothRequantModes) {
  OnnxBuilder m;
  auto s16 = [](float s) { return TensorData::scalar<float>(s); };
  m.initializer("one", s16(1.0f)).initializer("half", s16(0.5f)).initializer("z", TensorData::scalar<int16_t>(0));
  m.input("a", DType::Int16, {1, 1, 1, 4}).input("b", DType::Int16, {1, 1, 1, 6});
  m.input("c", DType::Int16, {1, 1, 1, 5}).input("d", DType::Int16, {1, 1, 1, 70000});
  const ints k2{1, 2}, s2{1, 2};
  m.node("QLinearAveragePool", {"a", "one", "z", "half", "z"}, {"sat"}, {{"kernel_shape", k2}, {"strides", s2}})
      .in_domain(kMs);
  m.node("QLinearAveragePool", {"b", "one", "z", "one", "z"}, {"tie"}, {{"kernel_shape", k2}, {"strides", s2}})
      .in_domain(kMs);
  for (int64_t cip : {0, 1})
    m.node("QLinearAveragePool", {"c", "one", "z", "one", "z"}, {fmt::format("pad{}", cip)},
           {{"kernel_shape", ints{1, 3}},
            {"strides", s2},
            {"pads", ints{0, 1, 0, 0}},
            {"ceil_mode", int64_t{1}},
            {"count_include_pad", cip}})
        .in_domain(kMs);
  m.node("QLinearAveragePool", {"d", "one", "z", "one", "z"}, {"wide"}, {{"kernel_shape", ints{1, 70000}}})
      .in_domain(kMs);
  m.output("sat").output("tie").output("pad0").output("pad1").output("wide");
  const fs::path path = save(m);
  const io::NamedTensors in = {
      {"a", TensorData::from<int16_t>({1, 1, 1, 4}, {32767, 32767, -32768, -32768})},
      {"b", TensorData::from<int16_t>({1, 1, 1, 6}, {1, 2, -3, 0, 2, 3})},
      {"c", TensorData::from<int16_t>({1, 1, 1, 5}, {100, 200, 300, 400, 501})},
      {"d", TensorData::from<int16_t>({1, 1, 1, 70000}, std::vector<int16_t>(70000, 32767))}};
  const std::vector<std::vector<int>> fixed = {{32767, -32768}, {2, -1, 3}, {150, 300, 451}, {100, 300, 451}, {32767}};
  const std::vector<std::vector<int>> ort = {{32767, -32768}, {2, -2, 2}, {150, 300, 450}, {100, 300, 450}, {32767}};
  const io::NamedTensors ref = test::reference_run(path, in);
  driver::CompileOptions o;
  const io::NamedTensors c_fixed = test::compile_and_run(path, in, o);
  o.requant = "ort";
  const io::NamedTensors c_ort = test::compile_and_run(path, in, o);
  Graph g = test::import_built(m, "qavg16_ort");
  for (Node& n : g.nodes) n.attrs.set(ops::kRequantAttr, int64_t{1});
  std::vector<TensorData> gin;
  for (const auto& [name, t] : in) gin.push_back(t);
  const std::vector<TensorData> ref_ort = evaluate(g, gin);
  for (size_t i = 0; i < fixed.size(); ++i) {
    EXPECT_EQ(values<int16_t>(ref[i].second), fixed[i]) << ref[i].first;
    EXPECT_EQ(values<int16_t>(c_fixed[i].second), fixed[i]) << c_fixed[i].first;
    EXPECT_EQ(values<int16_t>(ref_ort[i]), ort[i]) << ref[i].first;
    EXPECT_EQ(values<int16_t>(c_ort[i].second), ort[i]) << c_ort[i].first;
  }
  // Random int16 planes, 2-D windows with dilation, both paddings: the generated C is the reference.
  OnnxBuilder r;
  r.input("x", DType::Int16, {2, 3, 9, 8});
  r.initializer("xs", s16(0.001f)).initializer("ys", s16(0.0007f)).initializer("z", TensorData::scalar<int16_t>(0));
  r.node("QLinearAveragePool", {"x", "xs", "z", "ys", "z"}, {"p"},
         {{"kernel_shape", ints{3, 3}}, {"strides", ints{2, 2}}, {"pads", ints{1, 1, 1, 1}}, {"dilations", ints{1, 2}}})
      .in_domain(kMs);
  r.node("QLinearAveragePool", {"x", "xs", "z", "ys", "z"}, {"pc"},
         {{"kernel_shape", ints{3, 2}}, {"pads", ints{1, 0, 1, 1}}, {"count_include_pad", int64_t{1}}, {"ceil_mode", int64_t{1}}, {"strides", ints{2, 2}}})
      .in_domain(kMs);
  r.output("p").output("pc");
  test::expect_matches_reference(save(r), {{"x", test::random_tensor(DType::Int16, {2, 3, 9, 8}, 5, -32768, 32767)}},
                                 0.0, 0.0);
}

// 16x8 QLinearMatMul (fold_qdq's form of a 16x8 MatMul of two computed
// tensors, attention's): int16 A [2, 3] times int16 B [3, 2], scales 1,
// A = {32767, 32767, -32768 | 1, 2, 3}, B = {32767, 1 | 32767, 0 | -32768, 0}:
// sums 2 * 32767^2 + 32768^2 = 3221094402 (beyond int32), 32767, -3, 1.
// y_scale 2^17: 24575.00002 -> 24575, the rest below half a step -> 0.
// y_scale 2: 32767 (saturated), 16383.5, -1.5, 0.5 -> fixed point 16384,
// -1, 1 (ties toward +infinity), --requant ort 16384, -2, 0 (half to even).
// The generated C gives these values, and the reference's bits on random
// batches of int16 x int16 and int16 x a constant int8 [2, 5, 3] (a batch
// of matrices, which fold_qdq makes a QLinearMatMul in 16x8).
TEST(QLinearMatMul, Int16HandValuesBothRequantModes) {
  OnnxBuilder m;
  auto f = [](float v) { return TensorData::scalar<float>(v); };
  m.input("a", DType::Int16, {2, 3}).input("b", DType::Int16, {3, 2});
  m.initializer("one", f(1.0f)).initializer("big", f(131072.0f)).initializer("two", f(2.0f));
  m.initializer("z", TensorData::scalar<int16_t>(0));
  m.node("QLinearMatMul", {"a", "one", "z", "b", "one", "z", "big", "z"}, {"y1"});
  m.node("QLinearMatMul", {"a", "one", "z", "b", "one", "z", "two", "z"}, {"y2"});
  m.output("y1").output("y2");
  const fs::path path = save(m);
  const io::NamedTensors in = {{"a", TensorData::from<int16_t>({2, 3}, {32767, 32767, -32768, 1, 2, 3})},
                               {"b", TensorData::from<int16_t>({3, 2}, {32767, 1, 32767, 0, -32768, 0})}};
  const std::vector<std::vector<int>> fixed = {{24575, 0, 0, 0}, {32767, 16384, -1, 1}};
  const std::vector<std::vector<int>> ort = {{24575, 0, 0, 0}, {32767, 16384, -2, 0}};
  const io::NamedTensors ref = test::reference_run(path, in);
  driver::CompileOptions o;
  const io::NamedTensors c_fixed = test::compile_and_run(path, in, o);
  o.requant = "ort";
  const io::NamedTensors c_ort = test::compile_and_run(path, in, o);
  Graph g = test::import_built(m, "qmatmul16_ort");
  for (Node& n : g.nodes) n.attrs.set(ops::kRequantAttr, int64_t{1});
  const std::vector<TensorData> ref_ort = evaluate(g, {in[0].second, in[1].second});
  for (size_t i = 0; i < fixed.size(); ++i) {
    EXPECT_EQ(values<int16_t>(ref[i].second), fixed[i]) << ref[i].first;
    EXPECT_EQ(values<int16_t>(c_fixed[i].second), fixed[i]) << c_fixed[i].first;
    EXPECT_EQ(values<int16_t>(ref_ort[i]), ort[i]) << ref[i].first;
    EXPECT_EQ(values<int16_t>(c_ort[i].second), ort[i]) << c_ort[i].first;
  }
  OnnxBuilder r;
  r.input("a", DType::Int16, {2, 4, 5}).input("b", DType::Int16, {2, 5, 3});
  r.initializer("as", f(0.002f)).initializer("bs", f(0.003f)).initializer("ys", f(0.05f)).initializer("ys8", f(0.9f));
  r.initializer("z", TensorData::scalar<int16_t>(0)).initializer("z8", TensorData::scalar<int8_t>(0));
  r.initializer("w", random_tensor(DType::Int8, {2, 5, 3}, 9, -128, 127)).initializer("ws", f(0.01f));
  r.node("QLinearMatMul", {"a", "as", "z", "b", "bs", "z", "ys", "z"}, {"y"});
  r.node("QLinearMatMul", {"a", "as", "z", "w", "ws", "z8", "ys", "z"}, {"yw"});
  r.node("QLinearMatMul", {"a", "as", "z", "b", "bs", "z", "ys8", "z8"}, {"y8"});  // an int8 output (mixed precision)
  r.output("y").output("yw").output("y8");
  test::expect_matches_reference(save(r), {{"a", random_tensor(DType::Int16, {2, 4, 5}, 7, -32768, 32767)},
                                           {"b", random_tensor(DType::Int16, {2, 5, 3}, 8, -32768, 32767)}},
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

// 16x8 Concat: int16 a (scale 0.5) and b (scale 2) concatenated and
// quantized at scale 1 (com.microsoft int16 QuantizeLinear/DequantizeLinear)
// fold into a Concat of a and b each rescaled by a QLinearMul by an int16 1
// (one rounding; no 65,536-entry table), nothing float: a {100, -7} -> 50,
// -3.5 -> -3 (the fixed-point tie toward +infinity), b {3, 32767} -> 6,
// 65534 -> 32767 (saturated). The generated C gives the same values.
TEST(FoldQdq, Int16ConcatRescalesByAQLinearMul) {
  OnnxBuilder m(17);
  auto qp = [&](const std::string& t, float scale) {
    m.initializer(t + "_s", TensorData::scalar<float>(scale)).initializer(t + "_z", TensorData::scalar<int16_t>(0));
  };
  m.input("a", DType::Int16, {1, 2}).input("b", DType::Int16, {1, 2});
  qp("a", 0.5f);
  qp("b", 2.0f);
  qp("y", 1.0f);
  m.node("DequantizeLinear", {"a", "a_s", "a_z"}, {"ad"}, {}, "a_DQ").in_domain(kMs);
  m.node("DequantizeLinear", {"b", "b_s", "b_z"}, {"bd"}, {}, "b_DQ").in_domain(kMs);
  m.node("Concat", {"ad", "bd"}, {"c"}, {{"axis", int64_t{1}}}, "concat");
  m.node("QuantizeLinear", {"c", "y_s", "y_z"}, {"y"}, {}, "y_Q").in_domain(kMs);
  m.output("y");
  const fs::path p = save(m);
  const driver::CompileResult r = driver::compile_model(p, {});
  std::vector<std::string> ops;
  for (const Node& n : r.graph.nodes) ops.push_back(n.op);
  std::sort(ops.begin(), ops.end());
  EXPECT_EQ(ops, (std::vector<std::string>{"Concat", "QLinearMul", "QLinearMul"}));
  EXPECT_TRUE(r.float_notes.empty());
  const io::NamedTensors in = {{"a", TensorData::from<int16_t>({1, 2}, {100, -7})},
                               {"b", TensorData::from<int16_t>({1, 2}, {3, 32767})}};
  const io::NamedTensors got = test::compile_and_run(p, in);
  EXPECT_EQ(values<int16_t>(got[0].second), (std::vector<int>{50, -3, 6, 32767}));
}

// mlip/lut16.h on a hand table (0 at knot 256, 100 at 257, 0 at 258, -100
// at 255): x = 0, 1, 64, 127 -> 0, 1 (1.28), 50 (50.5: floor after +64),
// 99; x = -1 (knot 255, offset 127) -> -100 + 99 = -1; a falling segment:
// x = 129 -> 100 + floor(-0.28) = 99, x = 192 -> 100 + floor(-49.5) = 50.
TEST(Lut16, InterpolatesBetweenKnots) {
  std::vector<int16_t> t(MLIP_LUT16_ENTRIES, 0);
  t[255] = -100;
  t[257] = 100;
  const std::vector<std::pair<int32_t, int>> cases = {{0, 0},   {1, 1},    {64, 50},  {127, 99},
                                                      {-1, -1}, {129, 99}, {192, 50}, {256, 0}};
  for (auto [x, want] : cases) EXPECT_EQ(mlip_lut16(x, t.data()), want) << x;
  std::vector<int16_t> ends(MLIP_LUT16_ENTRIES, 0);
  ends[0] = -32768;
  ends[511] = 32767;
  ends[512] = 32767;
  EXPECT_EQ(mlip_lut16(-32768, ends.data()), -32768);
  EXPECT_EQ(mlip_lut16(32767, ends.data()), 32767);
}

// 16x8 Tanh and Sigmoid (int16 in and out, com.microsoft QDQ): each a
// lookup in a 513-entry int16 table, nothing float; over all 65,536 inputs
// (x_scale 8 / 32767, y_scale 1 / 32767) the output is within 3 steps of
// the exact quantized function (measured: Tanh 3, Sigmoid 2; linear
// interpolation over a segment of 128 input steps errs by up to h^2 / 8
// times the curvature, 3.1 steps for Tanh here, halved by the midpoint
// correction, plus the roundings; it falls with the square of x_scale),
// most of it exact, and the generated C gives the evaluator's bits.
TEST(FoldQdq, Int16ActivationsAreInterpolatedTables) {
  OnnxBuilder m(17);
  m.initializer("xs", TensorData::scalar<float>(8.0f / 32767.0f)).initializer("z", TensorData::scalar<int16_t>(0));
  m.initializer("ys", TensorData::scalar<float>(1.0f / 32767.0f));
  m.input("x", DType::Int16, {65536});
  m.node("DequantizeLinear", {"x", "xs", "z"}, {"xd"}, {}, "x_DQ").in_domain(kMs);
  m.node("Tanh", {"xd"}, {"t"}, {}, "tanh");
  m.node("QuantizeLinear", {"t", "ys", "z"}, {"tq"}, {}, "t_Q").in_domain(kMs);
  m.node("Sigmoid", {"xd"}, {"s"}, {}, "sigmoid");
  m.node("QuantizeLinear", {"s", "ys", "z"}, {"sq"}, {}, "s_Q").in_domain(kMs);
  m.output("tq").output("sq");
  const fs::path p = save(m);
  const driver::CompileResult r = driver::compile_model(p, {});
  std::vector<std::string> ops;
  for (const Node& n : r.graph.nodes) ops.push_back(n.op);
  EXPECT_EQ(ops, (std::vector<std::string>{ops::kQLookupOp, ops::kQLookupOp}));
  EXPECT_TRUE(r.float_notes.empty());
  std::vector<int16_t> all(65536);
  for (int32_t v = -32768; v <= 32767; ++v) all[static_cast<size_t>(v + 32768)] = static_cast<int16_t>(v);
  const io::NamedTensors in = {{"x", TensorData::from<int16_t>({65536}, all)}};
  const io::NamedTensors got = test::compile_and_run(p, in);
  const std::vector<TensorData> want = evaluate(r.graph, {in[0].second});
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(got[k].second, want[k]);
    int worst = 0;
    size_t exact = 0;
    for (int32_t v = -32768; v <= 32767; ++v) {
      const double x = v * static_cast<double>(8.0f / 32767.0f);
      const double f = k == 0 ? std::tanh(x) : 1.0 / (1.0 + std::exp(-x));
      const int e = static_cast<int>(std::lround(std::min(32767.0, f * 32767.0)));
      const int d = std::abs(got[k].second.data<int16_t>()[v + 32768] - e);
      worst = std::max(worst, d);
      exact += d == 0;
    }
    fmt::print("16x8 {}: worst {} steps, {} of 65536 exact\n", k == 0 ? "Tanh" : "Sigmoid", worst, exact);
    EXPECT_LE(worst, k == 0 ? 3 : 2);
    EXPECT_GT(exact, 65536u / 2);
  }
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
