/* mlip/kq8.h's product for AArch64 Advanced SIMD (NEON), arm_neon.h: four
 * rows of A against one row of W at a time, 16 bytes per step (A's XORed
 * with flip); SMULL makes eight int16 products (each fits: at most 2^14),
 * SADALP adds their pairs into four int32 lanes; the row's tail one
 * product at a time. The four sums, one output channel's, are requantized
 * as one vector with the same instructions as the Helium variant
 * (mlip/kq8_mve.h gives each step's proof), or, for a float32 pair
 * (--requant ort), by mlip_requantize_f32's steps on the four lanes. */
#ifndef MLIP_KQ8_NEON_H_
#define MLIP_KQ8_NEON_H_

#include "mlip/strict_fp.h" /* before any definition: no contraction (C) */

#include <arm_neon.h>
#include <stdint.h>

/* mlip_requantize on four lanes with one (q, shift). */
static inline int32x4_t mlip_kq8_requant_neon(int32x4_t v, int32_t q, int32_t shift, int32_t zy, int32_t lo,
                                              int32_t hi) {
  if (shift > 0) v = vqshlq_s32(v, vdupq_n_s32(shift));  /* saturating, as x * 2^shift */
  v = vqrdmulhq_n_s32(v, q);                            /* floor((v q + 2^30) / 2^31) */
  if (shift < 0) v = vrshlq_s32(vqaddq_s32(v, vshrq_n_s32(v, 31)), vdupq_n_s32(shift)); /* ties away from 0 */
  v = vqaddq_s32(v, vdupq_n_s32(zy));
  return vminq_s32(vmaxq_s32(v, vdupq_n_s32(lo)), vdupq_n_s32(hi));
}

/* mlip_requantize_f32 on four lanes, each step the scalar one: SCVTF
 * converts with the FPCR's rounding (to nearest, ties to even, the
 * default), FMUL multiplies in IEEE single precision (no fusion), FMAX and
 * FMIN clamp (no NaN can occur), FCVTNS rounds to nearest with ties to
 * even, and the zero point is added to a value inside [lo - zy, hi - zy]. */
static inline int32x4_t mlip_kq8_requant_neon_f32(int32x4_t v, float scale, int32_t zy, int32_t lo, int32_t hi) {
  float32x4_t f = vmulq_n_f32(vcvtq_f32_s32(v), scale);
  f = vminq_f32(vmaxq_f32(f, vdupq_n_f32((float)(lo - zy))), vdupq_n_f32((float)(hi - zy)));
  return vaddq_s32(vcvtnq_s32_f32(f), vdupq_n_s32(zy));
}

/* Adds the 16 products of x and w to the four int32 lanes of s. */
static inline int32x4_t mlip_kq8_dot16_neon(int32x4_t s, int8x16_t x, int8x16_t w) {
  s = vpadalq_s16(s, vmull_s8(vget_low_s8(x), vget_low_s8(w)));
  return vpadalq_s16(s, vmull_high_s8(x, w));
}

static inline void mlip_kq8_gemm_neon(int32_t P, int32_t M, int32_t K, const uint8_t* a, uint32_t flip,
                                      const int8_t* w, const int32_t* ch, int32_t zy, int32_t lo, int32_t hi,
                                      uint8_t* y, int32_t yp, int32_t ym) {
  const uint8x16_t fv = vdupq_n_u8((uint8_t)flip);
  int32_t p, m, k, r;
  for (p = 0; p < P; p += 4) {
    const int32_t np = P - p < 4 ? P - p : 4;
    const uint8_t* ar[4];
    for (r = 0; r < 4; ++r) ar[r] = a + (p + (r < np ? r : 0)) * K; /* a missing row repeats row 0, not stored */
    for (m = 0; m < M; ++m) {
      const int8_t* wm = w + m * K;
      const int32_t* c = ch + MLIP_KQ8_CH * m;
      int32x4_t s0 = vdupq_n_s32(0), s1 = s0, s2 = s0, s3 = s0, acc;
      int32_t t0, t1, t2, t3;
      for (k = 0; k + 16 <= K; k += 16) {
        const int8x16_t wv = vld1q_s8(wm + k);
        s0 = mlip_kq8_dot16_neon(s0, vreinterpretq_s8_u8(veorq_u8(vld1q_u8(ar[0] + k), fv)), wv);
        s1 = mlip_kq8_dot16_neon(s1, vreinterpretq_s8_u8(veorq_u8(vld1q_u8(ar[1] + k), fv)), wv);
        s2 = mlip_kq8_dot16_neon(s2, vreinterpretq_s8_u8(veorq_u8(vld1q_u8(ar[2] + k), fv)), wv);
        s3 = mlip_kq8_dot16_neon(s3, vreinterpretq_s8_u8(veorq_u8(vld1q_u8(ar[3] + k), fv)), wv);
      }
      t0 = c[0] + vaddvq_s32(s0);
      t1 = c[0] + vaddvq_s32(s1);
      t2 = c[0] + vaddvq_s32(s2);
      t3 = c[0] + vaddvq_s32(s3);
      for (; k < K; ++k) {
        t0 += mlip_kq8_product(ar[0][k], flip, wm[k]);
        t1 += mlip_kq8_product(ar[1][k], flip, wm[k]);
        t2 += mlip_kq8_product(ar[2][k], flip, wm[k]);
        t3 += mlip_kq8_product(ar[3][k], flip, wm[k]);
      }
      acc = vsetq_lane_s32(t3, vsetq_lane_s32(t2, vsetq_lane_s32(t1, vdupq_n_s32(t0), 1), 2), 3);
      acc = c[2] == MLIP_REQUANT_F32 ? mlip_kq8_requant_neon_f32(acc, mlip_f32_of_bits(c[1]), zy, lo, hi)
                                     : mlip_kq8_requant_neon(acc, c[1], c[2], zy, lo, hi);
      {
        uint8_t* yo = y + p * yp + m * ym;
        yo[0] = (uint8_t)vgetq_lane_s32(acc, 0);
        if (np > 1) yo[yp] = (uint8_t)vgetq_lane_s32(acc, 1);
        if (np > 2) yo[2 * yp] = (uint8_t)vgetq_lane_s32(acc, 2);
        if (np > 3) yo[3 * yp] = (uint8_t)vgetq_lane_s32(acc, 3);
      }
    }
  }
}

#define MLIP_KQ8_GEMM_NEON(X) X(mlip_kq8_gemm_neon, "neon")

#endif /* MLIP_KQ8_NEON_H_ */
