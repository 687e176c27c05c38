/* The elementary functions of the generated CPU kernels (templates/kernels)
 * and of the compiler's reference evaluator (codegen/ir): one definition that
 * both include, written for mlipc, that gives the same bits on every target.
 *
 * Every kernel calls these, never <math.h> directly, for anything that is not
 * exact in IEEE arithmetic. Exact operations (fabsf, floorf, ceilf, truncf,
 * rintf, fmodf, copysignf, fmaxf) and the correctly rounded sqrtf may be used
 * as they are.
 *
 * How the bits stay the same (docs/runtime.md, "Elementary functions"):
 * - each function decodes its float argument from its bits (memcpy), handles
 *   NaN, infinities, zeros and the overflow/underflow ranges by comparing bits,
 *   computes in IEEE double with +, -, *, / and sqrt only (all correctly
 *   rounded, so the same on every IEEE machine, soft-float included), and
 *   rounds once to float by integer code (immune to flush-to-zero modes);
 * - no fused multiply-add: in C, mlip/strict_fp.h turns contraction off for
 *   the whole file (clang and GCC); clang also gets "STDC FP_CONTRACT OFF" in
 *   every function body, and in C++ (g++ builds the reference evaluator),
 *   where GCC could contract double multiply-adds (__FP_FAST_FMA: AArch64,
 *   Cortex-M55/M7, x86-64 with FMA), the functions are compiled with
 *   optimize("fp-contract=off") (GCC then keeps them out of line in code
 *   built with another contraction setting);
 * - configurations that change the arithmetic and cannot be switched off here
 *   stop the build: -ffast-math, -fassociative-math, -freciprocal-math and
 *   excess precision of double (FLT_EVAL_METHOD 2, x87). Clang's explicit
 *   -ffp-contract=fast overrides the pragma and defines nothing a header can
 *   test, nor do clang's -fassociative-math and -freciprocal-math alone:
 *   those are the documented configurations that are not supported.
 * The default rounding mode (to nearest) is assumed.
 *
 * Accuracy: results are within 1 ulp everywhere and correctly rounded in all
 * but a few cases in a million (internal error about 2^-50); the test
 * tests/runtime/test_kmath.c measures it against the C library. */
#ifndef MLIP_KMATH_H_
#define MLIP_KMATH_H_

#include "mlip/strict_fp.h" /* before any definition: no contraction (C) */

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__FAST_MATH__) || defined(__ASSOCIATIVE_MATH__) || defined(__RECIPROCAL_MATH__)
#error "mlip/kmath.h: -ffast-math, -fassociative-math and -freciprocal-math change the bits of the kernels' results; build without them"
#endif
/* Double arithmetic must be evaluated in double: FLT_EVAL_METHOD 0, 1 or 16
 * (16: GNU modes on Arm with half precision, where only _Float16 differs). */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0 && FLT_EVAL_METHOD != 1 && FLT_EVAL_METHOD != 16
#error "mlip/kmath.h needs double arithmetic without excess precision (FLT_EVAL_METHOD 0, 1 or 16: SSE2, NEON, VFP or soft-float, not x87)"
#endif

#if defined(__clang__)
#define MLIP__STRICT _Pragma("STDC FP_CONTRACT OFF")
#else
#define MLIP__STRICT
#endif
/* In C, mlip/strict_fp.h (included above) has already turned contraction off
 * for the whole file; a second optimize pragma would give these functions an
 * attribute list that region.h's later declarations of mlip_f16_to_f32 and
 * mlip_f32_to_f16 do not match. C++ (the reference evaluator) gets it here. */
#if defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__) && defined(__FP_FAST_FMA)
#define MLIP__GCC_NO_CONTRACT 1
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif


/* ---- bits ---------------------------------------------------------------- */

static inline uint32_t mlip__fbits(float x) { uint32_t u; memcpy(&u, &x, sizeof u); return u; }
static inline float mlip__ffrom(uint32_t u) { float x; memcpy(&x, &u, sizeof x); return x; }
static inline uint64_t mlip__dbits(double x) { uint64_t u; memcpy(&u, &x, sizeof u); return u; }
static inline double mlip__dfrom(uint64_t u) { double x; memcpy(&x, &u, sizeof x); return x; }

/* NaN in, the same NaN out, quieted: the bits do not depend on the FPU. */
static inline float mlip__qnan(uint32_t u) { return mlip__ffrom(u | 0x00400000u); }
/* The NaN of a domain error (log(-1), asin(2), sin(inf), ...). */
static inline float mlip__domain(void) { return mlip__ffrom(0x7fc00000u); }

/* 2^k as a double, -1022 <= k <= 1023. */
static inline double mlip__pow2(int k) { return mlip__dfrom((uint64_t)(k + 1023) << 52); }

/* A finite float's value as a double, subnormals included, by bits. */
static inline double mlip__f2d(uint32_t u) {
  uint64_t s = (uint64_t)(u >> 31) << 63;
  uint32_t m = u & 0x7fffffu;
  int e = (int)((u >> 23) & 0xffu);
  if (e == 0) {
    if (m == 0) return mlip__dfrom(s);
    e = 1;
    while (!(m & 0x800000u)) { m <<= 1; --e; }
    m &= 0x7fffffu;
  }
  return mlip__dfrom(s | (uint64_t)(e + 896) << 52 | (uint64_t)m << 29);
}

