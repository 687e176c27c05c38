/* {{#log}}Log{{/log}}Softmax over the middle axis of x viewed as [{{OUTER}}, {{N}}, {{INNER}}]:
 * o = outer index, i = inner index, k = index along the normalized axis.
 * Each (o, i) takes the max, then the sum of mlip_exp_f(x - max) in k's
 * order, as one element at a time would; Softmax then multiplies each
 * exponential by the sum's reciprocal (one division a row, as
 * ops/softmax.cpp: a division an element cost about a sixth of the
 * kernel). The exponentials (mlip/kmath_f.h's float-precision exp, as
 * mlip__exp_nonpos_f: x - max is never positive) in loops the compiler
 * vectorizes (the same bits: lanes never meet). For INNER == 1, rows in
 * blocks of RB: with vectors,
 * RB = MLIP_VW_16 rows summed side by side, one row per lane (each block of
 * MLIP_VW_16 columns transposed in registers, mlip/kvec.h, then added
 * column after column: every lane's sum in k's order); without, 8 rows'
 * sums as 8 scalar chains. Up to 64 inner indices for INNER > 1 (each
 * one's order unchanged). The max skips NaN as fmaxf does; it is the same value
 * in any order but for the sign of a zero max, which no output sees
 * (x - (+0) and x - (-0) differ only where x is a zero, whose exponential
 * is 1 either way, and where +0 and -0 are both the max the sum is >= 2, so
 * its log is no zero): the rows' max is taken over 16 lanes, the INNER > 1
 * form's calls fmaxf between equal values only. */
