// passes::simplify: Identity, inference Dropout and a Pad that pads nothing
// (all-zero pads, as torch exports before every AvgPool1d) leave the graph;
// a Pad of any non-zero pad stays (the importer refuses pads computed at
// run time). The
// reference evaluator gives the same outputs before and after.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>

#include "frontend/onnx_import.h"
#include "ops/evaluator.h"
#include "passes/passes.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/reference.h"

namespace mlipc::unit_passes_simplify {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ints = std::vector<int64_t>;

Graph import(const OnnxBuilder& b) { return test::import_built(b, "simplify"); }

int count(const Graph& g, const std::string& op) {
  int c = 0;
  for (const Node& n : g.nodes) c += n.op == op;
  return c;
}

// x [1, 2, 9] -> Pad (pads, mode) -> AveragePool (kernel 3, stride 2) -> y
Graph pad_pool(const ints& pads, const std::string& mode) {
  OnnxBuilder b(13);
  b.input("x", DType::Float32, {1, 2, 9});
  b.initializer("pads", TensorData::from<int64_t>({6}, pads));
  b.node("Pad", {"x", "pads"}, {"p"}, {{"mode", mode}}, "pad");
  b.node("AveragePool", {"p"}, {"y"}, {{"kernel_shape", ints{3}}, {"strides", ints{2}}}, "pool");
  b.output("y");
  return import(b);
}

TEST(Simplify, APadOfZeroPadsIsDroppedInEveryMode) {
  for (const char* mode : {"constant", "reflect", "edge"}) {
    SCOPED_TRACE(mode);
    Graph g = pad_pool({0, 0, 0, 0, 0, 0}, mode);
    const std::vector<TensorData> in = {random_tensor(DType::Float32, {1, 2, 9}, 3)};
    const std::vector<TensorData> before = evaluate(g, in);
    passes::simplify(g);
    EXPECT_EQ(count(g, "Pad"), 0);
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.value(g.nodes[0].inputs[0]).name, "x");  // the pool reads the input itself
    const std::vector<TensorData> after = evaluate(g, in);
    ASSERT_EQ(before.size(), 1u);
    ASSERT_EQ(after.size(), 1u);
    ASSERT_EQ(before[0].nbytes(), after[0].nbytes());
    EXPECT_EQ(std::memcmp(before[0].raw(), after[0].raw(), before[0].nbytes()), 0);
  }
}

TEST(Simplify, APadThatPadsStays) {
  Graph g = pad_pool({0, 0, 1, 0, 0, 0}, "constant");
  passes::simplify(g);
  EXPECT_EQ(count(g, "Pad"), 1);
  Graph h = pad_pool({0, 0, 0, 0, 0, 2}, "reflect");
  passes::simplify(h);
  EXPECT_EQ(count(h, "Pad"), 1);
}

// Before opset 11 the pads are an attribute.
TEST(Simplify, APadOfZeroPadsAsAnAttributeIsDropped) {
  for (const ints& pads : {ints{0, 0, 0, 0, 0, 0}, ints{0, 0, 0, 0, 0, 1}}) {
    OnnxBuilder b(10);
    b.input("x", DType::Float32, {1, 2, 9});
    b.node("Pad", {"x"}, {"p"}, {{"pads", pads}}, "pad");
    b.node("AveragePool", {"p"}, {"y"}, {{"kernel_shape", ints{3}}, {"strides", ints{2}}}, "pool");
    b.output("y");
    Graph g = import(b);
    passes::simplify(g);
    EXPECT_EQ(count(g, "Pad"), pads.back() == 0 ? 0 : 1);
  }
}

}  // namespace
}  // namespace mlipc::unit_passes_simplify
