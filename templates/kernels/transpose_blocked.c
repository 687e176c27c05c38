/* Transpose in tiles: the output axis that is contiguous in the input
 * (length {{DQ}}, output stride {{OQ}}) and the output's last axis (length
 * {{DL}}, input stride {{SL}}) are walked in T x T tiles, so each tile reads
 * T runs of x and writes T runs of y that stay in L1 (the element-order walk
 * reads x with stride {{SL}} along the whole last axis). The other axes are
 * outer loops; s<a> and o<a> are the input and output offsets after loop a.
 * A copy: the same values in any order. */
static void {{fn}}(const {{in0_t}}* x, {{out0_t}}* y) {
  enum { T = {{T}} };
  const int32_t s0 = 0, o0 = 0;
{{#loops}}  for (int32_t i{{a}} = 0; i{{a}} < {{dim}}; ++i{{a}}) {
    const int32_t s{{a}} = s{{p}} + i{{a}} * {{stride}}, o{{a}} = o{{p}} + i{{a}} * {{ostride}};
{{/loops}}  for (int32_t q0 = 0; q0 < {{DQ}}; q0 += T)
    for (int32_t l0 = 0; l0 < {{DL}}; l0 += T) {
      const int32_t q1 = {{DQ}} - q0 < T ? {{DQ}} : q0 + T, l1 = {{DL}} - l0 < T ? {{DL}} : l0 + T;
      for (int32_t q = q0; q < q1; ++q)
        for (int32_t l = l0; l < l1; ++l) y[o{{r}} + q * {{OQ}} + l] = x[s{{r}} + q + l * {{SL}}];
    }
{{#loops}}  }
{{/loops}}}
