static void {{fn}}(const {{in0_t}}* x, {{out0_t}}* y) {
  /* The output in order; s = offset of the input element. */
  int32_t o = 0;
  const int32_t s0 = 0;
{{#loops}}  for (int32_t i{{a}} = 0; i{{a}} < {{dim}}; ++i{{a}}) {
    const int32_t s{{a}} = s{{p}} + i{{a}} * {{stride}};
{{/loops}}  y[o++] = x[s{{r}}];
{{#loops}}  }
{{/loops}}}
