/* mlip/kq8.h's product for x86-64 with AVX2 (what `mlipc run` builds with
 * -march=native on any x86-64 of the last decade): four rows of A against
 * one row of W at a time, 16 bytes per step (A's XORed with flip) widened
 * to int16 (VPMOVSXBW) and multiplied with pairs added into eight int32
 * lanes (VPMADDWD: two products of at most 2^14 each); the row's tail one
 * product at a time. Requantization is the reference's (mlip/requant.h):
 * per output, its 64-bit steps cost little beside the K products.
 * Written with GCC's vector extensions (Clang has them too) and AVX2's
 * documented built-in for VPMADDWD instead of immintrin.h's intrinsics:
 * at -O3 -march=native immintrin.h alone takes GCC 12 about 0.15 CPU-s to
 * parse, more than the rest of a small model's generated C. */
#ifndef MLIP_KQ8_X86_H_
#define MLIP_KQ8_X86_H_

#include "mlip/strict_fp.h" /* before any definition: no contraction (C) */

#include <stdint.h>
#include <string.h>

typedef int8_t mlip_kq8_x86_b16 __attribute__((vector_size(16)));
typedef int16_t mlip_kq8_x86_h16 __attribute__((vector_size(32)));
typedef int32_t mlip_kq8_x86_w8 __attribute__((vector_size(32)));

/* 16 bytes at p, XORed with flip, widened from int8 to int16. */
static inline mlip_kq8_x86_h16 mlip_kq8_load16_x86(const void* p, mlip_kq8_x86_b16 flip) {
  mlip_kq8_x86_b16 v;
  memcpy(&v, p, sizeof v);
  return __builtin_convertvector(v ^ flip, mlip_kq8_x86_h16);
}

/* Pairs of int16 products added into eight int32 lanes (VPMADDWD). */
static inline mlip_kq8_x86_w8 mlip_kq8_madd_x86(mlip_kq8_x86_h16 a, mlip_kq8_x86_h16 b) {
  return (mlip_kq8_x86_w8)__builtin_ia32_pmaddwd256(a, b);
}

/* The sum of the eight int32 lanes of v (no partial sum can overflow:
 * mlip_kq8_start's precondition bounds every sum of products). */
static inline int32_t mlip_kq8_hsum_x86(mlip_kq8_x86_w8 v) {
  return ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]));
}

static inline void mlip_kq8_gemm_x86(int32_t P, int32_t M, int32_t K, const uint8_t* a, uint32_t flip,
                                     const int8_t* w, const int32_t* ch, int32_t zy, int32_t lo, int32_t hi,
                                     uint8_t* y, int32_t yp, int32_t ym) {
  const mlip_kq8_x86_b16 none = {0}, fv = none + (int8_t)(uint8_t)flip;
  int32_t p, m, k, r;
  for (p = 0; p < P; p += 4) {
    const int32_t np = P - p < 4 ? P - p : 4;
    const uint8_t* ar[4];
    for (r = 0; r < 4; ++r) ar[r] = a + (p + (r < np ? r : 0)) * K; /* a missing row repeats row 0, not stored */
    for (m = 0; m < M; ++m) {
      const int8_t* wm = w + m * K;
      const int32_t* c = ch + MLIP_KQ8_CH * m;
      mlip_kq8_x86_w8 s0 = {0}, s1 = s0, s2 = s0, s3 = s0;
      int32_t t[4];
      for (k = 0; k + 16 <= K; k += 16) {
        const mlip_kq8_x86_h16 wv = mlip_kq8_load16_x86(wm + k, none);
        s0 += mlip_kq8_madd_x86(mlip_kq8_load16_x86(ar[0] + k, fv), wv);
        s1 += mlip_kq8_madd_x86(mlip_kq8_load16_x86(ar[1] + k, fv), wv);
        s2 += mlip_kq8_madd_x86(mlip_kq8_load16_x86(ar[2] + k, fv), wv);
        s3 += mlip_kq8_madd_x86(mlip_kq8_load16_x86(ar[3] + k, fv), wv);
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
