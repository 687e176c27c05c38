/* {{#log}}Log{{/log}}Softmax over the middle axis of x viewed as [{{OUTER}}, {{N}}, {{INNER}}]:
 * o = outer index, i = inner index, k = index along the normalized axis.
 * Each (o, i) takes the max, then the exponentials e_k of x - max
 * (mlip/kmath_f.h's mlip__exp_nonpos_fma_f: fused multiply-adds, a
 * degree-6 polynomial) and
 * their sum as 16 partial sums in k's order (lane k mod 16, the tail's
 * n mod 16 terms the top lanes), folded by mlip__fold16_f, as
 * ops/softmax.cpp; Softmax then
 * multiplies each exponential by the sum's reciprocal (one division a row:
 * a division an element cost about a sixth of the kernel). The
 * exponentials in loops the compiler vectorizes (the same bits: lanes never
 * meet). For INNER == 1, rows in blocks of RB (MLIP_VW_16 with vectors, 8
 * without): each row's max and partial sums as its 16 lanes, vectors of
 * consecutive columns; with vectors, a row of 16 or more takes its
 * exponentials and their sum in one pass (mlip/kvec_softmax.h), with the
 * exponential's form that gives some NaN for a NaN (a row where some
 * x - max is NaN has a NaN sum, so NaN outputs either way). Up to 32
 * inner indices side by side for INNER > 1. The max skips
 * NaN as fmaxf does; it is the same value in any order but for the sign of
 * a zero max, which no output sees (x - (+0) and x - (-0) differ only
 * where x is a zero, whose exponential is 1 either way, and where +0 and
 * -0 are both the max the sum is >= 2, so its log is no zero): the rows'
 * max is taken over 16 lanes, then across the block's rows, the INNER > 1
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
    float mx[RB], sum[RB], s[16];
    int32_t r, k, l;
#if MLIP_VW_16 > 1 && !defined(__ARM_FEATURE_MVE)
    {
      /* Each row's 16 lanes as vectors, x > m ? x : m (maxps on x86, else a
       * compare and a blend of bits: no float select, which the vectorizer
       * leaves scalar; not on Helium, whose vector masks GCC 12
       * miscompiles: templates/kernels/conv_tiled.c), folded into one
       * vector a row; then the RB rows' vectors transposed in registers and
       * folded again, so lane r holds row r's max (a row's lanes one after
       * another, scalar, were about a fifth of the kernel). The rows past
       * the end repeat the last (never stored). */
      typedef MLIP_VT_16 vt;
      enum { VW = MLIP_VW_16, NV = 16 / MLIP_VW_16 };
      vt u[RB];
      for (r = 0; r < RB; ++r) {
        const float* pr = px + (r < nr ? r : nr - 1) * {{N}};
        vt mv[NV], c;
        for (l = 0; l < NV; ++l) mv[l] = (vt){0} + -INFINITY;
        for (k = 0; k < {{N}}; k += 16) {
          /* the row's last 16 columns for its tail: a maximum is the same
           * over terms seen twice */
          const float* pk = pr + (k + 16 <= {{N}} ? k : {{N}} - 16);
          if ({{N}} < 16) break;
          for (l = 0; l < NV; ++l) mv[l] = MLIP__SMX_MAX(MLIP_VLOAD_16(pk + l * VW), mv[l]);
        }
        if ({{N}} < 16) {
          float m[16];
          memcpy(m, mv, sizeof m);
          for (l = 0; l < {{N}}; ++l) m[l] = pr[l] > m[l] ? pr[l] : m[l];
          memcpy(mv, m, sizeof m);
        }
        c = mv[0];
        for (l = 1; l < NV; ++l) c = MLIP__SMX_MAX(mv[l], c);
        u[r] = c;
      }
      MLIP_VTRANSPOSE_16(u);
      for (r = 1; r < RB; ++r) u[0] = MLIP__SMX_MAX(u[r], u[0]);
      memcpy(mx, u, sizeof mx);
    }
    if ({{N}} >= 16) {
      /* The exponentials and their sum in one pass (mlip/kvec_softmax.h),
       * without the exponential's NaN select: where some x - max is NaN (a
       * NaN, an infinite max) the sum is NaN, so every output of the row
       * is NaN either way (which NaN is not specified). */
      for (r = 0; r < nr; ++r) {
        MLIP_VT_16 sv[16 / MLIP_VW_16];
        mlip__softmax_exps_vn(px + r * {{N}}, py + r * {{N}}, {{N}}, mx[r], sv);
        memcpy(s, sv, sizeof s);
        sum[r] = mlip__fold16_f(s);
      }
    } else
