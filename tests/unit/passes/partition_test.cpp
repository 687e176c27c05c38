// passes::partition, the generic grouping of chosen nodes into sub-graphs:
// groups are connected runs of consecutive chosen nodes, a group without an
// anchor is left out, each group becomes one kSubgraphOp node whose body the
// reference evaluator still runs.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "ops/evaluator.h"
#include "passes/partition.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/reference.h"

namespace mlipc::unit_passes_partition {
namespace {

using test::OnnxBuilder;
using test::random_tensor;

// x -> a: Relu -> b: Tanh -> c: Relu -> d: LeakyRelu (a chain), and x -> e: Sigmoid
// beside it; y = d + e (f: Add).
Graph chain() {
  OnnxBuilder b;
  b.input("x", DType::Float32, {2, 3});
  b.node("Relu", {"x"}, {"a"}, {}, "a");
  b.node("Tanh", {"a"}, {"b"}, {}, "b");
  b.node("Relu", {"b"}, {"c"}, {}, "c");
  b.node("LeakyRelu", {"c"}, {"d"}, {}, "d");
  b.node("Sigmoid", {"x"}, {"e"}, {}, "e");
  b.node("Add", {"d", "e"}, {"y"}, {}, "f");
  b.output("y");
  return test::import_built(b, "partition");
}

std::vector<std::string> ops(const Graph& g) {
  std::vector<std::string> v;
  for (const Node& n : g.nodes) v.push_back(n.op == kSubgraphOp ? "sub:" + n.name : n.op);
  return v;
}

std::vector<std::string> body_nodes(const Node& n) {
  std::vector<std::string> v;
  for (const Node& m : n.body->nodes) v.push_back(m.name);
  return v;
}

TEST(Partition, ConsecutiveConnectedNodesBecomeOneSubgraph) {
  Graph g = chain();
  Graph original = g;
  // a, b, c chosen; a and c are anchors.
  std::vector<int> left = passes::partition(g, {{true, true, true, false, false, false},
                                                {true, false, true, false, false, false}, "test", "sub_"});
  EXPECT_TRUE(left.empty());
  EXPECT_EQ(ops(g), (std::vector<std::string>{"sub:sub_0", "LeakyRelu", "Sigmoid", "Add"}));
  const Node& s = g.nodes[0];
  EXPECT_EQ(s.attrs.get_string("compiler"), "test");
  EXPECT_EQ(body_nodes(s), (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_EQ(s.inputs.size(), 1u);
  EXPECT_EQ(g.value(s.inputs[0]).name, "x");
  ASSERT_EQ(s.outputs.size(), 1u);
  EXPECT_EQ(g.value(s.outputs[0]).name, "c");
  EXPECT_EQ(s.origins, (std::vector<std::string>{"a (Relu)", "b (Tanh)", "c (Relu)"}));
  // The reference evaluator runs the body: same results as before.
  TensorData x = random_tensor(DType::Float32, {2, 3}, 7);
  EXPECT_TRUE(evaluate(g, {x})[0] == evaluate(original, {x})[0]);
}

TEST(Partition, ANonChosenNodeSplitsARunAndDisconnectedNodesMakeTwoGroups) {
  Graph g = chain();
  // a, c chosen (b between them is not); d and e are consecutive in the
  // schedule but not connected: two groups.
  std::vector<int> left = passes::partition(g, {{true, false, true, true, true, false},
                                                {true, false, true, true, true, false}, "test", "s"});
  EXPECT_TRUE(left.empty());
  EXPECT_EQ(ops(g), (std::vector<std::string>{"sub:s0", "Tanh", "sub:s1", "sub:s2", "Add"}));
  EXPECT_EQ(body_nodes(g.nodes[2]), (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ(body_nodes(g.nodes[3]), (std::vector<std::string>{"e"}));
}

TEST(Partition, AGroupWithoutAnAnchorIsLeftOut) {
  Graph g = chain();
  // a, b chosen but no anchor among them; d anchors its own group.
  std::vector<int> left = passes::partition(g, {{true, true, false, true, false, false},
                                                {false, false, false, true, false, false}, "test", "s"});
  EXPECT_EQ(left, (std::vector<int>{0, 1}));
  EXPECT_EQ(ops(g), (std::vector<std::string>{"Relu", "Tanh", "Relu", "sub:s0", "Sigmoid", "Add"}));
}

TEST(Partition, NothingChosenLeavesTheGraphAlone) {
  Graph g = chain();
  std::vector<int> left = passes::partition(g, {std::vector<bool>(6, false), std::vector<bool>(6, false), "t", "s"});
  EXPECT_TRUE(left.empty());
  EXPECT_EQ(ops(g), (std::vector<std::string>{"Relu", "Tanh", "Relu", "LeakyRelu", "Sigmoid", "Add"}));
}

}  // namespace
}  // namespace mlipc::unit_passes_partition
