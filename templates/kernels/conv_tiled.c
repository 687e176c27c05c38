/* Conv with weights packed at compile time: x [N, C, D, H, W], y [N, M, OD,
 * OH, OW] (1-D and 2-D as size-1 leading axes), each stored row-major or
 * channels-last (the strides X* and Y* say which). wp holds the weights as
 * [group][block of MB output channels][ic][kd][kh][kw][MB], zero-padded to
 * whole blocks, bp the bias the same way.
 *
 * The output positions fall into rectangles whose windows keep the same
 * taps inside the input (rect: od, oh, ow ranges and the kd, kh, kw ranges
 * they read), so no loop tests for padding; the interior one (FULL, or -1)
 * has loops of constant bounds. A tile is PB positions of one
 * rectangle (the last one repeated to fill it) times one block of MB output
 * channels held in vector lanes; for every tap (ic, kd, kh, kw), in that
 * order, each accumulator adds x * w.
 * Every output thus sums the products of its taps inside the input in the
 * reference's order (ops::eval_Conv), starting from 0, then adds the bias and
 * applies the activation: the same bits at any vector width (mlip/kvec.h).
 * PB fits the accumulators in the vector registers; PBX caps it at what
 * suits the layer's rectangles. (Several blocks per tile, reusing each x,
 * measured slower: the broadcast then takes an instruction of its own.) */
static void {{fn}}(const float* restrict x, {{#has_res}}const float* r, {{/has_res}}const float* restrict wp, {{#has_bias}}const float* restrict bp, {{/has_bias}}float* {{y_restrict}}y) {
  typedef MLIP_VT_{{MB}} vt;
  enum { VW = MLIP_VW_{{MB}}, NV = {{MB}} / MLIP_VW_{{MB}}, PB0 = (MLIP_VREGS - NV - 1) / NV,
         PB = PB0 < 1 ? 1 : PB0 > {{PBX}} ? {{PBX}} : PB0 };
  static const int32_t rect[{{NR}}][12] = {{rects}};
  for (int32_t n = 0; n < {{N}}; ++n) {
    for (int32_t g = 0; g < {{G}}; ++g) {
      const float* xg = x + n * {{XN}} + g * {{ICG}} * {{XC}};
      for (int32_t blk = 0; blk < {{NB}}; ++blk) {
        const float* wb = wp + (g * {{NB}} + blk) * {{WBLOCK}};
        const int32_t nq = {{OCG}} - blk * {{MB}} < {{MB}} ? {{OCG}} - blk * {{MB}} : {{MB}};
{{#has_bias}}        const float* bb = bp + (g * {{NB}} + blk) * {{MB}};
{{/has_bias}}        float* yb = y + n * {{YN}} + (g * {{OCG}} + blk * {{MB}}) * {{YC}};
{{#has_res}}        const float* rb = r + n * {{YN}} + (g * {{OCG}} + blk * {{MB}}) * {{YC}};
{{/has_res}}
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
              for (int32_t ic = 0; ic < {{ICG}}; ++ic) {
                for (int32_t kd = 0; kd < {{KD}}; ++kd) {
                  for (int32_t kh = 0; kh < {{KH}}; ++kh) {
                    const int32_t w0 = ((ic * {{KD}} + kd) * {{KH}} + kh) * {{KW}} * {{MB}};
                    const int32_t t0 = ic * {{XC}} + kd * {{DD}} * {{XD}} + kh * {{DH}} * {{XH}};
                    for (int32_t kw = 0; kw < {{KW}}; ++kw) {
                      const int32_t t = t0 + kw * {{DW}} * {{XW}};
                      for (j = 0; j < NV; ++j) {
                        const vt w = MLIP_VLOAD_{{MB}}(wb + w0 + kw * {{MB}} + j * VW);
                        for (p = 0; p < PB; ++p) acc[p][j] += xs[p][t] * w;
                      }
                    }
                  }
                }
              }
            } else {
              for (int32_t ic = 0; ic < {{ICG}}; ++ic) {
                for (int32_t kd = R[2]; kd < R[3]; ++kd) {
                  for (int32_t kh = R[6]; kh < R[7]; ++kh) {
                    const int32_t w0 = (((ic * {{KD}} + kd) * {{KH}} + kh) * {{KW}} + R[10]) * {{MB}};
                    const int32_t t0 = ic * {{XC}} + (kd - R[2]) * {{DD}} * {{XD}} + (kh - R[6]) * {{DH}} * {{XH}};
                    for (int32_t kw = 0; kw < R[11] - R[10]; ++kw) {
                      const int32_t t = t0 + kw * {{DW}} * {{XW}};
                      for (j = 0; j < NV; ++j) {
                        const vt w = MLIP_VLOAD_{{MB}}(wb + w0 + kw * {{MB}} + j * VW);
                        for (p = 0; p < PB; ++p) acc[p][j] += xs[p][t] * w;
                      }
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
{{#has_res}}                v += rb[yo[p] + q * {{YC}}];
{{/has_res}}                t[q] = v;
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
}