/* A finite double rounded to the nearest float (ties to even), by integer
 * code: overflow gives infinity, underflow a subnormal or zero. */
static inline float mlip__d2f(double d) {
  uint64_t u = mlip__dbits(d), m, rem, half, q;
  uint32_t s = (uint32_t)(u >> 32) & 0x80000000u, b;
  int e = (int)((u >> 52) & 0x7ffu) - 1023, sh = 29;
  if ((u << 1) == 0) return mlip__ffrom(s);
  if (e > 127) return mlip__ffrom(s | 0x7f800000u);
  if (e < -126) {
    sh += -126 - e;
    if (sh > 53) return mlip__ffrom(s);
  }
  m = (u & 0xfffffffffffffull) | 0x10000000000000ull;
  q = m >> sh;
  rem = m & ((1ull << sh) - 1);
  half = 1ull << (sh - 1);
  if (rem > half || (rem == half && (q & 1))) ++q;
  b = e >= -126 ? ((uint32_t)(e + 126) << 23) + (uint32_t)q : (uint32_t)q;
  return mlip__ffrom(s | b);
}

/* c[0] + c[1] x + ... + c[n-1] x^(n-1). */
static inline double mlip__poly(const double* c, int n, double x) {
  MLIP__STRICT
  double p = c[n - 1];
  int i;
  for (i = n - 2; i >= 0; --i) p = p * x + c[i];
  return p;
}

/* ---- constants ----------------------------------------------------------- */

#define MLIP__LN2_HI 0x1.62e42feep-1             /* 32 bits: k * LN2_HI is exact */
#define MLIP__LN2_LO 0x1.a39ef35793c76p-33
#define MLIP__INV_LN2_32 0x1.71547652b82fep+5    /* 32 / ln 2 */
#define MLIP__PIO2 0x1.921fb54442d18p+0
#define MLIP__SPLIT 0x1.0000002p+27              /* Veltkamp: 2^27 + 1 */
#define MLIP__ROUND 0x1.8p+52                    /* (v + ROUND) - ROUND = nearest integer */

