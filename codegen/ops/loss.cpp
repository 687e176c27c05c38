// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss on float32 (opset
// 13; the losses of a classifier, shapes static): per position (n, d) with
// target t, loss = -x[n][t][d] * w[t] (w = 1 without weights), 0 and weight
// 0 where t is ignore_index; reduction none keeps [N, d1 ... dk], sum adds
// them, mean divides the sum by the sum of the weights used. SCE's x is
// LogSoftmax(scores) along axis 1 (ops/softmax.cpp's order), its optional
// second output. A target outside [0, C) that is not ignore_index is an
// error. Same order as templates/kernels/loss.c.
#include "ops/loss.h"

#include <cmath>

#include "mlip/kmath.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

LossDims loss_dims(const Attrs& attrs, const Shape& input, const Shape& target, const Shape* weight) {
  LossDims d;
  const std::string r = attrs.get_string("reduction", "mean");
  if (r == "none") d.reduction = LossReduction::None;
  else if (r == "sum") d.reduction = LossReduction::Sum;
  else if (r == "mean") d.reduction = LossReduction::Mean;
  else fail("reduction '{}' (allowed: none, sum, mean)", r);
  d.has_ignore = attrs.has("ignore_index");
  d.ignore_index = attrs.get_int("ignore_index", 0);
  if (input.size() < 2) fail("the input must be [N, C] or [N, C, d1 ... dk], got {}", shape_str(input));
  Shape want = {input[0]};
  for (size_t k = 2; k < input.size(); ++k) want.push_back(input[k]);
  if (target != want) fail("the target must be {} for the input {}, got {}", shape_str(want), shape_str(input), shape_str(target));
  if (weight && *weight != Shape{input[1]})
    fail("the weight must be [{}] (one per class), got {}", input[1], shape_str(*weight));
  d.n = input[0];
  d.c = input[1];
  for (size_t k = 2; k < input.size(); ++k) d.d *= input[k];
  return d;
}

Shape loss_shape(const LossDims& d, const Shape& target) { return d.reduction == LossReduction::None ? target : Shape{}; }

namespace {

void infer_loss(InferContext& ctx, int max_outputs) {
  ctx.expect_inputs(2, 3);
  ctx.expect_dtype(0, {DType::Float32});
  ctx.expect_dtype(1, {DType::Int32, DType::Int64});
  if (ctx.has_input(2)) ctx.expect_dtype(2, {DType::Float32});
  if (ctx.num_outputs() > max_outputs) fail("expects at most {} outputs, got {}", max_outputs, ctx.num_outputs());
  const Shape* w = ctx.has_input(2) ? &ctx.in_shape(2) : nullptr;
  const LossDims d = loss_dims(ctx.attrs(), ctx.in_shape(0), ctx.in_shape(1), w);
  ctx.set_output(0, DType::Float32, loss_shape(d, ctx.in_shape(1)));
  if (ctx.num_outputs() > 1) ctx.set_output(1, DType::Float32, ctx.in_shape(0));
}

// x: log-probabilities [N, C, D] (the input, or SCE's LogSoftmax).
void eval_loss(EvalContext& ctx, const float* x) {
  const Shape* w_shape = ctx.has_input(2) ? &ctx.in(2).shape() : nullptr;
  const LossDims d = loss_dims(ctx.attrs(), ctx.in(0).shape(), ctx.in(1).shape(), w_shape);
  const std::vector<int64_t> t = ctx.in(1).as_int64();
  const float* w = w_shape ? ctx.in(2).data<float>() : nullptr;
  for (size_t k = 0; k < t.size(); ++k)
    if (!(d.has_ignore && t[k] == d.ignore_index) && (t[k] < 0 || t[k] >= d.c))
      fail("target {} (element {}) is not a class in [0, {}) nor ignore_index", t[k], k, d.c);
  float* y = ctx.outputs[0].data<float>();
  float sum = 0.0f, wsum = 0.0f;
  for (int64_t n = 0; n < d.n; ++n)
    for (int64_t i = 0; i < d.d; ++i) {
      const int64_t c = t[static_cast<size_t>(n * d.d + i)];
      const bool ignored = d.has_ignore && c == d.ignore_index;
      const float wc = ignored ? 0.0f : w ? w[c] : 1.0f;
      const float l = ignored ? 0.0f : -x[(n * d.c + c) * d.d + i] * wc;
      if (d.reduction == LossReduction::None) y[n * d.d + i] = l;
      sum += l;
      wsum += wc;
    }
  if (d.reduction == LossReduction::Sum) y[0] = sum;
  if (d.reduction == LossReduction::Mean) y[0] = sum / wsum;
}

}  // namespace

void infer_NegativeLogLikelihoodLoss(InferContext& ctx) { infer_loss(ctx, 1); }
void eval_NegativeLogLikelihoodLoss(EvalContext& ctx) { eval_loss(ctx, ctx.in(0).data<float>()); }

void infer_SoftmaxCrossEntropyLoss(InferContext& ctx) { infer_loss(ctx, 2); }
void eval_SoftmaxCrossEntropyLoss(EvalContext& ctx) {
  const TensorData& s = ctx.in(0);
  TensorData lp(DType::Float32, s.shape());
  const int64_t n = s.shape()[0], c = s.shape()[1], inner = s.numel() / std::max<int64_t>(1, n * c);
  const float* x = s.data<float>();
  float* y = lp.data<float>();
  for (int64_t o = 0; o < n; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * c * inner + i;
      float mx = -INFINITY;
      for (int64_t k = 0; k < c; ++k) mx = std::fmax(mx, x[base + k * inner]);
      float sum = 0.0f;
      for (int64_t k = 0; k < c; ++k) sum += mlip_expf(x[base + k * inner] - mx);
      const float ls = mlip_logf(sum);
      for (int64_t k = 0; k < c; ++k) y[base + k * inner] = x[base + k * inner] - mx - ls;
    }
  eval_loss(ctx, lp.data<float>());
  if (ctx.outputs.size() > 1) ctx.outputs[1] = std::move(lp);
}

}  // namespace mlipc::ops
