// Activations, each a function of one element: Relu, LeakyRelu, Sigmoid,
// Tanh, Softplus, Softsign, Elu, Selu, Celu, HardSigmoid, HardSwish,
// ThresholdedRelu, Shrink. float32 (the type models use; the transcendental
// ones go through mlip/kmath.h, Sigmoid and Tanh through kmath_f.h's float
// functions, as the C kernels), Relu also float16/float64 and the signed
// integers. The shape rules write every attribute's default into the node,
// so that the C kernels (c/kernels/unary.cpp) read the same values.
#include "mlip/kmath_f.h"
#include "ops/elem.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

void infer_float32(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  expect_elem_dtype(ctx, 0, {DType::Float32});
  ctx.set_output(0, DType::Float32, ctx.in_shape(0));
}

// Writes the attribute's default into the node when it is absent.
void default_float(InferContext& ctx, const std::string& name, float def) {
  ctx.attrs().set(name, ctx.attrs().get_float(name, def));
}

template <class F>
void map_float32(EvalContext& ctx, F f) {
  map_unary<float, float>(ctx.in(0), ctx.outputs[0], f);
}

float attr(const EvalContext& ctx, const char* name) { return ctx.attrs().get_float(name); }

}  // namespace

void infer_Relu(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  expect_elem_dtype(ctx, 0, join({float_types(), signed_types()}));
  ctx.set_output(0, ctx.in_dtype(0), ctx.in_shape(0));
}
void eval_Relu(EvalContext& ctx) {
  visit_elem(ctx.in(0).dtype(), "Relu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    // max(0, v) with a NaN kept (Activation::relu); -0 becomes +0.
    map_unary<T, T>(ctx.in(0), ctx.outputs[0], [](C v) { return v <= C(0) ? C(0) : v; });
  });
}

void infer_LeakyRelu(InferContext& ctx) {
  infer_float32(ctx);
  default_float(ctx, "alpha", 0.01f);
}
void eval_LeakyRelu(EvalContext& ctx) {
  const float alpha = attr(ctx, "alpha");
  map_float32(ctx, [alpha](float v) { return v < 0.0f ? v * alpha : v; });
}

void infer_Sigmoid(InferContext& ctx) { infer_float32(ctx); }
void eval_Sigmoid(EvalContext& ctx) {
  map_float32(ctx, [](float v) { return mlip_sigmoid_f(v); });
}

void infer_Tanh(InferContext& ctx) { infer_float32(ctx); }
void eval_Tanh(EvalContext& ctx) {
  map_float32(ctx, [](float v) { return mlip_tanh_f(v); });
}

// log(1 + exp(x)) in the form that neither overflows for large x nor loses
// the small values of large negative x.
void infer_Softplus(InferContext& ctx) { infer_float32(ctx); }
void eval_Softplus(EvalContext& ctx) {
  map_float32(ctx, [](float v) { return v > 0.0f ? v + mlip_log1pf(mlip_expf(-v)) : mlip_log1pf(mlip_expf(v)); });
}

void infer_Softsign(InferContext& ctx) { infer_float32(ctx); }
void eval_Softsign(EvalContext& ctx) {
  map_float32(ctx, [](float v) { return v / (1.0f + std::fabs(v)); });
}

void infer_Elu(InferContext& ctx) {
  infer_float32(ctx);
  default_float(ctx, "alpha", 1.0f);
}
void eval_Elu(EvalContext& ctx) {
  const float alpha = attr(ctx, "alpha");
  map_float32(ctx, [alpha](float v) { return v < 0.0f ? alpha * mlip_expm1f(v) : v; });
}

void infer_Selu(InferContext& ctx) {
  infer_float32(ctx);
  default_float(ctx, "alpha", 1.67326319217681884765625f);
  default_float(ctx, "gamma", 1.05070102214813232421875f);
}
void eval_Selu(EvalContext& ctx) {
  const float alpha = attr(ctx, "alpha"), gamma = attr(ctx, "gamma");
  map_float32(ctx, [=](float v) { return v > 0.0f ? gamma * v : gamma * (alpha * mlip_expm1f(v)); });
}

// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)): the first term for
// x > 0, the second otherwise (it is 0 for x = 0).
void infer_Celu(InferContext& ctx) {
  infer_float32(ctx);
  default_float(ctx, "alpha", 1.0f);
  if (ctx.attrs().get_float("alpha") == 0.0f) fail("alpha must not be 0 (Celu divides by it)");
}
void eval_Celu(EvalContext& ctx) {
  const float alpha = attr(ctx, "alpha");
  map_float32(ctx, [alpha](float v) { return v > 0.0f ? v : alpha * mlip_expm1f(v / alpha); });
}

// max(0, min(1, alpha * x + beta)); NaN stays NaN.
void infer_HardSigmoid(InferContext& ctx) {
  infer_float32(ctx);
  default_float(ctx, "alpha", 0.2f);
  default_float(ctx, "beta", 0.5f);
}
void eval_HardSigmoid(EvalContext& ctx) {
  const float alpha = attr(ctx, "alpha"), beta = attr(ctx, "beta");
  map_float32(ctx, [=](float v) {
    const float t = alpha * v + beta;
    return t > 1.0f ? 1.0f : (t < 0.0f ? 0.0f : t);
  });
}

// x * HardSigmoid(x) with alpha = 1/6, beta = 0.5 (the spec's constants).
void infer_HardSwish(InferContext& ctx) { infer_float32(ctx); }
void eval_HardSwish(EvalContext& ctx) {
  map_float32(ctx, [](float v) {
    const float t = (1.0f / 6.0f) * v + 0.5f;
    return v * (t > 1.0f ? 1.0f : (t < 0.0f ? 0.0f : t));
  });
}

void infer_ThresholdedRelu(InferContext& ctx) {
  infer_float32(ctx);
  default_float(ctx, "alpha", 1.0f);
}
void eval_ThresholdedRelu(EvalContext& ctx) {
  const float alpha = attr(ctx, "alpha");
  map_float32(ctx, [alpha](float v) { return v > alpha ? v : 0.0f; });
}

void infer_Shrink(InferContext& ctx) {
  infer_float32(ctx);
  default_float(ctx, "bias", 0.0f);
  default_float(ctx, "lambd", 0.5f);
}
void eval_Shrink(EvalContext& ctx) {
  const float bias = attr(ctx, "bias"), lambd = attr(ctx, "lambd");
  map_float32(ctx, [=](float v) { return v < -lambd ? v + bias : (v > lambd ? v - bias : 0.0f); });
}

}  // namespace mlipc::ops