/* Tables: generated by scripts/kmath_coeffs.py (mpmath); do not edit by hand. */
static const double mlip__exp2_tab[32] = {
    0x1.0000000000000p+0, 0x1.059b0d3158574p+0,
    0x1.0b5586cf9890fp+0, 0x1.11301d0125b51p+0,
    0x1.172b83c7d517bp+0, 0x1.1d4873168b9aap+0,
    0x1.2387a6e756238p+0, 0x1.29e9df51fdee1p+0,
    0x1.306fe0a31b715p+0, 0x1.371a7373aa9cbp+0,
    0x1.3dea64c123422p+0, 0x1.44e086061892dp+0,
    0x1.4bfdad5362a27p+0, 0x1.5342b569d4f82p+0,
    0x1.5ab07dd485429p+0, 0x1.6247eb03a5585p+0,
    0x1.6a09e667f3bcdp+0, 0x1.71f75e8ec5f74p+0,
    0x1.7a11473eb0187p+0, 0x1.82589994cce13p+0,
    0x1.8ace5422aa0dbp+0, 0x1.93737b0cdc5e5p+0,
    0x1.9c49182a3f090p+0, 0x1.a5503b23e255dp+0,
    0x1.ae89f995ad3adp+0, 0x1.b7f76f2fb5e47p+0,
    0x1.c199bdd85529cp+0, 0x1.cb720dcef9069p+0,
    0x1.d5818dcfba487p+0, 0x1.dfc97337b9b5fp+0,
    0x1.ea4afa2a490dap+0, 0x1.f50765b6e4540p+0,
};
/* mlip__log_P: 8 terms on [0, 0.0294373], fit error 2^-59.7 */
static const double mlip__log_P[8] = {
    0x1.5555555555555p-2, 0x1.9999999999a38p-3,
    0x1.2492492476cccp-3, 0x1.c71c720159177p-4,
    0x1.745cf9048dd95p-4, 0x1.3b1c355a8f7a2p-4,
    0x1.0fbe95d716020p-4, 0x1.0c039c49989c6p-4,
};
/* mlip__sin_S: 6 terms on [0, 0.61685], fit error 2^-55.4 */
static const double mlip__sin_S[6] = {
    -0x1.5555555555555p-3, 0x1.1111111110bb2p-7,
    -0x1.a01a019e83aaep-13, 0x1.71de37968a100p-19,
    -0x1.ae600b02b6262p-26, 0x1.5e0b19f8b1451p-33,
};
/* mlip__cos_C: 6 terms on [0, 0.61685], fit error 2^-59.4 */
static const double mlip__cos_C[6] = {
    0x1.5555555555555p-5, -0x1.6c16c16c16967p-10,
    0x1.a01a019f4eb01p-16, -0x1.27e4fa17da09ep-22,
    0x1.1eeb68e93b64cp-29, -0x1.907da367a37cbp-37,
};
static const double mlip__atan_tab[9] = {
    0x0.0p+0, 0x1.fd5ba9aac2f6ep-4,
    0x1.f5b75f92c80ddp-3, 0x1.6f61941e4def1p-2,
    0x1.dac670561bb4fp-2, 0x1.1e00babdefeb4p-1,
    0x1.4978fa3269ee1p-1, 0x1.700a7c5784634p-1,
    0x1.921fb54442d18p-1,
};
/* mlip__erf_P: 12 terms on [0, 1], fit error 2^-56.9 */
static const double mlip__erf_P[12] = {
    0x1.20dd750429b6dp+0, -0x1.812746b0379c1p-2,
    0x1.ce2f21a040f66p-4, -0x1.b82ce31203772p-6,
    0x1.565bccfa44156p-8, -0x1.c02db0665e53dp-11,
    0x1.f9a2be4f731a1p-14, -0x1.f4ca838adb73bp-17,
    0x1.b981d78881a5dp-20, -0x1.5c131500d3f88p-23,
    0x1.d76af6ca49787p-27, -0x1.ac9585a44fe29p-31,
};
/* mlip__erfc_G1: 15 terms on [-0.5, 0.5], fit error 2^-53.1 */
static const double mlip__erfc_G1[15] = {
    0x1.494daffa2ad68p-2, -0x1.4f1988444cb5ap-3,
    0x1.37ea271bc54f2p-4, -0x1.0dc51d29337d3p-5,
    0x1.b65944f34010bp-7, -0x1.513ed7737c5d3p-8,
    0x1.ee705e882dd0ep-10, -0x1.5b0ab45af7dfbp-11,
    0x1.d45090b3f934fp-13, -0x1.30c470595520dp-14,
    0x1.7f9d3bddcd27cp-16, -0x1.d2f0c117c2611p-18,
    0x1.14cff905c6c52p-19, -0x1.5818fa3c2a0d8p-21,
    0x1.819707b18baa5p-23,
};
/* mlip__erfc_G2: 14 terms on [-0.5, 0.5], fit error 2^-54.7 */
static const double mlip__erfc_G2[14] = {
    0x1.afbb3f3b7343cp-3, -0x1.3086d7f01ac86p-4,
    0x1.98958a7a8d77fp-6, -0x1.06320768097e8p-7,
    0x1.435c04e3ac0b4p-9, -0x1.809ce8acd7da6p-11,
    0x1.ba8a655a39734p-13, -0x1.edd42152ea56bp-15,
    0x1.0bcc836a0a98ap-16, -0x1.1ad1dd1a8dfd3p-18,
    0x1.22fe0ce31835fp-20, -0x1.24c8e72be4435p-22,
    0x1.2f1e1b1cb4b74p-24, -0x1.2370f67830e67p-26,
};
/* mlip__erfc_G3: 13 terms on [-0.5, 0.5], fit error 2^-55.1 */
static const double mlip__erfc_G3[13] = {
    0x1.3e0a99a0ee914p-3, -0x1.5285d2eb1ef1bp-5,
    0x1.5d581133378a6p-7, -0x1.5e5d7e98bfd58p-9,
    0x1.5632136dabe05p-11, -0x1.460abd1dbc580p-13,
    0x1.2f839e1628667p-15, -0x1.146c0644d491ap-17,
    0x1.ed2b00b886bcdp-20, -0x1.af265c2bc2254p-22,
    0x1.72236dde9c749p-24, -0x1.4334cf2543427p-26,
    0x1.0ba3c8a2609f2p-28,
};
static const uint32_t mlip__2opi[10] = {
    0x00000000u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u,
    0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu,
    0xdebbc561u, 0xb7246e3au,
};

/* ---- exp ----------------------------------------------------------------- */

/* e^(hi + lo) = s * (1 + q), with s = 2^(m/32) exact in double and
 * q = e^r - 1 to full relative precision, |r| <= ln2/64 (|lo| << |hi|,
 * |hi| <= 110). Then exp = s + s*q and expm1 = (s - 1) + s*q. */
static inline void mlip__exp_parts(double hi, double lo, double* s, double* q) {
  MLIP__STRICT
  double kd = (hi * MLIP__INV_LN2_32 + MLIP__ROUND) - MLIP__ROUND;
  int m = (int)kd, j = (int)((unsigned)m & 31u);
  /* kd * LN2_HI/32 is exact and hi - kd*LN2_HI/32 too (Sterbenz). */
  double r = (hi - kd * (MLIP__LN2_HI / 32)) - kd * (MLIP__LN2_LO / 32) + lo;
  *q = r + r * r * (0.5 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120 + r * (1.0 / 720 + r * (1.0 / 5040))))));
  *s = mlip__exp2_tab[j] * mlip__pow2((m - j) / 32);
}

static inline double mlip__exp_d(double x) {
  MLIP__STRICT
  double s, q;
  mlip__exp_parts(x, 0.0, &s, &q);
  return s + s * q;
}

/* e^x - 1 for |x| <= 110, to full relative precision. */
static inline double mlip__expm1_d(double x) {
  MLIP__STRICT
  double s, q;
  mlip__exp_parts(x, 0.0, &s, &q);
  return (s - 1.0) + s * q;
}

/* ---- log ----------------------------------------------------------------- */

