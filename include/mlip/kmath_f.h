/* Elementary functions in float precision, for the kernels where kmath.h's
 * double-precision, nearly correctly rounded functions are the cost (the
 * exponentials of Softmax, the erf of a fused GELU, the sigmoid and tanh of
 * the CPU's float activations and recurrent gates): a fixed sequence of
 * IEEE float operations (+, -, *, / and comparisons; no contraction:
 * mlip/strict_fp.h, and optimize("fp-contract=off") in C++ as kmath.h), so
 * the same bits on every IEEE target, without a table and without a branch
 * on the data (every select a blend of bits, mlip__f_sel: the array forms
 * below vectorize with GCC at 32-bit lanes on SSE, AVX2, AVX-512 and
 * NEON), but not
 * correctly rounded. The bits assume the default environment: rounding to
 * nearest, subnormals not flushed.
 *
 * Error bounds, measured by tests/unit/c/kmath_f_test.cpp over every 127th
 * float (and every float near the edges) against the double-precision
 * functions of the C library:
 * - mlip_exp_f: at most 2 ulp (measured 1.19) where the result is a normal float; 0 for
 *   x < -87 (the exact value is below 1.65e-38: an absolute error that small),
 *   +inf above 88.72283 (the first float whose exponential overflows), NaN
 *   for NaN.
 * - mlip_erf_f: at most 7 ulp (measured 5.56, near 2.5: the float
 *   rounding of the rational x P(x^2) / Q(x^2), whose fit on |x| < 4 has a
 *   relative error of 6.5e-8; then +-1); odd, NaN for NaN.
 * - mlip_gelu_f: GELU's exact form 0.5 x (1 + erf(x / sqrt 2)) computed as
 *   ONNX's decomposition orders it (Div, Erf, Add, Mul, Mul) with
 *   mlip_erf_f for the Erf: against that decomposition with kmath.h's
 *   mlip_erff (what the unfused operators give) it differs by at most
 *   5 * 2^-24 |x| + 1 ulp of the result (the two erfs differ by at most
 *   8 * 2^-24, 1 + erf's rounding may differ by 2^-23 more, scaled by
 *   x / 2; the product's own rounding); so does it against the other form
 *   passes/fuse_gelu.cpp matches, Mul(x, 1/sqrt 2) and (x * 0.5) * (1 + e).
 * - mlip_sigmoid_f: at most 3 ulp (measured 2.25, near -3.5: mlip_exp_f's
 *   error and two roundings) where x >= -87; 0 for x < -87 (the exact
 *   value is below 1.65e-38), 1 from 17.33 on, NaN for NaN.
 * - mlip_silu_f: at most 4 ulp (measured 3.06) where x >= -87 and the
 *   result is a normal float; -0 for x < -87 (the exact value is above
 *   -1.5e-36) and at -inf, +inf at +inf, NaN for NaN.
 * - mlip_tanh_f: at most 2 ulp (measured 1.31, near 0.64: the exp form's
 *   three roundings just above the switch at 0.625); x itself for a
 *   subnormal or zero x; +-1 from 9.01 on; odd, NaN for NaN.
 * - mlip_gelu_tanh_f: ONNX Gelu's tanh form in its fixed order with
 *   mlip_tanh_f: against the same order with kmath.h's mlip_tanhf (what it
 *   was) it differs by at most 3 * 2^-24 |x| + 1 ulp of the result (the
 *   tanhs by 2.5 ulp, 1 + t's roundings by 2^-23 more, scaled by x / 2;
 *   the product's rounding); measured 0.50 of that.
 * Against kmath.h's functions (within 1 ulp; what the reference evaluator,
 * codegen/ops, computes Sigmoid, Tanh, the SiLU and the recurrent gates
 * with), sigmoid and tanh are then within 4 and 3 ulp, the SiLU within 5.5.
 * The erf and tanh coefficients: scripts/kmath_f_coeffs.py (weighted
 * least-squares fits by Lawson's iteration: erf(x)/x = P(t)/Q(t),
 * t = x^2, on [0, 4]; (tanh(x)/x - 1)/t = P(t) on [0, 0.625]; rounded to
 * float). */
