/* y = f(x0, x1, ...) with numpy broadcasting: loop d walks the (simplified)
 * output axis d; p<k>_<d> is input k's offset after d loops (stride 0 on the
 * axes input k is broadcast along). v<k> is input k's element in its compute
 * type; the body computes the output element v. An input with the output's
 * shape may share its bytes (no restrict): element o is read, then written. */
static void {{fn}}({{params}}{{out0_t}}* {{y_restrict}}y) {
  int32_t o = 0;
{{start}}{{#loops}}  for (int32_t i{{d}} = 0; i{{d}} < {{dim}}; ++i{{d}}) {
{{offsets}}{{/loops}}  {
{{loads}}{{body}}
    {{act}}
    y[o++] = {{result}};
  }
{{#loops}}  }
{{/loops}}{{post}}}
