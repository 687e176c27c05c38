#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_constant_of_shape {
namespace {

using test::OnnxBuilder;
using ::testing::HasSubstr;

TensorData i64(const std::vector<int64_t>& v) { return TensorData::from<int64_t>({static_cast<int64_t>(v.size())}, v); }

TensorData constant_of_shape(const TensorData& shape, const TensorData* value) {
  OnnxBuilder b;
  b.initializer("s", shape);
  if (value) b.node("ConstantOfShape", {"s"}, {"y"}, {{"value", *value}});
  else b.node("ConstantOfShape", {"s"}, {"y"});
  b.output("y");
  Graph g = frontend::import_onnx(b.save(test::scratch_dir(), "cos.onnx"));
  EXPECT_TRUE(g.nodes.empty());
  return *g.value(g.outputs[0].value).constant;
}

std::string cos_error(const TensorData& shape, const TensorData* value) {
  try {
    constant_of_shape(shape, value);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(ConstantOfShape, DefaultIsFloatZero) {
  EXPECT_EQ(constant_of_shape(i64({2, 3}), nullptr), TensorData(DType::Float32, {2, 3}));
}

TEST(ConstantOfShape, ValueTypes) {
  const TensorData one = TensorData::from<int32_t>({1}, {7});
  EXPECT_EQ(constant_of_shape(i64({3}), &one), TensorData::from<int32_t>({3}, {7, 7, 7}));
  const TensorData f = TensorData::from<float>({1}, {1.5f});
  EXPECT_EQ(constant_of_shape(i64({2, 1}), &f), TensorData::from<float>({2, 1}, {1.5f, 1.5f}));
  const TensorData zero64 = TensorData::from<int64_t>({1}, {0});
  EXPECT_EQ(constant_of_shape(i64({4}), &zero64), TensorData(DType::Int64, {4}));
}

TEST(ConstantOfShape, ZeroSizeAndScalar) {
  EXPECT_EQ(constant_of_shape(i64({0}), nullptr), TensorData(DType::Float32, {0}));
  EXPECT_EQ(constant_of_shape(i64({2, 0, 3}), nullptr), TensorData(DType::Float32, {2, 0, 3}));
  const TensorData one = TensorData::from<int8_t>({1}, {-3});
  EXPECT_EQ(constant_of_shape(i64({}), &one), TensorData::scalar<int8_t>(-3));  // empty shape: a scalar
}

TEST(ConstantOfShape, Errors) {
  const TensorData two = TensorData::from<float>({2}, {1, 2});
  EXPECT_THAT(cos_error(i64({2}), &two), HasSubstr("attribute 'value' must hold exactly one element"));
  EXPECT_THAT(cos_error(i64({-1}), nullptr), HasSubstr("shape [-1] has a negative dimension"));
  EXPECT_THAT(cos_error(TensorData::from<int32_t>({1}, {2}), nullptr), HasSubstr("element type int32; supported: int64"));

  OnnxBuilder b;  // the shape is known only at run time
  b.input("s", DType::Int64, {2});
  b.node("ConstantOfShape", {"s"}, {"y"}).output("y");
  try {
    frontend::import_onnx(b.save(test::scratch_dir(), "cos_rt.onnx"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("input #0 ('s', shape) must be a constant known at compile time"));
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_constant_of_shape
