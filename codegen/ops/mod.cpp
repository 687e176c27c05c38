// Mod with numpy broadcasting. fmod = 1 is C's fmod / % (the result has the
// dividend's sign); fmod = 0 (the default) is Python's % (the divisor's
// sign), defined by ONNX for integers only. ops::mod_apply says what
// division by zero gives.
#include "ops/elem.h"
#include "ops/elementwise.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_Mod(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  expect_elem_dtype(ctx, 0, numeric_types());
  expect_same_dtype(ctx);
  const int64_t fmod = ctx.attrs().get_int("fmod", 0);
  if (fmod != 0 && fmod != 1) fail("fmod must be 0 or 1, got {}", fmod);
  if (fmod == 0 && dtype_is_float(ctx.in_dtype(0)))
    fail("fmod=0 (the remainder with the divisor's sign) is defined for integers only; {} inputs need fmod=1",
         dtype_name(ctx.in_dtype(0)));
  ctx.attrs().set("fmod", fmod);
  ctx.set_output(0, ctx.in_dtype(0), broadcast_shapes(ctx.in_shape(0), ctx.in_shape(1)));
}

void eval_Mod(EvalContext& ctx) {
  const bool fmod = ctx.attrs().get_int("fmod") != 0;
  visit_elem(ctx.in(0).dtype(), "Mod", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    map_binary<T, T, T>(ctx.in(0), ctx.in(1), ctx.outputs[0], [fmod](C a, C b) { return mod_apply<C>(a, b, fmod); });
  });
}

}  // namespace mlipc::ops
