/* QLinearConv with constant int8 weights whose zero points are 0, on
 * mlip/kq8.h's convolution: per block of ROWS output positions, their
 * windows' bytes into the scratch (a fully-connected layer reads x itself
 * and has none), then the int8 product with the requantization, in the
 * variant for the instruction set this file is compiled for (Helium, DSP,
 * NEON, AVX2; the portable reference elsewhere), which gives the
 * reference's bits. w: the weights [M][C / G * KD * KH * KW], each row
 * zero-padded to KROW bytes. ch: per output channel the sum's start ((128
 * or 0 - zx) * its weights' sum plus its bias) and the (q, shift) of its
 * requantization. X_CL, Y_CL: x, y stored channels-last (a channels-last
 * depthwise layer's weights are tap-major, [KH][KW][M]). */
static void {{fn}}(const {{x_t}}* restrict x, const int8_t* restrict w,
                   {{y_t}}* restrict y{{#has_scratch}}, void* scratch{{/has_scratch}}) {
  static const int32_t ch[{{M}} * MLIP_KQ8_CH] = { {{ch_list}} };
  static const mlip_kq8_conv_t d = {
      {{N}}, {{C}}, {{M}}, {{G}}, { {{ID}}, {{IH}}, {{IW}} }, { {{OD}}, {{OH}}, {{OW}} }, { {{KD}}, {{KH}}, {{KW}} },
      { {{SD}}, {{SH}}, {{SW}} }, { {{DD}}, {{DH}}, {{DW}} }, { {{PD}}, {{PH}}, {{PW}} },
      {{KROW}}, {{ROWS}}, {{X_U8}}, {{ZX}}, {{ZY}}, {{LO}}, {{HI}}, {{X_CL}}, {{Y_CL}}};
  mlip_kq8_conv(&d, x, w, ch, y, {{#has_scratch}}scratch{{/has_scratch}}{{^has_scratch}}(void*)0{{/has_scratch}});
}
