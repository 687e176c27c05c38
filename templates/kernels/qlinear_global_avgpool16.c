/* QLinearGlobalAveragePool, 16x8 (int16 x and y): x [N, C, spatial...]
 * (PLANES = N * C planes of SIZE elements), y [N, C, 1, ...]. Each plane's
 * sum of x - ZX in int64 (no plane size overflows it), requantized by the
 * baked (Q, SHIFT) of x_scale / (y_scale * SIZE) with mlip_requantize64,
 * plus ZY, saturated to [LO, HI]. */
static void {{fn}}(const int16_t* restrict x, int16_t* restrict y) {
  for (int32_t p = 0; p < {{PLANES}}; ++p) {
    int64_t acc = 0;
    for (int32_t i = 0; i < {{SIZE}}; ++i) acc += (int64_t)x[p * {{SIZE}} + i] - {{ZX}};
    y[p] = (int16_t)mlip_requantize64(acc, {{Q}}, {{SHIFT}}, {{ZY}}, {{LO}}, {{HI}});
  }
}
