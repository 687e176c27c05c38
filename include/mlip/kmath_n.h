/* mlip/kmath.h's exp and erf over an array, in place: the same bits as
 * calling mlip_expf (mlip_erff) on every element, several elements at a
 * time where the compiler has vectors (mlip/kvec.h), which a per-element
 * call is not: the elementwise Exp and Erf map their output with these.
 * (The float activations, sigmoid, SiLU and tanh, use mlip/kmath_f.h's
 * float-precision array forms.)
 *
 * Each lane performs the scalar function's double operations in its order:
 * the float widened exactly, e = 2^(m/32) (1 + q) from the same reduction,
 * table and polynomial (mlip__exp_parts), rounded once to float. The
 * widening and the final rounding use the hardware's conversions, which
 * equal kmath's integer code except where the floating-point environment
 * flushes subnormals; so a lane whose input is a subnormal, or whose result
 * is a subnormal or the smallest normal float, goes through the scalar
 * function itself. NaN and the saturated ranges take the scalar function's
 * answers. Tests: tests/unit/c/kmath_n_test.cpp (every 4093rd float and the
 * edges, at each vector width, against the scalar function). */
#ifndef MLIP_KMATH_N_H_
#define MLIP_KMATH_N_H_

#include "mlip/strict_fp.h" /* before any definition: no contraction (C) */

#include <stdint.h>
#include <string.h>

#include "mlip/kmath.h"
#include "mlip/kvec.h"

#if MLIP_VL >= 4 && defined(__has_builtin)
#if __has_builtin(__builtin_convertvector)
#define MLIP_KMATH_N_VECTOR 1
#endif
#endif

#ifdef MLIP_KMATH_N_VECTOR
#define MLIP__NH (MLIP_VL / 2) /* doubles per vector: half the floats */
typedef float mlip__vfh __attribute__((vector_size(MLIP__NH * 4)));
typedef uint32_t mlip__vuh __attribute__((vector_size(MLIP__NH * 4)));
typedef double mlip__vd __attribute__((vector_size(MLIP__NH * 8)));
typedef int64_t mlip__vl __attribute__((vector_size(MLIP__NH * 8)));

/* e^z = s + s q as mlip__exp_parts(z, 0, &s, &q) computes it, lane by
 * lane: t = round(z * 32/ln2) + 1.5 * 2^52 holds the integer m in its low
 * bits (m = bits(t) - bits(1.5 * 2^52)), s = 2^(m/32) from the table and a
 * power of two, q the polynomial in the reduced argument. By pointer: no
 * vector crosses a call boundary (the ABI of wide vectors depends on -m
 * flags). */
static inline void mlip__exp_parts_v(const mlip__vd* z, mlip__vd* s, mlip__vd* q) {
  MLIP__STRICT
  mlip__vd t, kd, r, tab;
  mlip__vl bits, m, j;
  int l;
  t = *z * MLIP__INV_LN2_32 + MLIP__ROUND;
  kd = t - MLIP__ROUND;
  memcpy(&bits, &t, sizeof bits);
  m = bits - 0x4338000000000000ll;
  j = m & 31;
  r = (*z - kd * (MLIP__LN2_HI / 32)) - kd * (MLIP__LN2_LO / 32) + 0.0;
  *q = r + r * r * (0.5 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120 + r * (1.0 / 720 + r * (1.0 / 5040))))));
  for (l = 0; l < MLIP__NH; ++l) tab[l] = mlip__exp2_tab[j[l]];
  bits = (((m - j) >> 5) + 1023) << 52; /* mlip__pow2((m - j) / 32) */
  memcpy(s, &bits, sizeof *s);
  *s = tab * *s;
}

/* e^x of MLIP__NH floats at p, in place, as mlip_expf computes it: the
 * float widened, mlip__exp_parts' reduction, table and polynomial, s + s q
 * rounded once to float; NaN, x > 89 and x < -104 take the scalar
 * function's answers. Returns the lanes whose x is a subnormal or
 * -104 <= x < -87 (a subnormal or the smallest normal result), where a
 * flush-to-zero mode would change the bits: the caller recomputes them with
 * mlip_expf. */
