/* BatchNormalization (inference), parameters at run time: x [N, C, S] ->
 * y = x * scale + shift, scale = gamma / sqrt(var + epsilon),
 * shift = beta - mean * scale, per channel. */
static void {{fn}}(const float* x, const float* gamma, const float* beta,
                   const float* mean, const float* var, float* y) {
  for (int32_t n = 0; n < {{N}}; ++n) {
    for (int32_t c = 0; c < {{C}}; ++c) {
      const float scale = gamma[c] / sqrtf(var[c] + {{epsilon}});
      const float shift = beta[c] - mean[c] * scale;
      const float* xc = x + (n * {{C}} + c) * {{S}};
      float* yc = y + (n * {{C}} + c) * {{S}};
      for (int32_t i = 0; i < {{S}}; ++i) {
        float v = xc[i] * scale + shift;
        {{act}}
        yc[i] = v;
      }
    }
  }
}
