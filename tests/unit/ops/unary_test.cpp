#include <cmath>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_unary {
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

using test::import_error;

TEST(Unary, ShapeRule) {
  Graph g = frontend::import_onnx(model("Relu", DType::Int32, {2, 3}));
  EXPECT_EQ(g.value(g.outputs[0].value).dtype, DType::Int32);
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 3}));
  EXPECT_THAT(import_error(model("Sigmoid", DType::Int32, {2})), HasSubstr("has element type int32; supported: float32"));
  EXPECT_THAT(import_error(model("Tanh", DType::Float64, {2})), HasSubstr("supported: float32"));
  EXPECT_THAT(import_error(model("LeakyRelu", DType::Int8, {2})), HasSubstr("supported: float32"));
  EXPECT_THAT(import_error(model("Relu", DType::UInt8, {2})), HasSubstr("supported: float16, float32, float64, int8"));
  for (const char* op : {"Softplus", "Softsign", "Elu", "Selu", "Celu", "HardSigmoid", "HardSwish", "ThresholdedRelu",
                         "Shrink"})
    EXPECT_THAT(import_error(model(op, DType::Float64, {2})), HasSubstr("has element type float64; supported: float32"))
        << op;
  EXPECT_THAT(import_error(model("Celu", DType::Float32, {2}, {{"alpha", 0.0f}})), HasSubstr("alpha must not be 0"));
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

TEST(Unary, ReferenceActivations) {
  using V = std::vector<float>;
  const V x = {-2, -0.5f, 0, 0.5f, 3};
  // log(1 + e^x).
  const V sp = eval("Softplus", x);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(sp[i], std::log1p(std::exp(double(x[i]))), 1e-6);
  EXPECT_EQ(eval("Softplus", {100})[0], 100.0f);  // no overflow to infinity
  EXPECT_EQ(eval("Softsign", {-3, 1}), (V{-0.75f, 0.5f}));
  const V elu = eval("Elu", {-1, 2}, {{"alpha", 2.0f}});
  EXPECT_NEAR(elu[0], 2 * (std::exp(-1.0) - 1), 1e-6);
  EXPECT_EQ(elu[1], 2.0f);
  const V selu = eval("Selu", {-1, 2});  // the spec's default alpha and gamma
  EXPECT_NEAR(selu[0], 1.0507009873554805 * 1.6732632423543772 * (std::exp(-1.0) - 1), 1e-6);
  EXPECT_NEAR(selu[1], 1.0507009873554805 * 2, 1e-6);
  const V celu = eval("Celu", {-1, 0, 2}, {{"alpha", 2.0f}});
  EXPECT_NEAR(celu[0], 2 * (std::exp(-0.5) - 1), 1e-6);
  EXPECT_EQ(celu[1], 0.0f);
  EXPECT_EQ(celu[2], 2.0f);
  EXPECT_EQ(eval("HardSigmoid", {-3, 0, 1, 4}), (V{0, 0.5f, 0.7f, 1}));  // alpha 0.2, beta 0.5
  EXPECT_EQ(eval("HardSigmoid", {1}, {{"alpha", 0.5f}, {"beta", 0.25f}}), (V{0.75f}));
  const V hs = eval("HardSwish", {-4, 1.5f, 4});
  EXPECT_EQ(hs[0], -0.0f);
  EXPECT_NEAR(hs[1], 1.5 * (1.5 / 6 + 0.5), 1e-6);
  EXPECT_EQ(hs[2], 4.0f);
  EXPECT_EQ(eval("ThresholdedRelu", {0.5f, 1, 1.5f}), (V{0, 0, 1.5f}));  // alpha 1
  EXPECT_EQ(eval("ThresholdedRelu", {0.5f, 1, 1.5f}, {{"alpha", 0.2f}}), (V{0.5f, 1, 1.5f}));
  EXPECT_EQ(eval("Shrink", {-1, -0.5f, 0.2f, 0.5f, 2}), (V{-1, 0, 0, 0, 2}));  // lambd 0.5, bias 0
  EXPECT_EQ(eval("Shrink", {-2, 0.5f, 2}, {{"lambd", 1.0f}, {"bias", 0.5f}}), (V{-1.5f, 0, 1.5f}));
  // NaN stays NaN through the clamps.
  EXPECT_TRUE(std::isnan(eval("HardSigmoid", {NAN})[0]));
  EXPECT_TRUE(std::isnan(eval("Celu", {NAN})[0]));
}

