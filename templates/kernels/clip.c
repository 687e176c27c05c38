/* y = min(max(x, lo), hi); a bound that clips nothing is left out. The lower
 * bound goes first, so min > max gives max as in ONNX; NaN stays NaN. */
static void {{fn}}(const {{in0_t}}* x, {{#lo_ptr}}const {{in1_t}}* lo_p, {{/lo_ptr}}{{#hi_ptr}}const {{in2_t}}* hi_p, {{/hi_ptr}}{{out0_t}}* y) {
{{#has_lo}}  const {{in0_t}} lo = {{lo}};
{{/has_lo}}{{#has_hi}}  const {{in0_t}} hi = {{hi}};
{{/has_hi}}  for (int32_t i = 0; i < {{out0_n}}; ++i) {
    {{in0_t}} v = x[i];
{{#has_lo}}    if (v < lo) v = lo;
{{/has_lo}}{{#has_hi}}    if (v > hi) v = hi;
{{/has_hi}}    y[i] = v;
  }
}
