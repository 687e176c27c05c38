/* y [M, N] = alpha * A' x B' (+ beta * C): i = row, j = column, p = inner
 * index; A', B' read through their (possibly transposed) strides, C through
 * broadcast strides. */
static void {{fn}}(const float* a, const float* b, {{#has_c}}const float* c, {{/has_c}}float* y) {
  for (int32_t i = 0; i < {{M}}; ++i) {
    for (int32_t j = 0; j < {{N}}; ++j) {
      float v = 0.0f;
      for (int32_t p = 0; p < {{K}}; ++p) v += a[{{a_idx}}] * b[{{b_idx}}];
      v = {{alpha}} * v;
{{#has_c}}      v += {{beta}} * c[{{c_idx}}];
{{/has_c}}      {{act}}
      y[i * {{N}} + j] = v;
    }
  }
}