static inline mlip__vuh mlip__exp_v(float* p) {
  MLIP__STRICT
  mlip__vfh x, y;
  mlip__vuh u, a, out, nan, inf, zero;
  mlip__vd xd, q, s;
  memcpy(&x, p, sizeof x);
  memcpy(&u, &x, sizeof u);
  a = u & 0x7fffffffu;
  xd = __builtin_convertvector(x, mlip__vd);
  mlip__exp_parts_v(&xd, &s, &q);
  y = __builtin_convertvector(s + s * q, mlip__vfh);
  memcpy(&out, &y, sizeof out);
  /* NaN (quieted), +inf above 89, 0 below -104. */
  nan = (mlip__vuh)(a > 0x7f800000u);
  inf = (mlip__vuh)((u < 0x80000000u) & (a > 0x42b20000u)) & ~nan;
  zero = (mlip__vuh)((u >= 0x80000000u) & (a > 0x42d00000u)) & ~nan;
  out = (out & ~(nan | inf | zero)) | (nan & (u | 0x00400000u)) | (inf & 0x7f800000u);
  memcpy(p, &out, sizeof out);
  return (mlip__vuh)((a != 0) & (a < 0x00800000u)) | ((mlip__vuh)((u >= 0x80000000u) & (a > 0x42ae0000u)) & ~zero & ~nan);
}
/* erf of MLIP__NH floats at p, in place, as mlip_erff computes it: on
 * |x| < 1, d P(d^2) (mlip__erf_P); on [1, 4), 1 - e^(-d^2) G(d - (i + 0.5))
 * with G the interval's polynomial (mlip__erfc_G1..G3, Horner from a
 * leading zero where a table is shorter: 0 w + c = c exactly); both are
 * computed, the lane takes its own. Rounded once to float, x's sign; NaN,
 * 0 and |x| >= 4 take the scalar function's answers. Returns the lanes whose
 * x is a subnormal (the only subnormal results), which the caller
 * recomputes with mlip_erff. */
