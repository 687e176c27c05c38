/* QLinearGlobalAveragePool: x [N, C, spatial...] (PLANES = N * C planes of
 * SIZE elements), y [N, C, 1, ...]. Each plane's sum of x - ZX in int32
 * (the compiler bounds SIZE so it cannot overflow), requantized by the
 * baked (Q, SHIFT) of x_scale / (y_scale * SIZE), plus ZY, saturated: on
 * mlip/kq8.h's mlip_kq8_gap (Helium, DSP or the portable reference, the
 * same bits). */
static void {{fn}}(const {{in0_t}}* restrict x, {{out0_t}}* restrict y) {
  mlip_kq8_gap({{PLANES}}, {{SIZE}}, x, {{U8}}, {{ZX}}, {{Q}}, {{SHIFT}}, {{ZY}}, {{LO}}, {{HI}}, y);
}
