// Constant sub-graphs as exporters write them must fold away at import, so
// that only the real computation reaches the backend.
#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_folding {
namespace {

using test::ints;
using test::OnnxBuilder;

TensorData i64(const ints& v) { return TensorData::from<int64_t>({static_cast<int64_t>(v.size())}, v); }

std::vector<std::string> ops_of(const Graph& g) {
  std::vector<std::string> ops;
  for (const Node& n : g.nodes) ops.push_back(n.op);
  return ops;
}

// PyTorch's F.pad export (opset 13): torch-order pads, padded with zeros by
// ConstantOfShape, reversed pairwise by Reshape/Slice/Transpose/Reshape and
// Cast to int64 (as in the digits CNN, examples/digits).
void pytorch_pads_chain(OnnxBuilder& b, const std::string& torch_pads, const std::string& out) {
  b.node("Constant", {}, {"n_zeros"}, {{"value", i64({4})}});
  b.node("ConstantOfShape", {"n_zeros"}, {"zeros"}, {{"value", TensorData::from<int64_t>({1}, {0})}});
  b.node("Concat", {torch_pads, "zeros"}, {"all"}, {{"axis", int64_t{0}}});
  b.node("Constant", {}, {"pairs_shape"}, {{"value", i64({-1, 2})}});
  b.node("Reshape", {"all", "pairs_shape"}, {"pairs"});
  b.node("Constant", {}, {"s_axes"}, {{"value", i64({0})}});
  b.node("Constant", {}, {"s_starts"}, {{"value", i64({-1})}});
  b.node("Constant", {}, {"s_ends"}, {{"value", i64({std::numeric_limits<int64_t>::min() + 1})}});
  b.node("Constant", {}, {"s_steps"}, {{"value", i64({-1})}});
  b.node("Slice", {"pairs", "s_starts", "s_ends", "s_axes", "s_steps"}, {"reversed"});
  b.node("Transpose", {"reversed"}, {"t"}, {{"perm", ints{1, 0}}});
  b.node("Constant", {}, {"flat_shape"}, {{"value", i64({-1})}});
  b.node("Reshape", {"t", "flat_shape"}, {"flat"});
  b.node("Cast", {"flat"}, {out}, {{"to", int64_t{7}}});
}

TEST(Folding, PyTorchPadChainLeavesOnlyPad) {
  OnnxBuilder b(13);
  b.input("x", DType::Float32, {1, 3, 5, 6});
  b.node("Constant", {}, {"torch_pads"}, {{"value", i64({2, 1, 0, 3})}});  // (left, right, top, bottom)
  pytorch_pads_chain(b, "torch_pads", "pads");
  b.node("Pad", {"x", "pads", ""}, {"y"}, {{"mode", std::string("constant")}});
  b.output("y");
  const auto model = b.save(test::scratch_dir(), "fold_pad.onnx");
  Graph g = frontend::import_onnx(model);
  ASSERT_EQ(ops_of(g), std::vector<std::string>{"Pad"});
  const Value& pads = g.value(g.nodes[0].inputs[1]);
  ASSERT_TRUE(pads.is_constant());
  EXPECT_EQ(*pads.constant, i64({0, 0, 0, 2, 0, 0, 3, 1}));  // ONNX order: all begins, then all ends
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{1, 3, 8, 9}));
  test::expect_matches_reference(model, {{"x", test::random_tensor(DType::Float32, {1, 3, 5, 6}, 4)}}, 0, 0);
}

TEST(Folding, ShapeOfRuntimeInputFoldsIntoPads) {
  // x.size(0) through Shape -> Gather -> Unsqueeze -> Concat -> Reshape, the
  // idiom of x.view(x.size(0), -1), here shaping the pads. Shape reads only
  // the static shape of x, so all of it must fold although x is an input.
  OnnxBuilder b(13);
  b.input("x", DType::Float32, {1, 3, 5, 6});
  b.node("Shape", {"x"}, {"x_shape"});
  b.node("Constant", {}, {"zero"}, {{"value", TensorData::scalar<int64_t>(0)}});
  b.node("Gather", {"x_shape", "zero"}, {"batch"}, {{"axis", int64_t{0}}});
  b.node("Constant", {}, {"u_axes"}, {{"value", i64({0})}});
  b.node("Unsqueeze", {"batch", "u_axes"}, {"batch_1d"});
  b.node("Constant", {}, {"minus_one"}, {{"value", i64({-1})}});
  b.node("Concat", {"batch_1d", "minus_one"}, {"row_shape"}, {{"axis", int64_t{0}}});
  b.node("Constant", {}, {"torch_pads"}, {{"value", i64({2, 1, 0, 3})}});
  b.node("Reshape", {"torch_pads", "row_shape"}, {"pads_row"});  // [1, 4]
  b.node("Constant", {}, {"flat1"}, {{"value", i64({-1})}});
  b.node("Reshape", {"pads_row", "flat1"}, {"torch_pads_1d"});
  pytorch_pads_chain(b, "torch_pads_1d", "pads");
  b.node("Pad", {"x", "pads"}, {"y"});
  b.output("y");
  const auto model = b.save(test::scratch_dir(), "fold_shape.onnx");
  Graph g = frontend::import_onnx(model);
  ASSERT_EQ(ops_of(g), std::vector<std::string>{"Pad"});
  EXPECT_EQ(*g.value(g.nodes[0].inputs[1]).constant, i64({0, 0, 0, 2, 0, 0, 3, 1}));
  test::expect_matches_reference(model, {{"x", test::random_tensor(DType::Float32, {1, 3, 5, 6}, 4)}}, 0, 0);
}

TEST(Folding, ShapeChainOfAConstantFolds) {
  OnnxBuilder b;
  b.initializer("w", TensorData(DType::Float32, {4, 6}));
  b.input("x", DType::Float32, {2, 12});
  b.node("Shape", {"w"}, {"w_shape"});
  b.node("Constant", {}, {"idx"}, {{"value", i64({1})}});
  b.node("Gather", {"w_shape", "idx"}, {"cols"});
  b.node("Constant", {}, {"minus_one"}, {{"value", i64({-1})}});
  b.node("Concat", {"minus_one", "cols"}, {"shape"}, {{"axis", int64_t{0}}});
  b.node("Reshape", {"x", "shape"}, {"r"});
  b.node("Transpose", {"r"}, {"y"});
  b.output("y");
  Graph g = frontend::import_onnx(b.save(test::scratch_dir(), "fold_const_shape.onnx"));
  EXPECT_EQ(ops_of(g), (std::vector<std::string>{"Reshape", "Transpose"}));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{6, 4}));
}

}  // namespace
}  // namespace mlipc::unit_ops_folding