#ifndef MLIP_KMATH_F_H_
#define MLIP_KMATH_F_H_

#include "mlip/kmath.h" /* mlip/strict_fp.h, MLIP__STRICT, the bit helpers */

#include <stdint.h>
#include <string.h>

#if defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__) && defined(__FP_FAST_FMA)
#define MLIP__F_GCC_NO_CONTRACT 1
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

/* c ? a : b as a blend of bits: a float select whose operands are computed
 * values is control flow to GCC's vectorizer under -ftrapping-math (the
 * default: it may not evaluate an unselected arithmetic operand), and loops
 * with it stay scalar on AVX2 and NEON; integer masks are not. (The mask
 * as c ? ~0 : 0: GCC 12's SVE expansion of 0 - c stops with an internal
 * compiler error, -mcpu=neoverse-n2.) */
static inline float mlip__f_sel(int c, float a, float b) {
  const uint32_t m = c ? 0xffffffffu : 0u;
  return mlip__ffrom((mlip__fbits(a) & m) | (mlip__fbits(b) & ~m));
}

/* NaN in, the same NaN out, quieted (kmath.h's rule), as a select. */
static inline float mlip__nan_or(float x, float y) {
  return mlip__f_sel(x != x, mlip__qnan(mlip__fbits(x)), y);
}

/* e^r for |r| <= 0.35 by its Taylor polynomial of degree 7, in Horner's
 * order (mlip_exp_f and mlip__exp_nonpos_f; conv_tiled.c's tile form
 * repeats it on vectors). */
static inline float mlip__exp_poly_f(float r) {
  MLIP__STRICT
  float p = 1.98412698e-4f;
  p = p * r + 1.38888889e-3f;
  p = p * r + 8.33333377e-3f;
  p = p * r + 4.16666679e-2f;
  p = p * r + 0.166666672f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return p;
}

/* e^x: k = the nearest integer to x / ln 2 (adding and subtracting
 * 1.5 * 2^23), r = x - k ln 2 in two steps (LN2_HI has 9 significant bits:
 * k * LN2_HI is exact for |k| <= 128, and so is x - k * LN2_HI), e^r by its
 * Taylor polynomial of degree 7 (|r| <= 0.35: truncation 5e-9 relative),
 * times 2^k as two powers of two of the normal range (each product exact
 * but for an overflow at the top). x is clamped to [-87, 88.7228394] first
 * (NaN to -87: no float-to-int conversion of a NaN), and the clamped
 * lanes take their answers at the end. */
static inline float mlip_exp_f(float x) {
  MLIP__STRICT
  const float xl = mlip__f_sel(x > -87.0f, x, -87.0f), xc = mlip__f_sel(xl < 88.7228394f, xl, 88.7228394f);
  const float k = (xc * 1.44269502f + 12582912.0f) - 12582912.0f;
  const float r = (xc - k * 0.693359375f) - k * -2.12194440e-4f;
  const int32_t ki = (int32_t)k, k1 = ki / 2;
  const uint32_t b1 = (uint32_t)(k1 + 127) << 23, b2 = (uint32_t)(ki - k1 + 127) << 23;
  const float p = mlip__exp_poly_f(r);
  float s1, s2, y;
  memcpy(&s1, &b1, sizeof s1);
  memcpy(&s2, &b2, sizeof s2);
  y = (p * s1) * s2;
  y = mlip__f_sel(x > 88.7228394f, INFINITY, y);
  y = mlip__f_sel(x < -87.0f, 0.0f, y);
  return mlip__nan_or(x, y);
}

/* erf(x) = x P(x^2) / Q(x^2) on |x| <= 4 (x clamped there: erf(4) rounds
 * to 1), the quotient clamped to [-1, 1]. */
