// MatMulInteger and QLinearMatMul: shape rules and refusals, the reference
// on hand-computed values, and the generated C against the reference bit
// for bit (zero points per tensor, per row and per column, batch
// broadcasting, int8 and uint8, per-row and per-column scales).
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_matmul_integer {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("matmul_integer_{}.onnx", k++));
}

template <class T>
std::vector<T> values(const TensorData& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}

TEST(MatMulInteger, Reference) {
  OnnxBuilder m;
  m.input("a", DType::UInt8, {2, 2}).input("b", DType::Int8, {2, 2});
  m.initializer("za", TensorData::from<uint8_t>({2}, {1, 2}));  // per row
  m.initializer("zb", TensorData::from<int8_t>({2}, {0, -1}));  // per column
  m.node("MatMulInteger", {"a", "b", "za", "zb"}, {"y"}).output("y");
  const auto out = test::reference_run(save(m), {{"a", TensorData::from<uint8_t>({2, 2}, {1, 2, 255, 4})},
                                                 {"b", TensorData::from<int8_t>({2, 2}, {-128, 6, 7, 127})}});
  // a - za = [[0, 1], [253, 2]], b - zb = [[-128, 7], [7, 128]].
  EXPECT_EQ(values<int32_t>(out[0].second), (std::vector<int32_t>{7, 128, 253 * -128 + 14, 253 * 7 + 256}));
}

TEST(QLinearMatMul, ReferenceRequantizes) {
  OnnxBuilder m;
  m.input("a", DType::UInt8, {1, 2}).input("b", DType::UInt8, {2, 2});
  m.initializer("as", TensorData::scalar<float>(0.5f));
  m.initializer("az", TensorData::scalar<uint8_t>(10));
  m.initializer("bs", TensorData::from<float>({2}, {0.5f, 2.0f}));  // per column
  m.initializer("bz", TensorData::from<uint8_t>({2}, {0, 100}));
  m.initializer("ys", TensorData::scalar<float>(1.0f));
  m.initializer("yz", TensorData::scalar<int8_t>(-5));
  m.node("QLinearMatMul", {"a", "as", "az", "b", "bs", "bz", "ys", "yz"}, {"y"}).output("y");
  const auto out = test::reference_run(save(m), {{"a", TensorData::from<uint8_t>({1, 2}, {13, 9})},
                                                 {"b", TensorData::from<uint8_t>({2, 2}, {3, 200, 5, 99})}});
  // (a - 10) = [3, -1]; column 0: 3*3 - 5 = 4, * 0.25 = 1 -> -4;
  // column 1: 3*100 + -1*-1 = 301, * 1.0 = 301 -> 296 -> 127.
  EXPECT_EQ(values<int8_t>(out[0].second), (std::vector<int8_t>{-4, 127}));
}

std::string qlinear_error(const TensorData& as, const TensorData& az, const TensorData& bs, const TensorData& ys,
                          DType b_type = DType::UInt8, bool runtime_y_scale = false) {
  OnnxBuilder m;
  m.input("a", DType::UInt8, {3, 4}).input("b", b_type, {4, 5});
  m.initializer("as", as).initializer("az", az).initializer("bs", bs);
  m.initializer("bz", TensorData::scalar<uint8_t>(0)).initializer("yz", TensorData::scalar<uint8_t>(0));
  if (runtime_y_scale)
    m.input("ys", DType::Float32, {});
  else
    m.initializer("ys", ys);
  m.node("QLinearMatMul", {"a", "as", "az", "b", "bs", "bz", "ys", "yz"}, {"y"}, {}, "qm").output("y");
  return test::import_error(save(m));
}

TEST(QLinearMatMul, Refusals) {
  const TensorData one = TensorData::scalar<float>(1.0f);
  const TensorData z = TensorData::scalar<uint8_t>(0);
  EXPECT_THAT(qlinear_error(TensorData::scalar<float>(0.0f), z, one, one),
              HasSubstr("node 'qm' (QLinearMatMul): a_scale is 0; a scale must be positive and finite"));
  EXPECT_THAT(qlinear_error(one, z, one, TensorData::scalar<float>(-0.5f)), HasSubstr("y_scale is -0.5"));
  EXPECT_THAT(qlinear_error(one, z, TensorData::from<float>({4}, {1, 1, 1, 1}), one),
              HasSubstr("b_scale has shape [4]; it must be one value or one per column of B ([5] or [1,5])"));
  EXPECT_THAT(qlinear_error(one, TensorData::from<uint8_t>({2}, {0, 0}), one, one),
              HasSubstr("a_zero_point has shape [2]; it must be one value or one per row of A ([3] or [3,1])"));
  EXPECT_THAT(qlinear_error(one, TensorData::scalar<int8_t>(0), one, one),
              HasSubstr("a_zero_point is int8 but a is uint8"));
  EXPECT_THAT(qlinear_error(one, z, one, one, DType::Int8), HasSubstr("b_zero_point is uint8 but b is int8"));
  // int16 takes QLinearMatMul's 16x8 form, whose other sides are int16 or int8, not uint8.
  EXPECT_THAT(qlinear_error(one, z, one, one, DType::Int16),
              HasSubstr("a is uint8; with int16 (16x8) operands every type is int16 or int8"));
  EXPECT_THAT(qlinear_error(one, z, one, one, DType::UInt8, true),
              HasSubstr("('ys', y_scale) must be a constant known at compile time"));
  EXPECT_THAT(qlinear_error(TensorData::scalar<float>(1e20f), z, one, TensorData::scalar<float>(1e-20f)),
              HasSubstr("requantization multiplier"));
}