static inline mlip__vuh mlip__erf_v(float* p) {
  MLIP__STRICT
  mlip__vfh x, ax, y;
  static const mlip__vuh none = {0};
  mlip__vuh u, a, out, nan, one, mid;
  mlip__vd d, z, small, c, g, w, q, s, e, v;
  mlip__vl in1, in2, in3, cb, lo;
  int k;
  memcpy(&x, p, sizeof x);
  memcpy(&u, &x, sizeof u);
  a = u & 0x7fffffffu;
  memcpy(&ax, &a, sizeof ax);
  d = __builtin_convertvector(ax, mlip__vd);
  /* |x| < 1: d * mlip__poly(mlip__erf_P, 12, d * d). */
  z = d * d;
  small = (mlip__vd){0} + mlip__erf_P[11];
  for (k = 10; k >= 0; --k) small = small * z + mlip__erf_P[k];
  small = d * small;
  v = small;
  /* [1, 4), when a lane is there: i = (int)d picks the polynomial;
   * w = d - (i + 0.5). */
  mid = (mlip__vuh)((a >= 0x3f800000u) & (a < 0x40800000u));
  if (memcmp(&mid, &none, sizeof mid) != 0) {
    in1 = (mlip__vl)(d < 2.0);
    in3 = (mlip__vl)(d >= 3.0);
    in2 = ~in1 & ~in3;
    {
      const mlip__vd h1 = (mlip__vd){0} + 1.5, h2 = (mlip__vd){0} + 2.5, h3 = (mlip__vd){0} + 3.5;
      mlip__vl b1, b2, b3;
      memcpy(&b1, &h1, sizeof b1);
      memcpy(&b2, &h2, sizeof b2);
      memcpy(&b3, &h3, sizeof b3);
      cb = (b1 & in1) | (b2 & in2) | (b3 & in3);
      memcpy(&c, &cb, sizeof c);
    }
    w = d - c;
    g = (mlip__vd){0};
    for (k = 14; k >= 0; --k) {
      const double c1 = mlip__erfc_G1[k], c2 = k < 14 ? mlip__erfc_G2[k] : 0.0, c3 = k < 13 ? mlip__erfc_G3[k] : 0.0;
      mlip__vl b1, b2, b3;
      mlip__vd v1 = (mlip__vd){0} + c1, v2 = (mlip__vd){0} + c2, v3 = (mlip__vd){0} + c3;
      memcpy(&b1, &v1, sizeof b1);
      memcpy(&b2, &v2, sizeof b2);
      memcpy(&b3, &v3, sizeof b3);
      cb = (b1 & in1) | (b2 & in2) | (b3 & in3);
      memcpy(&c, &cb, sizeof c);
      g = k == 14 ? c : g * w + c;
    }
    /* e^(-(d * d)) as mlip__exp_d. */
    z = -(d * d);
    mlip__exp_parts_v(&z, &s, &q);
    e = s + s * q;
    v = 1.0 - e * g;
    {
      mlip__vl sb, vb;
      memcpy(&sb, &small, sizeof sb);
      memcpy(&vb, &v, sizeof vb);
      lo = (mlip__vl)(d < 1.0);
      vb = (sb & lo) | (vb & ~lo);
      memcpy(&v, &vb, sizeof v);
    }
  }
  y = __builtin_convertvector(v, mlip__vfh);
  memcpy(&out, &y, sizeof out);
  /* NaN (quieted, its sign kept), 1 from 4 on, 0 at 0; then x's sign. */
  nan = (mlip__vuh)(a > 0x7f800000u);
  one = (mlip__vuh)(a >= 0x40800000u) & ~nan;
  out = (out & ~(nan | one | (mlip__vuh)(a == 0))) | (nan & (u | 0x00400000u)) | (one & 0x3f800000u);
  out |= u & 0x80000000u;
  memcpy(p, &out, sizeof out);
  return (mlip__vuh)((a != 0) & (a < 0x00800000u));
}
#endif

/* The array form of a scalar function: whole vectors through its vector
 * form, whose flagged lanes (inputs it leaves to the scalar function) go
 * back to the scalar function from the saved inputs, the tail through the
 * scalar function. Each gives the scalar function's bits. */
#ifdef MLIP_KMATH_N_VECTOR
#define MLIP__ARRAY_FORM_(name, vector, scalar)                \
  static inline void name(float* p, int32_t n) {               \
    static const mlip__vuh none = {0};                         \
    int32_t i = 0;                                             \
    for (; i + MLIP__NH <= n; i += MLIP__NH) {                 \
      float x[MLIP__NH];                                       \
      mlip__vuh fix;                                           \
      int l;                                                   \
      memcpy(x, p + i, sizeof x);                              \
      fix = vector(p + i);                                     \
      if (memcmp(&fix, &none, sizeof fix) != 0)                \
        for (l = 0; l < MLIP__NH; ++l)                         \
          if (fix[l]) p[i + l] = scalar(x[l]);                 \
    }                                                          \
    for (; i < n; ++i) p[i] = scalar(p[i]);                    \
  }
#else
#define MLIP__ARRAY_FORM_(name, vector, scalar)                \
  static inline void name(float* p, int32_t n) {               \
    int32_t i;                                                 \
    for (i = 0; i < n; ++i) p[i] = scalar(p[i]);               \
  }
#endif

/* p[i] = mlip_expf(p[i]) for i < n. */
MLIP__ARRAY_FORM_(mlip_expf_n, mlip__exp_v, mlip_expf)

/* p[i] = mlip_erff(p[i]) for i < n. */
MLIP__ARRAY_FORM_(mlip_erff_n, mlip__erf_v, mlip_erff)
#undef MLIP__ARRAY_FORM_

#endif /* MLIP_KMATH_N_H_ */
