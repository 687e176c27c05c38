#include <cmath>
#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "driver/compile.h"
#include "frontend/onnx_import.h"
#include "mlip/kconvert.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_cast {
namespace {

using test::OnnxBuilder;
using ::testing::HasSubstr;

// Cast of a constant (folded) to ONNX type code `to`.
TensorData cast_of(const TensorData& x, int64_t to) {
  OnnxBuilder b;
  b.initializer("x", x);
  b.node("Cast", {"x"}, {"y"}, {{"to", to}});
  b.output("y");
  Graph g = frontend::import_onnx(b.save(test::scratch_dir(), "cast.onnx"));
  EXPECT_TRUE(g.nodes.empty());
  return *g.value(g.outputs[0].value).constant;
}

std::string cast_error(int64_t to) {
  try {
    cast_of(TensorData::scalar<float>(1.0f), to);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Cast, Types) {
  const TensorData f = TensorData::from<float>({4}, {1.9f, -1.9f, 0.0f, 300.0f});
  EXPECT_EQ(cast_of(f, 7), TensorData::from<int64_t>({4}, {1, -1, 0, 300}));  // to int64: truncates
  EXPECT_EQ(cast_of(f, 9), TensorData::from<uint8_t>({4}, {1, 1, 0, 1}).cast(DType::Bool));
  EXPECT_EQ(cast_of(f, 11), f.cast(DType::Float64));
  EXPECT_EQ(cast_of(f, 10).dtype(), DType::Float16);
  EXPECT_EQ(cast_of(f, 16).dtype(), DType::BFloat16);
  EXPECT_EQ(cast_of(TensorData::from<int64_t>({2}, {258, -1}), 2), TensorData::from<uint8_t>({2}, {2, 255}));
  EXPECT_EQ(cast_of(TensorData::from<int32_t>({2}, {3, -4}), 1), TensorData::from<float>({2}, {3.0f, -4.0f}));
  EXPECT_EQ(cast_of(TensorData::from<int64_t>({1}, {5}), 7), TensorData::from<int64_t>({1}, {5}));  // same type
  const TensorData h = cast_of(TensorData::from<double>({1}, {0.5}), 10);
  EXPECT_EQ(cast_of(h, 1), TensorData::from<float>({1}, {0.5f}));
}

TEST(Cast, Errors) {
  EXPECT_THAT(cast_error(8), HasSubstr("'to' = 8 is the string type"));
  EXPECT_THAT(cast_error(14), HasSubstr("'to' = 14 is a complex type"));
  EXPECT_THAT(cast_error(99), HasSubstr("'to' = 99 is not an element type mlipc supports"));
  OnnxBuilder b;
  b.initializer("x", TensorData::scalar<float>(1.0f));
  b.node("Cast", {"x"}, {"y"}).output("y");
  try {
    frontend::import_onnx(b.save(test::scratch_dir(), "cast_e.onnx"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("attribute 'to' is required"));
  }
}

TEST(Cast, ShapeRuleOnRuntimeInput) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {2, 3});
  b.node("Cast", {"x"}, {"y"}, {{"to", int64_t{6}}}).output("y");
  Graph g = frontend::import_onnx(b.save(test::scratch_dir(), "cast_rt.onnx"));
  EXPECT_EQ(g.value(g.outputs[0].value).dtype, DType::Int32);
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 3}));
}

}  // namespace
}  // namespace mlipc::unit_ops_cast

