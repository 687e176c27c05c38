// Identity: a copy, for any element type. passes/simplify removes it; it
// comes back (passes/materialize_outputs) to copy a graph input or constant
// into an output buffer.
#include <cstring>

#include "ops/ops.h"

namespace mlipc::ops {

void infer_Identity(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  ctx.set_output(0, ctx.in_dtype(0), ctx.in_shape(0));
}

void eval_Identity(EvalContext& ctx) {
  const TensorData& x = ctx.in(0);
  if (x.nbytes()) std::memcpy(ctx.outputs[0].raw(), x.raw(), x.nbytes());
}

}  // namespace mlipc::ops
