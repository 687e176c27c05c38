/* 16x8 activations by a table with interpolation (TFLite's int16 LUT): an
 * int16 input x picks one of 512 segments of 128 input steps, k = (x +
 * 32768) / 128, and the output is table[k] plus the rounded share of the
 * segment's slope at x's offset o = (x + 32768) mod 128:
 *   y = table[k] + floor(((table[k + 1] - table[k]) * o + 64) / 128)
 * table holds 513 int16 values: entry k the output at input -32768 + 128 k
 * (entry 512 at 32768, one past int16, only for the last slope). The
 * compiler fills it (ops::lookup_table16: the function sampled at the knots
 * and quantized, each knot moved by half the midpoint error of its
 * segment, as TFLite's LUTPopulate); the C kernels, the compiler's
 * evaluator and the simulator's 16-bit TABLE call these functions, so they
 * give the same bits. Defined C99
 * arithmetic only: no negative value is shifted. */
#ifndef MLIP_LUT16_H_
#define MLIP_LUT16_H_

#include <stdint.h>

#define MLIP_LUT16_ENTRIES 513

/* The segment of x: the knots k and k + 1 around it. */
static inline int32_t mlip_lut16_segment(int32_t x) {
  return (x + 32768) >> 7; /* x + 32768 in [0, 65535] */
}

/* y at x between the knots of its segment, base = table[k] and next =
 * table[k + 1]: the interpolation itself, which the MLIP's 16-bit TABLE
 * (runtime/sim/op_table.c, knots read from OCM) calls too. */
static inline int16_t mlip_lut16_between(int32_t x, int32_t base, int32_t next) {
  const int32_t o = (x + 32768) & 127;
  const int32_t v = (next - base) * o + 64; /* |slope| < 2^16, o < 2^7: within int32 */
  const int32_t delta = v >= 0 ? v >> 7 : ~(~v >> 7); /* floor(v / 128) */
  return (int16_t)(base + delta); /* between base and next: an int16 */
}

static inline int16_t mlip_lut16(int32_t x, const int16_t* table) {
  const int32_t k = mlip_lut16_segment(x);
  return mlip_lut16_between(x, table[k], table[k + 1]);
}

#endif /* MLIP_LUT16_H_ */
