#include "ops/infer.h"

#include <fmt/format.h>

#include "ops/evaluator.h"
#include "ops/op.h"
#include "support/error.h"
#include "support/limits.h"

namespace mlipc {

namespace {

const OpDef& op_of(const Node& n) {
  const OpDef* def = find_op(n.op);
  if (!def) {
    const std::string_view why = refused_op_reason(n.op);
    throw NodeError(fmt::format("{}: operator '{}' is not supported{}{}", n.describe(), n.op, why.empty() ? "" : ": ", why),
                    n.name, n.op);
  }
  return *def;
}

void infer_node(Graph& g, Node& n) {
  const OpDef& def = op_of(n);
  for (ValueId in : n.inputs)
    if (in != kNoValue && !g.value(in).shape_known)
      fail("{}: input '{}' has no known shape", n.describe(), g.value(in).name);
  InferContext ctx(g, n);
  try {
    def.infer(ctx);
  } catch (const Error& e) {
    throw NodeError(fmt::format("{}: {}", n.describe(), e.what()), n.name, n.op);
  }
  for (ValueId out : n.outputs)
    if (out != kNoValue && !g.value(out).shape_known)
      fail("internal: {}: shape rule left output '{}' unset", n.describe(), g.value(out).name);
}

// Shape and Size read only their input's static shape, which is known at
// compile time even when the data is not: they fold whatever their input.
bool reads_only_shape(const Node& n) { return n.op == "Shape" || n.op == "Size"; }

// A DequantizeLinear of constant integers (quantized weights and biases)
// stays a node: passes/fold_qdq reads the integers, and evaluates the ones
// it cannot use.
bool keeps_quantized_constant(const Graph& g, const Node& n) {
  return n.op == "DequantizeLinear" && !n.inputs.empty() && dtype_is_integer(g.value(n.inputs[0]).dtype);
}

bool all_inputs_constant(const Graph& g, const Node& n) {
  for (ValueId in : n.inputs)
    if (in != kNoValue && !g.value(in).is_constant()) return false;
  return true;
}

// Bytes the outputs of `n` will hold once folded, from their inferred shapes.
uint64_t output_bytes(const Graph& g, const Node& n) {
  uint64_t bytes = 0;
  for (ValueId out : n.outputs)
    if (out != kNoValue) bytes += tensor_bytes(g.value(out).dtype, g.value(out).shape);
  return bytes;
}

}  // namespace

void infer_and_fold(Graph& g) {
  std::vector<bool> folded(g.nodes.size(), false);
  uint64_t folded_bytes = 0;  // limits::kMaxFoldedBytes, checked before each evaluation
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    infer_node(g, n);
    std::vector<TensorData> outs;
    if (all_inputs_constant(g, n) && !keeps_quantized_constant(g, n)) {
      const uint64_t bytes = output_bytes(g, n);
      if (bytes > limits::kMaxFoldedBytes - folded_bytes)
        fail("{}: folding it at compile time would make {} bytes of constants, {} in all with the nodes folded "
             "before it, more than mlipc folds ({} bytes)",
             n.describe(), bytes, folded_bytes + bytes, limits::kMaxFoldedBytes);
      folded_bytes += bytes;
      outs = eval_node(g, n);
    } else if (reads_only_shape(n)) {
      // A zero-filled stand-in of the run-time input's type and shape: the
      // reference kernel reads only its shape.
      std::vector<TensorData> env(g.num_values());
      const Value& in = g.value(n.inputs[0]);
      env[n.inputs[0]] = TensorData(in.dtype, in.shape);
      outs = eval_node(g, n, &env);
    } else {
      continue;
    }
    for (size_t k = 0; k < n.outputs.size(); ++k)
      if (n.outputs[k] != kNoValue) g.set_constant(n.outputs[k], std::move(outs[k]));
    folded[i] = true;
  }
  g.erase_nodes(folded);
  g.remove_dead_nodes();
}

void infer_shapes(Graph& g) {
  for (Node& n : g.nodes) infer_node(g, n);
}

}  // namespace mlipc
