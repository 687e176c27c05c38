/* Integer requantization: an int32 accumulator of int8/uint8 products
 * scaled by a real multiplier M = in_scale * w_scale / out_scale, rounded,
 * offset by the output zero point and saturated to the output type.
 *
 * The one encoding of this arithmetic: the generated CPU kernels
 * (templates/kernels: QLinearConv, QLinearMatMul) and the compiler's
 * reference evaluator (codegen/ir/ops) both include this header, and the
 * compiler turns each real multiplier into its (multiplier, shift) pair with
 * mlip_quantize_multiplier below, once, for both. docs/runtime.md,
 * "Requantization", writes the arithmetic down.
 *
 * The scheme is TFLite's (gemmlowp's): M = q * 2^shift with q in [0.5, 1)
 * held as a Q31 integer (q * 2^31); the product x * M is the rounding
 * doubling high multiply of x by q, then a rounding right shift (or first a
 * left shift, for M >= 1). Every operation is defined C99 integer
 * arithmetic (no implementation-defined shifts of negative values, no
 * overflow), so every host and target gives the same bits.
 *
 * A second arithmetic, onnxruntime's (the build option --requant ort,
 * docs/mlip-spec.md section 4a): the accumulator converted to float32,
 * multiplied by a float32 scale, rounded half to even, plus the zero
 * point, saturated. Its pair is (the scale's bits, MLIP_REQUANT_F32):
 * mlip_requantize takes either pair, so every kernel, the simulator and the
 * compiler's evaluator compute whichever the compiler chose, from the same
 * constants. */
#ifndef MLIP_REQUANT_H_
#define MLIP_REQUANT_H_

#include "mlip/strict_fp.h" /* before any definition: no contraction (C) */

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Shifts the quantized multiplier may carry: left up to 30, right up to 31. */
#define MLIP_REQUANT_MIN_SHIFT (-31)
#define MLIP_REQUANT_MAX_SHIFT 30

/* round(a * b / 2^31), ties toward +infinity (gemmlowp's nudge: +2^30 for
 * a non-negative product, 1 - 2^30 for a negative one, then division that
 * truncates toward zero); saturates the one overflowing case
 * (-2^31 * -2^31) to 2^31 - 1. */
static inline int32_t mlip_rounding_doubling_high_mul(int32_t a, int32_t b) {
  const int64_t ab = (int64_t)a * (int64_t)b;
  const int64_t nudge = ab >= 0 ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30));
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

/* round(x / 2^exponent), ties away from zero, for exponent in [0, 31]. The
 * floor of a negative x is taken as ~(~x >> e), so no negative value is
 * shifted. Computed in 64 bits: the int32 form and the 64-bit
 * requantization (mlip_requantize64) share it. */
static inline int64_t mlip_rounding_shift_right64(int64_t v, int32_t exponent) {
  const int64_t mask = ((int64_t)1 << exponent) - 1;
  const int64_t floor_div = v >= 0 ? (v >> exponent) : ~(~v >> exponent);
  const int64_t remainder = v - floor_div * ((int64_t)1 << exponent); /* in [0, mask] */
  const int64_t threshold = (mask >> 1) + (v < 0 ? 1 : 0);
  return floor_div + (remainder > threshold ? 1 : 0);
}
static inline int32_t mlip_rounding_shift_right(int32_t x, int32_t exponent) {
  return (int32_t)mlip_rounding_shift_right64(x, exponent);
}

/* x * q * 2^shift for a Q31 multiplier q (0 or in [2^30, 2^31)) and shift in
 * [MLIP_REQUANT_MIN_SHIFT, MLIP_REQUANT_MAX_SHIFT]. A left shift saturates
 * x * 2^shift to int32 before the multiply (TFLite leaves that overflow
 * undefined). */
static inline int32_t mlip_multiply_by_quantized_multiplier(int32_t x, int32_t q, int32_t shift) {
  int32_t v = x;
  if (shift > 0) {
    const int64_t w = (int64_t)x * ((int64_t)1 << shift);
    v = w > INT32_MAX ? INT32_MAX : (w < INT32_MIN ? INT32_MIN : (int32_t)w);
  }
  v = mlip_rounding_doubling_high_mul(v, q);
  return shift < 0 ? mlip_rounding_shift_right(v, -shift) : v;
}

/* The shift of a float32 pair: q holds the bits of a float32 scale
 * (positive, finite), not a Q31 multiplier. Outside [MLIP_REQUANT_MIN_SHIFT,
 * MLIP_REQUANT_MAX_SHIFT], so no fixed-point pair is mistaken for one. */
#define MLIP_REQUANT_F32 64

