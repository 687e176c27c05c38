// kSubgraphOp: a sub-graph a backend compiles (passes/partition), e.g. an
// MLIP region. Its shape rule copies the body's output types; its reference
// kernel evaluates the body, so the reference evaluator still runs
// partitioned graphs. The call the CPU code makes: ops/subgraph.h.
#include "ops/subgraph.h"

#include "ops/evaluator.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_Subgraph(InferContext& ctx) {
  const Graph* body = ctx.node().body.get();
  if (!body) fail("internal: sub-graph without a body");
  if (ctx.num_inputs() < static_cast<int>(body->inputs.size()) ||
      ctx.num_outputs() < static_cast<int>(body->outputs.size()))
    fail("internal: sub-graph node and body disagree on inputs/outputs");
  for (size_t i = 0; i < body->outputs.size(); ++i) {
    const Value& v = body->value(body->outputs[i].value);
    ctx.set_output(static_cast<int>(i), v.dtype, v.shape);
  }
  // Outputs past the body's (an MLIP region's scratch) were typed by the backend.
}

void eval_Subgraph(EvalContext& ctx) {
  const Graph& body = *ctx.node.body;
  std::vector<TensorData> ins;
  for (size_t i = 0; i < body.inputs.size(); ++i) ins.push_back(ctx.in(static_cast<int>(i)));
  std::vector<TensorData> outs = evaluate(body, ins);
  for (size_t i = 0; i < outs.size(); ++i) ctx.outputs[i] = std::move(outs[i]);
}

}  // namespace mlipc::ops
