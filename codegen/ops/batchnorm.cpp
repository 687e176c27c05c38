// BatchNormalization, inference form: y = (x - mean) / sqrt(var + epsilon) *
// scale + B per channel (axis 1), with a fused activation. float32 only.
// Training mode (and its running-statistics outputs) is refused.
#include "ops/batchnorm.h"

#include <cmath>

#include "ops/activation.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

BatchNormFactors batchnorm_factors(const float* gamma, const float* beta, const float* mean, const float* var,
                                   int64_t channels, float epsilon) {
  BatchNormFactors f;
  for (int64_t c = 0; c < channels; ++c) {
    const float s = gamma[c] / std::sqrt(var[c] + epsilon);
    f.scale.push_back(s);
    f.shift.push_back(beta[c] - mean[c] * s);
  }
  return f;
}

void infer_BatchNormalization(InferContext& ctx) {
  if (ctx.attrs().get_int("training_mode", 0) != 0)
    fail("training mode is not supported (training_mode = 1); mlipc compiles inference only (training_mode = 0)");
  for (int i = 1; i < ctx.num_outputs(); ++i)
    if (ctx.node().outputs[static_cast<size_t>(i)] != kNoValue)
      fail("output #{} (running or saved statistics) exists only in training mode, which is not supported; "
           "inference has the single output Y",
           i);
  ctx.expect_inputs(5, 5);
  for (int i = 0; i < 5; ++i) ctx.expect_dtype(i, {DType::Float32});
  const Shape& x = ctx.in_shape(0);
  if (x.size() < 2) fail("input X has shape {}; it needs rank 2 or more, with channels on axis 1", shape_str(x));
  static const char* const kNames[] = {"X", "scale", "B", "input_mean", "input_var"};
  for (int i = 1; i < 5; ++i)
    if (ctx.in_shape(i) != Shape{x[1]})
      fail("input {} has shape {}; it must be [{}] (one value per channel of X {})", kNames[i],
           shape_str(ctx.in_shape(i)), x[1], shape_str(x));
  ctx.set_output(0, DType::Float32, x);
}

// Same arithmetic as templates/kernels/batchnorm.c.
void eval_BatchNormalization(EvalContext& ctx) {
  const TensorData& xt = ctx.in(0);
  const int64_t n = xt.shape()[0], c = xt.shape()[1];
  const int64_t size = n * c == 0 ? 0 : xt.numel() / (n * c);
  const BatchNormFactors f =
      batchnorm_factors(ctx.in(1).data<float>(), ctx.in(2).data<float>(), ctx.in(3).data<float>(),
                        ctx.in(4).data<float>(), c, ctx.attrs().get_float("epsilon", 1e-5f));
  const Activation act = activation_of(ctx.attrs());
  const float* x = xt.data<float>();
  float* y = ctx.outputs[0].data<float>();
  for (int64_t p = 0; p < n * c; ++p) {
    const float s = f.scale[static_cast<size_t>(p % c)], t = f.shift[static_cast<size_t>(p % c)];
    for (int64_t i = 0; i < size; ++i) y[p * size + i] = act.apply(x[p * size + i] * s + t);
  }
}

}  // namespace mlipc::ops
