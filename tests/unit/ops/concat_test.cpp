#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_concat {
namespace {

using test::ints;
using test::OnnxBuilder;
using ::testing::HasSubstr;

std::filesystem::path save(const OnnxBuilder& b, const std::string& file) { return b.save(test::scratch_dir(), file); }

// Concat of runtime inputs with the given shapes along `axis`.
std::filesystem::path concat_model(const std::vector<Shape>& shapes, int64_t axis, DType dt, const std::string& file) {
  OnnxBuilder b;
  std::vector<std::string> names;
  for (size_t i = 0; i < shapes.size(); ++i) {
    names.push_back("x" + std::to_string(i));
    b.input(names.back(), dt, shapes[i]);
  }
  b.node("Concat", names, {"y"}, {{"axis", axis}});
  b.output("y");
  return save(b, file);
}

using test::import_error;

io::NamedTensors random_inputs(const std::vector<Shape>& shapes, DType dt) {
  io::NamedTensors in;
  for (size_t i = 0; i < shapes.size(); ++i)
    in.emplace_back("x" + std::to_string(i), test::random_tensor(dt, shapes[i], 10 + i, -100, 100));
  return in;
}

TEST(Concat, ShapeRule) {
  Graph g = frontend::import_onnx(concat_model({{2, 3, 4}, {2, 5, 4}, {2, 1, 4}}, -2, DType::Float32, "c_shape.onnx"));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 9, 4}));
  g = frontend::import_onnx(concat_model({{3}}, 0, DType::Int8, "c_single.onnx"));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{3}));
}

TEST(Concat, ShapeErrors) {
  EXPECT_THAT(import_error(concat_model({{2, 3}, {3, 3}}, 1, DType::Float32, "c_e1.onnx")),
              HasSubstr("differs from input #0 [2,3] at axis 0; only axis 1 may differ"));
  EXPECT_THAT(import_error(concat_model({{2, 3}, {2, 3, 1}}, 0, DType::Float32, "c_e2.onnx")),
              HasSubstr("all inputs must have one rank"));
  EXPECT_THAT(import_error(concat_model({{2, 3}}, 2, DType::Float32, "c_e3.onnx")),
              HasSubstr("axis 2 is out of range for rank 2 (allowed: [-2, 1])"));
  EXPECT_THAT(import_error(concat_model({{2, 3}}, -3, DType::Float32, "c_e4.onnx")), HasSubstr("out of range"));

  OnnxBuilder b;
  b.input("a", DType::Float32, {2}).input("b", DType::Int32, {2});
  b.node("Concat", {"a", "b"}, {"y"}, {{"axis", int64_t{0}}}).output("y");
  EXPECT_THAT(import_error(save(b, "c_e5.onnx")), HasSubstr("input #1 has element type int32 but input #0 has float32"));

  OnnxBuilder c;
  c.input("a", DType::Float32, {2});
  c.node("Concat", {"a"}, {"y"}).output("y");
  EXPECT_THAT(import_error(save(c, "c_e6.onnx")), HasSubstr("attribute 'axis' is required"));
}

TEST(Concat, ReferenceFoldsConstants) {
  OnnxBuilder b;
  b.initializer("a", TensorData::from<int64_t>({2, 1}, {1, 2}));
  b.initializer("b", TensorData::from<int64_t>({2, 2}, {3, 4, 5, 6}));
  b.initializer("e", TensorData(DType::Int64, {2, 0}));
  b.node("Concat", {"a", "e", "b"}, {"y"}, {{"axis", int64_t{-1}}}).output("y");
  Graph g = frontend::import_onnx(save(b, "c_fold.onnx"));
  EXPECT_TRUE(g.nodes.empty());
  const Value& y = g.value(g.outputs[0].value);
  ASSERT_TRUE(y.is_constant());
  EXPECT_EQ(*y.constant, TensorData::from<int64_t>({2, 3}, {1, 3, 4, 2, 5, 6}));
}

TEST(Concat, GeneratedCMatchesReference) {
  struct Case {
    std::vector<Shape> shapes;
    int64_t axis;
    DType dt;
  };
  const std::vector<Case> cases = {
      {{{1, 3, 4, 4}, {1, 5, 4, 4}}, 1, DType::Float32},        // channels (the usual)
      {{{2, 3}, {2, 2}, {2, 1}, {2, 4}}, -1, DType::Int64},    // many inputs, last axis
      {{{3, 2}, {1, 2}}, 0, DType::UInt8},                     // first axis
      {{{2, 0, 3}, {2, 2, 3}, {2, 1, 3}}, 1, DType::Float16},  // an empty input
      {{{5}, {5}}, 0, DType::Bool},
      {{{2, 0}, {2, 0}}, 1, DType::Float32},  // an empty output
  };
  int k = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(k);
    test::expect_matches_reference(concat_model(c.shapes, c.axis, c.dt, "c_run" + std::to_string(k++) + ".onnx"),
                                   random_inputs(c.shapes, c.dt), 0, 0);
  }
}

TEST(Concat, SameInputTwice) {
  OnnxBuilder b;
  b.input("x", DType::Int32, {2, 2});
  b.node("Concat", {"x", "x"}, {"y"}, {{"axis", int64_t{1}}}).output("y");
  io::NamedTensors in = {{"x", TensorData::from<int32_t>({2, 2}, {1, 2, 3, 4})}};
  io::NamedTensors out = test::compile_and_run(save(b, "c_twice.onnx"), in);
  EXPECT_EQ(out[0].second, TensorData::from<int32_t>({2, 4}, {1, 2, 1, 2, 3, 4, 3, 4}));
}

}  // namespace
}  // namespace mlipc::unit_ops_concat