namespace mlipc::unit_ops_cast {
namespace {

using test::OnnxBuilder;

// ONNX type codes of every element type Cast converts between.
const std::vector<std::pair<int64_t, DType>> kTypes = {
    {1, DType::Float32}, {2, DType::UInt8},   {3, DType::Int8},     {4, DType::UInt16}, {5, DType::Int16},
    {6, DType::Int32},   {7, DType::Int64},   {9, DType::Bool},     {10, DType::Float16}, {11, DType::Float64},
    {12, DType::UInt32}, {13, DType::UInt64}, {16, DType::BFloat16}};

// One model casting input x to every type (one output each): one compile.
std::filesystem::path cast_all_model(DType from, const Shape& shape, const std::string& file) {
  OnnxBuilder b;
  b.input("x", from, shape);
  for (const auto& [code, t] : kTypes) {
    const std::string y = "y_" + std::string(dtype_name(t));
    b.node("Cast", {"x"}, {y}, {{"to", code}});
    b.output(y);
  }
  return b.save(test::scratch_dir(), file);
}

TensorData special_floats() {
  const float inf = std::numeric_limits<float>::infinity();
  return TensorData::from<float>(
      {24}, {0.0f, -0.0f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, 127.9f, 128.0f, -129.0f, 255.5f, 256.0f, -1e10f, 1e10f,
             3e9f, -3e9f, 65504.0f, 65520.0f, 1e-8f, 6e-8f, inf, -inf, std::nanf(""), 9.3e18f});
}

TEST(Cast, GeneratedCMatchesReferenceFromFloat32) {
  // Truncation, saturation at each integer type's limits, NaN and infinities,
  // half-way cases of float16 rounding, float16 overflow and subnormals.
  test::expect_matches_reference(cast_all_model(DType::Float32, {24}, "cast_f32.onnx"), {{"x", special_floats()}}, 0, 0);
  test::expect_matches_reference(cast_all_model(DType::Float32, {24}, "cast_f32.onnx"),
                                 {{"x", test::random_tensor(DType::Float32, {24}, 3, -300, 300)}}, 0, 0);
}

TEST(Cast, GeneratedCMatchesReferenceFromEveryType) {
  // Every source type to every destination type; four sources per model (a
  // model has at most MLIP_MAX_IO_TENSORS = 64 inputs and outputs).
  for (size_t first = 0; first < kTypes.size(); first += 4) {
    OnnxBuilder b;
    io::NamedTensors in;
    for (size_t s = first; s < std::min(first + 4, kTypes.size()); ++s) {
      const DType from = kTypes[s].second;
      const std::string x = "x_" + std::string(dtype_name(from));
      b.input(x, from, {2, 7});
      for (const auto& [code, to] : kTypes) {
        const std::string y = x + "_to_" + std::string(dtype_name(to));
        b.node("Cast", {x}, {y}, {{"to", code}}).output(y);
      }
      const double lo = dtype_is_signed(from) ? -200 : 0, hi = 300;
      in.emplace_back(x, from == DType::Bool ? test::random_tensor(DType::UInt8, {2, 7}, 40 + s, 0, 1).cast(DType::Bool)
                                             : test::random_tensor(from, {2, 7}, 40 + s, lo, hi));
    }
    SCOPED_TRACE(first);
    test::expect_matches_reference(b.save(test::scratch_dir(), "cast_every" + std::to_string(first) + ".onnx"), in, 0, 0);
  }
}

TEST(Cast, IntegerLimitsAndWrapAround) {
  const int64_t big = std::numeric_limits<int64_t>::max(), small = std::numeric_limits<int64_t>::min();
  test::expect_matches_reference(cast_all_model(DType::Int64, {6}, "cast_i64.onnx"),
                                 {{"x", TensorData::from<int64_t>({6}, {big, small, -1, 65536 + 7, (1LL << 53) + 1, 300})}},
                                 0, 0);
  const TensorData out = test::reference_run(cast_all_model(DType::Int64, {2}, "cast_i64w.onnx"),
                                             {{"x", TensorData::from<int64_t>({2}, {258, -1})}})[1].second;
  EXPECT_EQ(out, TensorData::from<uint8_t>({2}, {2, 255}));  // uint8: wraps
}

TEST(Cast, Float64ToFloat16RoundsOnce) {
  // 1 + 2^-11 + 2^-40 lies just above the half-way point between two float16
  // values; through float32 it would round to the half-way point first and
  // then to even (down).
  OnnxBuilder b;
  b.input("x", DType::Float64, {2});
  b.node("Cast", {"x"}, {"y"}, {{"to", int64_t{10}}}).output("y");
  const auto model = b.save(test::scratch_dir(), "cast_f64_f16.onnx");
  const TensorData x = TensorData::from<double>({2}, {1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), 1.0 + std::ldexp(1.0, -11)});
  const TensorData want(DType::Float16, {2}, {0x01, 0x3c, 0x00, 0x3c});  // 0x3c01 (up), 0x3c00 (tie to even)
  EXPECT_EQ(test::reference_run(model, {{"x", x}})[0].second, want);
  EXPECT_EQ(test::compile_and_run(model, {{"x", x}})[0].second, want);
}

TEST(Cast, HalfConversionsMatchLibfp16) {
  // Every float16 widens as libfp16 does; random float32 narrow the same way
  // (NaN: both give a quiet NaN of the same sign).
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float a = half_to_float(static_cast<uint16_t>(h)), b = mlip_f16_to_f32(static_cast<uint16_t>(h));
    if (std::isnan(a)) ASSERT_TRUE(std::isnan(b)) << h;
    else ASSERT_EQ(a, b) << h;
  }
  const TensorData r = test::random_tensor(DType::Float32, {20000}, 7, -70000, 70000);
  for (int64_t i = 0; i < r.numel(); ++i) {
    const float f = r.data<float>()[i] * (i % 2 ? 1.0f : 1e-4f);
    ASSERT_EQ(float_to_half(f), mlip_f64_to_f16(f)) << f;
    ASSERT_EQ(float_to_bfloat16(f), mlip_f64_to_bf16(f)) << f;
  }
}

TEST(Cast, CastLike) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {2, 3}).input("like", DType::Int16, {1});
  b.node("CastLike", {"x", "like"}, {"y"}).output("y");
  const auto model = b.save(test::scratch_dir(), "castlike.onnx");
  Graph g = frontend::import_onnx(model);
  EXPECT_EQ(g.value(g.outputs[0].value).dtype, DType::Int16);
  test::expect_matches_reference(model,
                                 {{"x", test::random_tensor(DType::Float32, {2, 3}, 5, -40000, 40000)},
                                  {"like", TensorData::from<int16_t>({1}, {0})}},
                                 0, 0);
}

TEST(Cast, RunsOnTheCpuOfTheMlipTarget) {
  driver::CompileOptions opt;
  opt.target = "mrvl, c";
  test::expect_matches_reference(cast_all_model(DType::Float32, {24}, "cast_mrvl.onnx"), {{"x", special_floats()}}, 0,
                                 0, opt);
}

}  // namespace
}  // namespace mlipc::unit_ops_cast
