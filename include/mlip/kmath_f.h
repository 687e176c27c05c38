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
 * - mlip__exp_nonpos_fma_f (Softmax's, x <= 0; fused multiply-adds, a
 *   degree-6 polynomial): within 1 + |x| / 20 ulp where the result is a
 *   normal float (measured 0.88 + 0.040 |x|), within 8.4e-39 absolute
 *   below, 0 from -87.69 down, NaN for NaN.
 * - mlip_erf_f: at most 7 ulp (measured 5.56, near 2.5: the float
 *   rounding of the rational x P(x^2) / Q(x^2), whose fit on |x| < 4 has a
 *   relative error of 6.5e-8; then +-1); odd, NaN for NaN.
 * - mlip_gelu_f: GELU's exact form 0.5 x (1 + erf(x / sqrt 2)) computed as
 *   ONNX's decomposition orders it (Erf, Add, Mul, Mul; its Div by sqrt 2
 *   as a Mul by 1/sqrt 2) with mlip_erf_f for the Erf: against that
 *   decomposition (with its Div) with kmath.h's
 *   mlip_erff (what the unfused operators give) it differs by at most
 *   5 * 2^-24 |x| + 1 ulp of the result (the two erfs differ by at most
 *   8 * 2^-24, 1 + erf's rounding may differ by 2^-23 more, scaled by
 *   x / 2; the product's own rounding; the Mul's argument and the Div's
 *   differ by an ulp at most, which moves erf by less than 2^-24, as
 *   z erf'(z) < 0.49); so does it against the other form
 *   passes/fuse_gelu.cpp matches, Mul(x, 1/sqrt 2) and (x * 0.5) * (1 + e)
 *   (measured 0.72 of that over every 7th float, against both forms).
 * - mlip_sigmoid_f: an absolute error of at most 4 * 2^-24 = 2.4e-7
 *   (measured 3.12 * 2^-24 over every 127th float, 3.55 over every float
 *   of [1e-6, 20] of either sign, near 8.07): 4 ulp for
 *   x >= 0, where the result is in [0.5, 1], but no relative bound below
 *   (0.5 + y cancels: sigmoid(-10) = 4.5e-5 carries the same absolute
 *   error; onnxruntime's MLAS logistic has the same shape); never outside
 *   [0, 1]; 0.5 at +-0, 0 from -17.5 down (the exact value is below
 *   2.6e-8), 1 from 17.5 up, NaN for NaN.
 * - mlip_silu_f: within 4 * 2^-24 |x| (the sigmoid's bound, times x) + 1
 *   ulp of the result (measured 0.68 of that); -0 from -17.5 down (the
 *   exact value is above -4.6e-7) and at -inf, +inf at +inf, NaN for NaN.
 * - mlip_tanh_f: at most 8 ulp (measured 5.78 over every 127th float, 6.31
 *   over every float of [1e-6, 20], near 7.0,
 *   where tanh is near 1: the roundings of the rational's two Horner
 *   chains, its product and quotient); x itself for a subnormal or zero x;
 *   +-1 from 9.010914 on; never past +-1; odd, NaN for NaN.
 * - mlip_gelu_tanh_f: ONNX Gelu's tanh form in its fixed order with
 *   mlip_tanh_f: against the same order with kmath.h's mlip_tanhf it
 *   differs by at most 5 * 2^-24 |x| + 1 ulp of the result (the tanhs by
 *   9 * 2^-24, 1 + t's roundings by 2^-23 more, scaled by x / 2; the
 *   product's rounding); measured 0.65 of that.
 * The coefficients: scripts/kmath_f_coeffs.py (weighted least-squares fits
 * by Lawson's iteration, rounded to float: erf(x)/x = P(t)/Q(t), t = x^2,
 * on [0, 4]; the odd rationals x P(t)/Q(t) of sigmoid(x) - 1/2 on
 * [0, 17.5], absolute error 7.1e-9, and of tanh(x) on [0, 9.02], relative
 * error 2.2e-8). */
#ifndef MLIP_KMATH_F_H_
#define MLIP_KMATH_F_H_

#include "mlip/kfma.h"  /* mlip_fmaf */
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

/* e^x: k = the nearest integer to x / ln 2 (adding and subtracting
 * 1.5 * 2^23: z's low bits then hold k), r = x - k ln 2 in two steps
 * (LN2_HI has 9 significant bits: k * LN2_HI is exact for |k| <= 128, and
 * so is x - k * LN2_HI), e^r by its Taylor polynomial of degree 7
 * (|r| <= 0.35: truncation 5e-9 relative), times 2^k by adding k to the
 * exponent field of its bits (z's bits shifted left by 23: k mod 2^9 in the
 * field, no float-to-int conversion): exact, as the product by 2^k is,
 * because the result is a normal float for every x of the clamped range
 * [-87, 88.7228317] (e^-87 > 2^-126; up to the last float whose
 * exponential is finite, where k = 128 comes with r < 0, so a p below 1).
 * x is clamped first (NaN to -87), and the clamped lanes take their answers
 * at the end: 0 below -87, +inf above 88.7228317 (the next float,
 * 88.7228394, is the first whose exponential overflows). mlip__exp_core_f
 * is the part between the clamps, on the clamped x. */
static inline float mlip__exp_core_f(float xc) {
  MLIP__STRICT
  const float z = xc * 1.44269502f + 12582912.0f;
  const float k = z - 12582912.0f;
  const float r = (xc - k * 0.693359375f) - k * -2.12194440e-4f;
  float p = 1.98412698e-4f;
  p = p * r + 1.38888889e-3f;
  p = p * r + 8.33333377e-3f;
  p = p * r + 4.16666679e-2f;
  p = p * r + 0.166666672f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return mlip__ffrom(mlip__fbits(p) + (mlip__fbits(z) << 23));
}
static inline float mlip_exp_f(float x) {
  MLIP__STRICT
  const float xl = mlip__f_sel(x > -87.0f, x, -87.0f), xc = mlip__f_sel(xl < 88.7228317f, xl, 88.7228317f);
  float y = mlip__exp_core_f(xc);
  y = mlip__f_sel(x > 88.7228317f, INFINITY, y);
  y = mlip__f_sel(x < -87.0f, 0.0f, y);
  return mlip__nan_or(x, y);
}

/* mlip_exp_f's bits for x <= 0 and NaN, without the steps only a positive
 * x needs (the upper clamp, the +inf): Softmax's e^(x - max), whose
 * argument is never positive. Nothing else may call it with x > 0. */
static inline float mlip__exp_nonpos_f(float x) {
  MLIP__STRICT
  const float xc = mlip__f_sel(x > -87.0f, x, -87.0f);
  const float y = mlip__exp_core_f(xc);
  return mlip__nan_or(x, mlip__f_sel(x < -87.0f, 0.0f, y));
}

/* e^x for x <= 0, Softmax's exponential (since stop 50; fused
 * multiply-adds, mlip_fmaf, mlip/kfma.h: one rounding each, the same bits
 * on every target): x clamped at -88 (as -88 > x ? -88 : x, so a NaN stays
 * NaN), k from fma(x, 1/ln 2, 1.5 * 2^23), r = fma(k, -ln 2, x) with ln 2
 * rounded to float (one fused operation, not stop 49's two with ln 2 in
 * two parts: r then carries k times ln 2's rounding, 1.9e-9, at most
 * 0.046 |x| ulp of the result), e^r by a degree-6 polynomial 1 + r + c2 r^2
 * + ... + c6 r^6 in Horner's order (MLIP__EXP6_C*: scripts/
 * kmath_f_coeffs.py, a near-minimax relative fit on |r| <= ln 2 / 2,
 * 3.1e-9), then times 2^k as a product by the float whose exponent field
 * is k + 127 (z's bits shifted left by 23 plus 127 << 23; exact where the
 * result is a normal float): for x below -87.683 (k = -127, the clamped
 * lanes among them) that float is +0 and so is the result, with no select;
 * between there and -87.34 the product is subnormal, correctly rounded.
 * Fourteen operations with the caller's subtraction of the max (stop 49's
 * were seventeen: a degree-7 polynomial, r in two steps, and the zero below
 * -87 a compare and a blend after the exponent's integer addition). Within
 * 1 + |x| / 20 ulp where the result is a normal float (measured 0.88 +
 * 0.040 |x|, 4.5 at most near -87; stop 49's 0.94), within 8.4e-39
 * absolute below (tests/unit/c/kmath_f_test.cpp). Nothing may call it with
 * x > 0. Where the target has no fused multiply-add instruction, mlip_fmaf
 * is a portable function: the same bits, slower. This form gives some NaN
 * for a NaN (which one is not specified), what Softmax's vector rows take
 * (a NaN term makes the row's sum NaN, and so every output of the row,
 * either way); mlip__exp_nonpos_fma_f below gives x's own NaN, quieted. */
#define MLIP__EXP6_C6 0x1.6a23e2p-10f
#define MLIP__EXP6_C5 0x1.1239ccp-7f
#define MLIP__EXP6_C4 0x1.5558f2p-5f
#define MLIP__EXP6_C3 0x1.555492p-3f
#define MLIP__EXP6_C2 0x1.fffffcp-2f
static inline float mlip__exp_nonpos_fma_num_f(float x) {
  MLIP__STRICT
  const float xc = -88.0f > x ? -88.0f : x;
  const float z = mlip_fmaf(xc, 1.44269502f, 12582912.0f);
  const float k = z - 12582912.0f;
  const float r = mlip_fmaf(k, -0.693147182f, xc);
  float p = MLIP__EXP6_C6;
  p = mlip_fmaf(p, r, MLIP__EXP6_C5);
  p = mlip_fmaf(p, r, MLIP__EXP6_C4);
  p = mlip_fmaf(p, r, MLIP__EXP6_C3);
  p = mlip_fmaf(p, r, MLIP__EXP6_C2);
  p = mlip_fmaf(p, r, 1.0f);
  p = mlip_fmaf(p, r, 1.0f);
  return p * mlip__ffrom((mlip__fbits(z) << 23) + 0x3f800000u);
}
/* The same, NaN for NaN. */
static inline float mlip__exp_nonpos_fma_f(float x) {
  MLIP__STRICT
  return mlip__nan_or(x, mlip__exp_nonpos_fma_num_f(x));
}

/* s[0] + ... + s[15] folded in halves: s[l] + s[l + 8], then + 4, + 2, + 1.
 * Softmax's sum of a row's n exponentials is 16
 * partial sums in k's order, lane k mod 16 for the whole blocks of 16 from
 * the row's start and lane k - n + 16 for the tail's n mod 16 terms (the
 * top lanes, where a vector of the row's last 16 holds them), folded so (since
 * stop 49: a vector's lanes of one row, not one row per lane, whose
 * transpose and single chain of additions were a quarter of the kernel):
 * n / 16 + 4 roundings deep, not n - 1. */
static inline float mlip__fold16_f(float* s) {
  /* written out: GCC kept the loop over the widths, about a tenth of
   * Softmax's time on rows of 256 */
  const float a0 = s[0] + s[8], a1 = s[1] + s[9], a2 = s[2] + s[10], a3 = s[3] + s[11];
  const float a4 = s[4] + s[12], a5 = s[5] + s[13], a6 = s[6] + s[14], a7 = s[7] + s[15];
  const float b0 = a0 + a4, b1 = a1 + a5, b2 = a2 + a6, b3 = a3 + a7;
  return (b0 + b2) + (b1 + b3);
}

/* erf(x) = x P(x^2) / Q(x^2) on |x| <= 4 (x clamped there: erf(4) rounds
 * to 1), the quotient clamped to [-1, 1]. The coefficients by name for
 * mlip/kvec_gelu.h, which runs the same steps on vectors. */
#define MLIP__ERF_P6 1.91122159e-8f
#define MLIP__ERF_P5 -1.94233200e-6f
#define MLIP__ERF_P4 1.47276139e-4f
#define MLIP__ERF_P3 3.99003737e-3f
#define MLIP__ERF_P2 0.05152311f
#define MLIP__ERF_P1 0.207112029f
#define MLIP__ERF_P0 1.12837911f
#define MLIP__ERF_Q4 1.02099159e-3f
#define MLIP__ERF_Q3 1.49569474e-2f
#define MLIP__ERF_Q2 0.117965266f
#define MLIP__ERF_Q1 0.516879499f
#define MLIP__ERF_Q0 1.0f
static inline float mlip_erf_f(float x) {
  MLIP__STRICT
  const float xh = mlip__f_sel(x > 4.0f, 4.0f, x), xc = mlip__f_sel(xh < -4.0f, -4.0f, xh);
  const float t = xc * xc;
  float p = MLIP__ERF_P6, q = MLIP__ERF_Q4, y;
  p = p * t + MLIP__ERF_P5;
  p = p * t + MLIP__ERF_P4;
  p = p * t + MLIP__ERF_P3;
  p = p * t + MLIP__ERF_P2;
  p = p * t + MLIP__ERF_P1;
  p = p * t + MLIP__ERF_P0;
  q = q * t + MLIP__ERF_Q3;
  q = q * t + MLIP__ERF_Q2;
  q = q * t + MLIP__ERF_Q1;
  q = q * t + MLIP__ERF_Q0;
  y = (xc * p) / q;
  y = mlip__f_sel(y > 1.0f, 1.0f, y);
  y = mlip__f_sel(y < -1.0f, -1.0f, y);
  return mlip__nan_or(x, y);
}

/* GELU, 0.5 x (1 + erf(x / sqrt 2)), in the order of ONNX's decomposition
 * as torch writes it (Erf, Add 1, Mul by x, Mul by 0.5) but for its
 * Div(x, sqrt 2), which is a Mul by 1/sqrt 2 here (the other form ONNX
 * exporters write; a division costs as much as the rest of the erf on
 * vectors, and the bound above holds for both). At -inf, -0 (the limit;
 * the decomposition's -inf * 0 is a NaN whose sign differs between x86
 * and Arm). */
#define MLIP__GELU_RSQRT2 0.707106769f
static inline float mlip_gelu_f(float x) {
  MLIP__STRICT
  const float e = mlip_erf_f(x * MLIP__GELU_RSQRT2);
  const float y = (x * (e + 1.0f)) * 0.5f;
  return mlip__f_sel(x < -3.40282347e38f, -0.0f, y);
}

/* The odd rational a P(t) / Q(t), t = a^2, of mlip_sigmoid_f (its y) and
 * mlip_tanh_f, in their order: P and Q by Horner's rule from the top
 * coefficient. The coefficients: scripts/kmath_f_coeffs.py; the sigmoid's
 * (t^0 first) and its a from which y is 0.5 by name, which
 * mlip/kvec_sigmoid.h's form on vectors uses too. */
#define MLIP__SIGMOID_P0 0.24999999f
#define MLIP__SIGMOID_P1 8.368655e-3f
#define MLIP__SIGMOID_P2 5.478645e-5f
#define MLIP__SIGMOID_P3 8.123729e-8f
#define MLIP__SIGMOID_P4 1.3316769e-11f
#define MLIP__SIGMOID_Q0 1.0f
#define MLIP__SIGMOID_Q1 0.116807885f
#define MLIP__SIGMOID_Q2 1.6198233e-3f
#define MLIP__SIGMOID_Q3 5.1619836e-6f
#define MLIP__SIGMOID_Q4 3.0809313e-9f
#define MLIP__SIGMOID_A_HALF 17.5f
static inline float mlip__sigmoid_rat_f(float a, float t) {
  MLIP__STRICT
  float p = MLIP__SIGMOID_P4, q = MLIP__SIGMOID_Q4;
  p = p * t + MLIP__SIGMOID_P3;
  p = p * t + MLIP__SIGMOID_P2;
  p = p * t + MLIP__SIGMOID_P1;
  p = p * t + MLIP__SIGMOID_P0;
  q = q * t + MLIP__SIGMOID_Q3;
  q = q * t + MLIP__SIGMOID_Q2;
  q = q * t + MLIP__SIGMOID_Q1;
  q = q * t + MLIP__SIGMOID_Q0;
  return (a * p) / q;
}
static inline float mlip__tanh_rat_f(float a, float t) {
  MLIP__STRICT
  float p = 1.3385053e-8f, q = 7.7905605e-7f;
  p = p * t + 2.0636371e-5f;
  p = p * t + 3.497491e-3f;
  p = p * t + 0.13382715f;
  p = p * t + 1.0f;
  q = q * t + 3.288572e-4f;
  q = q * t + 2.5884487e-2f;
  q = q * t + 0.46716037f;
  q = q * t + 1.0f;
  return (a * p) / q;
}

/* The logistic sigmoid 1 / (1 + e^-x) as 0.5 + y, y = (sigmoid(x) - 0.5)
 * approximated on a = |x| by the odd rational a P(a^2) / Q(a^2) (P and Q
 * of degree 4: a fit on [0, 17.5] whose absolute error is 7e-9), then x's
 * sign. y is 0.5 where a >= 17.5 or the rational reaches 0.5 (sigmoid
 * rounds to 1 from 17.33 on; on the negative side 0.5 - y is then exactly
 * 0, and never negative): one select for both, which also takes the
 * rational's inf / inf for a huge a. The error is absolute, not relative:
 * 0.5 - y below -8 or so keeps the absolute error of y (0 from -17.5 on,
 * where the exact value is below 2.6e-8). +-0 give 0.5, +inf 1, -inf 0,
 * NaN stays NaN. */
static inline float mlip_sigmoid_f(float x) {
  MLIP__STRICT
  const uint32_t u = mlip__fbits(x);
  const float a = mlip__ffrom(u & 0x7fffffffu);
  float y = mlip__sigmoid_rat_f(a, a * a);
  y = mlip__f_sel((a < MLIP__SIGMOID_A_HALF) & (y < 0.5f), y, 0.5f);
  return mlip__nan_or(x, 0.5f + mlip__ffrom(mlip__fbits(y) | (u & 0x80000000u)));
}

/* SiLU (swish), x sigmoid(x), the product rounded once; at -inf -0 (the
 * limit; -inf * 0 is a NaN whose sign differs between x86 and Arm). */
static inline float mlip_silu_f(float x) {
  MLIP__STRICT
  const float y = x * mlip_sigmoid_f(x);
  return mlip__f_sel(x < -3.40282347e38f, -0.0f, y);
}

/* tanh on a = |x| by the odd rational a P(a^2) / Q(a^2) (P(0) = Q(0) = 1,
 * both of degree 4: a fit on [0, 9.02] whose relative error is 2.2e-8), 1
 * from a = 9.010914 on (where tanh rounds to 1; also the rational's
 * inf / inf for a huge a) and where the rational's roundings pass 1 (just
 * below that point), then x's sign. A subnormal or small a gives a
 * itself (P and Q round to 1). NaN stays NaN. */
static inline float mlip_tanh_f(float x) {
  MLIP__STRICT
  const uint32_t u = mlip__fbits(x);
  const float a = mlip__ffrom(u & 0x7fffffffu);
  float y = mlip__tanh_rat_f(a, a * a);
  y = mlip__f_sel((a < 9.010914f) & (y < 1.0f), y, 1.0f);
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
MLIP__F_ARRAY_FORM_(mlip__exp_nonpos_f_n, mlip__exp_nonpos_f)
MLIP__F_ARRAY_FORM_(mlip__exp_nonpos_fma_f_n, mlip__exp_nonpos_fma_f)
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
