#include <cmath>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("unary_{}.onnx", k++));
}

fs::path model(const std::string& op, DType t, const Shape& shape,
               const std::vector<std::pair<std::string, AttrValue>>& attrs = {}) {
  OnnxBuilder m;
  m.input("x", t, shape).node(op, {"x"}, {"y"}, attrs).output("y");
  return save(m);
}

std::string import_error(const fs::path& p) {
  try {
    frontend::import_onnx(p);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Unary, ShapeRule) {
  Graph g = frontend::import_onnx(model("Relu", DType::Int32, {2, 3}));
  EXPECT_EQ(g.value(g.outputs[0].value).dtype, DType::Int32);
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 3}));
  EXPECT_THAT(import_error(model("Sigmoid", DType::Int32, {2})), HasSubstr("has element type int32; supported: float32"));
  EXPECT_THAT(import_error(model("Tanh", DType::Float64, {2})), HasSubstr("supported: float32"));
  EXPECT_THAT(import_error(model("LeakyRelu", DType::Int8, {2})), HasSubstr("supported: float32"));
  EXPECT_THAT(import_error(model("Relu", DType::UInt8, {2})), HasSubstr("supported: float32, int8"));
}

std::vector<float> eval(const std::string& op, const std::vector<float>& x,
                        const std::vector<std::pair<std::string, AttrValue>>& attrs = {}) {
  const Shape s = {static_cast<int64_t>(x.size())};
  const TensorData y = test::reference_run(model(op, DType::Float32, s, attrs), {{"x", TensorData::from<float>(s, x)}})
                           .at(0)
                           .second;
  return std::vector<float>(y.data<float>(), y.data<float>() + y.numel());
}

TEST(Unary, Reference) {
  using V = std::vector<float>;
  EXPECT_EQ(eval("Relu", {-1, 0, 2.5f}), (V{0, 0, 2.5f}));
  EXPECT_EQ(eval("LeakyRelu", {-1, 2}), (V{-0.01f, 2}));  // default alpha 0.01
  EXPECT_EQ(eval("LeakyRelu", {-2, 2}, {{"alpha", 0.5f}}), (V{-1, 2}));
  const V s = eval("Sigmoid", {0, 2});
  EXPECT_FLOAT_EQ(s[0], 0.5f);
  EXPECT_NEAR(s[1], 1 / (1 + std::exp(-2.0)), 1e-7);
  const V t = eval("Tanh", {0, -1});
  EXPECT_FLOAT_EQ(t[0], 0.0f);
  EXPECT_NEAR(t[1], std::tanh(-1.0), 1e-7);
  // Relu on signed integers.
  const Shape s3 = {3};
  const TensorData y = test::reference_run(model("Relu", DType::Int8, s3),
                                           {{"x", TensorData::from<int8_t>(s3, {-128, 0, 127})}})
                           .at(0)
                           .second;
  EXPECT_EQ(y, TensorData::from<int8_t>(s3, {0, 0, 127}));
}

TEST(Unary, GeneratedCMatchesReference) {
  OnnxBuilder m;
  m.input("x", DType::Float32, {2, 3, 4}).input("i8", DType::Int8, {5}).input("i64", DType::Int64, {5});
  m.node("Relu", {"x"}, {"relu"}).output("relu");
  m.node("LeakyRelu", {"x"}, {"leaky"}, {{"alpha", 0.3f}}).output("leaky");
  m.node("LeakyRelu", {"x"}, {"leaky_default"}).output("leaky_default");
  m.node("Sigmoid", {"x"}, {"sigmoid"}).output("sigmoid");
  m.node("Tanh", {"x"}, {"tanh"}).output("tanh");
  m.node("Relu", {"i8"}, {"relu_i8"}).output("relu_i8");
  m.node("Relu", {"i64"}, {"relu_i64"}).output("relu_i64");
  test::expect_matches_reference(save(m), {{"x", random_tensor(DType::Float32, {2, 3, 4}, 1, -5, 5)},
                                           {"i8", random_tensor(DType::Int8, {5}, 2, -128, 127)},
                                           {"i64", random_tensor(DType::Int64, {5}, 3, -1e12, 1e12)}});
}

}  // namespace
}  // namespace mlipc
