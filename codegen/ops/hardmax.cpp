// Hardmax on float32: 1 where ArgMax along the axis picks (the first
// maximum; NaN wins, as in ops/arg_minmax.h), 0 elsewhere. The axis and
// the opset < 13 coerced-2D form (coerce_2d = 1 from frontend/opset.cpp: all
// axes from `axis` on, default 1) are Softmax's: ops::softmax_dims.
#include "ops/arg_minmax.h"
#include "ops/ops.h"
#include "ops/softmax.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_Hardmax(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  ctx.expect_dtype(0, {DType::Float32});
  softmax_dims(ctx.attrs(), ctx.in_shape(0));  // checks the axis
  ctx.set_output(0, DType::Float32, ctx.in_shape(0));
}

// Same order as templates/kernels/hardmax.c.
void eval_Hardmax(EvalContext& ctx) {
  const SoftmaxDims d = softmax_dims(ctx.attrs(), ctx.in(0).shape());
  const float* x = ctx.in(0).data<float>();
  float* y = ctx.outputs[0].data<float>();
  for (int64_t o = 0; o < d.outer; ++o)
    for (int64_t i = 0; i < d.inner; ++i) {
      const int64_t base = o * d.n * d.inner + i;
      if (d.n == 0) continue;
      float best = x[base];
      int64_t at = 0;
      for (int64_t k = 1; k < d.n; ++k)
        if (arg_better(x[base + k * d.inner], best, true, false)) {
          best = x[base + k * d.inner];
          at = k;
        }
      for (int64_t k = 0; k < d.n; ++k) y[base + k * d.inner] = k == at ? 1.0f : 0.0f;
    }
}

}  // namespace mlipc::ops
