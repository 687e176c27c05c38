/* MaxPool of floats from a row-major x [N, C, IH, IW] into a channels-last
 * y [N, OH, OW, C] (c/layout.h): the pools after a Concat, which has no
 * channels-last form, read by a convolution. MLIP_VW_16 channels at a time
 * (the last block overlapping the one before where the width does not
 * divide C), walking the input rows once: each needed row's VW planes are
 * read contiguously and transposed into one channels-last row in the
 * scratch (mlip/kvec.h's MLIP_VTRANSPOSE_16, values moved, never
 * computed), its horizontal maxima per output column go to a ring of RS
 * rows (RS: the rows one window spans, so a window's rows never share a
 * slot; a dilated window's rows are not consecutive, hence which row each
 * slot holds), and each output row takes
 * the maxima of its window's rows: all as vectors of channels, a compare
 * and a blend per tap.
 * The reference (maxpool.c, pool_cl.c) takes, per output, the first tap
 * inside in window order, then every later one that is greater or a NaN:
 * the last NaN of the window if it has one, else its first maximum (which
 * fixes the sign of a zero). Combining the results of consecutive runs of
 * taps in order by the same rule gives the same one, and a window's rows
 * are such runs (kh outer, kw inner), so row by row, then across the rows,
 * is the same bits; a window with no tap inside gives -INFINITY. (Columns
 * first would be cheaper where windows overlap vertically, but a column is
 * no run of the window order: a NaN's payload or a zero's sign could
 * differ.) */
#ifndef MLIP__MPR_STEP
#define MLIP__MPR_STEP
/* b after the tap a: a where a > b or a is a NaN, else b, lane by lane. */
static inline MLIP_VT_16 mlip__mpr_step(MLIP_VT_16 a, MLIP_VT_16 b) {
#if MLIP_VW_16 > 1 && !defined(__ARM_FEATURE_MVE)
  /* Not on Helium, whose GCC 12.2 miscompiles this mask (conv_tiled.c). */
  typedef int32_t vm __attribute__((vector_size(sizeof(MLIP_VT_16))));
  const vm m = (a > b) | (a != a);
  vm ai, bi;
  memcpy(&ai, &a, sizeof ai);
  memcpy(&bi, &b, sizeof bi);
  ai = (ai & m) | (bi & ~m);
  memcpy(&b, &ai, sizeof ai);
  return b;
#else
  float fa[MLIP_VW_16], fb[MLIP_VW_16];
  int l;
  memcpy(fa, &a, sizeof fa);
  memcpy(fb, &b, sizeof fb);
  for (l = 0; l < MLIP_VW_16; ++l) fb[l] = fa[l] > fb[l] || fa[l] != fa[l] ? fa[l] : fb[l];
  memcpy(&b, fb, sizeof fb);
  return b;
#endif
}
#endif
static void {{fn}}(const float* restrict x, float* restrict y, void* scratch) {
  typedef MLIP_VT_16 vt;
  enum { VW = MLIP_VW_16, NC = {{C}} < VW ? {{C}} : VW };
  float* const xr = (float*)scratch;    /* one input row, channels-last: [IW][VW] */
  float* const hr = xr + {{IW}} * VW;   /* the ring: [RS][OW][VW] */
  for (int32_t n = 0; n < {{N}}; ++n) {
    for (int32_t cb = 0; cb < {{C}}; cb += VW) {
      const int32_t c0 = cb + VW <= {{C}} || {{C}} < VW ? cb : {{C}} - VW;
      const float* xb = x + n * {{XN}} + c0 * {{IPLANE}};
      float* yb = y + n * {{YN}} + c0;
      int32_t held[{{RS}}]; /* the row each slot of the ring holds */
      for (int32_t k = 0; k < {{RS}}; ++k) held[k] = -1;
      for (int32_t oh = 0; oh < {{OH}}; ++oh) {
        const int32_t first = oh * {{SH}} - {{PH}};
        for (int32_t kh = 0; kh < {{KH}}; ++kh) {
          const int32_t ih = first + kh * {{DH}};
          const float* xh;
          float* hp;
          if (ih < 0 || ih >= {{IH}} || held[ih % {{RS}}] == ih) continue;
          held[ih % {{RS}}] = ih;
          xh = xb + ih * {{IW}};
          hp = hr + (ih % {{RS}}) * {{OW}} * VW;
          /* The row channels-last: VW x VW blocks transposed (the last one
           * overlapping the one before), else lane by lane (lanes past
           * the channels repeat the last one; they are never stored). */
          if (NC == VW && {{IW}} >= VW) {
            for (int32_t w0 = 0; w0 < {{IW}}; w0 += VW) {
              const int32_t s = w0 + VW <= {{IW}} ? w0 : {{IW}} - VW;
              vt v[VW];
              int32_t l;
              for (l = 0; l < VW; ++l) v[l] = MLIP_VLOAD_16(xh + l * {{IPLANE}} + s);
              MLIP_VTRANSPOSE_16(v);
              for (l = 0; l < VW; ++l) MLIP_VSTORE_16(xr + (s + l) * VW, v[l]);
            }
          } else {
            for (int32_t iw = 0; iw < {{IW}}; ++iw)
              for (int32_t l = 0; l < VW; ++l) xr[iw * VW + l] = xh[(l < NC ? l : NC - 1) * {{IPLANE}} + iw];
          }
          /* Its maxima along W, kw in order. */
          for (int32_t ow = 0; ow < {{OW}}; ++ow) {
            vt best = (vt){0} - INFINITY;
            int32_t any = 0;
            for (int32_t kw = 0; kw < {{KW}}; ++kw) {
              const int32_t iw = ow * {{SW}} - {{PW}} + kw * {{DW}};
              vt a;
              if (iw < 0 || iw >= {{IW}}) continue;
              a = MLIP_VLOAD_16(xr + iw * VW);
              best = any ? mlip__mpr_step(a, best) : a;
              any = 1;
            }
            MLIP_VSTORE_16(hp + ow * VW, best);
          }
        }
        /* The output row: its window's rows in order. */
        for (int32_t ow = 0; ow < {{OW}}; ++ow) {
          vt best = (vt){0} - INFINITY;
          int32_t any = 0;
          for (int32_t kh = 0; kh < {{KH}}; ++kh) {
            const int32_t ih = first + kh * {{DH}};
            vt a;
            if (ih < 0 || ih >= {{IH}}) continue;
            a = MLIP_VLOAD_16(hr + ((ih % {{RS}}) * {{OW}} + ow) * VW);
            best = any ? mlip__mpr_step(a, best) : a;
            any = 1;
          }
          if (NC == VW) {
            MLIP_VSTORE_16(yb + (oh * {{OW}} + ow) * {{C}}, best);
          } else {
            float t[VW];
            memcpy(t, &best, sizeof t);
            memcpy(yb + (oh * {{OW}} + ow) * {{C}}, t, NC * sizeof(float));
          }
        }
      }
    }
  }
}
