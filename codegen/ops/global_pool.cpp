// GlobalAveragePool, GlobalMaxPool: reduce every spatial axis of
// [N, C, D1, ..., Dn] to 1. float32 only.
#include <cmath>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

void infer_global(InferContext& ctx, const char* op) {
  ctx.expect_inputs(1, 1);
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  ctx.expect_dtype(0, {DType::Float32});
  const Shape& x = ctx.in_shape(0);
  if (x.size() < 3) fail("input X has shape {}; {} needs [N, C, D1, ...] with at least one spatial axis", shape_str(x), op);
  Shape out(x.size(), 1);
  out[0] = x[0];
  out[1] = x[1];
  ctx.set_output(0, DType::Float32, out);
}

// Calls f(plane input, plane size, output element) for each [n, c] plane.
template <class F>
void for_planes(EvalContext& ctx, F f) {
  const TensorData& xt = ctx.in(0);
  const int64_t planes = xt.shape()[0] * xt.shape()[1];
  const int64_t size = planes == 0 ? 0 : xt.numel() / planes;
  const float* x = xt.data<float>();
  float* y = ctx.outputs[0].data<float>();
  for (int64_t p = 0; p < planes; ++p) f(x + p * size, size, y[p]);
}

}  // namespace

void infer_GlobalAveragePool(InferContext& ctx) { infer_global(ctx, "GlobalAveragePool"); }

// Sums in order in float, then divides, as templates/kernels/global_pool.c.
void eval_GlobalAveragePool(EvalContext& ctx) {
  for_planes(ctx, [](const float* x, int64_t n, float& y) {
    float sum = 0.0f;
    for (int64_t i = 0; i < n; ++i) sum += x[i];
    y = sum / static_cast<float>(n);
  });
}

void infer_GlobalMaxPool(InferContext& ctx) { infer_global(ctx, "GlobalMaxPool"); }

void eval_GlobalMaxPool(EvalContext& ctx) {
  for_planes(ctx, [](const float* x, int64_t n, float& y) {
    float best = -INFINITY;
    for (int64_t i = 0; i < n; ++i)
      if (i == 0 || x[i] > best || std::isnan(x[i])) best = x[i];  // a NaN wins, as in MaxPool
    y = best;
  });
}

}  // namespace mlipc::ops
