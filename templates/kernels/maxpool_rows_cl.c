/* MaxPool of floats from a row-major x [N, C, IH, IW] into a channels-last
 * y [N, OH, OW, C] (c/layout.h): the pools after a Concat, which has no
 * channels-last form, read by a convolution; or from a channels-last x of
 * 16 channels or more (xcl, below). MLIP_VW_16 channels at a time
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
{{#xcl}}static void {{fn}}(const float* restrict x, float* restrict y, void* scratch) {
  /* x channels-last too (C >= 16 >= VW): no transpose, the ring holds all
   * the channels, [RS][OW][C]; each row's and each output's window taps
   * (kw, kh inside the input: one run, found once per position). */
  typedef MLIP_VT_16 vt;
  enum { VW = MLIP_VW_16 };
  float* const hr = (float*)(((uintptr_t)scratch + 63) & ~(uintptr_t)63); /* on a cache line */
  for (int32_t n = 0; n < {{N}}; ++n) {
    int32_t held[{{RS}}]; /* the row each slot of the ring holds */
    for (int32_t k = 0; k < {{RS}}; ++k) held[k] = -1;
    for (int32_t oh = 0; oh < {{OH}}; ++oh) {
      const int32_t first = oh * {{SH}} - {{PH}};
      int32_t kh0 = {{KH}}, kh1 = 0;
      for (int32_t kh = 0; kh < {{KH}}; ++kh) {
        const int32_t ih = first + kh * {{DH}};
        const float* xh;
        float* hp;
        if (ih < 0 || ih >= {{IH}}) continue;
        if (kh0 > kh) kh0 = kh;
        kh1 = kh + 1;
        if (held[ih % {{RS}}] == ih) continue;
        held[ih % {{RS}}] = ih;
        xh = x + n * {{XN}} + ih * {{IW}} * {{C}};
        hp = hr + (ih % {{RS}}) * {{OW}} * {{C}};
        for (int32_t ow = 0; ow < {{OW}}; ++ow) {
          int32_t kw0 = {{KW}}, kw1 = 0;
          for (int32_t kw = 0; kw < {{KW}}; ++kw) {
            const int32_t iw = ow * {{SW}} - {{PW}} + kw * {{DW}};
            if (iw < 0 || iw >= {{IW}}) continue;
            if (kw0 > kw) kw0 = kw;
            kw1 = kw + 1;
          }
          if (kw0 == 0 && kw1 == {{KW}}) { /* the whole window: its taps unrolled */
            const float* xp = xh + (ow * {{SW}} - {{PW}}) * {{C}};
            for (int32_t cb = 0; cb < {{C}}; cb += VW) {
              const int32_t c0 = cb + VW <= {{C}} ? cb : {{C}} - VW;
              vt best = MLIP_VLOAD_16(xp + c0);
              MLIP_VUNROLL
              for (int32_t kw = 1; kw < {{KW}}; ++kw) best = mlip__mpr_step(MLIP_VLOAD_16(xp + kw * {{DW}} * {{C}} + c0), best);
              MLIP_VSTORE_16(hp + ow * {{C}} + c0, best);
            }
          } else {
            for (int32_t cb = 0; cb < {{C}}; cb += VW) {
              const int32_t c0 = cb + VW <= {{C}} ? cb : {{C}} - VW;
              const int32_t xo = (ow * {{SW}} - {{PW}}) * {{C}} + c0;
              vt best = (vt){0} - INFINITY;
              if (kw0 < kw1) best = MLIP_VLOAD_16(xh + xo + kw0 * {{DW}} * {{C}});
              for (int32_t kw = kw0 + 1; kw < kw1; ++kw) best = mlip__mpr_step(MLIP_VLOAD_16(xh + xo + kw * {{DW}} * {{C}}), best);
              MLIP_VSTORE_16(hp + ow * {{C}} + c0, best);
            }
          }
        }
      }
      {
        /* The window's rows in the ring, in order. */
        const float* rp[{{KH}}];
        for (int32_t kh = kh0; kh < kh1; ++kh) rp[kh - kh0] = hr + ((first + kh * {{DH}}) % {{RS}}) * {{OW}} * {{C}};
        for (int32_t ow = 0; ow < {{OW}}; ++ow) {
          float* yp = y + n * {{YN}} + (oh * {{OW}} + ow) * {{C}};
          const int32_t o = ow * {{C}};
          if (kh1 - kh0 == {{KH}}) {
            for (int32_t cb = 0; cb < {{C}}; cb += VW) {
              const int32_t c0 = cb + VW <= {{C}} ? cb : {{C}} - VW;
              vt best = MLIP_VLOAD_16(rp[0] + o + c0);
              MLIP_VUNROLL
              for (int32_t k = 1; k < {{KH}}; ++k) best = mlip__mpr_step(MLIP_VLOAD_16(rp[k] + o + c0), best);
              MLIP_VSTORE_16(yp + c0, best);
            }
          } else {
            for (int32_t cb = 0; cb < {{C}}; cb += VW) {
              const int32_t c0 = cb + VW <= {{C}} ? cb : {{C}} - VW;
              vt best = (vt){0} - INFINITY;
              if (kh0 < kh1) best = MLIP_VLOAD_16(rp[0] + o + c0);
              for (int32_t k = 1; k < kh1 - kh0; ++k) best = mlip__mpr_step(MLIP_VLOAD_16(rp[k] + o + c0), best);
              MLIP_VSTORE_16(yp + c0, best);
            }
          }
        }
      }
    }
  }
}
{{/xcl}}{{^xcl}}static void {{fn}}(const float* restrict x, float* restrict y, void* scratch) {
  /* Blocks of 16 channels (NV vectors: a cache line of y per position),
   * the last overlapping the one before. */
  typedef MLIP_VT_16 vt;
  enum { VW = MLIP_VW_16, NV = 16 / VW, NC = {{C}} < 16 ? {{C}} : 16 };
  /* On a cache line: a row's vectors then never straddle two (SqueezeNet's
   * first pool 83 -> 105 us with the scratch 4 bytes past a line). */
  float* const xr = (float*)(((uintptr_t)scratch + 63) & ~(uintptr_t)63); /* one input row, channels-last: [IW][16] */
  float* const hr = xr + {{IW}} * 16;   /* the ring: [RS][OW][16] */
  for (int32_t n = 0; n < {{N}}; ++n) {
    for (int32_t cb = 0; cb < {{C}}; cb += 16) {
      const int32_t c0 = cb + 16 <= {{C}} || {{C}} < 16 ? cb : {{C}} - 16;
      const float* xb = x + n * {{XN}} + c0 * {{IPLANE}};
      float* yb = y + n * {{YN}} + c0;
      int32_t held[{{RS}}]; /* the row each slot of the ring holds */
      for (int32_t k = 0; k < {{RS}}; ++k) held[k] = -1;
      for (int32_t oh = 0; oh < {{OH}}; ++oh) {
        const int32_t first = oh * {{SH}} - {{PH}};
        const float* rp[{{KH}}];
        int32_t nk = 0, j;
        for (int32_t kh = 0; kh < {{KH}}; ++kh) {
          const int32_t ih = first + kh * {{DH}};
          const float* xh;
          float* hp;
          if (ih < 0 || ih >= {{IH}}) continue;
          hp = hr + (ih % {{RS}}) * {{OW}} * 16;
          rp[nk++] = hp;
          if (held[ih % {{RS}}] == ih) continue;
          held[ih % {{RS}}] = ih;
          xh = xb + ih * {{IW}};
          /* The row channels-last: VW x VW blocks transposed (the last one
           * overlapping the one before), else lane by lane (lanes past
           * the channels repeat the last one; they are never stored). */
          if (NC == 16 && {{IW}} >= VW) {
            for (int32_t w0 = 0; w0 < {{IW}}; w0 += VW) {
              const int32_t s = w0 + VW <= {{IW}} ? w0 : {{IW}} - VW;
              for (j = 0; j < NV; ++j) {
                vt v[VW];
                int32_t l;
                for (l = 0; l < VW; ++l) v[l] = MLIP_VLOAD_16(xh + (j * VW + l) * {{IPLANE}} + s);
                MLIP_VTRANSPOSE_16(v);
                for (l = 0; l < VW; ++l) MLIP_VSTORE_16(xr + (s + l) * 16 + j * VW, v[l]);
              }
            }
          } else {
            for (int32_t iw = 0; iw < {{IW}}; ++iw)
              for (int32_t l = 0; l < 16; ++l) xr[iw * 16 + l] = xh[(l < NC ? l : NC - 1) * {{IPLANE}} + iw];
          }
          /* Its maxima along W, kw in order (the whole window's taps
           * unrolled). */
          for (int32_t ow = 0; ow < {{OW}}; ++ow) {
            const int32_t iw0 = ow * {{SW}} - {{PW}};
            for (j = 0; j < NV; ++j) {
              const float* xp = xr + j * VW;
              vt best = (vt){0} - INFINITY;
              if (iw0 >= 0 && iw0 + ({{KW}} - 1) * {{DW}} < {{IW}}) {
                best = MLIP_VLOAD_16(xp + iw0 * 16);
                MLIP_VUNROLL
                for (int32_t kw = 1; kw < {{KW}}; ++kw) best = mlip__mpr_step(MLIP_VLOAD_16(xp + (iw0 + kw * {{DW}}) * 16), best);
              } else {
                int32_t any = 0;
                for (int32_t kw = 0; kw < {{KW}}; ++kw) {
                  const int32_t iw = iw0 + kw * {{DW}};
                  vt a;
                  if (iw < 0 || iw >= {{IW}}) continue;
                  a = MLIP_VLOAD_16(xp + iw * 16);
                  best = any ? mlip__mpr_step(a, best) : a;
                  any = 1;
                }
              }
              MLIP_VSTORE_16(hp + ow * 16 + j * VW, best);
            }
          }
        }
        /* The output row: its window's rows (those inside, rp) in order. */
        for (int32_t ow = 0; ow < {{OW}}; ++ow) {
          float* yp = yb + (oh * {{OW}} + ow) * {{C}};
          vt best[NV];
          for (j = 0; j < NV; ++j) {
            const int32_t o = ow * 16 + j * VW;
            best[j] = (vt){0} - INFINITY;
            if (nk == {{KH}}) {
              best[j] = MLIP_VLOAD_16(rp[0] + o);
              MLIP_VUNROLL
              for (int32_t k = 1; k < {{KH}}; ++k) best[j] = mlip__mpr_step(MLIP_VLOAD_16(rp[k] + o), best[j]);
            } else {
              if (nk > 0) best[j] = MLIP_VLOAD_16(rp[0] + o);
              for (int32_t k = 1; k < nk; ++k) best[j] = mlip__mpr_step(MLIP_VLOAD_16(rp[k] + o), best[j]);
            }
          }
          if (NC == 16) {
            for (j = 0; j < NV; ++j) MLIP_VSTORE_16(yp + j * VW, best[j]);
          } else {
            float t[16];
            memcpy(t, best, sizeof t);
            memcpy(yp, t, NC * sizeof(float));
          }
        }
      }
    }
  }
}
{{/xcl}}
