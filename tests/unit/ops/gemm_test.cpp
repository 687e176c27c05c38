#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_gemm {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;
using Attrs_ = std::vector<std::pair<std::string, AttrValue>>;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("gemm_{}.onnx", k++));
}

std::string import_error(const OnnxBuilder& b) {
  try {
    frontend::import_onnx(save(b));
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// Y = Gemm(a, b[, c]) with graph inputs; an empty c_shape pointer means no C.
OnnxBuilder& gemm(OnnxBuilder& m, const Shape& a, const Shape& b, const Shape* c, const Attrs_& attrs) {
  m.input("a", DType::Float32, a).input("b", DType::Float32, b);
  if (c) m.input("c", DType::Float32, *c);
  m.node("Gemm", c ? std::vector<std::string>{"a", "b", "c"} : std::vector<std::string>{"a", "b"}, {"y"}, attrs);
  return m.output("y");
}

Shape out_shape(const Shape& a, const Shape& b, const Shape* c, const Attrs_& attrs = {}) {
  OnnxBuilder m;
  Graph g = frontend::import_onnx(save(gemm(m, a, b, c, attrs)));
  return g.value(g.outputs[0].value).shape;
}

TEST(Gemm, ShapeRule) {
  EXPECT_EQ(out_shape({3, 5}, {5, 4}, nullptr), (Shape{3, 4}));
  EXPECT_EQ(out_shape({5, 3}, {5, 4}, nullptr, {{"transA", int64_t{1}}}), (Shape{3, 4}));
  EXPECT_EQ(out_shape({3, 5}, {4, 5}, nullptr, {{"transB", int64_t{1}}}), (Shape{3, 4}));
  EXPECT_EQ(out_shape({5, 3}, {4, 5}, nullptr, {{"transA", int64_t{1}}, {"transB", int64_t{1}}}), (Shape{3, 4}));
  // Every C shape that broadcasts unidirectionally to [M, N].
  for (const Shape& c : {Shape{}, Shape{4}, Shape{1}, Shape{1, 4}, Shape{3, 1}, Shape{3, 4}, Shape{1, 1}})
    EXPECT_EQ(out_shape({3, 5}, {5, 4}, &c), (Shape{3, 4})) << shape_str(c);
}

TEST(Gemm, ShapeRuleErrors) {
  {
    OnnxBuilder m;
    EXPECT_THAT(import_error(gemm(m, {3, 5}, {4, 4}, nullptr, {})),
                HasSubstr("inner dimensions differ: A [3,5] has K = 5, B [4,4] has K = 4"));
  }
  {
    OnnxBuilder m;
    const Shape c = {4, 4};
    EXPECT_THAT(import_error(gemm(m, {3, 5}, {5, 4}, &c, {})),
                HasSubstr("C [4,4] does not broadcast to the output [3,4]"));
  }
  {
    OnnxBuilder m;
    EXPECT_THAT(import_error(gemm(m, {2, 3, 5}, {5, 4}, nullptr, {})), HasSubstr("must both be 2-D"));
  }
  {
    OnnxBuilder m;
    m.input("a", DType::Int32, {2, 2}).input("b", DType::Int32, {2, 2}).node("Gemm", {"a", "b"}, {"y"}).output("y");
    EXPECT_THAT(import_error(m), HasSubstr("has element type int32; supported: float32"));
  }
}

TEST(Gemm, Reference) {
  // A = [[1,2],[3,4]], B' = B^T with B = [[1,0],[1,1]] -> A*B' = [[1,3],[3,7]].
  OnnxBuilder m;
  m.initializer("a", TensorData::from<float>({2, 2}, {1, 2, 3, 4}));
  m.initializer("b", TensorData::from<float>({2, 2}, {1, 0, 1, 1}));
  m.initializer("c", TensorData::from<float>({2, 1}, {10, 20}));
  m.node("Gemm", {"a", "b", "c"}, {"y"}, {{"transB", int64_t{1}}, {"alpha", 2.0f}, {"beta", 0.5f}}).output("y");
  const TensorData y = test::reference_run(save(m), {}).at(0).second;
  ASSERT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_EQ(std::vector<float>(y.data<float>(), y.data<float>() + 4), (std::vector<float>{7, 11, 16, 24}));
}

TEST(Gemm, GeneratedCTransposesAndBiasShapes) {
  // One model per transpose combination, with one Gemm per C shape.
  const int64_t M = 3, K = 5, N = 4;
  const std::vector<Shape> c_shapes = {Shape{}, Shape{N}, Shape{1, N}, Shape{M, 1}, Shape{M, N}};
  uint32_t seed = 1;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      OnnxBuilder m;
      const Shape a = ta ? Shape{K, M} : Shape{M, K}, b = tb ? Shape{N, K} : Shape{K, N};
      m.input("a", DType::Float32, a).input("b", DType::Float32, b);
      io::NamedTensors in = {{"a", random_tensor(DType::Float32, a, seed++)},
                             {"b", random_tensor(DType::Float32, b, seed++)}};
      const Attrs_ attrs = {{"transA", int64_t{ta}}, {"transB", int64_t{tb}}, {"alpha", 0.75f}, {"beta", -1.5f}};
      m.node("Gemm", {"a", "b"}, {"no_c"}, attrs).output("no_c");
      for (size_t i = 0; i < c_shapes.size(); ++i) {
        const std::string c = fmt::format("c{}", i), y = fmt::format("y{}", i);
        m.input(c, DType::Float32, c_shapes[i]);
        in.emplace_back(c, random_tensor(DType::Float32, c_shapes[i], seed++));
        m.node("Gemm", {"a", "b", c}, {y}, attrs).output(y);
      }
      SCOPED_TRACE(fmt::format("transA={} transB={}", ta, tb));
      test::expect_matches_reference(save(m), in, 0, 0);  // the reference's summation order: bit-identical
    }
}

TEST(Gemm, GeneratedCConstantWeightsAndFusedActivation) {
  OnnxBuilder m(13);
  m.input("x", DType::Float32, {2, 6});
  m.initializer("w", random_tensor(DType::Float32, {5, 6}, 7)).initializer("bias", random_tensor(DType::Float32, {5}, 8));
  m.initializer("lo", TensorData::scalar<float>(-0.5f)).initializer("hi", TensorData::scalar<float>(0.5f));
  const Attrs_ fc = {{"transB", int64_t{1}}};
  m.node("Gemm", {"x", "w", "bias"}, {"t0"}, fc).node("Relu", {"t0"}, {"relu"}).output("relu");
  m.node("Gemm", {"x", "w", "bias"}, {"t1"}, fc).node("Tanh", {"t1"}, {"tanh"}).output("tanh");
  m.node("Gemm", {"x", "w", "bias"}, {"t2"}, fc).node("Clip", {"t2", "lo", "hi"}, {"clip"}).output("clip");
  m.node("Gemm", {"x", "w"}, {"t3"}, fc).node("LeakyRelu", {"t3"}, {"leaky"}, {{"alpha", 0.1f}}).output("leaky");
  m.node("Gemm", {"x", "w"}, {"t4"}, fc).node("Sigmoid", {"t4"}, {"sigmoid"}).output("sigmoid");
  const fs::path model = save(m);
  int fused = 0;
  for (const Node& n : driver::compile_model(model, {}).graph.nodes) fused += n.attrs.has("activation");
  EXPECT_EQ(fused, 5);
  test::expect_matches_reference(model, {{"x", random_tensor(DType::Float32, {2, 6}, 9, -2, 2)}});
}

TEST(Gemm, Opset6BroadcastAttribute) {
  // PyTorch's old Linear export: Gemm-6 with broadcast=1 and a [N] bias.
  OnnxBuilder m(6);
  m.input("x", DType::Float32, {4, 10});
  m.initializer("w", random_tensor(DType::Float32, {8, 10}, 11)).initializer("b", random_tensor(DType::Float32, {8}, 12));
  m.node("Gemm", {"x", "w", "b"}, {"y"}, {{"broadcast", int64_t{1}}, {"transB", int64_t{1}}}).output("y");
  test::expect_matches_reference(save(m), {{"x", random_tensor(DType::Float32, {4, 10}, 13)}});
}

}  // namespace
}  // namespace mlipc::unit_ops_gemm
