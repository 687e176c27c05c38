// Expand: broadcasts the input to the numpy broadcast of its shape and the
// `shape` input (int64, 1-D). Any element type. A shape computed at run time
// is accepted when the model declares the output's static shape; the kernel
// then checks that the shape gives it.
#include "ops/broadcast.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

void expect_shape_tensor(const InferContext& ctx) {
  ctx.expect_dtype(1, {DType::Int64});
  if (ctx.in_rank(1) != 1) fail("shape must be 1-D, got shape {}", shape_str(ctx.in_shape(1)));
}

Shape expand_shape(const Shape& in, const TensorData& shape) {
  const std::vector<int64_t> s = shape.as_int64();
  for (int64_t d : s)
    if (d < 0) fail("shape {} has a negative entry", shape_str(s));
  return broadcast_shapes(in, s);
}

}  // namespace

void infer_Expand(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  expect_shape_tensor(ctx);
  const Shape& in = ctx.in_shape(0);
  if (const TensorData* shape = ctx.in_const(1)) return ctx.set_output(0, ctx.in_dtype(0), expand_shape(in, *shape));
  const Shape* declared = ctx.declared_output(0);
  if (!declared) ctx.require_shape_const(1, "shape");
  // The declared shape must be what some shape values give: the input
  // broadcast along its size-1 axes, at least as many axes as `shape` has.
  const size_t n = static_cast<size_t>(ctx.in_shape(1)[0]);
  if (declared->size() != std::max(in.size(), n) || !broadcasts_to(in, *declared))
    fail("the model declares the output {}, which no shape of {} entries gives for the input {}",
         shape_str(*declared), n, shape_str(in));
  ctx.set_output(0, ctx.in_dtype(0), *declared);
}

void eval_Expand(EvalContext& ctx) {
  const TensorData& x = ctx.in(0);
  const Shape& out = ctx.outputs[0].shape();
  const Shape want = expand_shape(x.shape(), ctx.in(1));
  if (want != out)
    fail("the run-time shape gives the output shape {} but the model declares {}", shape_str(want), shape_str(out));
  visit_bytes(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = x.raw_as<T>();
    T* dst = ctx.outputs[0].raw_as<T>();
    for_each_broadcast(out, {broadcast_strides(x.shape(), out)},
                       [&](int64_t o, const std::vector<int64_t>& offs) { dst[o] = src[offs[0]]; });
  });
}

}  // namespace mlipc::ops