/* x = 2^e z with z in [sqrt(1/2), sqrt(2)); x positive, finite, normal. */
static inline double mlip__split(double x, int* e) {
  uint64_t u = mlip__dbits(x);
  int k = (int)(u >> 52) - 1023;
  u &= 0xfffffffffffffull;
  if (u > 0x6a09e667f3bcdull) { u |= 0x3fe0000000000000ull; ++k; }  /* z = m/2 */
  else u |= 0x3ff0000000000000ull;
  *e = k;
  return mlip__dfrom(u);
}

/* log(x) for a positive finite double: log z = 2 atanh(s), s = (z-1)/(z+1). */
static inline double mlip__log_d(double x) {
  MLIP__STRICT
  int e;
  double z = mlip__split(x, &e);
  double s = (z - 1.0) / (z + 1.0), t = s * s;
  double lz = 2.0 * s + 2.0 * s * t * mlip__poly(mlip__log_P, 8, t);
  return e * MLIP__LN2_HI + (e * MLIP__LN2_LO + lz);
}

/* log(1 + a), a > -1 finite: u = 1 + a rounded, corrected by (a - (u-1))/u. */
static inline double mlip__log1p_d(double a) {
  MLIP__STRICT
  double u = 1.0 + a;
  return mlip__log_d(u) + (a - (u - 1.0)) / u;
}

/* ---- trigonometric range reduction --------------------------------------- */

/* |x| = 2^E m (bits ua, finite, |x| >= pi/4) reduced: |x| = n pi/2 + r with
 * |r| <= pi/4, by integer arithmetic on 128 bits of 2/pi taken at the exponent
 * (Payne-Hanek); returns n mod 4. */
static inline int mlip__rem_pio2(uint32_t ua, double* r) {
  MLIP__STRICT
  uint64_t m = (ua & 0x7fffffu) | 0x800000u;
  int q0 = (int)(ua >> 23) - 151 + 31; /* bit of 2/pi where the window starts */
  int a = q0 >> 5, sh = q0 & 31, i, n;
  uint32_t w[4], x[4];
  uint64_t c = 0, hi, lo;
  double d;
  for (i = 0; i < 4; ++i) {
    uint64_t two = (uint64_t)mlip__2opi[a + i] << 32 | mlip__2opi[a + i + 1];
    w[i] = (uint32_t)(two >> (32 - sh));
  }
  /* x = m * w mod 2^128: 2 bits of quadrant, 126 of fraction. */
  for (i = 3; i >= 0; --i) {
    c += m * w[i];
    x[i] = (uint32_t)c;
    c >>= 32;
  }
  n = (int)(x[0] >> 30);
  hi = ((uint64_t)(x[0] & 0x3fffffffu) << 34) | ((uint64_t)x[1] << 2) | (x[2] >> 30);
  lo = ((uint64_t)(x[2] & 0x3fffffffu) << 2) | (x[3] >> 30);  /* next 32 bits */
  if (hi >> 63) {  /* fraction >= 1/2: r = (fraction - 1) pi/2 */
    ++n;
    lo = (0x100000000ull - lo) & 0xffffffffull;
    hi = ~hi + (lo == 0);
    d = -((double)hi * 0x1p-64 + (double)lo * 0x1p-96);
  } else {
    d = (double)hi * 0x1p-64 + (double)lo * 0x1p-96;
  }
  *r = d * MLIP__PIO2;
  return n & 3;
}

static inline double mlip__sin_r(double r) {
  MLIP__STRICT
  double t = r * r;
  return r + r * t * mlip__poly(mlip__sin_S, 6, t);
}

static inline double mlip__cos_r(double r) {
  MLIP__STRICT
  double t = r * r;
  return (1.0 - 0.5 * t) + t * t * mlip__poly(mlip__cos_C, 6, t);
}

/* n and r for sin/cos/tan of |x| (bits ua, finite). */
static inline int mlip__reduce(uint32_t ua, double* r) {
  if (ua < 0x3f490fdbu) { *r = mlip__f2d(ua); return 0; }  /* |x| < pi/4 */
  return mlip__rem_pio2(ua, r);
}

/* ---- atan ---------------------------------------------------------------- */

/* atan(v) for any double v but NaN: atan(c) + atan((a-c)/(1+ac)), c = i/8. */
static inline double mlip__atan_d(double v) {
  MLIP__STRICT
  int neg = v < 0, inv, i;
  double a = neg ? -v : v, c, t, t2, res;
  inv = a > 1.0;
  if (inv) a = 1.0 / a;
  i = (int)(a * 8.0 + 0.5);
  c = i * 0.125;
  t = (a - c) / (1.0 + a * c);
  t2 = t * t;
  res = mlip__atan_tab[i] +
        (t + t * t2 * (-1.0 / 3 + t2 * (1.0 / 5 + t2 * (-1.0 / 7 + t2 * (1.0 / 9 + t2 * (-1.0 / 11 + t2 * (1.0 / 13 + t2 * (-1.0 / 15))))))));
  if (inv) res = MLIP__PIO2 - res;
  return neg ? -res : res;
}

/* ---- the functions ------------------------------------------------------- */

