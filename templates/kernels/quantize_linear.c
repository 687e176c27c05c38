/* QuantizeLinear: x [OUTER, C, INNER] (C = 1 per tensor), one scale and zero
 * point per C: y = saturate(round_half_even(x / scale) + zero_point), in
 * float as ops::quantize_value computes it (rintf rounds half to even in the
 * default rounding mode); NaN gives the zero point. */
static void {{fn}}(const float* restrict x, const float* restrict s, {{#has_zp}}const {{out0_t}}* restrict z, {{/has_zp}}{{out0_t}}* restrict y) {
  for (int32_t o = 0; o < {{OUTER}}; ++o) {
    for (int32_t c = 0; c < {{C}}; ++c) {
      const float sc = s[c];
      const float zp = {{#has_zp}}(float)z[c]{{/has_zp}}{{^has_zp}}0.0f{{/has_zp}};
      const int32_t base = (o * {{C}} + c) * {{INNER}};
      for (int32_t i = 0; i < {{INNER}}; ++i) {
        float v = rintf(x[base + i] / sc) + zp;
        if (v != v) v = zp;
        v = v < {{LO}} ? {{LO}} : v;
        v = v > {{HI}} ? {{HI}} : v;
        y[base + i] = ({{out0_t}})v;
      }
    }
  }
}
