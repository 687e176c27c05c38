// Flatten: a view to 2-D, [prod(dims before axis), prod(dims from axis)].
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_Flatten(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  const Shape& in = ctx.in_shape(0);
  const int rank = ctx.in_rank(0);
  int64_t axis = ctx.attrs().get_int("axis", 1);
  // Unlike most axes, axis = rank is valid here (gives [N, 1]).
  if (axis < -rank || axis > rank)
    fail("axis {} is out of range for rank {} (allowed: [{}, {}])", axis, rank, -rank, rank);
  if (axis < 0) axis += rank;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < rank; ++d) (d < axis ? outer : inner) *= in[d];
  ctx.set_output(0, ctx.in_dtype(0), {outer, inner});
}

void eval_Flatten(EvalContext& ctx) { ctx.outputs[0] = ctx.in(0).reshaped(ctx.outputs[0].shape()); }

}  // namespace mlipc::ops
