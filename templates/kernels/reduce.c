/* {{op}}: the kept axes' loops outside (the output in order), the reduced
 * axes' loops inside, folding one element at a time in row-major order
 * (ops/reduce.h); s<d> is the input offset after d loops. */
static void {{fn}}(const {{in0_t}}* x, {{out0_t}}* y) {
  int32_t o = 0;
  const int32_t s0 = 0;
{{#kept}}  for (int32_t i{{d}} = 0; i{{d}} < {{dim}}; ++i{{d}}) {
    const int32_t s{{d}} = s{{p}} + i{{d}} * {{stride}};
{{/kept}}  {
{{#lse}}    /* First pass: the maximum, subtracted before exp so that it cannot overflow. */
    {{acc_t}} mx = -INFINITY;
    {{acc_t}} shift;
{{#reduced}}    for (int32_t i{{d}} = 0; i{{d}} < {{dim}}; ++i{{d}}) {
      const int32_t s{{d}} = s{{p}} + i{{d}} * {{stride}};
{{/reduced}}    {
      const {{in0_t}} v = x[s{{r}}];
      mx = (v > mx || isnan(v)) ? v : mx;
    }
{{#reduced}}    }
{{/reduced}}    shift = isfinite(mx) ? mx : {{zero}};
{{/lse}}    {{acc_t}} acc = {{init}};
{{#reduced}}    for (int32_t i{{d}} = 0; i{{d}} < {{dim}}; ++i{{d}}) {
      const int32_t s{{d}} = s{{p}} + i{{d}} * {{stride}};
{{/reduced}}    {
      const {{in0_t}} v = x[s{{r}}];
      {{step}}
    }
{{#reduced}}    }
{{/reduced}}    y[o++] = {{result}};
  }
{{#kept}}  }
{{/kept}}}