TEST(Unary, GeneratedCActivationsMatchReferenceBitForBit) {
  OnnxBuilder m;
  const Shape s = {2, 9, 3};
  m.input("x", DType::Float32, s);
  const std::vector<std::pair<std::string, std::vector<std::pair<std::string, AttrValue>>>> ops = {
      {"Softplus", {}},
      {"Softsign", {}},
      {"Elu", {}},
      {"Elu", {{"alpha", 0.3f}}},
      {"Selu", {}},
      {"Selu", {{"alpha", 1.5f}, {"gamma", 0.7f}}},
      {"Celu", {}},
      {"Celu", {{"alpha", 0.4f}}},
      {"HardSigmoid", {}},
      {"HardSigmoid", {{"alpha", 0.3f}, {"beta", 0.1f}}},
      {"HardSwish", {}},
      {"ThresholdedRelu", {}},
      {"ThresholdedRelu", {{"alpha", -0.5f}}},
      {"Shrink", {}},
      {"Shrink", {{"lambd", 1.2f}, {"bias", 0.7f}}}};
  int k = 0;
  for (const auto& [op, attrs] : ops) {
    const std::string y = fmt::format("{}_{}", op, k++);
    m.node(op, {"x"}, {y}, attrs).output(y);
  }
  test::expect_matches_reference(save(m), {{"x", random_tensor(DType::Float32, s, 11, -6, 6)}}, 0, 0);
}

TEST(Unary, GeneratedCMatchesReference) {
  OnnxBuilder m;
  m.input("x", DType::Float32, {2, 3, 4}).input("i8", DType::Int8, {5}).input("i64", DType::Int64, {5});
  m.node("Relu", {"x"}, {"relu"}).output("relu");
  m.node("LeakyRelu", {"x"}, {"leaky"}, {{"alpha", 0.3f}}).output("leaky");
  m.node("LeakyRelu", {"x"}, {"leaky_default"}).output("leaky_default");
  m.node("Relu", {"i8"}, {"relu_i8"}).output("relu_i8");
  m.node("Relu", {"i64"}, {"relu_i64"}).output("relu_i64");
  m.input("h", DType::Float16, {7}).input("d", DType::Float64, {3});
  m.node("Relu", {"h"}, {"relu_h"}).output("relu_h");
  m.node("Relu", {"d"}, {"relu_d"}).output("relu_d");
  test::expect_matches_reference(save(m), {{"x", random_tensor(DType::Float32, {2, 3, 4}, 1, -5, 5)},
                                           {"i8", random_tensor(DType::Int8, {5}, 2, -128, 127)},
                                           {"i64", random_tensor(DType::Int64, {5}, 3, -1e12, 1e12)},
                                           {"h", random_tensor(DType::Float16, {7}, 4, -5, 5)},
                                           {"d", random_tensor(DType::Float64, {3}, 5, -5, 5)}},
                                 0, 0);
}

// Sigmoid and Tanh: the generated C and the reference evaluator both call
// mlip/kmath_f.h's float-precision functions, so the bits are the same (the
// reference fills int8 tables and the MLIP's int8 chain TABLEs, which must
// be what the CPU computes). Over [-10, 10] and around the ends of the
// sigmoid's and tanh's ranges; NaN and the infinities keep their answers.
TEST(Unary, GeneratedCSigmoidAndTanhHaveTheReferencesBits) {
  OnnxBuilder m;
  const Shape s = {3, 257};
  m.input("x", DType::Float32, s);
  m.node("Sigmoid", {"x"}, {"sigmoid"}).output("sigmoid");
  m.node("Tanh", {"x"}, {"tanh"}).output("tanh");
  TensorData x = random_tensor(DType::Float32, s, 1, -10, 10);
  float* p = x.data<float>();
  const float edges[] = {0.0f, -0.0f, 1e-30f, -1e-30f, 0.6249f, 0.625f, -0.625f, 9.0f, 17.5f, -20.0f, -86.9f, -87.5f,
                         -100.0f, 100.0f, INFINITY, -INFINITY, NAN};
  for (size_t i = 0; i < sizeof edges / sizeof *edges; ++i) p[i * 7] = edges[i];
  test::expect_matches_reference(save(m), {{"x", x}}, 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_unary
