/* QLinearGlobalAveragePool: x [N, C, spatial...] (PLANES = N * C planes of
 * SIZE elements), y [N, C, 1, ...]. Each plane's sum of x - ZX in int32
 * (the compiler bounds SIZE so it cannot overflow), requantized by the
 * baked (Q, SHIFT) of x_scale / (y_scale * SIZE), plus ZY, saturated. */
static void {{fn}}(const {{in0_t}}* restrict x, {{out0_t}}* restrict y) {
  for (int32_t p = 0; p < {{PLANES}}; ++p) {
    const {{in0_t}}* xp = x + p * {{SIZE}};
    int32_t acc = 0;
    for (int32_t i = 0; i < {{SIZE}}; ++i) acc += (int32_t)xp[i] - {{ZX}};
    y[p] = ({{out0_t}})mlip_requantize(acc, {{Q}}, {{SHIFT}}, {{ZY}}, {{LO}}, {{HI}});
  }
}
