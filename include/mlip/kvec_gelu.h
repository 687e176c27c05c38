/* mlip_gelu_f_vn(p, n): mlip_gelu_f (mlip/kmath_f.h) on the n floats at p,
 * in place, the same bits: its steps lane by lane in its order, on
 * MLIP__GELU_G vectors of MLIP_VT_8 at a time so that their chains of
 * dependent operations (the erf's two Horner chains, its division) overlap;
 * the last n % (MLIP__GELU_G * MLIP_VW_8) floats one by one.
 *
 * The fused GELU of the CPU kernels (c/kernel.cpp's activation block: the
 * MatMul's tile rows, the convolutions' blocks). Against the array form
 * mlip_gelu_f_n, which GCC vectorizes one vector at a time with each select
 * a blend of integer bits, x86 takes its minps and maxps for the four
 * clamps: minps(a, b) is a < b ? a : b lane by lane, the second operand
 * where either is NaN, which is the scalar select's result for every input
 * (x > 4 ? 4 : x is minps(4, x)); the NaN and -inf selects stay blends.
 * Elsewhere the clamps are those selects. A 4096-float array on AVX2: 0.77
 * ns a float against 1.19 (docs/benchmarks.md, stop 49). Width 1 and
 * Helium (no generic vector comparisons there) call mlip_gelu_f_n. */
#ifndef MLIP_KVEC_GELU_H_
#define MLIP_KVEC_GELU_H_

#include "mlip/kvec.h"
#include "mlip/kmath_f.h"

#if MLIP_VW_8 > 1 && !defined(__ARM_FEATURE_MVE)

#ifndef MLIP__GELU_G
#define MLIP__GELU_G 2 /* 2 x 5 live vectors: within 16 registers */
#endif
#define MLIP__GELU_SEL(m, a, b) ((vt_)(((vi_)(a) & (m)) | ((vi_)(b) & ~(m))))
#if (defined(__GNUC__) || defined(__clang__)) && defined(__AVX__) && MLIP_VW_8 == 8
#define MLIP__GELU_MIN(a, b) __builtin_ia32_minps256(a, b)
#define MLIP__GELU_MAX(a, b) __builtin_ia32_maxps256(a, b)
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__SSE__) && MLIP_VW_8 == 4
#define MLIP__GELU_MIN(a, b) __builtin_ia32_minps(a, b)
#define MLIP__GELU_MAX(a, b) __builtin_ia32_maxps(a, b)
#else
#define MLIP__GELU_MIN(a, b) MLIP__GELU_SEL((a) < (b), a, b)
#define MLIP__GELU_MAX(a, b) MLIP__GELU_SEL((a) > (b), a, b)
#endif

static inline void mlip_gelu_f_vn(float* p, int32_t n) {
  MLIP__STRICT
  typedef MLIP_VT_8 vt_;
  typedef int32_t vi_ __attribute__((vector_size(sizeof(vt_))));
  enum { W = MLIP_VW_8, G = MLIP__GELU_G };
  const vt_ z = {0};
  int32_t i, g;
  for (i = 0; i + G * W <= n; i += G * W) {
    vt_ x[G], u[G], c[G], t[G], pp[G], q[G];
    MLIP_VUNROLL for (g = 0; g < G; ++g) {
      x[g] = MLIP_VLOAD_8(p + i + g * W);
      u[g] = x[g] * MLIP__GELU_RSQRT2; /* erf's argument */
      c[g] = MLIP__GELU_MAX(z - 4.0f, MLIP__GELU_MIN(z + 4.0f, u[g]));
      t[g] = c[g] * c[g];
      pp[g] = z + MLIP__ERF_P6;
      q[g] = z + MLIP__ERF_Q4;
    }
    MLIP_VUNROLL for (g = 0; g < G; ++g) pp[g] = pp[g] * t[g] + MLIP__ERF_P5;
    MLIP_VUNROLL for (g = 0; g < G; ++g) q[g] = q[g] * t[g] + MLIP__ERF_Q3;
    MLIP_VUNROLL for (g = 0; g < G; ++g) pp[g] = pp[g] * t[g] + MLIP__ERF_P4;
    MLIP_VUNROLL for (g = 0; g < G; ++g) q[g] = q[g] * t[g] + MLIP__ERF_Q2;
    MLIP_VUNROLL for (g = 0; g < G; ++g) pp[g] = pp[g] * t[g] + MLIP__ERF_P3;
    MLIP_VUNROLL for (g = 0; g < G; ++g) q[g] = q[g] * t[g] + MLIP__ERF_Q1;
    MLIP_VUNROLL for (g = 0; g < G; ++g) pp[g] = pp[g] * t[g] + MLIP__ERF_P2;
    MLIP_VUNROLL for (g = 0; g < G; ++g) q[g] = q[g] * t[g] + MLIP__ERF_Q0;
    MLIP_VUNROLL for (g = 0; g < G; ++g) pp[g] = pp[g] * t[g] + MLIP__ERF_P1;
    MLIP_VUNROLL for (g = 0; g < G; ++g) pp[g] = pp[g] * t[g] + MLIP__ERF_P0;
    MLIP_VUNROLL for (g = 0; g < G; ++g) {
      vt_ e = (c[g] * pp[g]) / q[g];
      e = MLIP__GELU_MAX(z - 1.0f, MLIP__GELU_MIN(z + 1.0f, e));
      e = MLIP__GELU_SEL(u[g] != u[g], (vt_)((vi_)u[g] | 0x00400000), e); /* mlip__nan_or */
      e = (x[g] * (e + 1.0f)) * 0.5f;
      e = MLIP__GELU_SEL(x[g] < -3.40282347e38f, -z, e); /* -0 at -inf */
      MLIP_VSTORE_8(p + i + g * W, e);
    }
  }
  for (; i < n; ++i) p[i] = mlip_gelu_f(p[i]);
}

#undef MLIP__GELU_SEL
#undef MLIP__GELU_MIN
#undef MLIP__GELU_MAX

#else

static inline void mlip_gelu_f_vn(float* p, int32_t n) { mlip_gelu_f_n(p, n); }

#endif

#endif /* MLIP_KVEC_GELU_H_ */
