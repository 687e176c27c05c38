/* ConvTranspose with constant finite weights and fewer than 8 output
 * channels per group (more: conv_transpose_phases.c), packed at compile
 * time as [group][ic][kd][kh][kw][OCG]: x [N, C, ID, IH, IW], y [N, M, OD,
 * OH, OW] (1-D and 2-D have size-1 leading axes).
 *
 * Stride-phase decomposition: output o on an axis receives tap k from input
 * (o + P - k * D) / S when that divides, so the outputs of one phase
 * (o mod S) take the same taps, and neighbouring outputs of a phase read
 * neighbouring inputs. The vector lanes hold 16 neighbouring positions of
 * a row phase, every channel of the group in its own accumulator, the
 * weights scalars. Each output sums x * w by fused multiply-adds
 * (MLIP_VFMAS, mlip_fmaf per lane) over the input channels of its group,
 * then its taps in (kd, kh, kw) order, from 0: the reference's terms in
 * the reference's order (conv_transpose.c, ops/conv_transpose.cpp), then
 * the bias. The input is first copied into the scratch with a border of
 * zeros, so a tap that falls outside it adds x * w = +-0, which leaves
 * every sum as it is (a sum that starts at +0 is never -0; the weights are
 * finite): the same bits as the reference. Taps that fall outside for a
 * whole row are left out of its list (the same argument), so the border
 * costs only where a row's positions straddle it. */
static void {{fn}}(const float* restrict x, {{#has_bias}}const float* restrict b, {{/has_bias}}const float* restrict wp, float* restrict y, void* scratch) {
  typedef MLIP_VT_16 vt;
  enum { VW = MLIP_VW_16, NV = 16 / MLIP_VW_16 };
  float* xp = (float*)scratch; /* [C][IDP][IHP][IWP] */
  for (int32_t n = 0; n < {{N}}; ++n) {
    for (int32_t i = 0; i < {{C}} * {{IPSIZE}}; ++i) xp[i] = 0.0f;
    for (int32_t c = 0; c < {{C}}; ++c)
      for (int32_t id = 0; id < {{ID}}; ++id)
        for (int32_t ih = 0; ih < {{IH}}; ++ih)
          memcpy(xp + c * {{IPSIZE}} + ((id + {{LOD}}) * {{IHP}} + ih + {{LOH}}) * {{IWP}} + {{LOW}},
                 x + ((n * {{C}} + c) * {{ID}} + id) * {{IH}} * {{IW}} + ih * {{IW}}, {{IW}} * sizeof(float));
    for (int32_t grp = 0; grp < {{GROUPS}}; ++grp) {
      {
        const float* wg = wp + grp * {{ICG}} * {{KSIZE}} * {{OCG}};
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
                    woff[nt] = ((kd * {{KH}} + kh) * {{KW}} + kw) * {{OCG}};
                    ++nt;
                  }
                }
              }
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
            }
          }
        }
      }
    }
  }
}
