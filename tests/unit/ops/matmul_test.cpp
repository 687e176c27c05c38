#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "ops/matmul.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_matmul {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("matmul_{}.onnx", k++));
}

fs::path matmul_model(const Shape& a, const Shape& b) {
  OnnxBuilder m;
  m.input("a", DType::Float32, a).input("b", DType::Float32, b).node("MatMul", {"a", "b"}, {"y"}).output("y");
  return save(m);
}

Shape out_shape(const Shape& a, const Shape& b) {
  Graph g = frontend::import_onnx(matmul_model(a, b));
  return g.value(g.outputs[0].value).shape;
}

std::string import_error(const Shape& a, const Shape& b) {
  try {
    frontend::import_onnx(matmul_model(a, b));
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(MatMul, ShapeRuleNumpySemantics) {
  EXPECT_EQ(out_shape({3, 4}, {4, 5}), (Shape{3, 5}));
  EXPECT_EQ(out_shape({4}, {4, 5}), (Shape{5}));       // 1-D A: [1,4], the 1 dropped
  EXPECT_EQ(out_shape({3, 4}, {4}), (Shape{3}));       // 1-D B: [4,1], the 1 dropped
  EXPECT_EQ(out_shape({4}, {4}), (Shape{}));           // dot product
  EXPECT_EQ(out_shape({2, 1, 3, 4}, {5, 4, 6}), (Shape{2, 5, 3, 6}));
  EXPECT_EQ(out_shape({4}, {2, 4, 6}), (Shape{2, 6}));
  EXPECT_EQ(out_shape({2, 3, 4}, {4}), (Shape{2, 3}));
}

TEST(MatMul, ShapeRuleErrors) {
  EXPECT_THAT(import_error({3, 4}, {5, 6}), HasSubstr("inner dimensions differ: A [3,4] has K = 4, B [5,6] has K = 5"));
  EXPECT_THAT(import_error({2, 3, 4}, {3, 4, 5}), HasSubstr("cannot be broadcast"));
  EXPECT_THAT(import_error({}, {3}), HasSubstr("rank >= 1"));
}

TEST(MatMul, BatchStrides) {
  const ops::MatMulDims d = ops::matmul_dims({2, 1, 3, 4}, {5, 4, 6});
  EXPECT_EQ(d.batch, (Shape{2, 5}));
  EXPECT_EQ(d.a_batch_stride, (std::vector<int64_t>{12, 0}));  // A repeats along the second batch axis
  EXPECT_EQ(d.b_batch_stride, (std::vector<int64_t>{0, 24}));  // B along the first
}

TEST(MatMul, Reference) {
  OnnxBuilder m;
  m.initializer("a", TensorData::from<float>({2}, {1, 2}));
  m.initializer("b", TensorData::from<float>({2, 2, 3}, {1, 2, 3, 4, 5, 6, -1, 0, 1, 0, 1, 0}));
  m.node("MatMul", {"a", "b"}, {"y"}).output("y");
  const TensorData y = test::reference_run(save(m), {}).at(0).second;
  ASSERT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(std::vector<float>(y.data<float>(), y.data<float>() + 6), (std::vector<float>{9, 12, 15, -1, 2, 1}));
}

TEST(MatMul, GeneratedCMatchesReference) {
  struct Case {
    Shape a, b;
  };
  const std::vector<Case> cases = {{{3, 4}, {4, 5}},       {{4}, {4, 5}},         {{3, 4}, {4}},
                                   {{4}, {4}},             {{2, 3, 4}, {2, 4, 3}}, {{2, 1, 3, 4}, {5, 4, 6}},
                                   {{1, 2, 3, 4}, {4, 2}}, {{3, 1, 4}, {4}}};
  // All cases in one model: one compilation.
  OnnxBuilder m;
  io::NamedTensors in;
  uint32_t seed = 1;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string a = fmt::format("a{}", i), b = fmt::format("b{}", i), y = fmt::format("y{}", i);
    m.input(a, DType::Float32, cases[i].a).input(b, DType::Float32, cases[i].b);
    m.node("MatMul", {a, b}, {y}).output(y);
    in.emplace_back(a, random_tensor(DType::Float32, cases[i].a, seed++));
    in.emplace_back(b, random_tensor(DType::Float32, cases[i].b, seed++));
  }
  test::expect_matches_reference(save(m), in, 0, 0);  // the reference's summation order: bit-identical
}

TEST(MatMul, GeneratedCConstantWeightsAndFusedActivation) {
  OnnxBuilder m;
  m.input("x", DType::Float32, {2, 3, 8});
  m.initializer("w", random_tensor(DType::Float32, {8, 4}, 5));
  m.node("MatMul", {"x", "w"}, {"t0"}).node("Relu", {"t0"}, {"relu"}).output("relu");
  m.node("MatMul", {"x", "w"}, {"t1"}).node("Tanh", {"t1"}, {"tanh"}).output("tanh");
  const fs::path model = save(m);
  int fused = 0;
  for (const Node& n : driver::compile_model(model, {}).graph.nodes) fused += n.attrs.has("activation");
  EXPECT_EQ(fused, 2);
  test::expect_matches_reference(model, {{"x", random_tensor(DType::Float32, {2, 3, 8}, 6)}});
}

}  // namespace
}  // namespace mlipc::unit_ops_matmul
