// Unsqueeze: a view that inserts size-1 axes at the positions (in the output,
// any order, negative allowed) of the constant axes input.
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_Unsqueeze(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  const Shape& in = ctx.in_shape(0);
  const TensorData& axes_t = ctx.require_const(1, "axes");
  if (axes_t.dtype() != DType::Int64)
    fail("axes input has element type {}; supported: int64", dtype_name(axes_t.dtype()));
  if (axes_t.rank() > 1) fail("axes input must be 1-D, got shape {}", shape_str(axes_t.shape()));
  const std::vector<int64_t> axes = axes_t.as_int64();
  const int out_rank = ctx.in_rank(0) + static_cast<int>(axes.size());
  std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
  for (int64_t a : axes) {
    if (a < -out_rank || a >= out_rank)
      fail("axes {} has {}, out of range for output rank {}", shape_str(axes), a, out_rank);
    const int k = static_cast<int>(a < 0 ? a + out_rank : a);
    if (inserted[k]) fail("axes {} name axis {} twice", shape_str(axes), k);
    inserted[k] = true;
  }
  Shape out;
  size_t next = 0;
  for (int k = 0; k < out_rank; ++k) out.push_back(inserted[k] ? 1 : in[next++]);
  ctx.set_output(0, ctx.in_dtype(0), out);
}

void eval_Unsqueeze(EvalContext& ctx) { ctx.outputs[0] = ctx.in(0).reshaped(ctx.outputs[0].shape()); }

}  // namespace mlipc::ops
