/* y[batch] = a[batch] [M, K] x b[batch] [K, N]: loop d walks the (simplified)
 * broadcast batch axis d; a<d>, b<d> are the offsets of the operand matrices
 * after d loops (stride 0 on axes an operand is broadcast along). Row i of
 * the product accumulates pa[i, p] * pb[p, :] (one rounding: mlip_fmaf) for p in order: the same sums
 * in the same order as dot products (bit-identical), along contiguous rows{{#bias}};
 * then bias[j] added to the finished sum, as the Add after a MatMul does{{/bias}}{{#scale}};
 * after the activation, times scale[j] (a layer scale's Mul){{/scale}}{{#residual}}; then
 * the residual's element added (the Add of a residual connection){{/residual}}. */
static void {{fn}}(const float* restrict a, {{#bias}}const float* restrict bias, {{/bias}}{{#scale}}const float* restrict scale, {{/scale}}{{#residual}}const float* restrict res, {{/residual}}const float* restrict b, float* restrict y) {
  float* yr = y;
  const int32_t a0 = 0;
  const int32_t b0 = 0;
{{#loops}}  for (int32_t i{{d}} = 0; i{{d}} < {{dim}}; ++i{{d}}) {
    const int32_t a{{d}} = {{a_off}};
    const int32_t b{{d}} = {{b_off}};
{{/loops}}  {
    const float* pa = a + a{{r}};
    const float* pb = b + b{{r}};
    for (int32_t i = 0; i < {{M}}; ++i, yr += {{N}}) {
      for (int32_t j = 0; j < {{N}}; ++j) yr[j] = 0.0f;
      for (int32_t p = 0; p < {{K}}; ++p) {
        const float av = pa[i * {{K}} + p];
        for (int32_t j = 0; j < {{N}}; ++j) yr[j] = mlip_fmaf(av, pb[p * {{N}} + j], yr[j]);
      }
      for (int32_t j = 0; j < {{N}}; ++j) {
        float v = yr[j];
{{#bias}}        v = v + bias[j];
{{/bias}}        {{act}}
{{#scale}}        v = v * scale[j];
{{/scale}}{{#residual}}        v = v + res[(yr - y) + j];
{{/residual}}        yr[j] = v;
      }
    }
  }
{{#loops}}  }
{{/loops}}}
