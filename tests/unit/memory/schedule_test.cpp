// The memory-aware order of branches (memory/schedule.h): the proposals
// are topological orders, the backend takes one only where the arena
// shrinks, and the results stay the reference's.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "driver/compile.h"
#include "memory/schedule.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_memory_schedule {
namespace {

namespace fs = std::filesystem;
using test::OnnxBuilder;
using test::random_tensor;

// Two branches from x, each a 16-channel 1x1 convolution (16 KiB) reduced
// to 16 floats; the source runs both convolutions first.
fs::path two_branches() {
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 4, 16, 16});
  b.initializer("wa", random_tensor(DType::Float32, {16, 4, 1, 1}, 1));
  b.initializer("wb", random_tensor(DType::Float32, {16, 4, 1, 1}, 2));
  b.node("Conv", {"x", "wa"}, {"a"});
  b.node("Conv", {"x", "wb"}, {"b"});
  b.node("ReduceMax", {"a"}, {"ra"}, {{"axes", std::vector<int64_t>{2, 3}}});
  b.node("ReduceMax", {"b"}, {"rb"}, {{"axes", std::vector<int64_t>{2, 3}}});
  b.node("Add", {"ra", "rb"}, {"y"});
  b.output("y");
  return b.save(test::scratch_dir(), "two_branches.onnx");
}

size_t position(const Graph& g, const std::string& output) {
  const ValueId v = g.find(output);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (std::find(g.nodes[i].outputs.begin(), g.nodes[i].outputs.end(), v) != g.nodes[i].outputs.end()) return i;
  ADD_FAILURE() << "no node computes " << output;
  return 0;
}

TEST(Schedule, ABranchRunsToItsEndWhenThatFreesItsBytes) {
  const fs::path p = two_branches();
  driver::CompileOptions on, off;
  off.codegen.arena_reuse = false;
  const driver::CompileResult a = driver::compile_model(p, on), b = driver::compile_model(p, off);
  const size_t big = 16 * 16 * 16 * 4, small = 64;  // the 64-byte alignment rounds 16 floats up to 64 bytes
  // Source order: both convolutions' outputs live together (with ra, at ra's step).
  EXPECT_EQ(b.module.workspace_lower_bound, 2 * big + small);
  // Reordered: branch a reduces before branch b's convolution runs; at
  // most b, ra and rb live together.
  EXPECT_EQ(a.module.workspace_lower_bound, big + 2 * small);
  EXPECT_EQ(a.module.workspace_size, big + 2 * small);
  EXPECT_LT(position(a.graph, "ra"), position(a.graph, "b"));
  const io::NamedTensors in = {{"x", random_tensor(DType::Float32, {1, 4, 16, 16}, 3)}};
  test::expect_matches_reference(p, in, 0.0, 0.0);
}

// A chain has one order: nothing to propose.
TEST(Schedule, AChainHasNoOtherOrder) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 4, 8, 8});
  b.node("Relu", {"x"}, {"r"});
  b.node("Sigmoid", {"r"}, {"s"});
  b.node("Neg", {"s"}, {"y"});
  b.output("y");
  const driver::CompileResult r = driver::compile_model(b.save(test::scratch_dir(), "chain.onnx"), {});
  EXPECT_TRUE(memory::candidate_orders(r.graph).empty());
}

// Random DAGs of Adds over values of random sizes: every proposal is a
// topological order other than the source; reorder refuses one that is not.
TEST(Schedule, ProposalsAreTopologicalOrdersOfRandomGraphs) {
  std::mt19937 rng(7);
  int proposals = 0;
  for (int trial = 0; trial < 50; ++trial) {
    Graph g;
    std::vector<ValueId> values;
    for (int i = 0; i < 2; ++i) {
      const ValueId v = g.add_value("in" + std::to_string(i), DType::Float32);
      g.value(v).shape = {1 + static_cast<int64_t>(rng() % 64)};
      g.value(v).shape_known = true;
      g.inputs.push_back({g.value(v).name, v});
      values.push_back(v);
    }
    const int nodes = 3 + static_cast<int>(rng() % 30);
    for (int i = 0; i < nodes; ++i) {
      Node n;
      n.op = "Add";
      n.name = "add" + std::to_string(i);
      for (int k = 0; k < 2; ++k) n.inputs.push_back(values[rng() % values.size()]);
      const ValueId out = g.add_value("v" + std::to_string(i), DType::Float32);
      g.value(out).shape = {1 + static_cast<int64_t>(rng() % 4096)};
      g.value(out).shape_known = true;
      n.outputs.push_back(out);
      g.nodes.push_back(n);
      values.push_back(out);
    }
    g.outputs.push_back({"y", values.back()});
    std::vector<int> source(g.nodes.size());
    for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<int>(i);
    for (const std::vector<int>& order : memory::candidate_orders(g)) {
      ++proposals;
      EXPECT_TRUE(memory::is_topological(g, order));
      EXPECT_NE(order, source);
    }
    std::vector<int> reversed(source.rbegin(), source.rend());
    if (!memory::is_topological(g, reversed)) {
      EXPECT_THROW(memory::reorder(g, reversed), Error);
    }
    EXPECT_FALSE(memory::is_topological(g, {}));
  }
  EXPECT_GT(proposals, 10);  // the graphs branch: most have other orders
}

}  // namespace
}  // namespace mlipc::unit_memory_schedule
