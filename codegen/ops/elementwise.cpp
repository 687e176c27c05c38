// Add, Sub, Mul, Div with numpy broadcasting, on the float and integer
// types (float16 computed in float, rounded once); float32 results may carry
// a fused activation.
#include "ops/elementwise.h"

#include "ops/activation.h"
#include "ops/broadcast.h"
#include "ops/elem.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

void infer_binary(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  expect_elem_dtype(ctx, 0, numeric_types());
  expect_same_dtype(ctx);
  const Shape& a = ctx.in_shape(0);
  const Shape& b = ctx.in_shape(1);
  resolve_legacy_broadcast(ctx);
  if (activation_of(ctx.attrs()).kind != Activation::None && ctx.in_dtype(0) != DType::Float32)
    fail("a fused activation needs float32, the element type is {}", dtype_name(ctx.in_dtype(0)));
  ctx.set_output(0, ctx.in_dtype(0), broadcast_shapes(a, b));
}

void eval_binary(EvalContext& ctx, BinaryOp op) {
  const Activation act = activation_of(ctx.attrs());
  visit_elem(ctx.in(0).dtype(), ctx.node.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    map_binary<T, T, T>(ctx.in(0), ctx.in(1), ctx.outputs[0], [&](C a, C b) {
      C v = binary_apply<C>(op, a, b);
      if constexpr (std::is_same_v<T, float>) v = act.apply(v);
      return v;
    });
  });
}

}  // namespace

void infer_Add(InferContext& ctx) { infer_binary(ctx); }
void eval_Add(EvalContext& ctx) { eval_binary(ctx, BinaryOp::Add); }
void infer_Sub(InferContext& ctx) { infer_binary(ctx); }
void eval_Sub(EvalContext& ctx) { eval_binary(ctx, BinaryOp::Sub); }
void infer_Mul(InferContext& ctx) { infer_binary(ctx); }
void eval_Mul(EvalContext& ctx) { eval_binary(ctx, BinaryOp::Mul); }
void infer_Div(InferContext& ctx) { infer_binary(ctx); }
void eval_Div(EvalContext& ctx) { eval_binary(ctx, BinaryOp::Div); }

}  // namespace mlipc::ops
