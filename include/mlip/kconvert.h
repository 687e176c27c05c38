/* Conversions between the 16-bit float formats and float/double, for the
 * generated Cast kernels (templates/kernels/cast.c) and the compiler's
 * reference Cast (codegen/ops/cast.cpp): one definition that both include,
 * so that kernel and reference agree bit for bit.
 *
 * Narrowing rounds to nearest even, once, from the double value (a float64
 * narrowed through float32 would round twice); values beyond the format's
 * range become infinities, NaN becomes the quiet NaN of the same sign.
 * Widening is exact (float16 to float32 is kmath.h's mlip_f16_to_f32). Plain
 * C99, also valid C++. */
#ifndef MLIP_KCONVERT_H_
#define MLIP_KCONVERT_H_

#include "mlip/strict_fp.h" /* before any definition: no contraction (C) */

#include <stdint.h>
#include <string.h>

#include "kmath.h"

/* x / 2^s rounded to nearest even (s in 1..127). */
static inline uint64_t mlip_round_shift(uint64_t x, int s) {
  uint64_t q, rem, half;
  if (s >= 64) return 0; /* x < 2^53 here: less than half a unit */
  q = x >> s;
  rem = x & ((((uint64_t)1) << s) - 1u);
  half = ((uint64_t)1) << (s - 1);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  return q;
}

/* d rounded to a binary format with `eb` exponent and `mb` mantissa bits
 * (float16: 5, 10; bfloat16: 8, 7), returned as its bit pattern. */
static inline uint32_t mlip_f64_to_small(double d, int eb, int mb) {
  uint64_t u, a, m, q;
  uint32_t sign, inf;
  int bias, e;
  memcpy(&u, &d, sizeof u);
  sign = (uint32_t)(u >> 63) << (eb + mb);
  a = u & 0x7FFFFFFFFFFFFFFFull;
  inf = ((((uint32_t)1) << eb) - 1u) << mb;
  bias = (1 << (eb - 1)) - 1;
  if (a > 0x7FF0000000000000ull) return sign | inf | (((uint32_t)1) << (mb - 1));
  e = (int)(a >> 52) - 1023;
  m = a & 0x000FFFFFFFFFFFFFull;
  if (e > bias) return sign | inf;
  if (e >= 1 - bias) {
    /* Exponent field above the 52 mantissa bits: a carry out of the mantissa
     * moves to the next exponent, up to infinity. */
    q = mlip_round_shift((((uint64_t)(e + bias)) << 52) | m, 52 - mb);
  } else {
    /* Subnormal in the small format (zero and double subnormals round to 0). */
    q = mlip_round_shift((((uint64_t)1) << 52) | m, 52 - mb + (1 - bias - e));
  }
  return sign | (uint32_t)q;
}

static inline uint16_t mlip_f64_to_f16(double d) { return (uint16_t)mlip_f64_to_small(d, 5, 10); }
static inline uint16_t mlip_f64_to_bf16(double d) { return (uint16_t)mlip_f64_to_small(d, 8, 7); }

static inline float mlip_bf16_to_f32(uint16_t h) {
  const uint32_t bits = ((uint32_t)h) << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

#endif /* MLIP_KCONVERT_H_ */
