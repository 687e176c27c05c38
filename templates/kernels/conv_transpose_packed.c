/* ConvTranspose with constant finite weights, packed at compile time as
 * [group][block of 16 output channels][ic][kd][kh][kw][16] (lanes past the
 * group's channels 0): x [N, C, ID, IH, IW], y [N, M, OD, OH, OW] (1-D and
 * 2-D have size-1 leading axes).
 *
 * Stride-phase decomposition: output o on an axis receives tap k from input
 * (o + P - k * D) / S when that divides, so the outputs of one phase
 * (o mod S) take the same taps, and neighbouring outputs of a phase read
 * neighbouring inputs. Each output sums, in a vector lane per output
 * channel, x * w by fused multiply-adds (MLIP_VFMA, mlip_fmaf per lane)
 * over the input channels of its group, then its taps in
 * (kd, kh, kw) order, from 0: the reference's terms in the reference's
 * order (conv_transpose.c, ops/conv_transpose.cpp), then the bias. With
 * few output channels per group (below 8) the lanes hold neighbouring
 * positions of a row phase instead, every channel of the group in its own
 * accumulator, the weights as scalars [group][ic][kd][kh][kw][OCG]: the
 * same sums. The
 * input is first copied into the scratch with a border of zeros, so a tap
 * that falls outside it adds x * w = +-0, which leaves every sum as it is
 * (a sum that starts at +0 is never -0; the weights are finite): the same
 * bits as the reference. Taps that fall outside for a whole row are left
 * out of its list (the same argument), so the border costs only where a
 * row's positions straddle it. */
