/* QLinearMatMul with a constant int8 B whose zero points are 0 (a
 * fully-connected layer) on mlip/kq8.h's int8 product, in the variant for
 * the instruction set this file is compiled for (Helium, DSP, NEON, AVX2;
 * the portable reference elsewhere), which gives the reference's bits: the
 * P rows of A (every batch's) against the N columns of B, packed as rows of
 * K bytes (w); a's bytes read as int8 (a uint8 value less 128: flip). ch:
 * per column the sum's start ((128 or 0 - za) times the column's sum) and
 * the (q, shift) of its requantization. */
static void {{fn}}(const {{a_t}}* restrict a, const int8_t* restrict w, {{y_t}}* restrict y) {
  static const int32_t ch[{{N}} * MLIP_KQ8_CH] = { {{ch_list}} };
  mlip_kq8_gemm({{P}}, {{N}}, {{K}}, (const uint8_t*)a, {{FLIP}}, w, ch, {{ZY}}, {{LO}}, {{HI}}, (uint8_t*)y, {{N}}, 1);
}