static inline float mlip_expf(float x) {
  uint32_t u = mlip__fbits(x), a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return mlip__qnan(u);
  if (u < 0x80000000u ? a > 0x42b20000u : a > 0x42d00000u)  /* x > 89, x < -104 */
    return u < 0x80000000u ? mlip__ffrom(0x7f800000u) : 0.0f;
  return mlip__d2f(mlip__exp_d(mlip__f2d(u)));
}

static inline float mlip_expm1f(float x) {
  uint32_t u = mlip__fbits(x), a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return mlip__qnan(u);
  if (a == 0) return x;
  if (u < 0x80000000u ? a > 0x42b20000u : a > 0x418c0000u)  /* x > 89, x < -17.5 */
    return u < 0x80000000u ? mlip__ffrom(0x7f800000u) : -1.0f;
  return mlip__d2f(mlip__expm1_d(mlip__f2d(u)));
}

static inline float mlip_logf(float x) {
  uint32_t u = mlip__fbits(x), a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return mlip__qnan(u);
  if (a == 0) return mlip__ffrom(0xff800000u);  /* -inf */
  if (u >> 31) return mlip__domain();
  if (a == 0x7f800000u) return x;
  return mlip__d2f(mlip__log_d(mlip__f2d(u)));
}

static inline float mlip_log1pf(float x) {
  uint32_t u = mlip__fbits(x), a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return mlip__qnan(u);
  if (a == 0 || u == 0x7f800000u) return x;
  if (u == 0xbf800000u) return mlip__ffrom(0xff800000u);
  if (u > 0xbf800000u) return mlip__domain();  /* x < -1 */
  return mlip__d2f(mlip__log1p_d(mlip__f2d(u)));
}

/* 0: y is not an integer, 1: odd integer, 2: even integer (y finite, != 0). */
static inline int mlip__yint(uint32_t uy) {
  int e = (int)((uy >> 23) & 0xffu);
  uint32_t m = (uy & 0x7fffffu) | 0x800000u;
  if (e < 127) return 0;
  if (e > 150) return 2;
  if (m & ((1u << (150 - e)) - 1)) return 0;
  return (m >> (150 - e)) & 1 ? 1 : 2;
}

/* |x|^y for finite positive x and finite y != 0 (no special case left):
 * e^(y log x) with log x and y log x carried as double-double. */
static inline double mlip__pow_d(uint32_t ux, uint32_t uy, int* range) {
  MLIP__STRICT
  int e;
  double z = mlip__split(mlip__f2d(ux), &e), y = mlip__f2d(uy);
  double num = z - 1.0, den = z + 1.0;  /* both exact: z has 24 bits */
  double s = num / den, c, sh, sl, slo, t, corr, a, H, Lo, Hh, Hl, p, err, Th, Tl, sq, qq;
  /* s + slo = num/den: the remainder num - s*den is exact (Dekker). */
  c = MLIP__SPLIT * s;
  sh = c - (c - s);
  sl = s - sh;
  slo = ((num - sh * den) - sl * den) / den;
  t = s * s;
  corr = 2.0 * slo + 2.0 * s * t * mlip__poly(mlip__log_P, 8, t);
  /* log x = H + Lo, |Lo| <= ulp(H): e*LN2_HI is exact, |e LN2_HI| >= |2s|
   * and |2s + ...| >= |corr| (both sums Fast2Sum). */
  a = e * MLIP__LN2_HI;
  H = a + 2.0 * s;
  Lo = (2.0 * s - (H - a)) + (e * MLIP__LN2_LO + corr);
  a = H;
  H = a + Lo;
  Lo = Lo - (H - a);
  /* y log x = Th + Tl: y has 24 bits, H split in 26 + 27 bits: exact products. */
  c = MLIP__SPLIT * H;
  Hh = c - (c - H);
  Hl = H - Hh;
  p = y * H;
  err = (y * Hh - p) + y * Hl;
  Th = p;
  Tl = err + y * Lo;
  if (Th > 89.5) { *range = 1; return 0.0; }
  if (Th < -104.5) { *range = -1; return 0.0; }
  *range = 0;
  mlip__exp_parts(Th, Tl, &sq, &qq);
  return sq + sq * qq;
}

static inline float mlip_powf(float x, float y) {
  uint32_t ux = mlip__fbits(x), uy = mlip__fbits(y), ax = ux & 0x7fffffffu, ay = uy & 0x7fffffffu;
  int yint, neg = 0, range;
  double v;
  if (ay == 0 || ux == 0x3f800000u) return 1.0f;
  if (ax > 0x7f800000u) return mlip__qnan(ux);
  if (ay > 0x7f800000u) return mlip__qnan(uy);
  if (ay == 0x7f800000u) {  /* y = +-inf */
    if (ax == 0x3f800000u) return 1.0f;
    return (ax < 0x3f800000u) == !(uy >> 31) ? 0.0f : mlip__ffrom(0x7f800000u);
  }
  yint = mlip__yint(uy);
  if (ax == 0 || ax == 0x7f800000u) {  /* x = +-0 or +-inf */
    uint32_t sign = (yint == 1) ? (ux & 0x80000000u) : 0;
    int big = (ax == 0) == !!(uy >> 31);  /* 0^negative, inf^positive */
    return mlip__ffrom(sign | (big ? 0x7f800000u : 0));
  }
  if (ux >> 31) {
    if (yint == 0) return mlip__domain();
    neg = yint == 1;
  }
  v = mlip__pow_d(ax, uy, &range);
  if (range) return mlip__ffrom((neg ? 0x80000000u : 0) | (range > 0 ? 0x7f800000u : 0));
  return mlip__d2f(neg ? -v : v);
}

