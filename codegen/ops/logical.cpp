// Not, And, Or, Xor on bool tensors (And, Or, Xor with numpy broadcasting).
// Any non-zero byte reads as true; results are 0 or 1.
#include "ops/elem.h"
#include "ops/ops.h"

namespace mlipc::ops {

namespace {

void infer_logical(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  expect_elem_dtype(ctx, 0, {DType::Bool});
  expect_elem_dtype(ctx, 1, {DType::Bool});
  resolve_legacy_broadcast(ctx);
  ctx.set_output(0, DType::Bool, broadcast_shapes(ctx.in_shape(0), ctx.in_shape(1)));
}

template <class F>
void eval_logical(EvalContext& ctx, F f) {
  map_binary<Bool8, Bool8, Bool8>(ctx.in(0), ctx.in(1), ctx.outputs[0], f);
}

}  // namespace

void infer_Not(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  expect_elem_dtype(ctx, 0, {DType::Bool});
  ctx.set_output(0, DType::Bool, ctx.in_shape(0));
}
void eval_Not(EvalContext& ctx) {
  map_unary<Bool8, Bool8>(ctx.in(0), ctx.outputs[0], [](int v) { return !v; });
}

void infer_And(InferContext& ctx) { infer_logical(ctx); }
void eval_And(EvalContext& ctx) {
  eval_logical(ctx, [](int a, int b) { return a && b; });
}

void infer_Or(InferContext& ctx) { infer_logical(ctx); }
void eval_Or(EvalContext& ctx) {
  eval_logical(ctx, [](int a, int b) { return a || b; });
}

void infer_Xor(InferContext& ctx) { infer_logical(ctx); }
void eval_Xor(EvalContext& ctx) {
  eval_logical(ctx, [](int a, int b) { return a != b; });
}

}  // namespace mlipc::ops
