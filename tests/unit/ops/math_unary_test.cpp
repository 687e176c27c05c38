// Exp, Log, Sqrt, Erf, Abs, Neg, Reciprocal, Floor, Ceil, Round, Sign, the
// trigonometric and hyperbolic functions, IsNaN, IsInf: shape rules,
// reference values, and generated C bit-identical to the reference.
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_math_unary {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;
using Attrs = std::vector<std::pair<std::string, AttrValue>>;

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("math_unary_{}.onnx", k++));
}

fs::path model(const std::string& op, DType t, const Shape& shape, const Attrs& attrs = {}) {
  OnnxBuilder m;
  m.input("x", t, shape).node(op, {"x"}, {"y"}, attrs).output("y");
  return save(m);
}

using test::import_error;

// The reference's output for input x (any dtype).
TensorData eval(const std::string& op, const TensorData& x, const Attrs& attrs = {}) {
  return test::reference_run(model(op, x.dtype(), x.shape(), attrs), {{"x", x}}).at(0).second;
}

std::vector<float> evalf(const std::string& op, const std::vector<float>& x, const Attrs& attrs = {}) {
  const TensorData y = eval(op, TensorData::from<float>({static_cast<int64_t>(x.size())}, x), attrs);
  return std::vector<float>(y.data<float>(), y.data<float>() + y.numel());
}

std::vector<uint8_t> eval_bool(const std::string& op, const std::vector<float>& x, const Attrs& attrs = {}) {
  const TensorData y = eval(op, TensorData::from<float>({static_cast<int64_t>(x.size())}, x), attrs);
  EXPECT_EQ(y.dtype(), DType::Bool);
  return std::vector<uint8_t>(y.raw(), y.raw() + y.numel());
}

TEST(MathUnary, ShapeRule) {
  Graph g = frontend::import_onnx(model("IsNaN", DType::Float64, {2, 3}));
  EXPECT_EQ(g.value(g.outputs[0].value).dtype, DType::Bool);
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 3}));
  g = frontend::import_onnx(model("Abs", DType::UInt16, {4}));
  EXPECT_EQ(g.value(g.outputs[0].value).dtype, DType::UInt16);
  EXPECT_THAT(import_error(model("Exp", DType::Float64, {2})), HasSubstr("has element type float64; supported: float32"));
  EXPECT_THAT(import_error(model("Sin", DType::Int32, {2})), HasSubstr("supported: float32"));
  EXPECT_THAT(import_error(model("Sqrt", DType::Int32, {2})), HasSubstr("supported: float16, float32, float64"));
  EXPECT_THAT(import_error(model("Neg", DType::UInt8, {2})), HasSubstr("has element type uint8; supported: float16"));
  EXPECT_THAT(import_error(model("IsInf", DType::Int32, {2})), HasSubstr("supported: float16, float32, float64"));
  EXPECT_THAT(import_error(model("Round", DType::Bool, {2})), HasSubstr("has element type bool"));
}