static inline float mlip_tanhf(float x) {
  MLIP__STRICT
  uint32_t u = mlip__fbits(x), a = u & 0x7fffffffu;
  double q, t;
  if (a > 0x7f800000u) return mlip__qnan(u);
  if (a == 0) return x;
  if (a > 0x41180000u) return u >> 31 ? -1.0f : 1.0f;  /* |x| > 9.5 */
  q = mlip__expm1_d(2.0 * mlip__f2d(a));
  t = q / (q + 2.0);
  return mlip__d2f(u >> 31 ? -t : t);
}

/* 1 / (1 + e^-x). */
static inline float mlip_sigmoidf(float x) {
  MLIP__STRICT
  uint32_t u = mlip__fbits(x), a = u & 0x7fffffffu;
  double e;
  if (a > 0x7f800000u) return mlip__qnan(u);
  if (u < 0x80000000u ? a > 0x41a00000u : a > 0x42d20000u)  /* x > 20, x < -105 */
    return u < 0x80000000u ? 1.0f : 0.0f;
  if (u >> 31) {
    e = mlip__exp_d(mlip__f2d(u));
    return mlip__d2f(e / (1.0 + e));
  }
  return mlip__d2f(1.0 / (1.0 + mlip__exp_d(-mlip__f2d(u))));
}

static inline float mlip_sinhf(float x) {
  MLIP__STRICT
  uint32_t u = mlip__fbits(x), a = u & 0x7fffffffu;
  double q, v;
  if (a > 0x7f800000u) return mlip__qnan(u);
  if (a == 0) return x;
  if (a > 0x42b40000u) return mlip__ffrom((u & 0x80000000u) | 0x7f800000u);  /* |x| > 90 */
  q = mlip__expm1_d(mlip__f2d(a));
  v = 0.5 * (q + q / (q + 1.0));
  return mlip__d2f(u >> 31 ? -v : v);
}

static inline float mlip_coshf(float x) {
  MLIP__STRICT
  uint32_t u = mlip__fbits(x), a = u & 0x7fffffffu;
  double e;
  if (a > 0x7f800000u) return mlip__qnan(u);
  if (a > 0x42b40000u) return mlip__ffrom(0x7f800000u);
  e = mlip__exp_d(mlip__f2d(a));
  return mlip__d2f(0.5 * (e + 1.0 / e));
}

static inline float mlip_sinf(float x) {
  MLIP__STRICT
  uint32_t u = mlip__fbits(x), a = u & 0x7fffffffu;
  double r, v;
  int n;
  if (a >= 0x7f800000u) return a > 0x7f800000u ? mlip__qnan(u) : mlip__domain();
  if (a == 0) return x;
  n = mlip__reduce(a, &r);
  v = (n & 1) ? mlip__cos_r(r) : mlip__sin_r(r);
  if (n & 2) v = -v;
  return mlip__d2f(u >> 31 ? -v : v);
}

static inline float mlip_cosf(float x) {
  MLIP__STRICT
  uint32_t u = mlip__fbits(x), a = u & 0x7fffffffu;
  double r, v;
  int n;
  if (a >= 0x7f800000u) return a > 0x7f800000u ? mlip__qnan(u) : mlip__domain();
  n = mlip__reduce(a, &r);
  v = (n & 1) ? mlip__sin_r(r) : mlip__cos_r(r);
  if (((n + 1) & 2)) v = -v;  /* n = 1, 2 */
  return mlip__d2f(v);
}

static inline float mlip_tanf(float x) {
  MLIP__STRICT
  uint32_t u = mlip__fbits(x), a = u & 0x7fffffffu;
  double r, v;
  int n;
  if (a >= 0x7f800000u) return a > 0x7f800000u ? mlip__qnan(u) : mlip__domain();
  if (a == 0) return x;
  n = mlip__reduce(a, &r);
  v = (n & 1) ? -mlip__cos_r(r) / mlip__sin_r(r) : mlip__sin_r(r) / mlip__cos_r(r);
  return mlip__d2f(u >> 31 ? -v : v);
}

static inline float mlip_atanf(float x) {
  uint32_t u = mlip__fbits(x), a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return mlip__qnan(u);
  if (a == 0) return x;
  return mlip__d2f(mlip__atan_d(mlip__f2d(u)));
}

static inline float mlip_asinf(float x) {
  MLIP__STRICT
  uint32_t u = mlip__fbits(x), a = u & 0x7fffffffu;
  double d, v;
  if (a > 0x7f800000u) return mlip__qnan(u);
  if (a > 0x3f800000u) return mlip__domain();
  if (a == 0) return x;
  d = mlip__f2d(a);
  v = a == 0x3f800000u ? MLIP__PIO2 : mlip__atan_d(d / sqrt((1.0 - d) * (1.0 + d)));
  return mlip__d2f(u >> 31 ? -v : v);
}

