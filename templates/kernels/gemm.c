/* y [M, N] = alpha * A' x B' (+ beta * C): i = row, j = column, p = inner
 * index; A', B' read through their (possibly transposed) strides, C through
 * broadcast strides. Row i of y accumulates a[i, p] * B'[p, :] (one
 * rounding: mlip_fmaf) for p in
 * order: every element sums the same products in the same order as a dot
 * product would (bit-identical), and the inner loop runs along the row. */
static void {{fn}}(const float* restrict a, const float* restrict b, {{#has_c}}const float* restrict c, {{/has_c}}float* restrict y) {
  for (int32_t i = 0; i < {{M}}; ++i) {
    float* yr = y + i * {{N}};
    for (int32_t j = 0; j < {{N}}; ++j) yr[j] = 0.0f;
    for (int32_t p = 0; p < {{K}}; ++p) {
      const float av = a[{{a_idx}}];
      for (int32_t j = 0; j < {{N}}; ++j) yr[j] = mlip_fmaf(av, b[{{b_idx}}], yr[j]);
    }
    for (int32_t j = 0; j < {{N}}; ++j) {
      float v = {{alpha}} * yr[j];
{{#has_c}}      v += {{beta}} * c[{{c_idx}}];
{{/has_c}}      {{act}}
      yr[j] = v;
    }
  }
}