TEST(MathUnary, ReferenceFloat) {
  using V = std::vector<float>;
  EXPECT_EQ(evalf("Exp", {0, 1}), (V{1, std::exp(1.0f)}));
  EXPECT_EQ(evalf("Log", {1, std::exp(2.0f)}), (V{0, std::log(std::exp(2.0f))}));
  EXPECT_EQ(evalf("Sqrt", {4, 2.25f}), (V{2, 1.5f}));
  EXPECT_EQ(evalf("Erf", {0}), (V{0}));
  EXPECT_EQ(evalf("Abs", {-2, 3, -0.0f}), (V{2, 3, 0}));
  EXPECT_EQ(evalf("Neg", {-2, 3}), (V{2, -3}));
  EXPECT_EQ(evalf("Reciprocal", {4, -0.5f}), (V{0.25f, -2}));
  EXPECT_EQ(evalf("Floor", {-1.5f, 1.5f, 2}), (V{-2, 1, 2}));
  EXPECT_EQ(evalf("Ceil", {-1.5f, 1.5f, 2}), (V{-1, 2, 2}));
  // Halves to even.
  EXPECT_EQ(evalf("Round", {0.5f, 1.5f, 2.5f, -2.5f, 2.6f, -0.4f}), (V{0, 2, 2, -2, 3, -0.0f}));
  EXPECT_EQ(evalf("Sign", {-3, 0, 2.5f}), (V{-1, 0, 1}));
  EXPECT_TRUE(std::isnan(evalf("Sign", {kNaN})[0]));
  EXPECT_EQ(evalf("Sin", {0})[0], 0.0f);
  EXPECT_EQ(evalf("Cos", {0})[0], 1.0f);
  EXPECT_NEAR(evalf("Tan", {0.5f})[0], std::tan(0.5), 1e-6);
  EXPECT_NEAR(evalf("Asin", {0.5f})[0], std::asin(0.5), 1e-6);
  EXPECT_NEAR(evalf("Acos", {0.5f})[0], std::acos(0.5), 1e-6);
  EXPECT_NEAR(evalf("Atan", {2})[0], std::atan(2.0), 1e-6);
  EXPECT_NEAR(evalf("Sinh", {1})[0], std::sinh(1.0), 1e-6);
  EXPECT_NEAR(evalf("Cosh", {1})[0], std::cosh(1.0), 1e-6);
  EXPECT_NEAR(evalf("Asinh", {1})[0], std::asinh(1.0), 1e-6);
  EXPECT_NEAR(evalf("Acosh", {2})[0], std::acosh(2.0), 1e-6);
  EXPECT_NEAR(evalf("Atanh", {0.5f})[0], std::atanh(0.5), 1e-6);
}

TEST(MathUnary, ReferenceIntegers) {
  EXPECT_EQ(eval("Abs", TensorData::from<int8_t>({3}, {-128, -5, 7})), TensorData::from<int8_t>({3}, {-128, 5, 7}));
  EXPECT_EQ(eval("Abs", TensorData::from<uint8_t>({2}, {200, 0})), TensorData::from<uint8_t>({2}, {200, 0}));
  const int32_t mn = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(eval("Neg", TensorData::from<int32_t>({3}, {mn, -4, 9})), TensorData::from<int32_t>({3}, {mn, 4, -9}));
  EXPECT_EQ(eval("Sign", TensorData::from<int64_t>({3}, {-7, 0, 9})), TensorData::from<int64_t>({3}, {-1, 0, 1}));
  EXPECT_EQ(eval("Sign", TensorData::from<uint16_t>({2}, {0, 9})), TensorData::from<uint16_t>({2}, {0, 1}));
}

TEST(MathUnary, ReferencePredicates) {
  using B = std::vector<uint8_t>;
  const std::vector<float> x = {kInf, -kInf, kNaN, 0, 1};
  EXPECT_EQ(eval_bool("IsNaN", x), (B{0, 0, 1, 0, 0}));
  EXPECT_EQ(eval_bool("IsInf", x), (B{1, 1, 0, 0, 0}));
  EXPECT_EQ(eval_bool("IsInf", x, {{"detect_negative", int64_t{0}}}), (B{1, 0, 0, 0, 0}));
  EXPECT_EQ(eval_bool("IsInf", x, {{"detect_positive", int64_t{0}}}), (B{0, 1, 0, 0, 0}));
  EXPECT_EQ(eval_bool("IsInf", x, {{"detect_positive", int64_t{0}}, {"detect_negative", int64_t{0}}}),
            (B{0, 0, 0, 0, 0}));
}

TEST(MathUnary, ReferenceFloat16RoundsOnce) {
  // sqrt(2) in float16 is 0x3DA8 (1.4140625); 1/3 is 0x3555.
  const TensorData x = TensorData::from<float>({2}, {2.0f, 3.0f}).cast(DType::Float16);
  EXPECT_EQ(eval("Sqrt", x).raw_as<uint16_t>()[0], 0x3DA8);
  EXPECT_EQ(eval("Reciprocal", x).raw_as<uint16_t>()[1], 0x3555);
}

