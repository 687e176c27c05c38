/* {{op}}: x viewed as [{{ROWS}}, {{N}}], each row normalized in the order of
 * ops/normalize.h: the mean, the mean of squared deviations, the inverse
 * standard deviation, then d * inv * scale{{#bias}} + bias{{/bias}}{{#div}} (d / sd instead of d * inv: a
 * LayerNormalization fused from its opset-13 decomposition, which divides){{/div}}. Up to 8 rows side by side:
 * each row's two sums are separate chains in j's order, which the core
 * overlaps (one row alone waits on every add); every row's sums are taken
 * before any row is written. */
static void {{fn}}(const float* x, const float* scale{{#bias}}, const float* bias{{/bias}}, float* y{{#mean}}, float* mean_out{{/mean}}{{#inv}}, float* inv_out{{/inv}}) {
  for (int32_t r0 = 0; r0 < {{ROWS}}; r0 += 8) {
    const int32_t nr = {{ROWS}} - r0 < 8 ? {{ROWS}} - r0 : 8;
    const float* px = x + r0 * {{N}};
    float sum[8], sq[8], mean[8];
    int32_t r, j;
    for (r = 0; r < nr; ++r) {
      sum[r] = 0.0f;
      sq[r] = 0.0f;
    }
    for (j = 0; j < {{N}}; ++j)
      for (r = 0; r < nr; ++r) sum[r] += px[r * {{N}} + j];
    for (r = 0; r < nr; ++r) mean[r] = sum[r] / {{NF}};
    for (j = 0; j < {{N}}; ++j)
      for (r = 0; r < nr; ++r) {
        const float d = px[r * {{N}} + j] - mean[r];
        sq[r] += d * d;
      }
    for (r = 0; r < nr; ++r) {
      const float* pr = px + r * {{N}};
      float* py = y + (r0 + r) * {{N}};
{{^div}}      const float inv = 1.0f / sqrtf(sq[r] / {{NF}} + {{EPS}});
{{/div}}{{#div}}      const float sd = sqrtf(sq[r] / {{NF}} + {{EPS}});
{{/div}}{{#per_row}}      const int32_t c = (r0 + r) % {{C}};
{{/per_row}}{{^div}}      for (j = 0; j < {{N}}; ++j) py[j] = (pr[j] - mean[r]) * inv * scale[{{scale_at}}]{{#bias}} + bias[{{bias_at}}]{{/bias}};
{{/div}}{{#div}}      for (j = 0; j < {{N}}; ++j) py[j] = (pr[j] - mean[r]) / sd * scale[{{scale_at}}]{{#bias}} + bias[{{bias_at}}]{{/bias}};
{{/div}}{{#mean}}      mean_out[r0 + r] = mean[r];
{{/mean}}{{#inv}}      inv_out[r0 + r] = {{^div}}inv{{/div}}{{#div}}1.0f / sd{{/div}};
{{/inv}}    }
  }
}