static inline float mlip_acosf(float x) {
  MLIP__STRICT
  uint32_t u = mlip__fbits(x), a = u & 0x7fffffffu;
  double d;
  if (a > 0x7f800000u) return mlip__qnan(u);
  if (a > 0x3f800000u) return mlip__domain();
  if (u == 0xbf800000u) return mlip__d2f(2.0 * MLIP__PIO2);
  d = mlip__f2d(u);
  return mlip__d2f(2.0 * mlip__atan_d(sqrt((1.0 - d) / (1.0 + d))));
}

static inline float mlip_asinhf(float x) {
  MLIP__STRICT
  uint32_t u = mlip__fbits(x), a = u & 0x7fffffffu;
  double d, v;
  if (a > 0x7f800000u) return mlip__qnan(u);
  if (a == 0 || a == 0x7f800000u) return x;
  d = mlip__f2d(a);
  if (a < 0x40000000u)  /* |x| < 2: log1p(d + d^2/(1 + sqrt(1 + d^2))) */
    v = mlip__log1p_d(d + d * d / (1.0 + sqrt(1.0 + d * d)));
  else
    v = mlip__log_d(d + sqrt(d * d + 1.0));
  return mlip__d2f(u >> 31 ? -v : v);
}

static inline float mlip_acoshf(float x) {
  MLIP__STRICT
  uint32_t u = mlip__fbits(x);
  double d, t;
  if ((u & 0x7fffffffu) > 0x7f800000u) return mlip__qnan(u);
  if (u < 0x3f800000u || u > 0x7f800000u) return mlip__domain();  /* x < 1 */
  if (u == 0x7f800000u) return x;
  d = mlip__f2d(u);
  t = d - 1.0;
  if (u < 0x40000000u) return mlip__d2f(mlip__log1p_d(t + sqrt(t * (t + 2.0))));
  return mlip__d2f(mlip__log_d(d + sqrt(d * d - 1.0)));
}

static inline float mlip_atanhf(float x) {
  MLIP__STRICT
  uint32_t u = mlip__fbits(x), a = u & 0x7fffffffu;
  double d, v;
  if (a > 0x7f800000u) return mlip__qnan(u);
  if (a > 0x3f800000u) return mlip__domain();
  if (a == 0) return x;
  if (a == 0x3f800000u) return mlip__ffrom((u & 0x80000000u) | 0x7f800000u);
  d = mlip__f2d(a);
  v = 0.5 * mlip__log1p_d(2.0 * d / (1.0 - d));
  return mlip__d2f(u >> 31 ? -v : v);
}

static inline float mlip_erff(float x) {
  MLIP__STRICT
  uint32_t u = mlip__fbits(x), a = u & 0x7fffffffu;
  double d, v, g, w;
  int i;
  if (a > 0x7f800000u) return mlip__qnan(u);
  if (a == 0) return x;
  if (a >= 0x40800000u) return u >> 31 ? -1.0f : 1.0f;  /* |x| >= 4 */
  d = mlip__f2d(a);
  if (a < 0x3f800000u) {
    v = d * mlip__poly(mlip__erf_P, 12, d * d);
  } else {  /* 1 - e^(-x^2) G(x), G = erfc(x) e^(x^2) on [1,2), [2,3), [3,4) */
    i = (int)d;
    w = d - (i + 0.5);
    g = i == 1 ? mlip__poly(mlip__erfc_G1, 15, w)
               : i == 2 ? mlip__poly(mlip__erfc_G2, 14, w) : mlip__poly(mlip__erfc_G3, 13, w);
    v = 1.0 - mlip__exp_d(-(d * d)) * g;
  }
  return mlip__d2f(u >> 31 ? -v : v);
}

/* The square root, correctly rounded (to nearest, ties to even), by integer
 * arithmetic: x = M 2^(2E) with M of 49 or 50 bits, q = floor(sqrt(M)) of
 * 25 bits by the bit-by-bit method, the 25th bit and the remainder round it.
 * IEEE's sqrt gives the same float, so this matches sqrtf on every host,
 * without a C library (the MLIP simulator's SQRT). sqrt(-0) = -0, of a
 * negative number or -inf the NaN of a domain error. */
static inline float mlip_sqrtf(float x) {
  uint32_t u = mlip__fbits(x), m;
  uint64_t big, q = 0, r = 0;
  int e, i;
  if ((u & 0x7fffffffu) == 0) return x;              /* +-0 */
  if ((u & 0x7fffffffu) > 0x7f800000u) return mlip__qnan(u);
  if (u >> 31) return mlip__domain();                /* negative, -inf */
  if (u == 0x7f800000u) return x;                    /* +inf */
  e = (int)(u >> 23);
  m = u & 0x7fffffu;
  if (e == 0) {                                      /* subnormal: normalize */
    e = 1;
    while (!(m & 0x800000u)) { m <<= 1; --e; }
  } else {
    m |= 0x800000u;
  }
  e -= 127;                                          /* x = m 2^(e - 23) */
  if (e & 1) { m <<= 1; --e; }                       /* e even, m < 2^25 */
  big = (uint64_t)m << 25;                           /* x = big 2^(e - 48) */
  for (i = 24; i >= 0; --i) {                        /* q = floor(sqrt(big)) */
    r = (r << 2) | ((big >> (2 * i)) & 3u);
    if (r >= ((q << 2) | 1u)) { r -= (q << 2) | 1u; q = (q << 1) | 1u; }
    else q <<= 1;
  }
  /* q in [2^24, 2^25): sqrt(x) = q 2^((e - 48) / 2) = (q / 2^24) 2^(e / 2) */
  m = (uint32_t)(q >> 1);
  if ((q & 1u) && (r != 0u || (m & 1u))) ++m;       /* never an exact tie */
  return mlip__ffrom(((uint32_t)(e / 2 + 126) << 23) + m);
}

