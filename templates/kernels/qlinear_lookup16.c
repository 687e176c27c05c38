/* mlipc.QLinearLookup on int16 (16x8): y[i] = mlip_lut16(x[i], table), a
 * 513-entry int16 table computed at compile time, interpolated between its
 * knots 128 input steps apart (mlip/lut16.h). */
static void {{fn}}(const int16_t* restrict x, const int16_t* restrict table, int16_t* restrict y) {
  for (int32_t i = 0; i < {{out0_n}}; ++i) y[i] = mlip_lut16(x[i], table);
}
