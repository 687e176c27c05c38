/* Depthwise Conv (group = C = M) with weights packed at compile time: x [N,
 * C, D, H, W], y [N, C, OD, OH, OW] (1-D and 2-D as size-1 leading axes),
 * each stored row-major or channels-last (the strides X* and Y* say which).
 * wp holds the weights as [block of MB channels][kd][kh][kw][MB], zero-padded
 * to whole blocks, bp the bias the same way.
 *
 * The output positions fall into rectangles whose windows keep the same
 * taps inside the input (rect: od, oh, ow ranges and the kd, kh, kw ranges
 * they read), so no loop tests for padding; the interior one (FULL, or -1)
 * has loops of constant bounds. A tile is PB positions of one
 * rectangle (the last one repeated to fill it) times MB channels held in
 * vector lanes; for every tap (kd, kh, kw), in that order, each accumulator
 * adds x * w. Every output thus sums the products of its taps inside the
 * input in the reference's order (ops::eval_Conv), starting from 0, then
 * adds the bias (and the residual r, which has y's layout and may be y's own
 * bytes: each element is read just before the same element of y is written)
 * and applies the activation: the same bits at any vector width
 * (mlip/kvec.h). Channels-last input is read a vector at a time,
 * row-major input a lane at a time. With padx, the scratch holds a
 * zero-padded channels-last copy of the input (geometry and X* strides are
 * the copy's, XR* the input's): one rectangle, every tap inside (the
 * weights are finite, so a padding tap adds +-0, which changes no sum). */