static inline float mlip_erf_f(float x) {
  MLIP__STRICT
  const float xh = mlip__f_sel(x > 4.0f, 4.0f, x), xc = mlip__f_sel(xh < -4.0f, -4.0f, xh);
  const float t = xc * xc;
  float p = 1.91122159e-8f, q = 1.02099159e-3f, y;
  p = p * t + -1.94233200e-6f;
  p = p * t + 1.47276139e-4f;
  p = p * t + 3.99003737e-3f;
  p = p * t + 0.05152311f;
  p = p * t + 0.207112029f;
  p = p * t + 1.12837911f;
  q = q * t + 1.49569474e-2f;
  q = q * t + 0.117965266f;
  q = q * t + 0.516879499f;
  q = q * t + 1.0f;
  y = (xc * p) / q;
  y = mlip__f_sel(y > 1.0f, 1.0f, y);
  y = mlip__f_sel(y < -1.0f, -1.0f, y);
  return mlip__nan_or(x, y);
}

/* GELU, 0.5 x (1 + erf(x / sqrt 2)), in the order of ONNX's decomposition
 * as torch writes it: Div(x, sqrt 2), Erf, Add 1, Mul by x, Mul by 0.5.
 * At -inf, -0 (the limit; the decomposition's -inf * 0 is a NaN whose sign
 * differs between x86 and Arm). */
static inline float mlip_gelu_f(float x) {
  MLIP__STRICT
  const float e = mlip_erf_f(x / 1.41421354f);
  const float y = (x * (e + 1.0f)) * 0.5f;
  return mlip__f_sel(x < -3.40282347e38f, -0.0f, y);
}

/* e^a for a <= 0 (and NaN, whose answer is unused): mlip_exp_f's bits
 * without the steps a nonpositive argument never needs (the clamp at 88.7,
 * the overflow, the NaN select) and with 2^k as one power: k is in
 * [-126, 0] here (a >= -87), so 2^k is a normal float, and p 2^k rounds
 * once, as (p 2^k1) 2^(k-k1) does (p is in [0.7, 1.5], p 2^k1 is exact).
 * tests/unit/c/kmath_f_test.cpp checks the bits against mlip_exp_f. */
static inline float mlip__exp_nonpos_f(float a) {
  MLIP__STRICT
  const float xc = mlip__f_sel(a > -87.0f, a, -87.0f);
  const float k = (xc * 1.44269502f + 12582912.0f) - 12582912.0f;
  const float r = (xc - k * 0.693359375f) - k * -2.12194440e-4f;
  const uint32_t b = (uint32_t)((int32_t)k + 127) << 23;
  const float p = mlip__exp_poly_f(r);
  float s;
  memcpy(&s, &b, sizeof s);
  return mlip__f_sel(a < -87.0f, 0.0f, p * s);
}

/* The logistic sigmoid 1 / (1 + e^-x): e = mlip_exp_f(-|x|) (never above
 * 1: no overflow; mlip__exp_nonpos_f), then e / (1 + e) for x < 0 and
 * 1 / (1 + e) for x >= 0, one division for both. Saturates by rounding
 * (1 + e rounds to 1 from x = 17.33 on; +inf gives 1); below -87
 * mlip_exp_f's 0 gives 0; -inf 0; NaN stays NaN. */
static inline float mlip_sigmoid_f(float x) {
  MLIP__STRICT
  const float e = mlip__exp_nonpos_f(mlip__ffrom(mlip__fbits(x) | 0x80000000u));
  const float y = mlip__f_sel(x < 0.0f, e, 1.0f) / (1.0f + e);
  return mlip__nan_or(x, y);
}

/* SiLU (swish), x sigmoid(x), the product rounded once; at -inf -0 (the
 * limit; -inf * 0 is a NaN whose sign differs between x86 and Arm). */
static inline float mlip_silu_f(float x) {
  MLIP__STRICT
  const float y = x * mlip_sigmoid_f(x);
  return mlip__f_sel(x < -3.40282347e38f, -0.0f, y);
}

