/* Elementary functions in float precision, for the kernels where kmath.h's
 * double-precision, nearly correctly rounded functions are the cost (the
 * exponentials of Softmax, the erf of a fused GELU): a fixed sequence of
 * IEEE float operations (+, -, *, / and comparisons; no contraction:
 * mlip/strict_fp.h, and optimize("fp-contract=off") in C++ as kmath.h), so
 * the same bits on every IEEE target, without a table and without a branch
 * on the data (the array forms below vectorize at any width), but not
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
 * The erf coefficients: scripts/kmath_f_coeffs.py (a weighted least-squares
 * fit by Lawson's iteration of erf(x)/x = P(t)/Q(t), t = x^2, on [0, 4],
 * rounded to float). */
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

/* NaN in, the same NaN out, quieted (kmath.h's rule), as a select. */
static inline float mlip__nan_or(float x, float y) {
  return x != x ? mlip__qnan(mlip__fbits(x)) : y;
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
  const float xc = x > -87.0f ? (x < 88.7228394f ? x : 88.7228394f) : -87.0f;
  const float k = (xc * 1.44269502f + 12582912.0f) - 12582912.0f;
  const float r = (xc - k * 0.693359375f) - k * -2.12194440e-4f;
  const int32_t ki = (int32_t)k, k1 = ki / 2;
  const uint32_t b1 = (uint32_t)(k1 + 127) << 23, b2 = (uint32_t)(ki - k1 + 127) << 23;
  float p = 1.98412698e-4f, s1, s2, y;
  p = p * r + 1.38888889e-3f;
  p = p * r + 8.33333377e-3f;
  p = p * r + 4.16666679e-2f;
  p = p * r + 0.166666672f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  memcpy(&s1, &b1, sizeof s1);
  memcpy(&s2, &b2, sizeof s2);
  y = (p * s1) * s2;
  y = x > 88.7228394f ? INFINITY : y;
  y = x < -87.0f ? 0.0f : y;
  return mlip__nan_or(x, y);
}

/* erf(x) = x P(x^2) / Q(x^2) on |x| <= 4 (x clamped there: erf(4) rounds
 * to 1), the quotient clamped to [-1, 1]. */
static inline float mlip_erf_f(float x) {
  MLIP__STRICT
  const float xc = x > 4.0f ? 4.0f : x < -4.0f ? -4.0f : x;
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
  y = y > 1.0f ? 1.0f : y < -1.0f ? -1.0f : y;
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
  return x < -3.40282347e38f ? -0.0f : y;
}

/* GELU's tanh form, 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), in
 * this fixed order, with kmath.h's tanh (ONNX Gelu, approximate "tanh"). */
static inline float mlip_gelu_tanh_f(float x) {
  MLIP__STRICT
  const float u = (x + 0.044715f * ((x * x) * x)) * 0.797884583f;
  return (x * (mlip_tanhf(u) + 1.0f)) * 0.5f;
}

/* The array forms, in place: loops without a branch on the data, which the
 * compiler vectorizes; each element gets the scalar function's bits. */
static inline void mlip_exp_f_n(float* p, int32_t n) {
  int32_t i;
  for (i = 0; i < n; ++i) p[i] = mlip_exp_f(p[i]);
}

static inline void mlip_gelu_f_n(float* p, int32_t n) {
  int32_t i;
  for (i = 0; i < n; ++i) p[i] = mlip_gelu_f(p[i]);
}

#if defined(MLIP__F_GCC_NO_CONTRACT)
#pragma GCC pop_options
#undef MLIP__F_GCC_NO_CONTRACT
#endif

#endif /* MLIP_KMATH_F_H_ */