#else
    for (r = 0; r < nr; ++r) {
      const float* pr = px + r * {{N}};
      float m[16];
      for (l = 0; l < 16; ++l) m[l] = -INFINITY;
      for (k = 0; k + 16 <= {{N}}; k += 16)
        for (l = 0; l < 16; ++l) m[l] = pr[k + l] > m[l] ? pr[k + l] : m[l];
      for (l = 0; k + l < {{N}}; ++l) m[l] = pr[k + l] > m[l] ? pr[k + l] : m[l];
      mx[r] = m[0];
      for (l = 1; l < 16; ++l) mx[r] = m[l] > mx[r] ? m[l] : mx[r];
    }
#endif
    {
      /* Without vectors, or rows shorter than 16: the exponentials in a
       * loop the compiler vectorizes, then each row's 16 partial sums as
       * mlip__fold16_f says: whole blocks of 16 from the row's start, the
       * tail's n mod 16 terms the top lanes. */
      for (r = 0; r < nr; ++r)
        for (k = 0; k < {{N}}; ++k) py[r * {{N}} + k] = mlip__exp_nonpos_fma_f(px[r * {{N}} + k] - mx[r]);
      for (r = 0; r < nr; ++r) {
        const float* pe = py + r * {{N}};
        for (l = 0; l < 16; ++l) s[l] = 0.0f;
        for (k = 0; k + 16 <= {{N}}; k += 16)
          for (l = 0; l < 16; ++l) s[l] = s[l] + pe[k + l];
        for (l = 0; k + l < {{N}}; ++l) s[16 - ({{N}} - k) + l] += pe[k + l];
        sum[r] = mlip__fold16_f(s);
      }
    }
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
    for (int32_t i0 = 0; i0 < {{INNER}}; i0 += 32) {
      const int32_t ni = {{INNER}} - i0 < 32 ? {{INNER}} - i0 : 32;
      const float* px = x + o * {{BLOCK}} + i0;
      float* py = y + o * {{BLOCK}} + i0;
      float mx[32], sum[32], ps[16][32], s[16];
      int32_t i, k, l;
      for (i = 0; i < ni; ++i) mx[i] = -INFINITY;
      for (l = 0; l < 16; ++l)
        for (i = 0; i < ni; ++i) ps[l][i] = 0.0f;
      for (k = 0; k < {{N}}; ++k)
        for (i = 0; i < ni; ++i) {
          const float v = px[k * {{INNER}} + i];
          mx[i] = v > mx[i] ? v : v == mx[i] ? fmaxf(mx[i], v) : mx[i];
        }
      for (k = 0; k < {{N}}; ++k) {
        float* pk = ps[k < {{N}} - {{N}} % 16 ? k % 16 : k - {{N}} + 16];
        for (i = 0; i < ni; ++i) py[k * {{INNER}} + i] = px[k * {{INNER}} + i] - mx[i];
        mlip__exp_nonpos_fma_f_n(py + k * {{INNER}}, ni);
        for (i = 0; i < ni; ++i) pk[i] += py[k * {{INNER}} + i];
      }
      for (i = 0; i < ni; ++i) {
        for (l = 0; l < 16; ++l) s[l] = ps[l][i];
        sum[i] = mlip__fold16_f(s);
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