/* ---- float16 -------------------------------------------------------------- */

/* The MLIP simulator (runtime/sim) has its own, out-of-line conversions of
 * the same names (mlip/region.h) and defines MLIP_KMATH_NO_FLOAT16 before
 * including this header for its activations. */
#ifndef MLIP_KMATH_NO_FLOAT16

/* IEEE binary16 (float16, stored as its bits) to binary32: exact. */
static inline float mlip_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu, bits;
  if (exp == 0x1Fu) {
    bits = sign | 0x7F800000u | (man << 13); /* infinity, NaN */
  } else if (exp != 0) {
    bits = sign | ((exp + 112u) << 23) | (man << 13);
  } else if (man == 0) {
    bits = sign;
  } else { /* subnormal: normalize the mantissa */
    exp = 113u;
    while (!(man & 0x400u)) {
      man <<= 1;
      --exp;
    }
    bits = sign | (exp << 23) | ((man & 0x3FFu) << 13);
  }
  return mlip__ffrom(bits);
}

/* binary32 to binary16, rounding to nearest even by integer code (immune to
 * flush-to-zero modes); a NaN becomes the quiet NaN 0x7E00 with its sign, as
 * in libfp16. */
static inline uint16_t mlip_f32_to_f16(float f) {
  uint32_t x = mlip__fbits(f), sign, exp, man, h, rest, half, shift;
  sign = (x >> 16) & 0x8000u;
  exp = (x >> 23) & 0xFFu;
  man = x & 0x7FFFFFu;
  if (exp == 0xFFu) return (uint16_t)(sign | (man ? 0x7E00u : 0x7C00u));
  if (exp > 142u) return (uint16_t)(sign | 0x7C00u); /* 2^16 and above overflow */
  if (exp >= 113u) { /* a normal float16; a carry may round up to the next binade or infinity */
    h = ((exp - 112u) << 10) | (man >> 13);
    rest = man & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return (uint16_t)(sign | h);
  }
  if (exp < 102u) return (uint16_t)sign; /* below half the smallest subnormal */
  man |= 0x800000u; /* a subnormal float16: count units of 2^-24 */
  shift = 126u - exp;
  h = man >> shift;
  rest = man & ((1u << shift) - 1u);
  half = 1u << (shift - 1u);
  if (rest > half || (rest == half && (h & 1u))) ++h;
  return (uint16_t)(sign | h);
}

#endif /* MLIP_KMATH_NO_FLOAT16 */

/* ---- double precision, for float64 tensors --------------------------------- */

/* The exp and log cores above evaluated at a double: error about 2^-50 of
 * the result (a few ulp of a double, not always correctly rounded, the same
 * bits everywhere), special values as C99's. */
static inline double mlip_exp(double x) {
  MLIP__STRICT
  uint64_t u = mlip__dbits(x), a = u & 0x7fffffffffffffffull;
  double h;
  if (a > 0x7ff0000000000000ull) return mlip__dfrom(u | 0x0008000000000000ull);  /* NaN, quieted */
  if (x > 0x1.62e42fefa39efp+9) return mlip__dfrom(0x7ff0000000000000ull);     /* > log(DBL_MAX) */
  if (x < -0x1.74910d52d3052p+9) return 0.0;                                   /* < log(2^-1075) */
  if (x >= -708.0 && x <= 708.0) return mlip__exp_d(x);
  /* Near overflow (where 2^(m/32) would be 2^1024) and for subnormal
   * results: the square of e^(x/2), rounded once. */
  h = mlip__exp_d(0.5 * x);
  return h * h;
}

static inline double mlip_log(double x) {
  MLIP__STRICT
  uint64_t u = mlip__dbits(x), a = u & 0x7fffffffffffffffull;
  if (a > 0x7ff0000000000000ull) return mlip__dfrom(u | 0x0008000000000000ull);
  if (a == 0) return mlip__dfrom(0xfff0000000000000ull);  /* -inf */
  if (u >> 63) return mlip__dfrom(0x7ff8000000000000ull);  /* x < 0 */
  if (a == 0x7ff0000000000000ull) return x;
  if (a < 0x0010000000000000ull)  /* subnormal: scaled by 2^54 (exactly) into the normal range */
    return mlip__log_d(x * 0x1p54) - (54 * MLIP__LN2_HI + 54 * MLIP__LN2_LO);
  return mlip__log_d(x);
}

#if defined(MLIP__GCC_NO_CONTRACT)
#pragma GCC pop_options
#undef MLIP__GCC_NO_CONTRACT
#endif

#endif /* MLIP_KMATH_H_ */
