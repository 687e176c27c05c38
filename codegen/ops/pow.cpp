// Pow: x^y with numpy broadcasting; the result has x's type. x is float32,
// int32 or int64, y any numeric type (opset 12 and later; before, both are
// floats):
//   float32 x      mlip_powf(x, (float)y)
//   integer x, y   repeated squaring, wrapping (ops::int_pow)
//   integer x, float y   mlip_powf((float)x, (float)y) converted back like a
//                        cast that saturates (ops::saturate_cast)
// A float64 base is refused: mlip/kmath.h has no double pow, and a C
// library's would give other bits on other machines.
#include "ops/elem.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace mlipc::ops {

void infer_Pow(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  expect_elem_dtype(ctx, 0, {DType::Float32, DType::Int32, DType::Int64});
  expect_elem_dtype(ctx, 1, numeric_types());
  resolve_legacy_broadcast(ctx);
  ctx.set_output(0, ctx.in_dtype(0), broadcast_shapes(ctx.in_shape(0), ctx.in_shape(1)));
}

void eval_Pow(EvalContext& ctx) {
  visit_elem(ctx.in(0).dtype(), "Pow", [&](auto xtag) {
    using X = typename decltype(xtag)::type;
    visit_elem(ctx.in(1).dtype(), "Pow", [&](auto ytag) {
      using Y = typename decltype(ytag)::type;
      using CX = compute_t<X>;
      using CY = compute_t<Y>;
      map_binary<X, Y, X>(ctx.in(0), ctx.in(1), ctx.outputs[0], [](CX x, CY y) {
        CX v;
        if constexpr (std::is_floating_point_v<CX>) v = static_cast<CX>(mlip_powf(static_cast<float>(x), static_cast<float>(y)));
        else if constexpr (std::is_integral_v<CY>) v = int_pow(x, y);
        else v = saturate_cast<CX>(mlip_powf(static_cast<float>(x), static_cast<float>(y)));
        return v;
      });
    });
  });
}

}  // namespace mlipc::ops
