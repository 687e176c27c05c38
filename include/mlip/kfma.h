/* mlip_fmaf(a, b, c): a * b + c with one rounding (IEEE 754
 * fusedMultiplyAdd, round to nearest even), the multiply-add of the float
 * convolution, Gemm and MatMul kernels (docs/runtime.md, "Same bits on every
 * target"). Correctly rounded on every target, so a fixed sequence of them
 * gives the same bits everywhere:
 * - the FMA instruction where the compiler says the target has one
 *   (__FP_FAST_FMAF; x86 __FMA__ or AVX-512F, __ARM_FEATURE_FMA, AArch64),
 *   through __builtin_fmaf, which GCC and clang expand inline there;
 * - else a portable C99 version, no libm and no fenv: with hardware double
 *   (x86 SSE2, an FPU with double), the product of two floats is exact in
 *   double and only the double sum's rounding can disagree with the fused
 *   result, in the one case where it lands exactly halfway between two
 *   floats (corrected from the sum's exact error, TwoSum); with software
 *   double (Cortex-M0/M3/M4 without FPU, whose libgcc additions do not
 *   always round as IEEE does), integer arithmetic only.
 * NaN payloads are not specified (the targets' default NaNs differ anyway).
 * -DMLIP_FMA_PORTABLE forces the portable version, -DMLIP_FMA_INTEGER its
 * integer form, and -DMLIP_FMA_UNFUSED (a test hook, not for use: two
 * roundings) the plain a * b + c, which mlip/strict_fp.h must keep the
 * compiler from fusing (tests/e2e/xplat_test.cpp); both portable forms are always defined (mlip__fmaf_dbl, mlip__fmaf_int),
 * and tests/runtime/test_fma.c compares them with the host's fmaf on every
 * class of input. */
#ifndef MLIP_KFMA_H_
#define MLIP_KFMA_H_

#include "mlip/strict_fp.h" /* before any definition: no contraction (C) */

#include <stdint.h>
#include <string.h>

#if !defined(MLIP_FMA_PORTABLE) && !defined(MLIP_FMA_INTEGER) && !defined(MLIP_FMA_UNFUSED) && (defined(__GNUC__) || defined(__clang__)) && \
    (defined(__FP_FAST_FMAF) || defined(__FMA__) || defined(__AVX512F__) || defined(__ARM_FEATURE_FMA) || \
     defined(__aarch64__))
#define MLIP_FMA_HW 1
#endif

#if !defined(MLIP_FMA_HW) && !defined(MLIP_FMA_INTEGER) && \
    !(defined(__SSE2__) || defined(__x86_64__) || defined(_M_X64) || defined(__aarch64__) || \
      (defined(__ARM_FP) && (__ARM_FP & 8)) || defined(__riscv_d) || defined(__powerpc__) ||  \
      defined(__wasm__))
#define MLIP_FMA_INTEGER 1 /* double is emulated (or unknown): integers only */
#endif

