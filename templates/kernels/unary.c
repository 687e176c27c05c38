static void {{fn}}(const {{in0_t}}* x, {{out0_t}}* y) {
  for (int32_t i = 0; i < {{out0_n}}; ++i) y[i] = ({{out0_t}})({{expr}});
}
