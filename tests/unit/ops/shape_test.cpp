#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_shape {
namespace {

using test::OnnxBuilder;
using ::testing::HasSubstr;

// Shape of a constant (so that it folds) with optional start/end.
TensorData shape_of(const Shape& in, std::vector<std::pair<std::string, AttrValue>> attrs) {
  OnnxBuilder b;
  b.initializer("c", TensorData(DType::Float32, in));
  b.node("Shape", {"c"}, {"y"}, attrs);
  b.output("y");
  Graph g = frontend::import_onnx(b.save(test::scratch_dir(), "shape.onnx"));
  EXPECT_TRUE(g.nodes.empty());
  return *g.value(g.outputs[0].value).constant;
}

TensorData ints(std::vector<int64_t> v) { return TensorData::from<int64_t>({static_cast<int64_t>(v.size())}, v); }

TEST(Shape, WholeShape) {
  EXPECT_EQ(shape_of({3, 4, 5}, {}), ints({3, 4, 5}));
  EXPECT_EQ(shape_of({}, {}), ints({}));
  EXPECT_EQ(shape_of({2, 0}, {}), ints({2, 0}));
}

TEST(Shape, StartAndEnd) {
  EXPECT_EQ(shape_of({3, 4, 5}, {{"start", int64_t{1}}}), ints({4, 5}));
  EXPECT_EQ(shape_of({3, 4, 5}, {{"end", int64_t{1}}}), ints({3}));
  EXPECT_EQ(shape_of({3, 4, 5}, {{"start", int64_t{-1}}}), ints({5}));
  EXPECT_EQ(shape_of({3, 4, 5}, {{"end", int64_t{-1}}}), ints({3, 4}));
  EXPECT_EQ(shape_of({3, 4, 5}, {{"start", int64_t{1}}, {"end", int64_t{2}}}), ints({4}));
  // Out of range bounds are clamped; an empty range gives an empty tensor.
  EXPECT_EQ(shape_of({3, 4, 5}, {{"start", int64_t{-10}}}), ints({3, 4, 5}));
  EXPECT_EQ(shape_of({3, 4, 5}, {{"end", int64_t{10}}}), ints({3, 4, 5}));
  EXPECT_EQ(shape_of({3, 4, 5}, {{"start", int64_t{2}}, {"end", int64_t{1}}}), ints({}));
}

TEST(Shape, ShapeRuleOnRuntimeInput) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {2, 3, 4});
  b.node("Shape", {"x"}, {"y"}, {{"start", int64_t{1}}});
  b.output("y");
  Graph g = frontend::import_onnx(b.save(test::scratch_dir(), "shape_rt.onnx"));
  const Value& y = g.value(g.outputs[0].value);
  EXPECT_EQ(y.dtype, DType::Int64);
  EXPECT_EQ(y.shape, (Shape{2}));
  // The reference kernel reads only the input's shape.
  io::NamedTensors out = test::reference_run(b.save(test::scratch_dir(), "shape_rt.onnx"),
                                             {{"x", TensorData(DType::Float32, {2, 3, 4})}});
  EXPECT_EQ(out[0].second, ints({3, 4}));
}

// Size folds to the element count, whether its input is a constant or computed.
TEST(Size, FoldsOnConstantAndRunTimeInputs) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {2, 3, 4}).initializer("c", TensorData(DType::Int8, {5, 0}));
  b.node("Relu", {"x"}, {"r"}).node("Size", {"r"}, {"n"}).node("Size", {"c"}, {"m"});
  b.node("Size", {"x"}, {"s"}).node("Mul", {"s", "n"}, {"y"}).output("y").output("m");
  Graph g = frontend::import_onnx(b.save(test::scratch_dir(), "size.onnx"));
  const Value& y = g.value(g.outputs[0].value);
  ASSERT_TRUE(y.is_constant());
  EXPECT_EQ(*y.constant, TensorData::scalar<int64_t>(576));
  EXPECT_EQ(*g.value(g.outputs[1].value).constant, TensorData::scalar<int64_t>(0));
}

}  // namespace
}  // namespace mlipc::unit_ops_shape