static inline uint32_t mlip__fma_bits(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static inline float mlip__fma_float(uint32_t u) {
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}

/* The exact result is r = p + c = s + e (p exact, s the double sum, e its
 * exact error). Rounding s to float gives r's float unless s is exactly the
 * midpoint of two floats (a double nearer r than s cannot exist between
 * them), where e says on which side r lies. The midpoint test reads s's
 * bits (the bit half a float ulp down set, all below it clear), with no
 * conditional conversion: GCC 12 -Os predicates one for the Cortex-M55 in
 * a form its assembler rejects. */
static inline float mlip__fmaf_dbl(float a, float b, float c) {
  const double p = (double)a * (double)b;
  const double s = p + (double)c;
  const float f = (float)s;
  double t, e, as;
  uint64_t ds;
  uint32_t u;
  int32_t x, k;
  if (s - s != 0.0) return f; /* infinite or NaN */
  t = s - p;
  e = (p - (s - t)) + ((double)c - t);
  if (e == 0.0) return f;
  as = s < 0.0 ? -s : s;
  memcpy(&ds, &as, sizeof ds);
  x = (int32_t)(ds >> 52) - 1023; /* as in [2^x, 2^(x+1)) */
  if (x >= -126) { /* a normal float's grid: 29 bits below it */
    if ((ds & 0x1fffffffu) != 0x10000000u) return f;
  } else if (x >= -150) { /* the subnormals' grid, 2^-149: bit k is 2^-150 */
    k = -98 - x;
    if (k == 52 ? (ds & 0xfffffffffffffull) != 0 : (ds & ((2ull << k) - 1)) != 1ull << k) return f;
  } else {
    return f;
  }
  /* A midpoint: f is one of its floats, u the one on r's side (e has s's
   * sign: r beyond s). */
  u = mlip__fma_bits(f) & 0x7fffffffu;
  if ((e > 0.0) == (s > 0.0))
    u = (double)mlip__fma_float(u) > as ? u : u + 1;
  else
    u = (double)mlip__fma_float(u) < as ? u : u - 1;
  return mlip__fma_float(u | (mlip__fma_bits(f) & 0x80000000u));
}

static inline int mlip__fma_clz64(uint64_t x) { /* x != 0 */
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_clzll(x);
#else
  int n = 0;
  while (!(x & 0x8000000000000000ull)) {
    x <<= 1;
    ++n;
  }
  return n;
#endif
}

/* Finite a, b, c with a * b != 0: both terms as 64-bit integers with their
 * top bit at 62 (value X * 2^ex), the smaller shifted right with a sticky
 * bit, added or subtracted exactly enough for one rounding to 24 bits. */
static inline float mlip__fmaf_int(float a, float b, float c) {
  const uint32_t ua = mlip__fma_bits(a), ub = mlip__fma_bits(b), uc = mlip__fma_bits(c);
  const uint32_t ea = ua >> 23 & 0xff, eb = ub >> 23 & 0xff, ec = uc >> 23 & 0xff;
  uint64_t x, y, z;
  int32_t ex, ey, sx, sy, t, e, sh, k;
  uint32_t q, r;
  if (ea == 0xff || eb == 0xff) return a * b + c; /* a * b is infinite or NaN: exact */
  if (ec == 0xff) return c + c;
  if ((ua & 0x7fffffffu) == 0 || (ub & 0x7fffffffu) == 0) return a * b + c; /* an exact zero */
  x = (uint64_t)((ua & 0x7fffffu) | (ea ? 0x800000u : 0)) * ((ub & 0x7fffffu) | (eb ? 0x800000u : 0));
  ex = (int32_t)(ea ? ea : 1) + (int32_t)(eb ? eb : 1) - 300;
  sx = (int32_t)((ua ^ ub) >> 31);
  k = mlip__fma_clz64(x) - 1;
  x <<= k;
  ex -= k;
  sy = (int32_t)(uc >> 31);
  if (uc & 0x7fffffffu) {
    y = (uint64_t)((uc & 0x7fffffu) | (ec ? 0x800000u : 0));
    ey = (int32_t)(ec ? ec : 1) - 150;
    k = mlip__fma_clz64(y) - 1;
    y <<= k;
    ey -= k;
    if (ey > ex || (ey == ex && y > x)) { /* x the larger */
      z = x, x = y, y = z;
      t = ex, ex = ey, ey = t;
      t = sx, sx = sy, sy = t;
    }
    k = ex - ey;
    if (k >= 64) y = 1;
    else if (k > 0) y = y >> k | ((y << (64 - k)) != 0);
    z = sx == sy ? x + y : x - y;
    if (z == 0) return 0.0f; /* exact cancellation: +0 */
  } else {
    z = x;
  }
  t = 63 - mlip__fma_clz64(z);
  e = t + ex; /* r in [2^e, 2^(e+1)) */
  if (e > 127) return mlip__fma_float((uint32_t)sx << 31 | 0x7f800000u);
  sh = e >= -126 ? t - 23 : -149 - ex; /* the bits below the float's last */
  if (sh > 64) return mlip__fma_float((uint32_t)sx << 31);
  if (sh <= 0) { /* after a cancellation: exact */
    q = (uint32_t)(z << -sh);
    r = 0;
  } else if (sh == 64) {
    q = 0;
    r = z > 0x8000000000000000ull ? 1u : 0u;
  } else {
    const uint64_t rem = z & ((1ull << sh) - 1), half = 1ull << (sh - 1);
    q = (uint32_t)(z >> sh);
    r = rem > half || (rem == half && (q & 1)) ? 1u : 0u;
  }
  q += r; /* a carry into bit 24 (or 23, subnormal) steps the exponent field */
  return mlip__fma_float((uint32_t)sx << 31 | (e >= -126 ? ((uint32_t)(e + 127) << 23) + q - 0x800000u : q));
}

static inline float mlip_fmaf(float a, float b, float c) {
#if defined(MLIP_FMA_UNFUSED)
  return a * b + c;
#elif defined(MLIP_FMA_HW)
  return __builtin_fmaf(a, b, c);
#elif defined(MLIP_FMA_INTEGER)
  return mlip__fmaf_int(a, b, c);
#else
  return mlip__fmaf_dbl(a, b, c);
#endif
}

#endif /* MLIP_KFMA_H_ */
