/* QLinearConv with 4-bit weights (--weight-bits 4) on mlip/kq4.h: the
 * convolution of qlinear_conv_q8.c, its weights stored as nibbles (w4: the
 * values, then each block's exponent; BLOCK weights a block along a row)
 * and unpacked one row at a time into the scratch, after the windows. The
 * bits are those of the same weights stored as int8. ch: per output channel
 * the sum's start and the (q, shift) of its requantization. */
static void {{fn}}(const {{x_t}}* restrict x, const int8_t* restrict w4, {{y_t}}* restrict y, void* scratch) {
  static const int32_t ch[{{M}} * MLIP_KQ8_CH] = { {{ch_list}} };
  static const mlip_kq8_conv_t d = {
      {{N}}, {{C}}, {{M}}, {{G}}, { {{ID}}, {{IH}}, {{IW}} }, { {{OD}}, {{OH}}, {{OW}} }, { {{KD}}, {{KH}}, {{KW}} },
      { {{SD}}, {{SH}}, {{SW}} }, { {{DD}}, {{DH}}, {{DW}} }, { {{PD}}, {{PH}}, {{PW}} },
      {{KROW}}, {{ROWS}}, {{X_U8}}, {{ZX}}, {{ZY}}, {{LO}}, {{HI}}};
  mlip_kq4_conv(&d, x, (const uint8_t*)w4, {{BLOCK}}, ch, y, scratch);
}
