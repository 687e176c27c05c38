/* {{op}}: the kept axes' loops outside (the output in order), the reduced
 * axes' loops inside, folding one element at a time in row-major order
 * (ops/reduce.h); s<d> is the input offset after d loops.{{^lse}}
 * G outputs fold side by side, each its own elements in that order (the
 * same bits): one output's fold is a chain of dependent additions, G of
 * them overlap (docs/benchmarks.md, stop 49). b[g] is output o0 + g's
 * offset from its kept axes; the last group repeats the last output where
 * it is short (not stored twice).{{/lse}} */
static void {{fn}}(const {{in0_t}}* x, {{out0_t}}* y) {
{{#lse}}  int32_t o = 0;
  const int32_t s0 = 0;
{{#kept}}  for (int32_t i{{d}} = 0; i{{d}} < {{dim}}; ++i{{d}}) {
    const int32_t s{{d}} = s{{p}} + i{{d}} * {{stride}};
{{/kept}}  {
    /* First pass: the maximum, subtracted before exp so that it cannot overflow. */
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
    {{acc_t}} acc = {{init}};
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
{{/kept}}{{/lse}}{{^lse}}  enum { NO = {{nout}}, G = NO < 1 ? 1 : NO < 8 ? NO : 8 };
  for (int32_t o0 = 0; o0 < NO; o0 += G) {
    int32_t b[G], g;
    {{acc_t}} a[G];
    for (g = 0; g < G; ++g) {
      int32_t o = o0 + g < NO ? o0 + g : NO - 1, s = 0;
{{#kept_rev}}      s += (o % {{dim}}) * {{stride}};
      o /= {{dim}};
{{/kept_rev}}      (void)o;
      b[g] = s;
      a[g] = {{init}};
    }
    {
    const int32_t s{{k}} = 0;
{{#reduced}}    for (int32_t i{{d}} = 0; i{{d}} < {{dim}}; ++i{{d}}) {
      const int32_t s{{d}} = s{{p}} + i{{d}} * {{stride}};
{{/reduced}}    MLIP_VUNROLL for (g = 0; g < G; ++g) {
      {{acc_t}} acc = a[g];
      const {{in0_t}} v = x[b[g] + s{{r}}];
      {{step}}
      a[g] = acc;
    }
{{#reduced}}    }
{{/reduced}}    }
    for (g = 0; g < G && o0 + g < NO; ++g) {
      const {{acc_t}} acc = a[g];
      y[o0 + g] = {{result}};
    }
  }
{{/lse}}}