/* The float32 whose bits are b. */
static inline float mlip_f32_of_bits(int32_t b) {
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}

/* Round half to even of a float32 v with |v| < 2^22: adding 1.5 * 2^23
 * leaves no fraction bit, so IEEE addition rounds there, half to even
 * (the default rounding mode); subtracting it back is exact. No libm
 * (nearbyintf may be missing or slow on a Cortex-M without FPU). */
static inline float mlip_round_half_even_f32(float v) {
  const float magic = 12582912.0f;
  return (v + magic) - magic;
}

/* onnxruntime's requantization (MlasRequantizeOutput): float32(acc) *
 * scale, clamped in float to [lo - zero_point, hi - zero_point] (whole
 * numbers, so clamping before rounding equals clamping after it), rounded
 * half to even, plus the zero point. lo <= hi inside an 8-bit range, so
 * the clamped value is below 2^22 in magnitude. A NaN cannot occur (acc
 * is finite, the scale positive and finite). */
static inline int32_t mlip_requantize_f32(int32_t acc, float scale, int32_t zero_point, int32_t lo, int32_t hi) {
  const float flo = (float)(lo - zero_point), fhi = (float)(hi - zero_point);
  float v = (float)acc * scale;
  v = v < flo ? flo : (v > fhi ? fhi : v);
  return (int32_t)mlip_round_half_even_f32(v) + zero_point;
}

/* a + b saturated to int32 (an accumulator plus an int32 bias). */
static inline int32_t mlip_add_sat_i32(int32_t a, int32_t b) {
  const int64_t s = (int64_t)a + (int64_t)b;
  return s > INT32_MAX ? INT32_MAX : (s < INT32_MIN ? INT32_MIN : (int32_t)s);
}

/* The requantized output: acc scaled by (q, shift), plus the output zero
 * point, saturated to [lo, hi] (the output type's range); a float32 pair
 * (shift MLIP_REQUANT_F32) by onnxruntime's arithmetic instead. */
static inline int32_t mlip_requantize(int32_t acc, int32_t q, int32_t shift, int32_t zero_point, int32_t lo,
                                      int32_t hi) {
  if (shift == MLIP_REQUANT_F32) return mlip_requantize_f32(acc, mlip_f32_of_bits(q), zero_point, lo, hi);
  {
    const int64_t v = (int64_t)mlip_multiply_by_quantized_multiplier(acc, q, shift) + zero_point;
    return v < lo ? lo : (v > hi ? hi : (int32_t)v);
  }
}

/* The same requantization of a 64-bit accumulator (16x8: int16 activations
 * times int8 weights plus an int64 bias, docs/runtime.md "Requantization").
 * One rule, extended: an accumulator within int32 goes through
 * mlip_requantize itself, so the bits are the int8 path's; a wider one gets
 * the same two roundings computed exactly in 64 bits: round(acc * q / 2^31)
 * ties toward +infinity (acc split as hi * 2^32 + lo, lo in [0, 2^32): the
 * hi part's product is exact, 2 * hi * q, and only lo * q / 2^31 is
 * rounded; floor((lo * q + 2^30) / 2^31), which is the nudge-and-truncate of
 * mlip_rounding_doubling_high_mul), then the rounding right shift, ties away
 * from zero, or first a left shift saturated to +-2^62. |acc| <= 2^62
 * (the compiler bounds the sums far below), so nothing overflows. The
 * float32 pair converts acc to float32 as the 32-bit one does. */
static inline int32_t mlip_requantize64(int64_t acc, int32_t q, int32_t shift, int32_t zero_point, int32_t lo,
                                        int32_t hi) {
  if (acc >= INT32_MIN && acc <= INT32_MAX) return mlip_requantize((int32_t)acc, q, shift, zero_point, lo, hi);
  if (shift == MLIP_REQUANT_F32) {
    const float flo = (float)(lo - zero_point), fhi = (float)(hi - zero_point);
    float v = (float)acc * mlip_f32_of_bits(q);
    v = v < flo ? flo : (v > fhi ? fhi : v);
    return (int32_t)mlip_round_half_even_f32(v) + zero_point;
  }
  {
    const int64_t limit = (int64_t)1 << 62;
    int64_t x = acc, hi_part, lo_part, lo_prod, v;
    if (shift > 0) {
      x = x > (limit >> shift) ? limit : (x < -(limit >> shift) ? -limit : x * ((int64_t)1 << shift));
    }
    /* floor(x / 2^32), no negative value shifted */
    hi_part = x >= 0 ? (x >> 32) : ~(~x >> 32);
    lo_part = x - hi_part * ((int64_t)1 << 32); /* [0, 2^32) */
    lo_prod = lo_part * (int64_t)q + ((int64_t)1 << 30); /* < 2^63: q < 2^31 */
    v = 2 * hi_part * (int64_t)q + lo_prod / ((int64_t)1 << 31);
    if (shift < 0) v = mlip_rounding_shift_right64(v, -shift);
    v += zero_point;
    return v < lo ? lo : (v > hi ? hi : (int32_t)v);
  }
}