TEST(MatMulInteger, Refusals) {
  auto err = [](const Shape& a, const Shape& b, const TensorData* za) {
    OnnxBuilder m;
    m.input("a", DType::Int8, a).input("b", DType::Int8, b);
    std::vector<std::string> ins = {"a", "b"};
    if (za) {
      m.initializer("za", *za);
      ins.push_back("za");
    }
    m.node("MatMulInteger", ins, {"y"}, {}, "mi").output("y");
    return test::import_error(save(m));
  };
  EXPECT_THAT(err({1, 40000}, {40000, 1}, nullptr),
              HasSubstr("node 'mi' (MatMulInteger): K = 40000 products per output could overflow the int32 accumulator"));
  const TensorData zu = TensorData::scalar<uint8_t>(1);
  EXPECT_THAT(err({3, 4}, {4, 2}, &zu), HasSubstr("a_zero_point is uint8 but A is int8"));
  const TensorData z4 = TensorData::from<int8_t>({4}, {0, 0, 0, 0});
  EXPECT_THAT(err({3, 4}, {4, 2}, &z4), HasSubstr("a_zero_point has shape [4]; it must be one value or one per row"));
}

// Random odd shapes per seed; every combination of zero-point forms and
// types in one model per seed.
TEST(MatMulInteger, GeneratedCMatchesReferenceRandom) {
  struct Case {
    Shape a, b;
  };
  const std::vector<Case> shapes = {{{3, 5}, {5, 7}}, {{2, 1, 3, 5}, {4, 5, 3}}, {{5}, {5, 3}}, {{3, 5}, {5}},
                                    {{1, 33}, {33, 9}}};
  for (uint32_t seed = 1; seed <= static_cast<uint32_t>(shapes.size()); ++seed) {
    const Case& c = shapes[seed - 1];
    std::mt19937 rng(seed);
    const int64_t mdim = c.a.size() > 1 ? c.a[c.a.size() - 2] : 1;
    const int64_t ndim = c.b.size() > 1 ? c.b.back() : 1;
    OnnxBuilder m;
    m.input("a8", DType::Int8, c.a).input("au", DType::UInt8, c.a);
    m.input("b8", DType::Int8, c.b).input("bu", DType::UInt8, c.b);
    io::NamedTensors in = {{"a8", random_tensor(DType::Int8, c.a, seed, -128, 127)},
                           {"au", random_tensor(DType::UInt8, c.a, seed + 1, 0, 255)},
                           {"b8", random_tensor(DType::Int8, c.b, seed + 2, -128, 127)},
                           {"bu", random_tensor(DType::UInt8, c.b, seed + 3, 0, 255)}};
    m.initializer("za8", TensorData::scalar<int8_t>(-7));
    m.initializer("zau_row", random_tensor(DType::UInt8, {mdim}, seed + 4, 0, 255));
    m.initializer("zb8_col", random_tensor(DType::Int8, {ndim}, seed + 5, -128, 127));
    m.initializer("zbu", TensorData::from<uint8_t>({1}, {200}));
    m.node("MatMulInteger", {"a8", "b8"}, {"y0"}).output("y0");
    m.node("MatMulInteger", {"au", "bu", "zau_row", "zbu"}, {"y1"}).output("y1");
    m.node("MatMulInteger", {"a8", "bu", "za8", "zbu"}, {"y2"}).output("y2");
    m.node("MatMulInteger", {"au", "b8", "", "zb8_col"}, {"y3"}).output("y3");
    // QLinearMatMul: per-tensor; per-column b scale; per-row a scale with both.
    std::vector<float> col_scales, row_scales;
    for (int64_t j = 0; j < ndim; ++j) col_scales.push_back(0.002f + 0.0007f * static_cast<float>(j));
    for (int64_t i = 0; i < mdim; ++i) row_scales.push_back(0.03f + 0.011f * static_cast<float>(i));
    m.initializer("s1", TensorData::scalar<float>(0.021f)).initializer("s2", TensorData::scalar<float>(0.0137f));
    m.initializer("sy", TensorData::scalar<float>(0.05f)).initializer("sy_small", TensorData::scalar<float>(0.0013f));
    m.initializer("scol", TensorData::from<float>({ndim}, col_scales));
    m.initializer("srow", TensorData::from<float>({mdim}, row_scales));
    m.initializer("zy8", TensorData::scalar<int8_t>(3)).initializer("zyu", TensorData::scalar<uint8_t>(120));
    m.initializer("zb8", TensorData::scalar<int8_t>(0));
    m.node("QLinearMatMul", {"au", "s1", "zbu", "bu", "s2", "zbu", "sy", "zyu"}, {"q0"}).output("q0");
    m.node("QLinearMatMul", {"a8", "s1", "za8", "b8", "scol", "zb8_col", "sy_small", "zy8"}, {"q1"}).output("q1");
    m.node("QLinearMatMul", {"au", "srow", "zau_row", "b8", "scol", "zb8_col", "sy", "zyu"}, {"q2"}).output("q2");
    (void)rng;
    SCOPED_TRACE(fmt::format("A {} B {}", shape_str(c.a), shape_str(c.b)));
    test::expect_matches_reference(save(m), in, 0.0, 0.0);
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_matmul_integer
