/* {{op}} of a tensor stored channels-last (c/layout.h): x [N, S, C] -> y [N,
 * C], all channels side by side in the innermost loop; per channel the
 * reference's arithmetic ({{#average}}positions summed in order from 0, then divided by S{{/average}}{{^average}}the first position, then every later one that is greater or a NaN{{/average}}). */
static void {{fn}}(const float* restrict x, float* restrict y) {
  for (int32_t n = 0; n < {{N}}; ++n) {
    const float* xn = x + n * {{S}} * {{C}};
    float* yn = y + n * {{C}};
    int32_t c;
    for (c = 0; c < {{C}}; ++c) yn[c] = {{#average}}0.0f + {{/average}}xn[c];
    for (int32_t i = 1; i < {{S}}; ++i) {
      const float* xi = xn + i * {{C}};
{{#average}}      for (c = 0; c < {{C}}; ++c) yn[c] += xi[c];
{{/average}}{{^average}}      for (c = 0; c < {{C}}; ++c) yn[c] = xi[c] > yn[c] || xi[c] != xi[c] ? xi[c] : yn[c];
{{/average}}    }
{{#average}}    for (c = 0; c < {{C}}; ++c) yn[c] = yn[c] / (float){{S}};
{{/average}}  }
}
