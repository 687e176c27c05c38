// A MatMul's epilogue (passes.h): what its store adds to each finished
// sum, in the unfused nodes' order: the bias (fuse_matmul_bias: MatMul with
// a constant B + Add(matmul, c), c constant, one value per output column;
// the Add's output becomes the MatMul's, which keeps its place in the
// schedule), then the activation (fuse_activation), then a per-column (or
// scalar) scale and a residual (fuse_matmul_epilogue). The two passes share
// is_column_bias.
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

// c is a float constant of one value (any shape of ones: a scalar), which a
// Mul applies to every element: attention's scale of Q K^T.
bool is_scalar_constant(const Value& c) {
  return c.is_constant() && c.dtype == DType::Float32 && numel(c.shape) == 1;
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

void fuse_matmul_epilogue(Graph& g) {
  const auto consumers = g.consumers();
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t mi = 0; mi < g.nodes.size(); ++mi) {
    if (dead[mi] || g.nodes[mi].op != "MatMul" || g.nodes[mi].outputs.size() != 1) continue;
    if (g.nodes[mi].attrs.has("mlipc_scale") || g.nodes[mi].attrs.has("mlipc_residual")) continue;
    Node mm = g.nodes[mi];
    const Shape shape = g.value(mm.outputs[0]).shape;
    if (g.value(mm.outputs[0]).dtype != DType::Float32) continue;
    // A 1-D B drops the output's column axis: a per-column constant would
    // not follow B's columns.
    const bool columns = g.value(mm.inputs[1]).shape.size() >= 2;
    bool scale = false, residual = false;
    size_t last = mi;
    for (;;) {
      const ValueId y = mm.outputs[0];
      if (consumers[y].size() != 1 || g.is_graph_output(y)) break;
      const size_t ci = static_cast<size_t>(consumers[y][0]);
      const Node& c = g.nodes[ci];
      if (dead[ci] || c.inputs.size() != 2 || c.outputs.size() != 1 || c.attrs.has("activation")) break;
      if (c.inputs[0] == c.inputs[1]) break;
      const ValueId other = c.inputs[0] == y ? c.inputs[1] : c.inputs[0];
      const Value& out = g.value(c.outputs[0]);
      if (out.dtype != DType::Float32 || out.shape != shape) break;
      // Each step keeps the order of the unfused nodes: a scale after a
      // residual, or a second one of either, is not this epilogue.
      const bool scalar = is_scalar_constant(g.value(other));
      if (c.op == "Mul" && !scale && !residual && columns && (scalar || is_column_bias(g.value(other), shape))) {
        mm.inputs.resize(3, kNoValue);
        // A scalar as one value per column (each product x * s the same):
        // the kernel and the reference read scale[j].
        ValueId sc = other;
        if (scalar) {
          const float v = g.value(other).constant->data<float>()[0];
          sc = g.add_constant(c.name + "_scale", TensorData::from<float>({shape.back()}, std::vector<float>(
                                                                              static_cast<size_t>(shape.back()), v)));
        }
        mm.inputs.push_back(sc);
        mm.attrs.set("mlipc_scale", int64_t{1});
        scale = true;
      } else if (c.op == "Add" && !residual && g.value(other).dtype == DType::Float32 &&
                 g.value(other).shape == shape) {
        mm.inputs.resize(4, kNoValue);
        mm.inputs.push_back(other);
        mm.attrs.set("mlipc_residual", int64_t{1});
        residual = true;
      } else {
        break;
      }
      mm.outputs = c.outputs;
      mm.origins.insert(mm.origins.end(), c.origins.begin(), c.origins.end());
      dead[ci] = true;
      last = ci;
    }
    if (last == mi) continue;
    // The MatMul takes the last fused node's place in the schedule: the
    // residual is computed by then.
    g.nodes[last] = std::move(mm);
    dead[last] = false;
    dead[mi] = true;
  }
  g.erase_nodes(dead);
}

}  // namespace mlipc::passes
