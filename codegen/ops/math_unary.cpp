// Elementwise math of one input: Exp, Log, Sqrt, Erf, Abs, Neg, Reciprocal,
// Floor, Ceil, Round, Sign, the trigonometric and hyperbolic functions and
// their inverses, IsNaN, IsInf. Functions that IEEE arithmetic does not give
// exactly (exp, log, erf, sin, ...) run on float32 through mlip/kmath.h, as
// in the C kernels (c/kernels/math_unary.cpp); the exact ones run on every
// type the ONNX spec allows. Integer Abs and Neg wrap (abs(INT_MIN) is
// INT_MIN), as numpy's do.
#include <cmath>

#include "ops/elem.h"
#include "ops/elementwise.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

void infer_map(InferContext& ctx, const std::vector<DType>& allowed, DType out = DType::Undefined) {
  ctx.expect_inputs(1, 1);
  expect_elem_dtype(ctx, 0, allowed);
  ctx.set_output(0, out == DType::Undefined ? ctx.in_dtype(0) : out, ctx.in_shape(0));
}

// A float32 function of float32 (the inexact functions).
void infer_float32(InferContext& ctx) { infer_map(ctx, {DType::Float32}); }
template <class F>
void eval_float32(EvalContext& ctx, F f) {
  map_unary<float, float>(ctx.in(0), ctx.outputs[0], f);
}

// y = f(x) in x's own element type; f is generic over the compute type.
template <class F>
void eval_same(EvalContext& ctx, F f) {
  visit_elem(ctx.in(0).dtype(), ctx.node.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map_unary<T, T>(ctx.in(0), ctx.outputs[0], [&](compute_t<T> v) { return f(v); });
  });
}

// y = f(x) as bool, for floating-point x.
template <class F>
void eval_predicate(EvalContext& ctx, F f) {
  visit_elem(ctx.in(0).dtype(), ctx.node.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_tag<T>) map_unary<T, Bool8>(ctx.in(0), ctx.outputs[0], [&](compute_t<T> v) { return f(v) ? 1 : 0; });
  });
}

}  // namespace

#define MLIPC_FLOAT32_FN(Op, fn)                                    \
  void infer_##Op(InferContext& ctx) { infer_float32(ctx); }        \
  void eval_##Op(EvalContext& ctx) {                                \
    eval_float32(ctx, [](float v) { return fn(v); });                \
  }
MLIPC_FLOAT32_FN(Exp, mlip_expf)
MLIPC_FLOAT32_FN(Log, mlip_logf)
MLIPC_FLOAT32_FN(Erf, mlip_erff)
MLIPC_FLOAT32_FN(Sin, mlip_sinf)
MLIPC_FLOAT32_FN(Cos, mlip_cosf)
MLIPC_FLOAT32_FN(Tan, mlip_tanf)
MLIPC_FLOAT32_FN(Asin, mlip_asinf)
MLIPC_FLOAT32_FN(Acos, mlip_acosf)
MLIPC_FLOAT32_FN(Atan, mlip_atanf)
MLIPC_FLOAT32_FN(Sinh, mlip_sinhf)
MLIPC_FLOAT32_FN(Cosh, mlip_coshf)
MLIPC_FLOAT32_FN(Asinh, mlip_asinhf)
MLIPC_FLOAT32_FN(Acosh, mlip_acoshf)
MLIPC_FLOAT32_FN(Atanh, mlip_atanhf)
#undef MLIPC_FLOAT32_FN

// Correctly rounded or exact in every floating-point type.
void infer_Sqrt(InferContext& ctx) { infer_map(ctx, float_types()); }
void eval_Sqrt(EvalContext& ctx) {
  eval_same(ctx, [](auto v) { return std::sqrt(v); });
}

void infer_Reciprocal(InferContext& ctx) { infer_map(ctx, float_types()); }
void eval_Reciprocal(EvalContext& ctx) {
  eval_same(ctx, [](auto v) { return decltype(v)(1) / v; });
}

void infer_Floor(InferContext& ctx) { infer_map(ctx, float_types()); }
void eval_Floor(EvalContext& ctx) {
  eval_same(ctx, [](auto v) { return std::floor(v); });
}

void infer_Ceil(InferContext& ctx) { infer_map(ctx, float_types()); }
void eval_Ceil(EvalContext& ctx) {
  eval_same(ctx, [](auto v) { return std::ceil(v); });
}

// Halves round to even (rint in the default rounding mode), as ONNX says.
void infer_Round(InferContext& ctx) { infer_map(ctx, float_types()); }
void eval_Round(EvalContext& ctx) {
  eval_same(ctx, [](auto v) { return std::rint(v); });
}

void infer_Abs(InferContext& ctx) { infer_map(ctx, numeric_types()); }
void eval_Abs(EvalContext& ctx) {
  eval_same(ctx, [](auto v) {
    using C = decltype(v);
    if constexpr (std::is_floating_point_v<C>) return std::fabs(v);
    else if constexpr (std::is_signed_v<C>) return v < C(0) ? neg_wrap(v) : v;
    else return v;
  });
}

void infer_Neg(InferContext& ctx) { infer_map(ctx, join({float_types(), signed_types()})); }
void eval_Neg(EvalContext& ctx) {
  eval_same(ctx, [](auto v) {
    using C = decltype(v);
    if constexpr (std::is_floating_point_v<C>) return -v;
    else return neg_wrap(v);
  });
}

// -1, 0 or 1; a floating-point zero keeps its sign and NaN stays NaN.
void infer_Sign(InferContext& ctx) { infer_map(ctx, numeric_types()); }
void eval_Sign(EvalContext& ctx) {
  eval_same(ctx, [](auto v) {
    using C = decltype(v);
    if constexpr (std::is_floating_point_v<C>) return v > C(0) ? C(1) : (v < C(0) ? C(-1) : v);
    else if constexpr (std::is_signed_v<C>) return static_cast<C>((v > C(0)) - (v < C(0)));
    else return static_cast<C>(v != C(0));
  });
}

void infer_IsNaN(InferContext& ctx) { infer_map(ctx, float_types(), DType::Bool); }
void eval_IsNaN(EvalContext& ctx) {
  eval_predicate(ctx, [](auto v) { return std::isnan(v); });
}

// detect_positive and detect_negative (default 1) choose which infinities count.
void infer_IsInf(InferContext& ctx) {
  infer_map(ctx, float_types(), DType::Bool);
  for (const char* a : {"detect_positive", "detect_negative"}) ctx.attrs().set(a, ctx.attrs().get_int(a, 1) != 0 ? int64_t{1} : int64_t{0});
}
void eval_IsInf(EvalContext& ctx) {
  const bool pos = ctx.attrs().get_int("detect_positive") != 0, neg = ctx.attrs().get_int("detect_negative") != 0;
  eval_predicate(ctx, [=](auto v) { return std::isinf(v) && (v > 0 ? pos : neg); });
}

}  // namespace mlipc::ops