static void {{fn}}(const float* x, float* y) {
{{#rows}}#if MLIP_VW_16 > 1 && !defined(__ARM_FEATURE_MVE)
  enum { RB = MLIP_VW_16 };
#else
  enum { RB = 8 };
#endif
  for (int32_t o0 = 0; o0 < {{OUTER}}; o0 += RB) {
    const int32_t nr = {{OUTER}} - o0 < RB ? {{OUTER}} - o0 : RB;
    const float* px = x + o0 * {{N}};
    float* py = y + o0 * {{N}};
    float mx[RB], sum[RB];
    int32_t r, k;
    for (r = 0; r < nr; ++r) {
      const float* pr = px + r * {{N}};
      float m[16];
      int32_t l;
#if MLIP_VW_16 > 1 && !defined(__ARM_FEATURE_MVE)
      {
        /* The 16 lanes as vectors: a compare and a blend of bits (no float
         * select, which the vectorizer leaves scalar; not on Helium, whose
         * vector masks GCC 12 miscompiles: templates/kernels/conv_tiled.c). */
        typedef MLIP_VT_16 vt;
        typedef int32_t vm __attribute__((vector_size(sizeof(vt))));
        enum { VW = MLIP_VW_16, NV = 16 / MLIP_VW_16 };
        vt mv[NV];
        for (l = 0; l < NV; ++l) mv[l] = (vt){0} + -INFINITY;
        for (k = 0; k + 16 <= {{N}}; k += 16)
          for (l = 0; l < NV; ++l) {
            const vt xv = MLIP_VLOAD_16(pr + k + l * VW);
            const vm c = xv > mv[l];
            mv[l] = (vt)(((vm)xv & c) | ((vm)mv[l] & ~c));
          }
        memcpy(m, mv, sizeof m);
      }
#else
      for (l = 0; l < 16; ++l) m[l] = -INFINITY;
      for (k = 0; k + 16 <= {{N}}; k += 16)
        for (l = 0; l < 16; ++l) m[l] = pr[k + l] > m[l] ? pr[k + l] : m[l];
#endif
      for (l = 0; k + l < {{N}}; ++l) m[l] = pr[k + l] > m[l] ? pr[k + l] : m[l];
      mx[r] = m[0];
      for (l = 1; l < 16; ++l) mx[r] = m[l] > mx[r] ? m[l] : mx[r];
      sum[r] = 0.0f;
    }
    for (r = 0; r < nr; ++r)
      for (k = 0; k < {{N}}; ++k) py[r * {{N}} + k] = mlip__exp_nonpos_f(px[r * {{N}} + k] - mx[r]);
#if MLIP_VW_16 > 1 && !defined(__ARM_FEATURE_MVE)
    {
      /* One row per lane (the rows past the end repeat the last: read, never
       * stored): each block of RB columns transposed, then its columns added
       * in k's order, so lane r's sum is row r's chain. */
      typedef MLIP_VT_16 vt;
      const float* rp[RB];
      vt v[RB], sv = (vt){0};
      for (r = 0; r < RB; ++r) rp[r] = py + (r < nr ? r : nr - 1) * {{N}};
      for (k = 0; k + RB <= {{N}}; k += RB) {
        MLIP_VUNROLL for (r = 0; r < RB; ++r) v[r] = MLIP_VLOAD_16(rp[r] + k);
        MLIP_VTRANSPOSE_16(v);
        MLIP_VUNROLL for (r = 0; r < RB; ++r) sv = sv + v[r];
      }
      memcpy(sum, &sv, sizeof sum);
      for (; k < {{N}}; ++k)
        for (r = 0; r < nr; ++r) sum[r] += py[r * {{N}} + k];
    }
#else
    if (nr == 8) { /* the chains in registers */
      float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f, s4 = 0.0f, s5 = 0.0f, s6 = 0.0f, s7 = 0.0f;
      for (k = 0; k < {{N}}; ++k) {
        s0 += py[k];
        s1 += py[{{N}} + k];
        s2 += py[2 * {{N}} + k];
        s3 += py[3 * {{N}} + k];
        s4 += py[4 * {{N}} + k];
        s5 += py[5 * {{N}} + k];
        s6 += py[6 * {{N}} + k];
        s7 += py[7 * {{N}} + k];
      }
      sum[0] = s0, sum[1] = s1, sum[2] = s2, sum[3] = s3, sum[4] = s4, sum[5] = s5, sum[6] = s6, sum[7] = s7;
    } else {
      for (k = 0; k < {{N}}; ++k)
        for (r = 0; r < nr; ++r) sum[r] += py[r * {{N}} + k];
    }
#endif
{{#log}}    for (r = 0; r < nr; ++r) {
      const float ls = mlip_logf(sum[r]);
      for (k = 0; k < {{N}}; ++k) py[r * {{N}} + k] = px[r * {{N}} + k] - mx[r] - ls;
    }
{{/log}}{{^log}}    for (r = 0; r < nr; ++r) {
      const float rs = 1.0f / sum[r];
      for (k = 0; k < {{N}}; ++k) py[r * {{N}} + k] *= rs;
    }
{{/log}}  }
{{/rows}}{{^rows}}  for (int32_t o = 0; o < {{OUTER}}; ++o) {
    for (int32_t i0 = 0; i0 < {{INNER}}; i0 += 64) {
      const int32_t ni = {{INNER}} - i0 < 64 ? {{INNER}} - i0 : 64;
      const float* px = x + o * {{BLOCK}} + i0;
      float* py = y + o * {{BLOCK}} + i0;
      float mx[64], sum[64];
      int32_t i, k;
      for (i = 0; i < ni; ++i) {
        mx[i] = -INFINITY;
        sum[i] = 0.0f;
      }
      for (k = 0; k < {{N}}; ++k)
        for (i = 0; i < ni; ++i) {
          const float v = px[k * {{INNER}} + i];
          mx[i] = v > mx[i] ? v : v == mx[i] ? fmaxf(mx[i], v) : mx[i];
        }
      for (k = 0; k < {{N}}; ++k) {
        for (i = 0; i < ni; ++i) py[k * {{INNER}} + i] = px[k * {{INNER}} + i] - mx[i];
        mlip__exp_nonpos_f_n(py + k * {{INNER}}, ni);
        for (i = 0; i < ni; ++i) sum[i] += py[k * {{INNER}} + i];
      }
{{#log}}      for (i = 0; i < ni; ++i) sum[i] = mlip_logf(sum[i]);
      for (k = 0; k < {{N}}; ++k)
        for (i = 0; i < ni; ++i) py[k * {{INNER}} + i] = px[k * {{INNER}} + i] - mx[i] - sum[i];
{{/log}}{{^log}}      for (i = 0; i < ni; ++i) sum[i] = 1.0f / sum[i];
      for (k = 0; k < {{N}}; ++k)
        for (i = 0; i < ni; ++i) py[k * {{INNER}} + i] *= sum[i];
{{/log}}    }
  }
{{/rows}}}
