// Dropout in inference mode: the identity, with an all-true mask. Training
// mode is random, so it is refused unless the ratio is a constant 0 (then
// training mode is the identity too). passes/simplify removes the node.
#include <cstring>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_Dropout(InferContext& ctx) {
  ctx.expect_inputs(1, 3);
  ctx.expect_dtype(0, {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64});
  if (ctx.has_input(2)) {
    const TensorData& t = ctx.require_const(2, "training_mode");
    if (t.numel() != 1 || t.dtype() != DType::Bool)
      fail("training_mode must be a bool scalar, got {} {}", dtype_name(t.dtype()), shape_str(t.shape()));
    if (t.raw()[0] != 0) {
      const TensorData* r = ctx.in_const(1);
      // An omitted ratio defaults to 0.5.
      const bool zero_ratio = ctx.has_input(1) && r && r->numel() == 1 && r->at(0) == 0.0;
      if (!zero_ratio) fail("training-mode Dropout is random; export the model in inference mode");
    }
  }
  ctx.set_output(0, ctx.in_dtype(0), ctx.in_shape(0));
  if (ctx.num_outputs() > 1) ctx.set_output(1, DType::Bool, ctx.in_shape(0));
}

void eval_Dropout(EvalContext& ctx) {
  const TensorData& x = ctx.in(0);
  // An omitted output has no buffer.
  if (ctx.outputs[0].nbytes() == x.nbytes() && x.nbytes()) std::memcpy(ctx.outputs[0].raw(), x.raw(), x.nbytes());
  if (ctx.outputs.size() > 1 && ctx.outputs[1].dtype() == DType::Bool)
    std::memset(ctx.outputs[1].raw(), 1, ctx.outputs[1].nbytes());
}

}  // namespace mlipc::ops
