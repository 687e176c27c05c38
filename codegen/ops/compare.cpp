// Equal, Greater, Less, GreaterOrEqual, LessOrEqual: bool results of two
// inputs of one numeric type (Equal also bool) under numpy broadcasting.
// float16 compares as float (exactly); a NaN compares unequal to anything.
#include "ops/elem.h"
#include "ops/ops.h"

namespace mlipc::ops {

namespace {

void infer_compare(InferContext& ctx, const std::vector<DType>& allowed) {
  ctx.expect_inputs(2, 2);
  expect_elem_dtype(ctx, 0, allowed);
  resolve_legacy_broadcast(ctx);
  expect_same_dtype(ctx);
  ctx.set_output(0, DType::Bool, broadcast_shapes(ctx.in_shape(0), ctx.in_shape(1)));
}

template <class F>
void eval_compare(EvalContext& ctx, F f) {
  visit_elem(ctx.in(0).dtype(), ctx.node.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    map_binary<T, T, Bool8>(ctx.in(0), ctx.in(1), ctx.outputs[0], [&](C a, C b) { return f(a, b) ? 1 : 0; });
  });
}

}  // namespace

void infer_Equal(InferContext& ctx) { infer_compare(ctx, join({numeric_types(), {DType::Bool}})); }
void eval_Equal(EvalContext& ctx) {
  eval_compare(ctx, [](auto a, auto b) { return a == b; });
}

void infer_Greater(InferContext& ctx) { infer_compare(ctx, numeric_types()); }
void eval_Greater(EvalContext& ctx) {
  eval_compare(ctx, [](auto a, auto b) { return a > b; });
}

void infer_Less(InferContext& ctx) { infer_compare(ctx, numeric_types()); }
void eval_Less(EvalContext& ctx) {
  eval_compare(ctx, [](auto a, auto b) { return a < b; });
}

void infer_GreaterOrEqual(InferContext& ctx) { infer_compare(ctx, numeric_types()); }
void eval_GreaterOrEqual(EvalContext& ctx) {
  eval_compare(ctx, [](auto a, auto b) { return a >= b; });
}

void infer_LessOrEqual(InferContext& ctx) { infer_compare(ctx, numeric_types()); }
void eval_LessOrEqual(EvalContext& ctx) {
  eval_compare(ctx, [](auto a, auto b) { return a <= b; });
}

}  // namespace mlipc::ops
