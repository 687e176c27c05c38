// Squeeze: a view that drops axes of size 1: those of the constant axes
// input, or every size-1 axis when it is omitted.
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_Squeeze(InferContext& ctx) {
  ctx.expect_inputs(1, 2);
  const Shape& in = ctx.in_shape(0);
  const int rank = ctx.in_rank(0);
  std::vector<bool> drop(static_cast<size_t>(rank), false);
  if (ctx.has_input(1)) {
    const TensorData& axes_t = ctx.require_const(1, "axes");
    if (axes_t.dtype() != DType::Int64)
      fail("axes input has element type {}; supported: int64", dtype_name(axes_t.dtype()));
    if (axes_t.rank() > 1) fail("axes input must be 1-D, got shape {}", shape_str(axes_t.shape()));
    const std::vector<int64_t> axes = axes_t.as_int64();
    for (int64_t a : axes) {
      if (a < -rank || a >= rank) fail("axes {} has {}, out of range for rank {}", shape_str(axes), a, rank);
      const int k = static_cast<int>(a < 0 ? a + rank : a);
      if (drop[k]) fail("axes {} name axis {} twice", shape_str(axes), k);
      if (in[k] != 1)
        fail("cannot squeeze axis {} of input {}: its size is {}, not 1", k, shape_str(in), in[k]);
      drop[k] = true;
    }
  } else {
    for (int k = 0; k < rank; ++k) drop[k] = in[k] == 1;
  }
  Shape out;
  for (int k = 0; k < rank; ++k)
    if (!drop[k]) out.push_back(in[k]);
  ctx.set_output(0, ctx.in_dtype(0), out);
}

void eval_Squeeze(EvalContext& ctx) { ctx.outputs[0] = ctx.in(0).reshaped(ctx.outputs[0].shape()); }

}  // namespace mlipc::ops
