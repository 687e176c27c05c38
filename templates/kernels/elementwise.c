/* y = a op b with numpy broadcasting: loop d walks the (simplified) output
 * axis d; a<d>, b<d> are the input offsets after d loops (stride 0 on axes
 * an input is broadcast along). */
static void {{fn}}(const {{in0_t}}* a, const {{in1_t}}* b, {{out0_t}}* y) {
  int32_t o = 0;
  const int32_t a0 = 0;
  const int32_t b0 = 0;
{{#loops}}  for (int32_t i{{d}} = 0; i{{d}} < {{dim}}; ++i{{d}}) {
    const int32_t a{{d}} = {{a_off}};
    const int32_t b{{d}} = {{b_off}};
{{/loops}}  {
    const {{in0_t}} va = a[a{{r}}];
    const {{in1_t}} vb = b[b{{r}}];
    {{out0_t}} v = {{expr}};
    {{act}}
    y[o++] = v;
  }
{{#loops}}  }
{{/loops}}}
