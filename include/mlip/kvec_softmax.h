/* mlip__softmax_exps_vn(x, y, n, mx, sv): Softmax's exponentials of a
 * contiguous row and their partial sums in one pass (templates/kernels/
 * softmax.c, the rows form with n >= 16): y[k] = e^(x[k] - mx) by
 * mlip/kmath_f.h's mlip__exp_nonpos_fma_num_f, its steps lane by lane in
 * its order, so its bits (some NaN where x[k] - mx is NaN: the sum is then
 * NaN, and so is every output of the row); sv the 16 partial sums
 * mlip__fold16_f folds (16 / width vectors), each in k's order: lane k mod 16 for the whole
 * blocks of 16 from the row's start, the tail's n mod 16 terms the top
 * lanes of the row's last 16 columns (the other lanes of that block masked
 * to +0, which adds nothing; their exponentials stored again, the same
 * values).
 *
 * MLIP__SMX_G vectors of consecutive columns at a time (at least a block
 * of 16), their exponentials' steps interleaved: one exponential is a
 * chain of a dozen dependent operations (about 50 cycles on Zen 3). The
 * exponentials and the sum in one pass, not two (the sum's pass read the
 * row again). Width 1 and Helium (no generic vector comparisons there)
 * take the kernel's scalar loops. */
#ifndef MLIP_KVEC_SOFTMAX_H_
#define MLIP_KVEC_SOFTMAX_H_

#include "mlip/kvec.h"
#include "mlip/kmath_f.h"

#if MLIP_VW_16 > 1 && !defined(__ARM_FEATURE_MVE)

#ifndef MLIP__SMX_G
#define MLIP__SMX_G 2
#endif
#if defined(__GNUC__) || defined(__clang__)
#define MLIP__SMX_INLINE static inline __attribute__((always_inline))
#else
#define MLIP__SMX_INLINE static inline
#endif

typedef MLIP_VT_16 mlip__smx_vt;
typedef int32_t mlip__smx_vi __attribute__((vector_size(sizeof(mlip__smx_vt))));
typedef uint32_t mlip__smx_vu __attribute__((vector_size(sizeof(mlip__smx_vt))));

/* a > b ? a : b lane by lane (b where either is NaN): x86's maxps, else a
 * compare and a blend of bits. */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__AVX__) && MLIP_VW_16 == 8
#define MLIP__SMX_MAX(a, b) __builtin_ia32_maxps256(a, b)
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__SSE__) && MLIP_VW_16 == 4
#define MLIP__SMX_MAX(a, b) __builtin_ia32_maxps(a, b)
#else
#define MLIP__SMX_MAX(a, b) mlip__smx_max(a, b)
#endif
static inline mlip__smx_vt mlip__smx_max(mlip__smx_vt a, mlip__smx_vt b) {
  const mlip__smx_vi g = (mlip__smx_vi)(a > b);
  return (mlip__smx_vt)(((mlip__smx_vi)a & g) | ((mlip__smx_vi)b & ~g));
}

/* ng vectors (a constant once inlined: G, MLIP__SMX_G rounded up to whole
 * blocks of 16 columns, or one block) from
 * x: their exponentials into y and onto the partial sums sv, vector g onto
 * sv[g mod (16 / width)]; tm masks the lanes added (NULL: all of them). */
MLIP__SMX_INLINE void mlip__smx_block(const float* x, float* y, mlip__smx_vt m, mlip__smx_vt* sv, int32_t ng,
                                      const mlip__smx_vi* tm) {
  MLIP__STRICT
  typedef mlip__smx_vt vt_;
  typedef mlip__smx_vi vi_;
  typedef mlip__smx_vu vu_;
  enum { W = MLIP_VW_16, NV = 16 / MLIP_VW_16, G = (MLIP__SMX_G + NV - 1) / NV * NV };
  const vt_ z = {0};
  vt_ xv[G], zv[G], rv[G], pv[G];
  int32_t g;
  MLIP_VUNROLL for (g = 0; g < G; ++g) if (g < ng) {
    xv[g] = MLIP__SMX_MAX(z - 88.0f, MLIP_VLOAD_16(x + g * W) - m); /* NaN stays */
    zv[g] = MLIP_VFMA_16(xv[g], z + 1.44269502f, z + 12582912.0f);
  }
  MLIP_VUNROLL for (g = 0; g < G; ++g) if (g < ng) {
    const vt_ k = zv[g] - 12582912.0f;
    rv[g] = MLIP_VFMA_16(k, z - 0.693147182f, xv[g]);
    pv[g] = MLIP_VFMA_16(z + MLIP__EXP6_C6, rv[g], z + MLIP__EXP6_C5);
  }
  MLIP_VUNROLL for (g = 0; g < G; ++g) if (g < ng) pv[g] = MLIP_VFMA_16(pv[g], rv[g], z + MLIP__EXP6_C4);
  MLIP_VUNROLL for (g = 0; g < G; ++g) if (g < ng) pv[g] = MLIP_VFMA_16(pv[g], rv[g], z + MLIP__EXP6_C3);
  MLIP_VUNROLL for (g = 0; g < G; ++g) if (g < ng) pv[g] = MLIP_VFMA_16(pv[g], rv[g], z + MLIP__EXP6_C2);
  MLIP_VUNROLL for (g = 0; g < G; ++g) if (g < ng) pv[g] = MLIP_VFMA_16(pv[g], rv[g], z + 1.0f);
  MLIP_VUNROLL for (g = 0; g < G; ++g) if (g < ng) pv[g] = MLIP_VFMA_16(pv[g], rv[g], z + 1.0f);
  MLIP_VUNROLL for (g = 0; g < G; ++g) if (g < ng) {
    vt_ e = pv[g] * (vt_)(((vu_)zv[g] << 23) + 0x3f800000u);
    MLIP_VSTORE_16(y + g * W, e);
    if (tm) e = (vt_)((vi_)e & tm[g]);
    sv[g % NV] = sv[g % NV] + e;
  }
}

MLIP__SMX_INLINE void mlip__softmax_exps_vn(const float* x, float* y, int32_t n, float mx, mlip__smx_vt* sv) {
  MLIP__STRICT
  enum { W = MLIP_VW_16, NV = 16 / MLIP_VW_16, G = (MLIP__SMX_G + NV - 1) / NV * NV };
  const mlip__smx_vt m = (mlip__smx_vt){0} + mx;
  int32_t k, l;
  for (l = 0; l < NV; ++l) sv[l] = (mlip__smx_vt){0};
  for (k = 0; k + G * W <= n; k += G * W) mlip__smx_block(x + k, y + k, m, sv, G, 0);
  for (; k + 16 <= n; k += 16) mlip__smx_block(x + k, y + k, m, sv, NV, 0);
  if (k < n) {
    mlip__smx_vi tm[NV];
    int32_t t[16];
    for (l = 0; l < 16; ++l) t[l] = l >= 16 - n % 16 ? -1 : 0;
    memcpy(tm, t, sizeof tm);
    mlip__smx_block(x + n - 16, y + n - 16, m, sv, NV, tm);
  }
}

#endif

#endif /* MLIP_KVEC_SOFTMAX_H_ */
