/* Conv with few input channels per group (ICG 1 to 4, not depthwise) on
 * row-major planes (x [N, C, D, H, W], y [N, M, OD, OH, OW] with W
 * contiguous in both; 1-D and 2-D as size-1 leading axes), the weights
 * packed at compile time as conv_tiled.c's dense ones: output channel m of
 * group g, input channel ic, tap k at
 * wp[((g * NB + m / MB) * ICG * K + ic * K + k) * MB + m % MB], the bias the
 * same way.
 *
 * conv_dw_rows.c's scheme for a dense layer: a vector holds VW neighbouring
 * outputs of one row of one output channel, the tap's weight in every lane,
 * and a register block is MM output channels times RB vectors of a row, so
 * each input vector loaded feeds MM FMAs. Per group the scratch gets a
 * zero-padded copy of its ICG input channels with each padded row split into
 * SW phases (phase f holds the columns f, f + SW, ...): output column ow's
 * tap kw reads phase (kw * DW) % SW at ow + (kw * DW) / SW, one vector load
 * at any stride, dilation and padding. The last block of a row starts early
 * enough to stay inside it (its outputs before the previous block's end are
 * not stored again); the rows' slack past OW (QW) is zeros. Against
 * conv_tiled.c's channel blocks (a broadcast of one input per position and
 * tap, 16 channels' vectors), the outputs of a row come out as whole vectors
 * in y's own order, where a tile of positions wrote each of its 16 channels
 * at the plane's stride.
 *
 * Every output sums x * w with one rounding (MLIP_VFMAS) over its taps in
 * the reference's order (ic, kd, kh, kw; ops::eval_Conv) starting from +0,
 * then adds the bias and the residual r (y's layout, possibly y's own bytes:
 * each element is read before the same element is written) and applies the
 * activation. A padding tap adds x * w = +-0 to a sum that is never -0: the
 * emitter takes this kernel only for finite weights. So the bits are the
 * reference's at any vector width (mlip/kvec.h). */
{{#noinline}}MLIP_VNOINLINE {{/noinline}}static void {{fn}}(const float* restrict x, {{#has_res}}const float* r, {{/has_res}}const float* restrict wp, {{#has_bias}}const float* restrict bp, {{/has_bias}}float* {{y_restrict}}y, void* scratch) {
  typedef MLIP_VT_16 vt;
{{#has_act_vector}}#if MLIP_VW_16 > 1 && !defined(__ARM_FEATURE_MVE)
  typedef int32_t vm __attribute__((vector_size(sizeof(vt))));
#endif
{{/has_act_vector}}  enum { VW = MLIP_VW_16, K = {{KD}} * {{KH}} * {{KW}}, NVR = ({{OW}} + VW - 1) / VW, MM = {{MM}},
         RBX = MLIP_VREGS >= 32 ? 8 : MLIP_VREGS >= 16 ? 4 : 2, RB = NVR < RBX ? NVR : RBX,
         PLANE = {{IDP}} * {{IHP}} * {{SW}} * {{QW}} };
  float* const sp = (float*)scratch;
  /* The zeros of the padding and the slack, once: each group's copy writes
   * the same interior positions. */
  memset(sp, 0, sizeof(float) * {{SP_ELEMS}});
  for (int32_t n = 0; n < {{N}}; ++n) {
    for (int32_t g = 0; g < {{G}}; ++g) {
      for (int32_t ic = 0; ic < {{ICG}}; ++ic) {
        const float* xc = x + n * {{XN}} + (g * {{ICG}} + ic) * {{XC}};
        for (int32_t d = 0; d < {{ID}}; ++d)
          for (int32_t h = 0; h < {{IH}}; ++h) {
            float* srow = sp + ic * PLANE + ((d + {{PD}}) * {{IHP}} + h + {{PH}}) * {{SW}} * {{QW}};
            const float* xrow = xc + d * {{XD}} + h * {{XH}};
            for (int32_t w = 0; w < {{IW}}; ++w) {
              const int32_t pc = w + {{PW}};
              srow[(pc % {{SW}}) * {{QW}} + pc / {{SW}}] = xrow[w];
            }
          }
      }
      for (int32_t m0 = 0; m0 < {{OCG}}; m0 += MM) {
        float wk[MM][{{ICG}} * K];
        int32_t j, k;
        for (j = 0; j < MM; ++j)
          for (k = 0; k < {{ICG}} * K; ++k) {
            const int32_t m = m0 + j;
            wk[j][k] = wp[((g * {{NB}} + m / {{MB}}) * {{ICG}} * K + k) * {{MB}} + m % {{MB}}];
          }
        for (int32_t od = 0; od < {{OD}}; ++od) {
          for (int32_t oh = 0; oh < {{OH}}; ++oh) {
            for (int32_t ow0 = 0; ow0 < {{OW}}; ow0 += RB * VW) {
              const int32_t s = ow0 + RB * VW <= {{OW}} || {{OW}} < RB * VW ? ow0 : {{OW}} - RB * VW;
              vt acc[MM][RB];
              int32_t i;
              {{#unroll}}MLIP_VUNROLL {{/unroll}}for (j = 0; j < MM; ++j) {
                {{#unroll}}MLIP_VUNROLL {{/unroll}}for (i = 0; i < RB; ++i) acc[j][i] = (vt){0};
              }
              for (int32_t ic = 0; ic < {{ICG}}; ++ic) {
                for (int32_t kd = 0; kd < {{KD}}; ++kd) {
                  for (int32_t kh = 0; kh < {{KH}}; ++kh) {
                    const float* xr = sp + ic * PLANE + ((od * {{SD}} + kd * {{DD}}) * {{IHP}} + oh * {{SH}} + kh * {{DH}}) * {{SW}} * {{QW}} + s;
                    const int32_t w0 = (ic * {{KD}} + kd) * {{KH}} * {{KW}} + kh * {{KW}};
                    for (int32_t kw = 0; kw < {{KW}}; ++kw) {
                      const float* xp = xr + ((kw * {{DW}}) % {{SW}}) * {{QW}} + (kw * {{DW}}) / {{SW}};
                      {{#unroll}}MLIP_VUNROLL {{/unroll}}for (i = 0; i < RB; ++i) {
                        vt xv = MLIP_VLOAD_16(xp + i * VW);
                        MLIP_VKEEP(xv); /* one load for the MM channels (mlip/kvec.h) */
                        {{#unroll}}MLIP_VUNROLL {{/unroll}}for (j = 0; j < MM; ++j) acc[j][i] = MLIP_VFMAS_16(wk[j][w0 + kw], xv, acc[j][i]);
                      }
                    }
                  }
                }
              }
              for (j = 0; j < MM; ++j) {
                float* yr = y + n * {{YN}} + (g * {{OCG}} + m0 + j) * {{YC}} + od * {{YD}} + oh * {{YH}};
{{#has_res}}                const float* rr = r + n * {{YN}} + (g * {{OCG}} + m0 + j) * {{YC}} + od * {{YD}} + oh * {{YH}};
{{/has_res}}                for (i = 0; i < RB; ++i) {
                  const int32_t at = s + i * VW;  /* the vector's first column */
                  const int32_t lo = ow0 > at ? ow0 - at : 0, hi = {{OW}} - at < VW ? {{OW}} - at : VW;
                  vt v = acc[j][i];
                  if (lo >= hi) continue;
{{#has_bias}}                  v = v + bp[(g * {{NB}} + (m0 + j) / {{MB}}) * {{MB}} + (m0 + j) % {{MB}}];
{{/has_bias}}                  if (lo == 0 && hi == VW) {
{{#has_res}}                    v = v + MLIP_VLOAD_16(rr + at);
{{/has_res}}{{#has_act_vector}}#if MLIP_VW_16 > 1 && !defined(__ARM_FEATURE_MVE)
                    {{act_vector}}
#endif
{{/has_act_vector}}                    MLIP_VSTORE_16(yr + at, v);
                  } else {
                    /* Part of the vector: the stored lanes only (the
                     * residual of the others may be outputs already
                     * written, or past the row). */
                    float t[VW];
                    int32_t q;
{{#has_res}}                    for (q = 0; q < VW; ++q) t[q] = q >= lo && q < hi ? rr[at + q] : 0.0f;
                    {
                      vt rv;
                      memcpy(&rv, t, sizeof rv);
                      v = v + rv;
                    }
{{/has_res}}{{#has_act_vector}}#if MLIP_VW_16 > 1 && !defined(__ARM_FEATURE_MVE)
                    {{act_vector}}
#endif
{{/has_act_vector}}                    memcpy(t, &v, sizeof t);
                    for (q = lo; q < hi; ++q) yr[at + q] = t[q];
                  }
                }
{{#has_act_block}}{{#has_act_vector}}#if MLIP_VW_16 == 1 || defined(__ARM_FEATURE_MVE)
{{/has_act_vector}}                if (ow0 + RB * VW >= {{OW}}) {
                  /* the activation on the finished row, in place */
                  float* const t = yr;
                  const int32_t nt = {{OW}};
                  {{act_block}}
                }
{{#has_act_vector}}#endif
{{/has_act_vector}}{{/has_act_block}}              }
            }
          }
        }
      }
    }
  }
}
