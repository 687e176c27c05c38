/* ConvTranspose with constant finite weights and fewer than 8 output
 * channels per group (more: conv_transpose_phases.c), packed at compile
 * time as [group][ic][kd][kh][kw][OCG]: x [N, C, ID, IH, IW], y [N, M, OD,
 * OH, OW] (1-D and 2-D have size-1 leading axes).
 *
 * Stride-phase decomposition: output o on an axis receives tap k from input
 * (o + P - k * D) / S when that divides, so the outputs of one phase
 * (o mod S) take the same taps, and neighbouring outputs of a phase read
 * neighbouring inputs. The vector lanes hold 16 neighbouring positions of
 * a row phase; a tile is NR rows of one height phase (oh, oh + SH, ...:
 * the same taps, one input row apart) times NQ groups of 16 positions
 * times every channel of the group, NR * NQ * OCG accumulators (the
 * independent chains that hide the multiply-add's latency; one channel
 * alone would wait on its chain), the weights scalars broadcast once per
 * tap for all of them. Each output sums x * w by fused multiply-adds
 * (MLIP_VFMAS, mlip_fmaf per lane) over the input channels of its group,
 * then its taps in (kd, kh, kw) order, from 0: the reference's terms in
 * the reference's order (conv_transpose.c, ops/conv_transpose.cpp), then
 * the bias. The input is first copied into the scratch with a border of
 * zeros, so a tap that falls outside it adds x * w = +-0, which leaves
 * every sum as it is (a sum that starts at +0 is never -0; the weights are
 * finite): the same bits as the reference. Taps that fall outside for
 * every row of a tile are left out of its list (the same argument), so the
 * border costs only where a tile's positions straddle it. */
enum { {{fn}}_NV = 16 / MLIP_VW_16,
       /* 16-position groups per tile: each holds OCG accumulators and its
        * x vector, the registers less a broadcast weight and one spare */
       {{fn}}_PERX = (MLIP_VREGS - 2) / (({{OCG}} + 1) * {{fn}}_NV),
       /* or, the OCG weights held (broadcast once per tap) and the x
        * vectors loaded one at a time, where that leaves room for more:
        * AVX2, 3 channels: 2 groups (12 accumulators), not 1 */
       {{fn}}_PERW = (MLIP_VREGS - {{OCG}} - 1) / ({{OCG}} * {{fn}}_NV), {{fn}}_HOLDW = {{fn}}_PERW > {{fn}}_PERX,
       {{fn}}_PER = {{fn}}_HOLDW ? {{fn}}_PERW : {{fn}}_PERX,
       {{fn}}_NQ0 = {{fn}}_PER < {{QV}} ? {{fn}}_PER : {{QV}}, {{fn}}_NQ = {{fn}}_NQ0 < 1 ? 1 : {{fn}}_NQ0,
       {{fn}}_NR0 = {{fn}}_PER / {{fn}}_NQ, {{fn}}_NR1 = {{fn}}_NR0 < 1 ? 1 : {{fn}}_NR0,
       {{fn}}_NR2 = {{fn}}_NR1 < {{ROWS}} ? {{fn}}_NR1 : {{ROWS}},
       /* rows per tile evened out over the phase's tiles (fewer repeated rows) */
       {{fn}}_NT = ({{ROWS}} + {{fn}}_NR2 - 1) / {{fn}}_NR2, {{fn}}_NR = ({{ROWS}} + {{fn}}_NT - 1) / {{fn}}_NT };

