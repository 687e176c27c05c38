/* Depthwise Conv on row-major planes (x [N, C, D, H, W], y [N, C, OD, OH,
 * OW] with W contiguous in both; 1-D and 2-D as size-1 leading axes), the
 * weights packed at compile time as conv_tiled.c's depthwise ones: channel c's
 * tap k at wp[(c / MB) * K * MB + k * MB + c % MB], the bias bp[c].
 *
 * A vector holds VW neighbouring outputs of one row of one channel, the
 * tap's weight in every lane. Per channel the scratch gets a zero-padded
 * copy of its planes with each padded row split into SW phases (phase f
 * holds the columns f, f + SW, f + 2 SW, ...): output column ow's tap kw
 * then reads phase (kw * DW) % SW at ow + (kw * DW) / SW, so every tap of
 * a run of outputs is one vector load, at any stride, dilation and padding
 * (rows, and D, index the padded planes directly). A register block is RB
 * vectors of a row; the last block of a row starts early enough to stay
 * inside it (its outputs before the previous block's end are not stored
 * again), the rows' slack past OW (QW) is zeros.
 *
 * Every output sums x * w with one rounding (MLIP_VFMAS) over its taps in
 * the reference's order (kd, kh, kw; ops::eval_Conv) starting from +0, then
 * adds the bias and the residual r (y's layout, possibly y's own bytes:
 * each element is read before the same element is written; the lanes a
 * block does not store read nothing) and applies the activation. A padding
 * tap adds x * w = +-0 to a sum that is never -0, which changes nothing: the
 * emitter takes this kernel only for finite weights. So the bits are the
 * reference's at any vector width (mlip/kvec.h). */
{{#noinline}}MLIP_VNOINLINE {{/noinline}}static void {{fn}}(const float* restrict x, {{#has_res}}const float* r, {{/has_res}}const float* restrict wp, {{#has_bias}}const float* restrict bp, {{/has_bias}}float* {{y_restrict}}y, void* scratch) {
  typedef MLIP_VT_16 vt;
{{#has_act_vector}}#if MLIP_VW_16 > 1 && !defined(__ARM_FEATURE_MVE)
  typedef int32_t vm __attribute__((vector_size(sizeof(vt))));
#endif
{{/has_act_vector}}  enum { VW = MLIP_VW_16, K = {{KD}} * {{KH}} * {{KW}}, NVR = ({{OW}} + VW - 1) / VW,
         RBX = MLIP_VREGS >= 32 ? 8 : MLIP_VREGS >= 16 ? 4 : 2, RB = NVR < RBX ? NVR : RBX };
  float* const sp = (float*)scratch;
  /* The zeros of the padding and the slack, once: each channel's copy
   * writes the same interior positions. */
  memset(sp, 0, sizeof(float) * {{SP_ELEMS}});
  for (int32_t n = 0; n < {{N}}; ++n) {
    for (int32_t c = 0; c < {{C}}; ++c) {
      const float* xc = x + n * {{XN}} + c * {{XC}};
      float* yc = y + n * {{YN}} + c * {{YC}};
{{#has_res}}      const float* rc = r + n * {{YN}} + c * {{YC}};
{{/has_res}}      float wk[K];
      int32_t k;
      for (k = 0; k < K; ++k) wk[k] = wp[(c / {{MB}}) * K * {{MB}} + k * {{MB}} + c % {{MB}}];
      for (int32_t d = 0; d < {{ID}}; ++d)
        for (int32_t h = 0; h < {{IH}}; ++h) {
          float* srow = sp + ((d + {{PD}}) * {{IHP}} + h + {{PH}}) * {{SW}} * {{QW}};
          const float* xrow = xc + d * {{XD}} + h * {{XH}};
          for (int32_t w = 0; w < {{IW}}; ++w) {
            const int32_t pc = w + {{PW}};
            srow[(pc % {{SW}}) * {{QW}} + pc / {{SW}}] = xrow[w];
          }
        }
      for (int32_t od = 0; od < {{OD}}; ++od) {
        for (int32_t oh = 0; oh < {{OH}}; ++oh) {
          float* yr = yc + od * {{YD}} + oh * {{YH}};
{{#has_res}}          const float* rr = rc + od * {{YD}} + oh * {{YH}};
{{/has_res}}          for (int32_t ow0 = 0; ow0 < {{OW}}; ow0 += RB * VW) {
            const int32_t s = ow0 + RB * VW <= {{OW}} || {{OW}} < RB * VW ? ow0 : {{OW}} - RB * VW;
            vt acc[RB];
            int32_t i;
            {{#unroll}}MLIP_VUNROLL {{/unroll}}for (i = 0; i < RB; ++i) acc[i] = (vt){0};
            for (int32_t kd = 0; kd < {{KD}}; ++kd) {
              for (int32_t kh = 0; kh < {{KH}}; ++kh) {
                const float* xr = sp + ((od * {{SD}} + kd * {{DD}}) * {{IHP}} + oh * {{SH}} + kh * {{DH}}) * {{SW}} * {{QW}} + s;
                const float* wr = wk + (kd * {{KH}} + kh) * {{KW}};
                for (int32_t kw = 0; kw < {{KW}}; ++kw) {
                  const float* xp = xr + ((kw * {{DW}}) % {{SW}}) * {{QW}} + (kw * {{DW}}) / {{SW}};
                  {{#unroll}}MLIP_VUNROLL {{/unroll}}for (i = 0; i < RB; ++i) acc[i] = MLIP_VFMAS_16(wr[kw], MLIP_VLOAD_16(xp + i * VW), acc[i]);
                }
              }
            }
            for (i = 0; i < RB; ++i) {
              const int32_t at = s + i * VW;  /* the vector's first column */
              const int32_t lo = ow0 > at ? ow0 - at : 0, hi = {{OW}} - at < VW ? {{OW}} - at : VW;
              vt v = acc[i];
              if (lo >= hi) continue;
{{#has_bias}}              v = v + bp[c];
{{/has_bias}}              if (lo == 0 && hi == VW) {
{{#has_res}}                v = v + MLIP_VLOAD_16(rr + at);
{{/has_res}}{{#has_act_vector}}#if MLIP_VW_16 > 1 && !defined(__ARM_FEATURE_MVE)
                {{act_vector}}
#endif
{{/has_act_vector}}                MLIP_VSTORE_16(yr + at, v);
              } else {
                /* Part of the vector: the stored lanes only (the residual
                 * of the others may be outputs already written, or past
                 * the row). */
                float t[VW];
                int32_t q;
{{#has_res}}                for (q = 0; q < VW; ++q) t[q] = q >= lo && q < hi ? rr[at + q] : 0.0f;
                {
                  vt rv;
                  memcpy(&rv, t, sizeof rv);
                  v = v + rv;
                }
{{/has_res}}{{#has_act_vector}}#if MLIP_VW_16 > 1 && !defined(__ARM_FEATURE_MVE)
                {{act_vector}}
#endif
{{/has_act_vector}}                memcpy(t, &v, sizeof t);
                for (q = lo; q < hi; ++q) yr[at + q] = t[q];
              }
            }
          }
{{#has_act_block}}{{#has_act_vector}}#if MLIP_VW_16 == 1 || defined(__ARM_FEATURE_MVE)
{{/has_act_vector}}          {
            /* the activation on the finished row, in place */
            float* const t = yr;
            const int32_t nt = {{OW}};
            {{act_block}}
          }
{{#has_act_vector}}#endif
{{/has_act_vector}}{{/has_act_block}}        }
      }
    }
  }
}
