// MatMul (constant B) + Add(matmul, c) -> MatMul with bias c (passes.h):
// c constant, one value per output column. The Add's output becomes the
// MatMul's; the MatMul keeps its place in the schedule (c is a constant).
#include "ops/activation.h"
#include "passes/passes.h"

namespace mlipc::passes {

namespace {

// c holds one value per column of an output of shape `out` (its shape is
// [N] or [1, ..., 1, N], no longer than out's), so Add(y, c) adds c[j] to
// every y[..., j].
bool is_column_bias(const Value& c, const Shape& out) {
  if (!c.is_constant() || c.dtype != DType::Float32 || out.empty() || c.shape.empty() || c.shape.size() > out.size())
    return false;
  if (c.shape.back() != out.back()) return false;
  for (size_t i = 0; i + 1 < c.shape.size(); ++i)
    if (c.shape[i] != 1) return false;
  return true;
}

}  // namespace

void fuse_matmul_bias(Graph& g) {
  const auto consumers = g.consumers();
  const auto producers = g.producers();
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t ai = 0; ai < g.nodes.size(); ++ai) {
    const Node& add = g.nodes[ai];
    if (add.op != "Add" || add.inputs.size() != 2 || add.outputs.size() != 1 || add.attrs.has("activation")) continue;
    const Value& y = g.value(add.outputs[0]);
    if (y.dtype != DType::Float32) continue;
    for (int k = 0; k < 2; ++k) {
      const ValueId m = add.inputs[static_cast<size_t>(k)], c = add.inputs[static_cast<size_t>(1 - k)];
      const int pm = producers[m];
      if (pm < 0 || dead[static_cast<size_t>(pm)]) continue;
      Node& mm = g.nodes[static_cast<size_t>(pm)];
      if (mm.op != "MatMul" || mm.inputs.size() != 2 || mm.outputs.size() != 1 || mm.attrs.has("activation")) continue;
      if (consumers[m].size() != 1 || g.is_graph_output(m)) continue;
      const Value& b = g.value(mm.inputs[1]);
      // A 1-D B drops the output's column axis: c would not follow B's columns.
      if (!b.is_constant() || b.shape.size() < 2 || g.value(m).dtype != DType::Float32) continue;
      if (g.value(m).shape != y.shape || !is_column_bias(g.value(c), y.shape)) continue;
      mm.inputs.push_back(c);
      mm.attrs.set("mlipc_bias", int64_t{1});
      mm.outputs = add.outputs;
      mm.origins.insert(mm.origins.end(), add.origins.begin(), add.origins.end());
      dead[ai] = true;
      break;
    }
  }
  g.erase_nodes(dead);
}

}  // namespace mlipc::passes
