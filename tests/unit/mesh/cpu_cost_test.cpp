// The CPU cost model of a PE (mesh/cpu_cost.h): a node whose operator counts
// multiply-accumulates (its table row's MAC count) costs them, any other the
// elements it reads and writes; each adds the call.
#include <gtest/gtest.h>

#include "mesh/cpu_cost.h"

namespace mlipc::mesh::unit_mesh_cpu_cost {
namespace {

Graph one_node(const std::string& op, const std::vector<Shape>& in, const Shape& out) {
  Graph g;
  Node n;
  n.op = op;
  n.name = "n";
  for (size_t k = 0; k < in.size(); ++k) {
    const ValueId v = g.add_value("in" + std::to_string(k), DType::Float32);
    g.value(v).shape = in[k];
    n.inputs.push_back(v);
  }
  const ValueId y = g.add_value("out", DType::Float32);
  g.value(y).shape = out;
  n.outputs.push_back(y);
  g.nodes.push_back(std::move(n));
  return g;
}

TEST(CpuCost, ProductsCostTheirMacs) {
  const Graph conv = one_node("Conv", {{1, 2, 6, 6}, {4, 2, 3, 3}, {4}}, {1, 4, 4, 4});
  EXPECT_EQ(cpu_cycles(conv, conv.nodes[0]), kCyclesPerLayer + 64 * 18 * kCyclesPerMac);
  const Graph matmul = one_node("MatMulInteger", {{3, 4}, {4, 6}}, {3, 6});
  EXPECT_EQ(cpu_cycles(matmul, matmul.nodes[0]), kCyclesPerLayer + 18 * 4 * kCyclesPerMac);
  // 5 steps of one sequence, each W [1, 8, 3] and R [1, 8, 2] products.
  const Graph lstm = one_node("LSTM", {{5, 1, 3}, {1, 8, 3}, {1, 8, 2}}, {5, 1, 1, 2});
  EXPECT_EQ(cpu_cycles(lstm, lstm.nodes[0]), kCyclesPerLayer + 5 * (24 + 16) * kCyclesPerMac);
}

TEST(CpuCost, OtherNodesCostTheirElements) {
  const Graph add = one_node("Add", {{2, 8}, {8}}, {2, 8});
  EXPECT_EQ(cpu_cycles(add, add.nodes[0]), kCyclesPerLayer + (16 + 8 + 16) * kCyclesPerElement);
  const Graph softmax = one_node("Softmax", {{3, 10}}, {3, 10});
  EXPECT_EQ(cpu_cycles(softmax, softmax.nodes[0]), kCyclesPerLayer + (30 + 30) * kCyclesPerElement);
}

}  // namespace
}  // namespace mlipc::mesh::unit_mesh_cpu_cost