// Every operator in one model per input type, so each compiles once.
TEST(MathUnary, GeneratedCMatchesReferenceBitForBit) {
  OnnxBuilder m;
  const Shape s = {3, 7, 5};
  m.input("x", DType::Float32, s).input("pos", DType::Float32, s).input("unit", DType::Float32, s);
  m.input("ge1", DType::Float32, s).input("special", DType::Float32, {8});
  const std::vector<std::pair<std::string, std::string>> ops = {
      {"Exp", "x"},   {"Log", "pos"},   {"Sqrt", "pos"},   {"Erf", "x"},     {"Abs", "x"},     {"Neg", "x"},
      {"Reciprocal", "x"}, {"Floor", "x"}, {"Ceil", "x"},  {"Round", "x"},   {"Sign", "x"},    {"Sin", "x"},
      {"Cos", "x"},   {"Tan", "x"},     {"Asin", "unit"},  {"Acos", "unit"}, {"Atan", "x"},    {"Sinh", "x"},
      {"Cosh", "x"},  {"Asinh", "x"},   {"Acosh", "ge1"},  {"Atanh", "unit"}, {"IsNaN", "special"},
      {"IsInf", "special"}, {"Round", "special"}, {"Sign", "special"}, {"Abs", "special"}, {"Floor", "special"},
      {"Exp", "special"}, {"Erf", "special"}};
  int k = 0;
  for (const auto& [op, in] : ops) {
    const std::string y = fmt::format("{}_{}", op, k++);
    m.node(op, {in}, {y}).output(y);
  }
  m.node("IsInf", {"special"}, {"pinf"}, {{"detect_negative", int64_t{0}}}).output("pinf");
  m.node("IsInf", {"special"}, {"ninf"}, {{"detect_positive", int64_t{0}}}).output("ninf");
  TensorData special = TensorData::from<float>({8}, {kInf, -kInf, kNaN, -0.0f, 0.5f, -2.5f, 3.5f, 1e-40f});
  test::expect_matches_reference(save(m),
                                 {{"x", random_tensor(DType::Float32, s, 1, -3, 3)},
                                  {"pos", random_tensor(DType::Float32, s, 2, 0.01, 10)},
                                  {"unit", random_tensor(DType::Float32, s, 3, -0.999, 0.999)},
                                  {"ge1", random_tensor(DType::Float32, s, 4, 1, 8)},
                                  {"special", special}},
                                 0, 0);
}

TEST(MathUnary, GeneratedCOtherTypesMatchReference) {
  OnnxBuilder m;
  m.input("h", DType::Float16, {11}).input("d", DType::Float64, {2, 5});
  m.input("i8", DType::Int8, {9}).input("i64", DType::Int64, {4}).input("u32", DType::UInt32, {6});
  int k = 0;
  auto add = [&](const std::string& op, const std::string& in) {
    const std::string y = fmt::format("{}_{}_{}", op, in, k++);
    m.node(op, {in}, {y}).output(y);
  };
  for (const char* op : {"Sqrt", "Reciprocal", "Floor", "Ceil", "Round", "Abs", "Neg", "Sign", "IsNaN", "IsInf"}) {
    add(op, "h");
    add(op, "d");
  }
  for (const char* op : {"Abs", "Neg", "Sign"}) {
    add(op, "i8");
    add(op, "i64");
  }
  add("Abs", "u32");
  add("Sign", "u32");
  TensorData i8 = TensorData::from<int8_t>({9}, {-128, -127, -1, 0, 1, 5, 127, -3, 64});
  TensorData i64 = TensorData::from<int64_t>({4}, {std::numeric_limits<int64_t>::min(), -9, 0, 1LL << 40});
  test::expect_matches_reference(save(m),
                                 {{"h", random_tensor(DType::Float16, {11}, 5, -4, 4)},
                                  {"d", random_tensor(DType::Float64, {2, 5}, 6, 0.1, 9)},
                                  {"i8", i8},
                                  {"i64", i64},
                                  {"u32", random_tensor(DType::UInt32, {6}, 7, 0, 4e9)}},
                                 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_math_unary
