/* y[batch] = a[batch] [M, K] x b[batch] [K, N]: loop d walks the (simplified)
 * broadcast batch axis d; a<d>, b<d> are the offsets of the operand matrices
 * after d loops (stride 0 on axes an operand is broadcast along). */
static void {{fn}}(const float* a, const float* b, float* y) {
  int32_t o = 0;
  const int32_t a0 = 0;
  const int32_t b0 = 0;
{{#loops}}  for (int32_t i{{d}} = 0; i{{d}} < {{dim}}; ++i{{d}}) {
    const int32_t a{{d}} = {{a_off}};
    const int32_t b{{d}} = {{b_off}};
{{/loops}}  {
    const float* pa = a + a{{r}};
    const float* pb = b + b{{r}};
    for (int32_t i = 0; i < {{M}}; ++i) {
      for (int32_t j = 0; j < {{N}}; ++j) {
        float v = 0.0f;
        for (int32_t p = 0; p < {{K}}; ++p) v += pa[i * {{K}} + p] * pb[p * {{N}} + j];
        {{act}}
        y[o++] = v;
      }
    }
  }
{{#loops}}  }
{{/loops}}}
