/* Cast {{rule}}: the rules of include/mlip/kconvert.h and ops/cast.cpp. */
static void {{fn}}(const {{in0_t}}* x, {{out0_t}}* y) {
  for (int32_t i = 0; i < {{out0_n}}; ++i) {
    const {{vt}} v = {{read}};
    y[i] = {{expr}};
  }
}