static void {{fn}}(const float* restrict x, {{#has_bias}}const float* restrict b, {{/has_bias}}const float* restrict wp, float* restrict y, void* scratch) {
  typedef MLIP_VT_16 vt;
  enum { VW = MLIP_VW_16, NV = {{fn}}_NV, NR = {{fn}}_NR, NQ = {{fn}}_NQ };
  float* xp = (float*)scratch; /* [C][IDP][IHP][IWP] */
  for (int32_t n = 0; n < {{N}}; ++n) {
    for (int32_t i = 0; i < {{C}} * {{IPSIZE}} + {{SLACK}}; ++i) xp[i] = 0.0f; /* the copy and its slack */
    for (int32_t c = 0; c < {{C}}; ++c)
      for (int32_t id = 0; id < {{ID}}; ++id)
        for (int32_t ih = 0; ih < {{IH}}; ++ih)
          memcpy(xp + c * {{IPSIZE}} + ((id + {{LOD}}) * {{IHP}} + ih + {{LOH}}) * {{IWP}} + {{LOW}},
                 x + ((n * {{C}} + c) * {{ID}} + id) * {{IH}} * {{IW}} + ih * {{IW}}, {{IW}} * sizeof(float));
    for (int32_t grp = 0; grp < {{GROUPS}}; ++grp) {
      const float* wg = wp + grp * {{ICG}} * {{KSIZE}} * {{OCG}};
      for (int32_t od = 0; od < {{OD}}; ++od)
        for (int32_t ph = 0; ph < {{SH}} && ph < {{OH}}; ++ph) {
          const int32_t nrows = ({{OH}} - ph + {{SH}} - 1) / {{SH}};
          for (int32_t i0 = 0; i0 < nrows; i0 += NR) {
            const int32_t nr = nrows - i0 < NR ? nrows - i0 : NR; /* rows of this tile; the rest repeat its last */
            int32_t rr[NR], r;
            for (r = 0; r < NR; ++r) rr[r] = (r < nr ? r : nr - 1) * {{IWP}};
            for (int32_t pw = 0; pw < {{SW}} && pw < {{OW}}; ++pw) {
              /* the taps of these output rows and width phase, in order: input offset (first row), weight offset */
              int32_t xoff[{{KSIZE}}], woff[{{KSIZE}}], nt = 0;
              const int32_t nq = ({{OW}} - pw + {{SW}} - 1) / {{SW}};
              /* (a tap that reads only the border for every row adds nothing: left out) */
              for (int32_t kd = 0; kd < {{KD}}; ++kd) {
                const int32_t ud = od + {{PD}} - kd * {{DD}} + {{SD}} * {{LOD}};
                if (ud % {{SD}} != 0 || ud / {{SD}} < {{LOD}} || ud / {{SD}} >= {{LOD}} + {{ID}}) continue;
                for (int32_t kh = 0; kh < {{KH}}; ++kh) {
                  const int32_t uh = ph + {{SH}} * i0 + {{PH}} - kh * {{DH}} + {{SH}} * {{LOH}};
                  if (uh % {{SH}} != 0 || uh / {{SH}} + nr - 1 < {{LOH}} || uh / {{SH}} >= {{LOH}} + {{IH}}) continue;
                  for (int32_t kw = 0; kw < {{KW}}; ++kw) {
                    const int32_t uw = pw + {{PW}} - kw * {{DW}} + {{SW}} * {{LOW}};
                    if (uw % {{SW}} != 0 || uw / {{SW}} + nq - 1 < {{LOW}} || uw / {{SW}} >= {{LOW}} + {{IW}}) continue;
                    xoff[nt] = ((ud / {{SD}}) * {{IHP}} + uh / {{SH}}) * {{IWP}} + uw / {{SW}};
                    woff[nt] = ((kd * {{KH}} + kh) * {{KW}} + kw) * {{OCG}};
                    ++nt;
                  }
                }
              }
              /* NQ groups of 16 positions of the row phase in lanes; those
               * past its end read the border, the next row or the
               * scratch's slack (16 * QV zeros) and are not stored */
              for (int32_t q0 = 0; q0 < nq; q0 += 16 * NQ) {
                vt acc[NR][NQ][{{OCG}}][NV];
                int32_t j, v, e;
                for (r = 0; r < NR; ++r)
                  for (e = 0; e < NQ; ++e)
                    for (j = 0; j < {{OCG}}; ++j)
                      for (v = 0; v < NV; ++v) acc[r][e][j][v] = (vt){0};
                for (int32_t ic = 0; ic < {{ICG}}; ++ic) {
                  const float* xc = xp + (grp * {{ICG}} + ic) * {{IPSIZE}} + q0;
                  const float* wc = wg + ic * {{KSIZE}} * {{OCG}};
                  for (int32_t t = 0; t < nt; ++t) {
                    const float* xt = xc + xoff[t];
                    if ({{fn}}_HOLDW) {
                      /* the weights held: w + (-0) is w, every bit (a splat) */
                      vt wv[{{OCG}}];
                      for (j = 0; j < {{OCG}}; ++j) wv[j] = -(vt){0} + wc[woff[t] + j];
                      for (r = 0; r < NR; ++r)
                        for (e = 0; e < NQ; ++e)
                          for (v = 0; v < NV; ++v) {
                            vt xv = MLIP_VLOAD_16(xt + rr[r] + e * 16 + v * VW);
                            MLIP_VKEEP(xv); /* one load for the channels (mlip/kvec.h) */
                            for (j = 0; j < {{OCG}}; ++j) acc[r][e][j][v] = MLIP_VFMA_16(wv[j], xv, acc[r][e][j][v]);
                          }
                    } else {
                      /* the tile's x vectors loaded once (most straddle two
                       * cache lines), then each channel's weight over them */
                      vt xv[NR][NQ][NV];
                      for (r = 0; r < NR; ++r)
                        for (e = 0; e < NQ; ++e)
                          for (v = 0; v < NV; ++v) xv[r][e][v] = MLIP_VLOAD_16(xt + rr[r] + e * 16 + v * VW);
                      for (j = 0; j < {{OCG}}; ++j) {
                        const float w = wc[woff[t] + j];
                        for (r = 0; r < NR; ++r)
                          for (e = 0; e < NQ; ++e)
                            for (v = 0; v < NV; ++v) acc[r][e][j][v] = MLIP_VFMAS_16(w, xv[r][e][v], acc[r][e][j][v]);
                      }
                    }
                  }
                }
                for (r = 0; r < nr; ++r)
                  for (j = 0; j < {{OCG}}; ++j) {
                    const int32_t m = grp * {{OCG}} + j;
                    float* yr = y + ((n * {{M}} + m) * {{OD}} + od) * {{OH}} * {{OW}} + (ph + {{SH}} * (i0 + r)) * {{OW}} + pw;
                    for (e = 0; e < NQ && q0 + 16 * e < nq; ++e) {
                      float tl[16];
                      memcpy(tl, acc[r][e][j], sizeof tl);
                      for (int32_t l = 0; l < 16 && q0 + 16 * e + l < nq; ++l)
                        yr[(q0 + 16 * e + l) * {{SW}}] = {{#has_bias}}tl[l] + b[m]{{/has_bias}}{{^has_bias}}tl[l]{{/has_bias}};
                    }
                  }
              }
            }
          }
        }
    }
  }
}
