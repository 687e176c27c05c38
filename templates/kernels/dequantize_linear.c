/* DequantizeLinear: x [OUTER, C, INNER] (C = 1 per tensor), one scale and
 * zero point per C: y = (float)(x - zero_point) * scale, the difference in
 * int64 (exact for int32 x), as ops::eval_DequantizeLinear. */
static void {{fn}}(const {{in0_t}}* restrict x, const float* restrict s, {{#has_zp}}const {{in0_t}}* restrict z, {{/has_zp}}float* restrict y) {
  for (int32_t o = 0; o < {{OUTER}}; ++o) {
    for (int32_t c = 0; c < {{C}}; ++c) {
      const float sc = s[c];
      const int64_t zp = {{#has_zp}}(int64_t)z[c]{{/has_zp}}{{^has_zp}}0{{/has_zp}};
      const int32_t base = (o * {{C}} + c) * {{INNER}};
      for (int32_t i = 0; i < {{INNER}}; ++i) y[base + i] = (float)((int64_t)x[base + i] - zp) * sc;
    }
  }
}
