// Softmax, LogSoftmax on float32, numerically stable: exponentials of
// x - max, so large inputs do not overflow. The exponential is
// mlip/kmath_f.h's float-precision mlip__exp_nonpos_fma_f (x - max is never
// positive; within 1 + |x| / 20 ulp, measured 0.88 + 0.040 |x|; within
// 8.4e-39 absolute where the result is below the normal floats, 0 from
// -87.69 down), fused multiply-adds and a degree-6 polynomial since stop 50
// (stop 49: mlip_exp_f's steps, 2 ulp); the sum of a
// row's exponentials is 16 partial sums in k's order (lane k mod 16, the
// tail's n mod 16 terms the top lanes) folded in halves (mlip__fold16_f),
// since stop 49 too (the
// kernel then adds a row's own consecutive terms as vectors: no transpose,
// and 16 short chains of additions, not one long one). Softmax multiplies
// each exponential by the sum's reciprocal, 1 / sum rounded once (two
// roundings instead of the quotient's one: 2^-24 relative more than
// e / sum; a division an element was about a sixth of the kernel's time).
// Against float64 on the same float inputs each output is within
// (2.2 T + d + 8) 2^-24 relative (T the row's largest |x - max|; d the
// sum's depth, min(n - 1, ceil(n / 16) + 3) for a row of n: x - max's
// rounding, T 2^-24 in the exponential and in the sum; exp's (2 + T / 10)
// 2^-24 in each; the sum's d roundings, the reciprocal's and the
// product's, and 2 to spare; (2 T + d + 12) until stop 49, exp's 2 ulp) plus 2e-38
// absolute (exp's results below the normal floats):
// unit.Softmax.WithinItsBoundOfFloat64.
#include "ops/softmax.h"

#include <cmath>

#include "ops/ops.h"
#include "mlip/kmath_f.h"
#include "support/error.h"

namespace mlipc::ops {

SoftmaxDims softmax_dims(const Attrs& attrs, const Shape& shape) {
  const int rank = static_cast<int>(shape.size());
  if (rank == 0) fail("the input must have rank >= 1, got a scalar");
  const int axis = normalize_axis(attrs.get_int("axis", -1), rank);
  const bool coerce = attrs.get_int("coerce_2d", 0) != 0;
  SoftmaxDims d;
  for (int i = 0; i < rank; ++i) {
    if (i < axis) d.outer *= shape[i];
    else if (i == axis || coerce) d.n *= shape[i];
    else d.inner *= shape[i];
  }
  return d;
}

namespace {

void infer_softmax(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  ctx.expect_dtype(0, {DType::Float32});
  softmax_dims(ctx.attrs(), ctx.in_shape(0));  // checks the axis
  ctx.set_output(0, DType::Float32, ctx.in_shape(0));
}

// Same operation order as templates/kernels/softmax.c.
void eval_softmax(EvalContext& ctx, bool log) {
  const SoftmaxDims d = softmax_dims(ctx.attrs(), ctx.in(0).shape());
  const float* x = ctx.in(0).data<float>();
  float* y = ctx.outputs[0].data<float>();
  for (int64_t o = 0; o < d.outer; ++o)
    for (int64_t i = 0; i < d.inner; ++i) {
      const int64_t base = o * d.n * d.inner + i;
      float mx = -INFINITY;
      for (int64_t k = 0; k < d.n; ++k) mx = std::fmax(mx, x[base + k * d.inner]);
      // 16 partial sums (mlip__fold16_f): lane k mod 16 for the whole
      // blocks of 16 from the row's start, the tail's n mod 16 terms the
      // top lanes (as the row's last 16 would hold them), then folded.
      float ps[16] = {};
      const int64_t whole = d.n - d.n % 16;
      for (int64_t k = 0; k < d.n; ++k) {
        const float e = mlip__exp_nonpos_fma_f(x[base + k * d.inner] - mx);
        if (!log) y[base + k * d.inner] = e;
        ps[k < whole ? k % 16 : k - d.n + 16] += e;
      }
      const float sum = mlip__fold16_f(ps);
      if (log) {
        const float ls = mlip_logf(sum);
        for (int64_t k = 0; k < d.n; ++k) y[base + k * d.inner] = x[base + k * d.inner] - mx - ls;
      } else {
        const float rs = 1.0f / sum;  // one division a row, then products
        for (int64_t k = 0; k < d.n; ++k) y[base + k * d.inner] *= rs;
      }
    }
}

}  // namespace

void infer_Softmax(InferContext& ctx) { infer_softmax(ctx); }
void eval_Softmax(EvalContext& ctx) { eval_softmax(ctx, false); }
void infer_LogSoftmax(InferContext& ctx) { infer_softmax(ctx); }
void eval_LogSoftmax(EvalContext& ctx) { eval_softmax(ctx, true); }

}  // namespace mlipc::ops
