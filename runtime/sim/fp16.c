/* IEEE 754 binary16 <-> binary32 by bit manipulation (docs/mlip-spec.md,
 * section 4): fp32 -> fp16 rounds to nearest, ties to even, overflows to
 * infinity from 65520 up, produces subnormals exactly, and turns every NaN
 * into the quiet NaN 0x7E00 with the input's sign; fp16 -> fp32 is exact. */
#include "sim_internal.h"

uint16_t mlip_f32_to_f16(float f) {
  uint32_t x;
  uint32_t sign;
  uint32_t exp;
  uint32_t mant;
  memcpy(&x, &f, sizeof x);
  sign = (x >> 16) & 0x8000u;
  exp = (x >> 23) & 0xFFu;
  mant = x & 0x7FFFFFu;

  if (exp == 0xFFu) {
    return (uint16_t)(sign | (mant != 0u ? 0x7E00u : 0x7C00u));
  }
  if (exp > 142u) {
    /* >= 2^16: beyond the rounding boundary 65520. */
    return (uint16_t)(sign | 0x7C00u);
  }
  if (exp >= 113u) {
    /* Normal half (2^-14 <= |f| < 2^16): keep 10 of 23 mantissa bits. A
       carry out of the mantissa increments the exponent, and out of the
       largest exponent gives 0x7C00 (infinity): both are what the bit
       pattern arithmetic produces. */
    uint32_t h = ((exp - 112u) << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u) != 0u)) {
      ++h;
    }
    return (uint16_t)(sign | h);
  }
  if (exp >= 102u) {
    /* Subnormal half: |f| = M * 2^(exp - 150) with the implicit bit in M;
       in units of 2^-24 that is M >> (126 - exp), shift 14..24. Rounding
       up out of the subnormals gives the smallest normal, correctly. */
    uint32_t m = mant | 0x800000u;
    uint32_t shift = 126u - exp;
    uint32_t h = m >> shift;
    uint32_t rem = m & ((1u << shift) - 1u);
    uint32_t half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (h & 1u) != 0u)) {
      ++h;
    }
    return (uint16_t)(sign | h);
  }
  /* |f| < 2^-25 (including fp32 subnormals and zeros): rounds to zero. */
  return (uint16_t)sign;
}

float mlip_sim_h2f_special(uint16_t h) {
  uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
  uint32_t exp = ((uint32_t)h >> 10) & 0x1Fu;
  uint32_t mant = (uint32_t)h & 0x3FFu;
  uint32_t bits;
  float f;
  if (exp == 0x1Fu) {
    bits = sign | 0x7F800000u | (mant << 13); /* infinity, or NaN keeping its payload */
  } else if (exp != 0u) {
    bits = sign | ((exp + 112u) << 23) | (mant << 13); /* a normal number too, for any caller */
  } else if (mant == 0u) {
    bits = sign; /* +-0 */
  } else {
    /* Subnormal half: mant * 2^-24. Normalize into an fp32 normal. */
    uint32_t e = 113u; /* biased fp32 exponent of 2^-14 */
    while ((mant & 0x400u) == 0u) {
      mant <<= 1;
      --e;
    }
    bits = sign | (e << 23) | ((mant & 0x3FFu) << 13);
  }
  memcpy(&f, &bits, sizeof f);
  return f;
}

float mlip_f16_to_f32(uint16_t h) {
  return mlip_sim_h2f(h);
}
