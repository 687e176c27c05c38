/* mlip/kq8.h's product for x86-64 with AVX2 (what `mlipc run` builds with
 * -march=native on any x86-64 of the last decade), immintrin.h: four rows
 * of A against one row of W at a time, 16 bytes per step (A's XORed with
 * flip) widened to int16 (VPMOVSXBW) and multiplied with pairs added into
 * eight int32 lanes (VPMADDWD: two products of at most 2^14 each); the
 * row's tail one product at a time. Requantization is the reference's
 * (mlip/requant.h): per output, its 64-bit steps cost little beside the K
 * products. */
#ifndef MLIP_KQ8_X86_H_
#define MLIP_KQ8_X86_H_

#include "mlip/strict_fp.h" /* before any definition: no contraction (C) */

#include <immintrin.h>
#include <stdint.h>

/* 16 bytes at p, XORed with flip, widened from int8 to int16. */
static inline __m256i mlip_kq8_load16_x86(const void* p, __m128i flip) {
  return _mm256_cvtepi8_epi16(_mm_xor_si128(_mm_loadu_si128((const __m128i*)p), flip));
}

/* The sum of the eight int32 lanes of v. */
static inline int32_t mlip_kq8_hsum_x86(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
  return _mm_cvtsi128_si32(s);
}

static inline void mlip_kq8_gemm_x86(int32_t P, int32_t M, int32_t K, const uint8_t* a, uint32_t flip,
                                     const int8_t* w, const int32_t* ch, int32_t zy, int32_t lo, int32_t hi,
                                     uint8_t* y, int32_t yp, int32_t ym) {
  const __m128i fv = _mm_set1_epi8((char)flip), none = _mm_setzero_si128();
  int32_t p, m, k, r;
  for (p = 0; p < P; p += 4) {
    const int32_t np = P - p < 4 ? P - p : 4;
    const uint8_t* ar[4];
    for (r = 0; r < 4; ++r) ar[r] = a + (p + (r < np ? r : 0)) * K; /* a missing row repeats row 0, not stored */
    for (m = 0; m < M; ++m) {
      const int8_t* wm = w + m * K;
      const int32_t* c = ch + MLIP_KQ8_CH * m;
      __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
      int32_t t[4];
      for (k = 0; k + 16 <= K; k += 16) {
        const __m256i wv = mlip_kq8_load16_x86(wm + k, none);
        s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(mlip_kq8_load16_x86(ar[0] + k, fv), wv));
        s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(mlip_kq8_load16_x86(ar[1] + k, fv), wv));
        s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(mlip_kq8_load16_x86(ar[2] + k, fv), wv));
        s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(mlip_kq8_load16_x86(ar[3] + k, fv), wv));
      }
      t[0] = c[0] + mlip_kq8_hsum_x86(s0);
      t[1] = c[0] + mlip_kq8_hsum_x86(s1);
      t[2] = c[0] + mlip_kq8_hsum_x86(s2);
      t[3] = c[0] + mlip_kq8_hsum_x86(s3);
      for (; k < K; ++k)
        for (r = 0; r < 4; ++r) t[r] += mlip_kq8_product(ar[r][k], flip, wm[k]);
      for (r = 0; r < np; ++r)
        y[(p + r) * yp + m * ym] = (uint8_t)mlip_requantize(t[r], c[1], c[2], zy, lo, hi);
    }
  }
}

#define MLIP_KQ8_GEMM_X86(X) X(mlip_kq8_gemm_x86, "x86")

#endif /* MLIP_KQ8_X86_H_ */
