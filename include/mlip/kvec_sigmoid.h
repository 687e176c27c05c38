/* mlip_sigmoid_f (silu = 0) or mlip_silu_f (silu = 1) of mlip/kmath_f.h on
 * the MLIP__CT_G vectors at v, in place: its operations in its order, lane
 * by lane (the same bits), one step of all the vectors at a time, so the
 * chains of dependent operations (the two Horner chains, the division)
 * overlap with the others'.
 *
 * For the convolution templates' fused Sigmoid and SiLU (conv_tiled.c,
 * conv_dw_cl.c), one definition per vector type: a template defines
 *   MLIP_VSIG_VT  the vector type (mlip/kvec.h's MLIP_VT_<MB>) and
 *   MLIP_VSIG_FN  the function's name
 * and includes this file, which defines the function and undefines both;
 * hence no include guard. Needs mlip/kvec.h (MLIP_VUNROLL); the
 * coefficients are mlip/kmath_f.h's. */
#include "mlip/kmath_f.h"
#if !defined(MLIP_VSIG_VT) || !defined(MLIP_VSIG_FN)
#error "mlip/kvec_sigmoid.h: define MLIP_VSIG_VT and MLIP_VSIG_FN first"
#endif
#ifndef MLIP__CT_G
#define MLIP__CT_G 4
#endif
static inline void MLIP_VSIG_FN(MLIP_VSIG_VT* v, int silu) {
  typedef MLIP_VSIG_VT vt_;
  typedef int32_t vi_ __attribute__((vector_size(sizeof(vt_))));
  typedef uint32_t vu_ __attribute__((vector_size(sizeof(vt_))));
#define MLIP__CT_SEL(m, a, b) ((vt_)(((vi_)(a) & (m)) | ((vi_)(b) & ~(m))))
#define MLIP__CT_QNAN(a) ((vt_)((vi_)(a) | 0x00400000))
  const vt_ z = {0};
  vt_ a[MLIP__CT_G], t[MLIP__CT_G], p[MLIP__CT_G], q[MLIP__CT_G];
  int i;
  /* mlip__sigmoid_rat_f(a, a * a), a = |x| */
  MLIP_VUNROLL for (i = 0; i < MLIP__CT_G; ++i) {
    a[i] = (vt_)((vu_)v[i] & 0x7fffffffu);
    t[i] = a[i] * a[i];
    p[i] = z + MLIP__SIGMOID_P4;
    q[i] = z + MLIP__SIGMOID_Q4;
  }
  MLIP_VUNROLL for (i = 0; i < MLIP__CT_G; ++i) p[i] = p[i] * t[i] + MLIP__SIGMOID_P3;
  MLIP_VUNROLL for (i = 0; i < MLIP__CT_G; ++i) p[i] = p[i] * t[i] + MLIP__SIGMOID_P2;
  MLIP_VUNROLL for (i = 0; i < MLIP__CT_G; ++i) p[i] = p[i] * t[i] + MLIP__SIGMOID_P1;
  MLIP_VUNROLL for (i = 0; i < MLIP__CT_G; ++i) p[i] = p[i] * t[i] + MLIP__SIGMOID_P0;
  MLIP_VUNROLL for (i = 0; i < MLIP__CT_G; ++i) q[i] = q[i] * t[i] + MLIP__SIGMOID_Q3;
  MLIP_VUNROLL for (i = 0; i < MLIP__CT_G; ++i) q[i] = q[i] * t[i] + MLIP__SIGMOID_Q2;
  MLIP_VUNROLL for (i = 0; i < MLIP__CT_G; ++i) q[i] = q[i] * t[i] + MLIP__SIGMOID_Q1;
  MLIP_VUNROLL for (i = 0; i < MLIP__CT_G; ++i) q[i] = q[i] * t[i] + MLIP__SIGMOID_Q0;
  /* y clamped to 0.5, x's sign, 0.5 + y; then the SiLU's product */
  MLIP_VUNROLL for (i = 0; i < MLIP__CT_G; ++i) {
    const vt_ x = v[i];
    vt_ y = (a[i] * p[i]) / q[i];
    y = MLIP__CT_SEL((a[i] < MLIP__SIGMOID_A_HALF) & (y < 0.5f), y, z + 0.5f);
    y = 0.5f + (vt_)((vu_)y | ((vu_)x & 0x80000000u));
    y = MLIP__CT_SEL(x != x, MLIP__CT_QNAN(x), y);
    if (silu) y = MLIP__CT_SEL(x < -3.40282347e38f, -z, x * y); /* -0 at -inf */
    v[i] = y;
  }
#undef MLIP__CT_SEL
#undef MLIP__CT_QNAN
}
#undef MLIP_VSIG_VT
#undef MLIP_VSIG_FN