static void {{fn}}(const float* restrict x, {{#has_bias}}const float* restrict b, {{/has_bias}}const float* restrict wp, float* restrict y, void* scratch) {
  typedef MLIP_VT_16 vt;
  /* a tile: PQ positions of a row phase times NJ blocks of 16 channels,
   * about 16 (32 registers) or 8 (16 registers) vector accumulators */
  enum { VW = MLIP_VW_16, NV = 16 / MLIP_VW_16, PQX = MLIP_VREGS >= 32 ? 8 : 4,
         PQ = PQX < {{NQMAX}} ? PQX : {{NQMAX}}, NJX = (MLIP_VREGS >= 32 ? 16 : 8) / (PQ * NV),
         NJ = NJX < 1 ? 1 : NJX > {{NBLK}} ? {{NBLK}} : NJX };
  float* xp = (float*)scratch; /* [C][IDP][IHP][IWP] */
  for (int32_t n = 0; n < {{N}}; ++n) {
    for (int32_t i = 0; i < {{C}} * {{IPSIZE}}; ++i) xp[i] = 0.0f;
    for (int32_t c = 0; c < {{C}}; ++c)
      for (int32_t id = 0; id < {{ID}}; ++id)
        for (int32_t ih = 0; ih < {{IH}}; ++ih)
          memcpy(xp + c * {{IPSIZE}} + ((id + {{LOD}}) * {{IHP}} + ih + {{LOH}}) * {{IWP}} + {{LOW}},
                 x + ((n * {{C}} + c) * {{ID}} + id) * {{IH}} * {{IW}} + ih * {{IW}}, {{IW}} * sizeof(float));
    for (int32_t grp = 0; grp < {{GROUPS}}; ++grp) {
{{#pos_lanes}}
      {
        const float* wg = wp + grp * {{ICG}} * {{KSIZE}} * {{OCG}};
{{/pos_lanes}}
{{^pos_lanes}}
      for (int32_t mb = 0; mb < {{NBLK}}; mb += NJ) {
        const float* wb[NJ];
        for (int32_t j = 0; j < NJ; ++j)  /* blocks past the end repeat the last one; stored once */
          wb[j] = wp + (grp * {{NBLK}} + (mb + j < {{NBLK}} ? mb + j : {{NBLK}} - 1)) * {{ICG}} * {{KSIZE}} * 16;
{{/pos_lanes}}
        for (int32_t od = 0; od < {{OD}}; ++od) {
          for (int32_t oh = 0; oh < {{OH}}; ++oh) {
            for (int32_t pw = 0; pw < {{SW}} && pw < {{OW}}; ++pw) {
              /* the taps of this output row and width phase, in order: input offset, weight offset */
              int32_t xoff[{{KSIZE}}], woff[{{KSIZE}}], nt = 0;
              const int32_t nq = ({{OW}} - pw + {{SW}} - 1) / {{SW}};
              /* (a tap that reads only the border adds nothing: left out) */
              for (int32_t kd = 0; kd < {{KD}}; ++kd) {
                const int32_t ud = od + {{PD}} - kd * {{DD}} + {{SD}} * {{LOD}};
                if (ud % {{SD}} != 0 || ud / {{SD}} < {{LOD}} || ud / {{SD}} >= {{LOD}} + {{ID}}) continue;
                for (int32_t kh = 0; kh < {{KH}}; ++kh) {
                  const int32_t uh = oh + {{PH}} - kh * {{DH}} + {{SH}} * {{LOH}};
                  if (uh % {{SH}} != 0 || uh / {{SH}} < {{LOH}} || uh / {{SH}} >= {{LOH}} + {{IH}}) continue;
                  for (int32_t kw = 0; kw < {{KW}}; ++kw) {
                    const int32_t uw = pw + {{PW}} - kw * {{DW}} + {{SW}} * {{LOW}};
                    if (uw % {{SW}} != 0 || uw / {{SW}} + nq - 1 < {{LOW}} || uw / {{SW}} >= {{LOW}} + {{IW}}) continue;
                    xoff[nt] = ((ud / {{SD}}) * {{IHP}} + uh / {{SH}}) * {{IWP}} + uw / {{SW}};
                    woff[nt] = ((kd * {{KH}} + kh) * {{KW}} + kw) * {{#pos_lanes}}{{OCG}}{{/pos_lanes}}{{^pos_lanes}}16{{/pos_lanes}};
                    ++nt;
                  }
                }
              }
{{#pos_lanes}}
              /* 16 positions of the row phase in lanes; those past its end
               * read the border or the scratch's slack and are not stored */
              for (int32_t q0 = 0; q0 < nq; q0 += 16) {
                vt acc[{{OCG}}][NV];
                int32_t j, v;
                for (j = 0; j < {{OCG}}; ++j)
                  for (v = 0; v < NV; ++v) acc[j][v] = (vt){0};
                for (int32_t ic = 0; ic < {{ICG}}; ++ic) {
                  const float* xc = xp + (grp * {{ICG}} + ic) * {{IPSIZE}} + q0;
                  const float* wc = wg + ic * {{KSIZE}} * {{OCG}};
                  for (int32_t t = 0; t < nt; ++t) {
                    vt xv[NV];
                    for (v = 0; v < NV; ++v) xv[v] = MLIP_VLOAD_16(xc + xoff[t] + v * VW);
                    for (j = 0; j < {{OCG}}; ++j) {
                      const float w = wc[woff[t] + j];
                      for (v = 0; v < NV; ++v) acc[j][v] = MLIP_VFMAS_16(w, xv[v], acc[j][v]);
                    }
                  }
                }
                for (j = 0; j < {{OCG}}; ++j) {
                  const int32_t m = grp * {{OCG}} + j;
                  float* yr = y + ((n * {{M}} + m) * {{OD}} + od) * {{OH}} * {{OW}} + oh * {{OW}} + pw;
                  float tl[16];
                  memcpy(tl, acc[j], sizeof tl);
                  for (int32_t l = 0; l < 16 && q0 + l < nq; ++l) yr[(q0 + l) * {{SW}}] = {{#has_bias}}tl[l] + b[m]{{/has_bias}}{{^has_bias}}tl[l]{{/has_bias}};
                }
              }
{{/pos_lanes}}
{{^pos_lanes}}
              for (int32_t q0 = 0; q0 < nq; q0 += PQ) {
                vt acc[PQ][NJ][NV];
                int32_t qr[PQ], r, j, v;
                /* positions past the row repeat the last one; stored once */
                for (r = 0; r < PQ; ++r) qr[r] = q0 + r < nq ? q0 + r : nq - 1;
                for (r = 0; r < PQ; ++r)
                  for (j = 0; j < NJ; ++j)
                    for (v = 0; v < NV; ++v) acc[r][j][v] = (vt){0};
                for (int32_t ic = 0; ic < {{ICG}}; ++ic) {
                  const float* xc = xp + (grp * {{ICG}} + ic) * {{IPSIZE}};
                  for (int32_t t = 0; t < nt; ++t) {
                    const float* xt = xc + xoff[t];
                    float xv[PQ];
                    for (r = 0; r < PQ; ++r) xv[r] = xt[qr[r]];
                    for (j = 0; j < NJ; ++j)
                      for (v = 0; v < NV; ++v) {
                        const vt w = MLIP_VLOAD_16(wb[j] + ic * {{KSIZE}} * 16 + woff[t] + v * VW);
                        for (r = 0; r < PQ; ++r) acc[r][j][v] = MLIP_VFMAS_16(xv[r], w, acc[r][j][v]);
                      }
                  }
                }
                for (r = 0; r < PQ && q0 + r < nq; ++r) {
                  const int32_t ow = pw + (q0 + r) * {{SW}};
                  for (j = 0; j < NJ && mb + j < {{NBLK}}; ++j) {
                    float tl[16];
                    memcpy(tl, acc[r][j], sizeof tl);
                    for (int32_t l = 0; l < 16 && (mb + j) * 16 + l < {{OCG}}; ++l) {
                      const int32_t m = grp * {{OCG}} + (mb + j) * 16 + l;
                      y[((n * {{M}} + m) * {{OD}} + od) * {{OH}} * {{OW}} + oh * {{OW}} + ow] = {{#has_bias}}tl[l] + b[m]{{/has_bias}}{{^has_bias}}tl[l]{{/has_bias}};
                    }
                  }
                }
              }
{{/pos_lanes}}
            }
          }
        }
      }
    }
  }
}
