/* {{op}}: x viewed as [{{ROWS}}, {{N}}], each row normalized in the order of
 * ops/normalize.h: the mean, the mean of squared deviations, the inverse
 * standard deviation, then d * inv * scale{{#bias}} + bias{{/bias}}. */
static void {{fn}}(const float* x, const float* scale{{#bias}}, const float* bias{{/bias}}, float* y{{#mean}}, float* mean_out{{/mean}}{{#inv}}, float* inv_out{{/inv}}) {
  for (int32_t r = 0; r < {{ROWS}}; ++r) {
    const float* px = x + r * {{N}};
    float* py = y + r * {{N}};
    float sum = 0.0f;
    float sq = 0.0f;
    float mean, inv;
    int32_t j;
{{#per_row}}    const int32_t c = r % {{C}};
{{/per_row}}    for (j = 0; j < {{N}}; ++j) sum += px[j];
    mean = sum / {{NF}};
    for (j = 0; j < {{N}}; ++j) {
      const float d = px[j] - mean;
      sq += d * d;
    }
    inv = 1.0f / sqrtf(sq / {{NF}} + {{EPS}});
    for (j = 0; j < {{N}}; ++j) py[j] = (px[j] - mean) * inv * scale[{{scale_at}}]{{#bias}} + bias[{{bias_at}}]{{/bias}};
{{#mean}}    mean_out[r] = mean;
{{/mean}}{{#inv}}    inv_out[r] = inv;
{{/inv}}  }
}
