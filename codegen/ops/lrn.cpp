// LRN (local response normalization across channels): `size` (required),
// `alpha` (1e-4), `beta` (0.75), `bias` (1.0); float32, as ops/lrn.h says.
#include "ops/lrn.h"

#include "ops/ops.h"
#include "mlip/kmath.h"
#include "support/error.h"

namespace mlipc::ops {

LrnParams lrn_params(const Attrs& attrs, const Shape& x) {
  if (x.size() < 3) fail("the input must have rank >= 3 ([N, C, D1, ...]), got {}", shape_str(x));
  if (!attrs.has("size")) fail("attribute 'size' is required");
  const int64_t size = attrs.get_int("size");
  if (size < 1) fail("size must be >= 1, got {}", size);
  LrnParams p;
  p.n = x[0];
  p.c = x[1];
  for (size_t i = 2; i < x.size(); ++i) p.spatial *= x[i];
  p.lo = (size - 1) / 2;
  p.hi = size - 1 - p.lo;
  p.alpha_over_size = attrs.get_float("alpha", 1e-4f) / static_cast<float>(size);
  p.beta = attrs.get_float("beta", 0.75f);
  p.bias = attrs.get_float("bias", 1.0f);
  return p;
}

void infer_LRN(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  ctx.expect_dtype(0, {DType::Float32});
  lrn_params(ctx.attrs(), ctx.in_shape(0));
  ctx.set_output(0, DType::Float32, ctx.in_shape(0));
}

void eval_LRN(EvalContext& ctx) {
  const LrnParams p = lrn_params(ctx.attrs(), ctx.in(0).shape());
  const float* x = ctx.in(0).data<float>();
  float* y = ctx.outputs[0].data<float>();
  for (int64_t b = 0; b < p.n; ++b)
    for (int64_t c = 0; c < p.c; ++c)
      for (int64_t s = 0; s < p.spatial; ++s) {
        const int64_t first = c - p.lo < 0 ? 0 : c - p.lo, last = c + p.hi >= p.c ? p.c - 1 : c + p.hi;
        float sq = 0.0f;
        for (int64_t k = first; k <= last; ++k) {
          const float v = x[(b * p.c + k) * p.spatial + s];
          const float v2 = v * v;
          sq += v2;
        }
        const float scaled = p.alpha_over_size * sq;
        const int64_t at = (b * p.c + c) * p.spatial + s;
        y[at] = x[at] / mlip_powf(p.bias + scaled, p.beta);
      }
}

}  // namespace mlipc::ops
