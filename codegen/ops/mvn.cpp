// MeanVarianceNormalization: `axes` (default [0, 2, 3]) as ONNX's function
// defines it, in float32:
//   mean = sum(x) / n,  ex2 = sum(x * x) / n       (one pass, index order)
//   var  = ex2 - mean * mean, clamped at 0 (rounding can make it slightly
//          negative for a constant slice, where sqrt would give NaN)
//   y    = (x - mean) / (sqrt(var) + 1e-9)
// Sums run over the reduced axes in row-major order (ops/reduce.h loops);
// templates/kernels/mvn.c computes the same expressions in the same order.
#include "ops/mvn.h"

#include <cmath>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

ReduceLoops mvn_loops(const Attrs& attrs, const Shape& x) {
  const std::vector<int64_t> axes = attrs.get_ints("axes", {0, 2, 3});
  if (axes.empty()) fail("axes is empty; MeanVarianceNormalization needs at least one axis");
  return reduce_loops(x, axes, true, false);
}

void infer_MeanVarianceNormalization(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  ctx.expect_dtype(0, {DType::Float32});
  mvn_loops(ctx.attrs(), ctx.in_shape(0));  // checks the axes
  ctx.set_output(0, DType::Float32, ctx.in_shape(0));
}

void eval_MeanVarianceNormalization(EvalContext& ctx) {
  const ReduceLoops l = mvn_loops(ctx.attrs(), ctx.in(0).shape());
  const float* x = ctx.in(0).data<float>();
  float* y = ctx.outputs[0].data<float>();
  const float n = static_cast<float>(l.count);
  walk_loops(l.kept_dims, l.kept_strides, [&](int64_t base) {
    float sum = 0.0f, sumsq = 0.0f;
    walk_loops(l.reduced_dims, l.reduced_strides, [&](int64_t off) {
      const float v = x[base + off];
      const float v2 = v * v;
      sum += v;
      sumsq += v2;
    });
    const float mean = sum / n;
    const float m2 = mean * mean;
    const float var = sumsq / n - m2;
    const float den = std::sqrt(var > 0.0f ? var : 0.0f) + kMvnEpsilon;
    walk_loops(l.reduced_dims, l.reduced_strides,
               [&](int64_t off) { y[base + off] = (x[base + off] - mean) / den; });
  });
}

}  // namespace mlipc::ops
