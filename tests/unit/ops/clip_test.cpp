#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "ops/clip.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_clip {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("clip_{}.onnx", k++));
}

std::string import_error(const OnnxBuilder& b) {
  try {
    frontend::import_onnx(save(b));
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Clip, ShapeRuleErrors) {
  {
    OnnxBuilder m;
    m.input("x", DType::Float32, {3}).initializer("lo", TensorData::from<float>({2}, {0, 1}));
    m.node("Clip", {"x", "lo"}, {"y"}).output("y");
    EXPECT_THAT(import_error(m), HasSubstr("min must be a scalar, got shape [2]"));
  }
  {
    OnnxBuilder m;
    m.input("x", DType::Int32, {3}).input("hi", DType::Float32, {});
    m.node("Clip", {"x", "", "hi"}, {"y"}).output("y");
    EXPECT_THAT(import_error(m), HasSubstr("max has element type float32 but the input is int32"));
  }
  {
    OnnxBuilder m;
    m.input("x", DType::Bool, {3}).node("Clip", {"x"}, {"y"}).output("y");
    EXPECT_THAT(import_error(m), HasSubstr("has element type bool"));
  }
}

TEST(Clip, BoundConversion) {
  TensorData v;
  // Opset < 11 float bounds on an integer input round inward: x >= 1.5 is x >= 2.
  EXPECT_TRUE(ops::clip_bound(TensorData::scalar<float>(1.5f), DType::Int32, true, v));
  EXPECT_EQ(v.as_int64()[0], 2);
  EXPECT_TRUE(ops::clip_bound(TensorData::scalar<float>(1.5f), DType::Int32, false, v));
  EXPECT_EQ(v.as_int64()[0], 1);
  // Saturated to the type's range; then the bound clips nothing.
  EXPECT_FALSE(ops::clip_bound(TensorData::scalar<float>(-1e10f), DType::Int8, true, v));
  EXPECT_EQ(v.as_int64()[0], -128);
  EXPECT_FALSE(ops::clip_bound(TensorData::scalar<float>(std::numeric_limits<float>::max()), DType::UInt8, false, v));
  EXPECT_FALSE(ops::clip_bound(TensorData::scalar<float>(-INFINITY), DType::Float32, true, v));
  EXPECT_TRUE(ops::clip_bound(TensorData::scalar<float>(std::numeric_limits<float>::lowest()), DType::Float32, true, v));
  EXPECT_TRUE(ops::clip_bound(TensorData::scalar<int8_t>(5), DType::Int8, false, v));
}

template <class T>
std::vector<T> eval(const std::vector<T>& x, const TensorData* lo, const TensorData* hi) {
  OnnxBuilder m;
  m.initializer("x", TensorData::from<T>({static_cast<int64_t>(x.size())}, x));
  if (lo) m.initializer("lo", *lo);
  if (hi) m.initializer("hi", *hi);
  m.node("Clip", {"x", lo ? "lo" : "", hi ? "hi" : ""}, {"y"}).output("y");
  const TensorData y = test::reference_run(save(m), {}).at(0).second;
  return std::vector<T>(y.data<T>(), y.data<T>() + y.numel());
}

TEST(Clip, Reference) {
  using V = std::vector<float>;
  const TensorData lo = TensorData::scalar<float>(-1), hi = TensorData::scalar<float>(2);
  EXPECT_EQ(eval<float>({-3, 0.5f, 5}, &lo, &hi), (V{-1, 0.5f, 2}));
  EXPECT_EQ(eval<float>({-3, 0.5f, 5}, &lo, nullptr), (V{-1, 0.5f, 5}));
  EXPECT_EQ(eval<float>({-3, 0.5f, 5}, nullptr, &hi), (V{-3, 0.5f, 2}));
  EXPECT_EQ(eval<float>({-INFINITY, INFINITY}, nullptr, nullptr), (V{-INFINITY, INFINITY}));
  // min > max: every element becomes max (numpy.clip, the ONNX reference).
  EXPECT_EQ(eval<float>({-3, 0.5f, 5}, &hi, &lo), (V{-1, -1, -1}));
  EXPECT_TRUE(std::isnan(eval<float>({NAN}, &lo, &hi)[0]));
  const TensorData i8lo = TensorData::scalar<int8_t>(-5), i8hi = TensorData::scalar<int8_t>(100);
  EXPECT_EQ(eval<int8_t>({-128, 0, 127}, &i8lo, &i8hi), (std::vector<int8_t>{-5, 0, 100}));
}

TEST(Clip, Opset6AttributesOnFloat) {
  OnnxBuilder m(6);
  m.input("x", DType::Float32, {2, 5}).node("Clip", {"x"}, {"y"}, {{"min", -0.25f}, {"max", 0.5f}}).output("y");
  const fs::path model = save(m);
  const TensorData x = random_tensor(DType::Float32, {2, 5}, 1);
  const TensorData y = test::reference_run(model, {{"x", x}}).at(0).second;
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(y.data<float>()[i], std::fmin(std::fmax(x.data<float>()[i], -0.25f), 0.5f));
  test::expect_matches_reference(model, {{"x", x}});
}

TEST(Clip, GeneratedCFloatBounds) {
  // Constant, computed, and missing bounds in one model.
  OnnxBuilder m(13);
  m.input("x", DType::Float32, {3, 4}).input("rlo", DType::Float32, {}).input("rhi", DType::Float32, {1});
  m.initializer("lo", TensorData::scalar<float>(-0.3f)).initializer("hi", TensorData::scalar<float>(0.4f));
  m.initializer("ninf", TensorData::scalar<float>(-INFINITY));
  m.node("Clip", {"x", "lo", "hi"}, {"const_both"}).output("const_both");
  m.node("Clip", {"x", "lo"}, {"const_min"}).output("const_min");
  m.node("Clip", {"x", "", "hi"}, {"const_max"}).output("const_max");
  m.node("Clip", {"x", "rlo", "rhi"}, {"runtime_both"}).output("runtime_both");
  m.node("Clip", {"x", "ninf", "rhi"}, {"mixed"}).output("mixed");
  m.node("Clip", {"x", "rhi", "rlo"}, {"inverted"}).output("inverted");  // min > max
  m.node("Clip", {"x"}, {"none"}).output("none");
  test::expect_matches_reference(save(m), {{"x", random_tensor(DType::Float32, {3, 4}, 2)},
                                           {"rlo", TensorData::scalar<float>(-0.5f)},
                                           {"rhi", TensorData::from<float>({1}, {0.25f})}});
}

TEST(Clip, GeneratedCIntegerTypes) {
  for (DType t : {DType::Int8, DType::UInt8, DType::Int32, DType::Int64, DType::UInt64}) {
    OnnxBuilder m(13);
    m.input("x", t, {10}).input("rhi", t, {});
    m.initializer("lo", TensorData::scalar<double>(10).cast(t)).initializer("hi", TensorData::scalar<double>(100).cast(t));
    m.node("Clip", {"x", "lo", "hi"}, {"constant"}).output("constant");
    m.node("Clip", {"x", "lo", "rhi"}, {"runtime"}).output("runtime");
    SCOPED_TRACE(std::string(dtype_name(t)));
    test::expect_matches_reference(save(m), {{"x", random_tensor(t, {10}, 3, dtype_is_signed(t) ? -128 : 0, 127)},
                                             {"rhi", TensorData::scalar<double>(50).cast(t)}},
                                   0, 0);
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_clip
