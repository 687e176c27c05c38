#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc {
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
  EXPECT_THAT(cast_error(8), HasSubstr("cast to string (to = 8) is not supported"));
  EXPECT_THAT(cast_error(14), HasSubstr("cast to complex"));
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
}  // namespace mlipc
