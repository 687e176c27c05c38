// Where: y = condition ? x : y elementwise with numpy broadcasting of all
// three inputs; condition is bool, x and y any one element type.
#include "ops/broadcast.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_Where(InferContext& ctx) {
  ctx.expect_inputs(3, 3);
  ctx.expect_dtype(0, {DType::Bool});
  if (ctx.in_dtype(1) != ctx.in_dtype(2))
    fail("x has element type {} but y has {}; they must match", dtype_name(ctx.in_dtype(1)), dtype_name(ctx.in_dtype(2)));
  const Shape out = broadcast_shapes(broadcast_shapes(ctx.in_shape(0), ctx.in_shape(1)), ctx.in_shape(2));
  ctx.set_output(0, ctx.in_dtype(1), out);
}

void eval_Where(EvalContext& ctx) {
  const Shape& out = ctx.outputs[0].shape();
  const uint8_t* c = ctx.in(0).raw();
  visit_bytes(ctx.in(1).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* a = ctx.in(1).raw_as<T>();
    const T* b = ctx.in(2).raw_as<T>();
    T* y = ctx.outputs[0].raw_as<T>();
    for_each_broadcast(out,
                       {broadcast_strides(ctx.in(0).shape(), out), broadcast_strides(ctx.in(1).shape(), out),
                        broadcast_strides(ctx.in(2).shape(), out)},
                       [&](int64_t o, const std::vector<int64_t>& offs) { y[o] = c[offs[0]] ? a[offs[1]] : b[offs[2]]; });
  });
}

}  // namespace mlipc::ops