/* tanh, on a = |x| then x's sign: below 0.625 the odd polynomial
 * a + a t P(t), t = a^2 (P of degree 4: scripts/kmath_f_coeffs.py, fit
 * relative error 4.4e-9; a subnormal a gives a, t being 0), from 0.625 on
 * 1 - 2 / (e + 1) with e = mlip_exp_f(2a) (1 - tanh <= 0.45 there: the
 * subtraction loses less than a bit; e = +inf from a = 44.4 gives 1; 1 from
 * a = 9.01 by rounding). Both are computed, a select picks one. NaN stays
 * NaN. */
static inline float mlip_tanh_f(float x) {
  MLIP__STRICT
  const uint32_t u = mlip__fbits(x);
  const float a = mlip__ffrom(u & 0x7fffffffu), t = a * a;
  float p = -0.005705247f, y;
  p = p * t + 0.020639315f;
  p = p * t + -0.053739782f;
  p = p * t + 0.13331443f;
  p = p * t + -0.3333328f;
  y = mlip__f_sel(a < 0.625f, a + (a * t) * p, 1.0f - 2.0f / (mlip_exp_f(a + a) + 1.0f));
  return mlip__nan_or(x, mlip__ffrom(mlip__fbits(y) | (u & 0x80000000u)));
}

/* GELU's tanh form, 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), in
 * this fixed order, with mlip_tanh_f (ONNX Gelu, approximate "tanh"). At
 * -inf, -0 (as mlip_gelu_f). */
static inline float mlip_gelu_tanh_f(float x) {
  MLIP__STRICT
  const float u = (x + 0.044715f * ((x * x) * x)) * 0.797884583f;
  const float y = (x * (mlip_tanh_f(u) + 1.0f)) * 0.5f;
  return mlip__f_sel(x < -3.40282347e38f, -0.0f, y);
}

/* The array forms, in place: loops without a branch on the data, which the
 * compiler vectorizes; each element gets the scalar function's bits. */
#define MLIP__F_ARRAY_FORM_(name, fn)                        \
  static inline void name(float* p, int32_t n) {             \
    int32_t i;                                               \
    for (i = 0; i < n; ++i) p[i] = fn(p[i]);                 \
  }
MLIP__F_ARRAY_FORM_(mlip_exp_f_n, mlip_exp_f)
MLIP__F_ARRAY_FORM_(mlip_gelu_f_n, mlip_gelu_f)
MLIP__F_ARRAY_FORM_(mlip_sigmoid_f_n, mlip_sigmoid_f)
MLIP__F_ARRAY_FORM_(mlip_silu_f_n, mlip_silu_f)
MLIP__F_ARRAY_FORM_(mlip_tanh_f_n, mlip_tanh_f)
MLIP__F_ARRAY_FORM_(mlip_gelu_tanh_f_n, mlip_gelu_tanh_f)
#undef MLIP__F_ARRAY_FORM_

/* The map forms, y[i] = fn(x[i]): one pass where a copy and the array form
 * in place would take two (y may be x; no other overlap); each element gets
 * the scalar function's bits. */
#define MLIP__F_MAP_FORM_(name, fn)                                     \
  static inline void name(const float* x, float* y, int32_t n) {        \
    int32_t i;                                                          \
    for (i = 0; i < n; ++i) y[i] = fn(x[i]);                            \
  }
MLIP__F_MAP_FORM_(mlip_exp_f_map, mlip_exp_f)
MLIP__F_MAP_FORM_(mlip_gelu_f_map, mlip_gelu_f)
MLIP__F_MAP_FORM_(mlip_gelu_tanh_f_map, mlip_gelu_tanh_f)
MLIP__F_MAP_FORM_(mlip_sigmoid_f_map, mlip_sigmoid_f)
MLIP__F_MAP_FORM_(mlip_tanh_f_map, mlip_tanh_f)
#undef MLIP__F_MAP_FORM_

#if defined(MLIP__F_GCC_NO_CONTRACT)
#pragma GCC pop_options
#undef MLIP__F_GCC_NO_CONTRACT
#endif

#endif /* MLIP_KMATH_F_H_ */
