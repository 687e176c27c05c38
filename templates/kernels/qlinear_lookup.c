/* mlipc.QLinearLookup: y[i] = table[x[i] - LO], a 256-entry table of the
 * output type computed at compile time (a quantized activation, or a
 * requantization to another scale); exact for every int8/uint8 input. */
static void {{fn}}(const {{in0_t}}* restrict x, const {{in1_t}}* restrict table, {{out0_t}}* restrict y) {
  for (int32_t i = 0; i < {{out0_n}}; ++i) y[i] = table[(int32_t)x[i] - {{LO}}];
}
