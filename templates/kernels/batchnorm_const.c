/* BatchNormalization (inference), constant parameters: x [N, C, S] (or
 * channels-last [N, S, C]) ->
 * y = x * scale + shift per channel, the factors computed at compile time
 * (scale = gamma / sqrt(var + epsilon), shift = beta - mean * scale). */
static void {{fn}}(const float* x, float* y) {
  static const float scale_c[{{C}}] = {
    {{scale_values}}
  };
  static const float shift_c[{{C}}] = {
    {{shift_values}}
  };
{{^cl}}  for (int32_t n = 0; n < {{N}}; ++n) {
    for (int32_t c = 0; c < {{C}}; ++c) {
      const float* xc = x + (n * {{C}} + c) * {{S}};
      float* yc = y + (n * {{C}} + c) * {{S}};
      for (int32_t i = 0; i < {{S}}; ++i) {
        float v = xc[i] * scale_c[c] + shift_c[c];
        {{act}}
        yc[i] = v;
      }
    }
  }
{{/cl}}{{#cl}}  /* Channels-last: [N, S, C], the same operations per element. */
  for (int32_t p = 0; p < {{N}} * {{S}}; ++p) {
    const float* xp = x + p * {{C}};
    float* yp = y + p * {{C}};
    for (int32_t c = 0; c < {{C}}; ++c) {
      float v = xp[c] * scale_c[c] + shift_c[c];
      {{act}}
      yp[c] = v;
    }
  }
{{/cl}}}