static void {{fn}}(const float* restrict x, {{#has_res}}const float* r, {{/has_res}}const float* restrict wp, {{#has_bias}}const float* restrict bp, {{/has_bias}}float* {{y_restrict}}y{{#has_scratch}}, void* scratch{{/has_scratch}}) {
  typedef MLIP_VT_{{MB}} vt;
  enum { VW = MLIP_VW_{{MB}}, NV = {{MB}} / MLIP_VW_{{MB}},
         PB = (MLIP_VREGS - 2 * NV - 1) / NV > 8 ? 8 : (MLIP_VREGS - 2 * NV - 1) / NV < 1 ? 1 : (MLIP_VREGS - 2 * NV - 1) / NV };
  static const int32_t rect[{{NR}}][12] = {{rects}};
  for (int32_t n = 0; n < {{N}}; ++n) {
{{#padx}}
    /* The input's channels, zero-padded and channels-last. */
    {
      float* sp = (float*)scratch;
      const float* xr = x + n * {{XRN}};
      int32_t d, h, w, c;
      memset(sp, 0, sizeof(float) * {{PAD_ELEMS}});
      for (d = 0; d < {{RID}}; ++d)
        for (h = 0; h < {{RIH}}; ++h)
          for (w = 0; w < {{RIW}}; ++w)
            for (c = 0; c < {{PCN}}; ++c)
              sp[(((d + {{RPD}}) * {{IH}} + h + {{RPH}}) * {{IW}} + w + {{RPW}}) * {{PCN}} + c] =
                  xr[c * {{XRC}} + d * {{XRD}} + h * {{XRH}} + w * {{XRW}}];
    }
{{/padx}}    for (int32_t blk = 0; blk < {{NB}}; ++blk) {
      const float* xg = {{#padx}}(const float*)scratch{{/padx}}{{^padx}}x + n * {{XN}}{{/padx}} + blk * {{MB}} * {{XC}};
      const float* wb = wp + blk * {{WBLOCK}};
{{#has_bias}}      const float* bb = bp + blk * {{MB}};
{{/has_bias}}      float* yb = y + n * {{YN}} + blk * {{MB}} * {{YC}};
{{#has_res}}      const float* rb = r + n * {{YN}} + blk * {{MB}} * {{YC}};
{{/has_res}}
      const int32_t nq = {{C}} - blk * {{MB}} < {{MB}} ? {{C}} - blk * {{MB}} : {{MB}};
      for (int32_t r = 0; r < {{NR}}; ++r) {
        const int32_t* R = rect[r];
        const int32_t cnt = (R[1] - R[0]) * (R[5] - R[4]) * (R[9] - R[8]);
        int32_t od = R[0], oh = R[4], ow = R[8];
        for (int32_t i = 0; i < cnt; i += PB) {
          const int32_t m = cnt - i < PB ? cnt - i : PB;
          const float* xs[PB];
          int32_t yo[PB];
          vt acc[PB][NV];
          int32_t p, j;
          for (p = 0; p < PB; ++p) {
            xs[p] = xg + (od * {{SD}} - {{PD}} + R[2] * {{DD}}) * {{XD}} + (oh * {{SH}} - {{PH}} + R[6] * {{DH}}) * {{XH}} +
                    (ow * {{SW}} - {{PW}} + R[10] * {{DW}}) * {{XW}};
            yo[p] = od * {{YD}} + oh * {{YH}} + ow * {{YW}};
            for (j = 0; j < NV; ++j) acc[p][j] = (vt){0};
            if (p + 1 < m || p + 1 == PB) {  /* the next position (past the tile: the next tile's first) */
              if (++ow == R[9]) {
                ow = R[8];
                if (++oh == R[5]) {
                  oh = R[4];
                  ++od;
                }
              }
            }
          }
          if (r == {{FULL}}) {  /* the interior: every tap inside, constant loop bounds */
            for (int32_t kd = 0; kd < {{KD}}; ++kd) {
              for (int32_t kh = 0; kh < {{KH}}; ++kh) {
                const float* wt = wb + (kd * {{KH}} + kh) * {{KW}} * {{MB}};
                const int32_t t0 = kd * {{DD}} * {{XD}} + kh * {{DH}} * {{XH}};
                for (int32_t kw = 0; kw < {{KW}}; ++kw, wt += {{MB}}) {
                  const int32_t t = t0 + kw * {{DW}} * {{XW}};
                  for (j = 0; j < NV; ++j) {
                    const vt w = MLIP_VLOAD_{{MB}}(wt + j * VW);
                    for (p = 0; p < PB; ++p) {
  {{#vector_load}}                    acc[p][j] += MLIP_VLOAD_{{MB}}(xs[p] + t + j * VW) * w;
  {{/vector_load}}{{^vector_load}}                    float lane[VW];
                      vt xv;
                      int32_t l;
                      for (l = 0; l < VW; ++l) lane[l] = j * VW + l < nq ? xs[p][t + (j * VW + l) * {{XC}}] : 0.0f;
                      memcpy(&xv, lane, sizeof xv);
                      acc[p][j] += xv * w;
  {{/vector_load}}                  }
                  }
                }
              }
            }
          } else {
            for (int32_t kd = R[2]; kd < R[3]; ++kd) {
              for (int32_t kh = R[6]; kh < R[7]; ++kh) {
                const float* wt = wb + ((kd * {{KH}} + kh) * {{KW}} + R[10]) * {{MB}};
                const int32_t t0 = (kd - R[2]) * {{DD}} * {{XD}} + (kh - R[6]) * {{DH}} * {{XH}};
                for (int32_t kw = 0; kw < R[11] - R[10]; ++kw, wt += {{MB}}) {
                  const int32_t t = t0 + kw * {{DW}} * {{XW}};
                  for (j = 0; j < NV; ++j) {
                    const vt w = MLIP_VLOAD_{{MB}}(wt + j * VW);
                    for (p = 0; p < PB; ++p) {
  {{#vector_load}}                    acc[p][j] += MLIP_VLOAD_{{MB}}(xs[p] + t + j * VW) * w;
  {{/vector_load}}{{^vector_load}}                    float lane[VW];
                      vt xv;
                      int32_t l;
                      for (l = 0; l < VW; ++l) lane[l] = j * VW + l < nq ? xs[p][t + (j * VW + l) * {{XC}}] : 0.0f;
                      memcpy(&xv, lane, sizeof xv);
                      acc[p][j] += xv * w;
  {{/vector_load}}                  }
                  }
                }
              }
            }
          }
          for (p = 0; p < m; ++p) {
            float t[{{MB}}];
            const int32_t nt = {{#padded}}nq{{/padded}}{{^padded}}{{MB}}{{/padded}};
            float* yp = yb + yo[p];
            int32_t q;
            memcpy(t, acc[p], sizeof t);
            for (q = 0; q < nt; ++q) {
              float v = t[q]{{#has_bias}} + bb[q]{{/has_bias}};
{{#has_res}}              v += rb[yo[p] + q * {{YC}}];
{{/has_res}}              t[q] = v;
            }
            {{act_block}}
            for (q = 0; q < nt; ++q) yp[q * {{YC}}] = t[q];
          }
        }
      }
      (void)nq;
    }
  }
}
