/* A byte copy (any element type). */
static void {{fn}}(const {{in0_t}}* x, {{out0_t}}* y) {
{{#empty}}  (void)x;
  (void)y;
{{/empty}}{{^empty}}  memcpy(y, x, (size_t){{out0_n}} * sizeof({{out0_t}}));
{{/empty}}}
