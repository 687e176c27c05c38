/* {{op}}: x [P = N*C, S] -> y [P], reducing each plane in order. */
static void {{fn}}(const float* x, float* y) {
  for (int32_t p = 0; p < {{P}}; ++p) {
    const float* xp = x + p * {{S}};
    float acc = {{init}};
    for (int32_t i = 0; i < {{S}}; ++i) {{update}};
    y[p] = {{result}};
  }
}
