/* Mean over the reduced axes: the kept axes' loops outside (the output in
 * order), the reduced axes' loops inside; s<d> is the input offset after d
 * loops. */
static void {{fn}}(const float* x, float* y) {
  int32_t o = 0;
  const int32_t s0 = 0;
{{#kept}}  for (int32_t i{{d}} = 0; i{{d}} < {{dim}}; ++i{{d}}) {
    const int32_t s{{d}} = s{{p}} + i{{d}} * {{stride}};
{{/kept}}  {
    float acc = 0.0f;
{{#reduced}}    for (int32_t i{{d}} = 0; i{{d}} < {{dim}}; ++i{{d}}) {
      const int32_t s{{d}} = s{{p}} + i{{d}} * {{stride}};
{{/reduced}}    acc += x[s{{r}}];
{{#reduced}}    }
{{/reduced}}    y[o++] = acc / {{count}};
  }
{{#kept}}  }
{{/kept}}}
