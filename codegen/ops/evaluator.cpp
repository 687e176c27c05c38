#include "ops/evaluator.h"

#include <fmt/format.h>

#include "ops/op.h"
#include "support/error.h"

namespace mlipc {

std::vector<TensorData> eval_node(const Graph& g, const Node& n, const std::vector<TensorData>* env) {
  const OpDef* def = find_op(n.op);
  if (!def || !def->eval) fail("{}: no reference kernel for operator '{}'", n.describe(), n.op);
  std::vector<const TensorData*> ins;
  for (ValueId in : n.inputs) {
    if (in == kNoValue) {
      ins.push_back(nullptr);
      continue;
    }
    const Value& v = g.value(in);
    if (v.is_constant()) ins.push_back(v.constant.get());
    else if (env && (*env)[in].dtype() != DType::Undefined) ins.push_back(&(*env)[in]);
    else fail("internal: {}: input '{}' has no value", n.describe(), v.name);
  }
  std::vector<TensorData> outs;
  for (ValueId out : n.outputs)
    outs.emplace_back(out == kNoValue ? TensorData() : TensorData(g.value(out).dtype, g.value(out).shape));
  EvalContext ctx{n, ins, outs};
  try {
    def->eval(ctx);
  } catch (const Error& e) {
    throw NodeError(fmt::format("{}: {}", n.describe(), e.what()), n.name, n.op);
  }
  return outs;
}

std::vector<TensorData> evaluate_values(const Graph& g, const std::vector<TensorData>& inputs) {
  if (inputs.size() != g.inputs.size()) fail("expected {} inputs, got {}", g.inputs.size(), inputs.size());
  std::vector<TensorData> env(g.num_values());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& v = g.value(g.inputs[i].value);
    if (inputs[i].dtype() != v.dtype || inputs[i].shape() != v.shape)
      fail("input '{}' must be {} {}, got {} {}", g.inputs[i].name, dtype_name(v.dtype), shape_str(v.shape),
           dtype_name(inputs[i].dtype()), shape_str(inputs[i].shape()));
    env[g.inputs[i].value] = inputs[i];
  }
  for (const Node& n : g.nodes) {
    std::vector<TensorData> outs = eval_node(g, n, &env);
    for (size_t k = 0; k < n.outputs.size(); ++k)
      if (n.outputs[k] != kNoValue) env[n.outputs[k]] = std::move(outs[k]);
  }
  return env;
}

std::vector<TensorData> evaluate(const Graph& g, const std::vector<TensorData>& inputs) {
  const std::vector<TensorData> env = evaluate_values(g, inputs);
  std::vector<TensorData> result;
  for (const GraphIO& o : g.outputs) {
    const Value& v = g.value(o.value);
    result.push_back(v.is_constant() ? *v.constant : env[o.value]);
  }
  return result;
}

}  // namespace mlipc