/* Splits a real multiplier m >= 0 into (q, shift) with m ~ q * 2^(shift - 31)
 * (TFLite's QuantizeMultiplier): frexp gives m = f * 2^e, f in [0.5, 1);
 * q = round(f * 2^31), ties away from zero (exact in double); a q that
 * rounds up to 2^31 becomes 2^30 with e + 1. m = 0 and m below 2^-32 (e <
 * -31, nothing would survive the shift) give (0, 0). Returns 0, or -1 (and
 * (0, 0)) when m is negative, NaN, infinite or 2^30 or more (a left shift
 * above MLIP_REQUANT_MAX_SHIFT). The compiler calls it; kernels get the
 * results as constants. */
static inline int mlip_quantize_multiplier(double m, int32_t* q, int32_t* shift) {
  int e = 0;
  double f;
  int64_t qf;
  *q = 0;
  *shift = 0;
  if (!(m >= 0.0) || m > 1.0e300) return -1; /* negative, NaN or infinite */
  if (m == 0.0) return 0;
  f = frexp(m, &e);
  qf = (int64_t)round(f * 2147483648.0);
  if (qf == ((int64_t)1 << 31)) {
    qf /= 2;
    ++e;
  }
  if (e > MLIP_REQUANT_MAX_SHIFT) return -1;
  if (e < MLIP_REQUANT_MIN_SHIFT) return 0;
  *q = (int32_t)qf;
  *shift = (int32_t)e;
  return 0;
}

/* QLinearAdd's sum before the output's requantization (TFLite's scheme):
 * each input, its zero point taken off, is scaled up by 2^20 for headroom
 * and brought to a common scale by its (q, shift) (a real multiplier below
 * 1: in_scale / (2 * max(a_scale, b_scale))); the output then takes
 * 2 * max(a_scale, b_scale) / (2^20 * out_scale). a and b are int8/uint8
 * values minus their zero points (|a|, |b| <= 255), so no step overflows. */
#define MLIP_QADD_LEFT_SHIFT 20
/* 16x8 (int16 inputs, zero point 0, |a|, |b| <= 32768): 2^15 of headroom,
 * TFLite's for int16, so a * 2^15 stays within int32. */
#define MLIP_QADD16_LEFT_SHIFT 15
static inline int32_t mlip_qadd_sum_shifted(int32_t a, int32_t qa, int32_t sa, int32_t b, int32_t qb, int32_t sb,
                                            int32_t left_shift) {
  return mlip_multiply_by_quantized_multiplier(a * ((int32_t)1 << left_shift), qa, sa) +
         mlip_multiply_by_quantized_multiplier(b * ((int32_t)1 << left_shift), qb, sb);
}
static inline int32_t mlip_qadd_sum(int32_t a, int32_t qa, int32_t sa, int32_t b, int32_t qb, int32_t sb) {
  return mlip_qadd_sum_shifted(a, qa, sa, b, qb, sb, MLIP_QADD_LEFT_SHIFT);
}
static inline int32_t mlip_qadd16_sum(int32_t a, int32_t qa, int32_t sa, int32_t b, int32_t qb, int32_t sb) {
  return mlip_qadd_sum_shifted(a, qa, sa, b, qb, sb, MLIP_QADD16_LEFT_SHIFT);
}

/* QLinearAdd by onnxruntime's arithmetic (--requant ort): its x86-64
 * kernel's (MLAS, SSE2; the operator's definition up to float32
 * rounding). With ra = a_scale / y_scale, rb = b_scale / y_scale and
 * offset = (float)zy - (ra * za + rb * zb), each a float32 step in that
 * order (the compiler computes them, ops::add_f32), the output is
 * (offset + a * ra) + b * rb in float32, a and b the stored values (their
 * zero points are in the offset), rounded half to even and saturated to
 * [lo, hi]. */
static inline int32_t mlip_qadd_f32(int32_t a, int32_t b, float ra, float rb, float offset, int32_t lo, int32_t hi) {
  const float flo = (float)lo, fhi = (float)hi;
  float v = (offset + (float)a * ra) + (float)b * rb;
  v = v < flo ? flo : (v > fhi ? fhi : v);
  return (int32_t)mlip_round_half_even_f32(v);
}

#endif /* MLIP_REQUANT_H_ */
