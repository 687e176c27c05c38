// PRelu: y = x < 0 ? x * slope : x, with slope broadcast to x's shape
// (unidirectionally). Before opset 7 a 1-D slope of x's channel count holds
// one slope per channel (axis 1; frontend/opset.cpp marks such nodes with
// legacy_channel_slope). The shape rule records the shape the slope is read
// with in `slope_shape`, which the reference and the C kernel use.
#include "ops/elem.h"
#include "ops/elementwise.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_PRelu(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  expect_elem_dtype(ctx, 0, join({float_types(), {DType::Int32, DType::Int64, DType::UInt32, DType::UInt64}}));
  expect_same_dtype(ctx);
  const Shape& x = ctx.in_shape(0);
  Shape slope = ctx.in_shape(1);
  // (The flag stays: shape rules run again after the passes.)
  if (ctx.attrs().has("legacy_channel_slope") && slope.size() == 1 && x.size() >= 2 && slope[0] == x[1] &&
      slope[0] != 1)
    slope.resize(x.size() - 1, 1);
  if (!broadcasts_to(slope, x))
    fail("slope of shape {} does not broadcast to the input's shape {}", shape_str(ctx.in_shape(1)), shape_str(x));
  ctx.attrs().set("slope_shape", std::vector<int64_t>(slope.begin(), slope.end()));
  ctx.set_output(0, ctx.in_dtype(0), x);
}

void eval_PRelu(EvalContext& ctx) {
  const TensorData slope = ctx.in(1).reshaped(ctx.attrs().get_ints("slope_shape"));
  visit_elem(ctx.in(0).dtype(), "PRelu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    map_binary<T, T, T>(ctx.in(0), slope, ctx.outputs[0], [](C x, C s) {
      if constexpr (std::is_floating_point_v<C>) return x < C(0) ? x * s : x;
      else if constexpr (std::is_signed_v<C>) return x < C(0) ? mul_wrap(x, s) : x;
      else return x;  // an unsigned x is never negative
    });
  });
}

}  // namespace mlipc::ops
