static void {{fn}}({{#ins}}const {{t}}* x{{k}}, {{/ins}}{{out0_t}}* y) {
  /* Each output row (the axes before the concat axis) is the inputs' chunks in order. */
{{^ins}}  (void)y; /* an empty output */
{{/ins}}  for (int32_t o = 0; o < {{outer}}; ++o) {
{{#ins}}    for (int32_t i = 0; i < {{chunk}}; ++i) y[o * {{out_chunk}} + {{offset}} + i] = x{{k}}[o * {{chunk}} + i];
{{/ins}}  }
}
