// BitShift on unsigned integers with numpy broadcasting, direction LEFT or
// RIGHT. Shifting by the type's width or more gives 0 (C leaves it undefined).
#include "ops/elem.h"
#include "ops/elementwise.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_BitShift(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  expect_elem_dtype(ctx, 0, unsigned_types());
  expect_same_dtype(ctx);
  if (!ctx.attrs().has("direction")) fail("attribute 'direction' (\"LEFT\" or \"RIGHT\") is required");
  const std::string dir = ctx.attrs().get_string("direction");
  if (dir != "LEFT" && dir != "RIGHT") fail("direction must be \"LEFT\" or \"RIGHT\", got \"{}\"", dir);
  ctx.set_output(0, ctx.in_dtype(0), broadcast_shapes(ctx.in_shape(0), ctx.in_shape(1)));
}

void eval_BitShift(EvalContext& ctx) {
  const bool left = ctx.attrs().get_string("direction") == "LEFT";
  visit_elem(ctx.in(0).dtype(), "BitShift", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    if constexpr (std::is_integral_v<C> && std::is_unsigned_v<C>) {
      map_binary<T, T, T>(ctx.in(0), ctx.in(1), ctx.outputs[0], [left](C x, C s) {
        using U = wrap_t<C>;
        if (s >= sizeof(C) * 8) return C(0);
        return static_cast<C>(left ? static_cast<U>(x) << s : static_cast<U>(x) >> s);
      });
    }
  });
}

}  // namespace mlipc::ops
