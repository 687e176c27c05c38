/* The packed form of 4-bit weights (--weight-bits 4), one fact for its two
 * readers: the CPU kernels (mlip/kq4.h, written by c/kernels/conv_integer.cpp)
 * and the MLIP's int8 CONV2D and FC commands (their w4_block field; the
 * simulator unpacks on read, runtime/sim/op_conv2d.c and op_fc.c).
 *
 * M rows of K weights in blocks of `block` along K (nb = ceil(K / block)
 * blocks a row):
 *   bytes [0, ceil(M * K / 2)): the values q, row by row, as one stream of
 *     two's-complement int4 nibbles, value i in byte i / 2, the low nibble
 *     first (ONNX's int4 order; an odd count leaves the last high nibble 0);
 *   then ceil(M * nb / 2) bytes: each block's exponent e in
 *     [0, MLIP_KQ4_MAX_EXPONENT], one unsigned nibble per (row, block), in
 *     the same order.
 * The weight of row m, position k is q * 2^e (e of block k / block), an int8
 * value in [-128, 112]: the arithmetic is the int8 layer's on those values.
 * The CPU packs a layer's M rows as one record; the MLIP packs each output
 * channel's row as a record of its own (M = 1, mlip_kq4_bytes(1, K, block)
 * bytes), so that a command's block of channels starts at a byte. */
#ifndef MLIP_KQ4_FORMAT_H_
#define MLIP_KQ4_FORMAT_H_

#include <stdint.h>

/* The largest block exponent: q * 2^4 stays within int8 (and within the
 * 128 in magnitude the int8 layers' overflow bounds assume). */
#define MLIP_KQ4_MAX_EXPONENT 4

/* Nibble i of the stream at p (the low one of a byte first). */
static inline int32_t mlip_kq4_nibble(const uint8_t* p, int32_t i) { return (p[i >> 1] >> ((i & 1) * 4)) & 0xF; }

/* The bytes of M rows of K 4-bit weights in blocks of `block`, exponents included. */
static inline int32_t mlip_kq4_bytes(int32_t M, int32_t K, int32_t block) {
  return (M * K + 1) / 2 + (M * ((K + block - 1) / block) + 1) / 2;
}

/* The weight of row m, position k of the M rows of K packed at w4: the
 * nibble sign-extended, times 2^e of its block. */
static inline int32_t mlip_kq4_weight(const uint8_t* w4, int32_t M, int32_t K, int32_t block, int32_t m, int32_t k) {
  const int32_t q = (mlip_kq4_nibble(w4, m * K + k) ^ 8) - 8;
  return q * (1 << mlip_kq4_nibble(w4 + (M * K + 1) / 2, m * ((K + block - 1) / block) + k / block));
}

/* Weights k0 .. k0 + n - 1 of row m of the M rows of K packed at w4, as
 * int8 values, into out: mlip_kq4_weight of each, a block's exponent read
 * once. */
static inline void mlip_kq4_unpack(const uint8_t* w4, int32_t M, int32_t K, int32_t block, int32_t m, int32_t k0,
                                   int32_t n, int8_t* out) {
  const uint8_t* e = w4 + (M * K + 1) / 2;
  const int32_t nb = (K + block - 1) / block;
  int32_t k = k0;
  while (k < k0 + n) {
    const int32_t b = k / block, end = (b + 1) * block < k0 + n ? (b + 1) * block : k0 + n;
    const int32_t shift = mlip_kq4_nibble(e, m * nb + b);
    for (; k < end; ++k) {
      out[k - k0] = (int8_t)(((mlip_kq4_nibble(w4, m * K + k) ^ 8) - 8) * (1 << shift));
    }
  }
}

/* Whether every block exponent of the M rows of K at w4 is at most
 * MLIP_KQ4_MAX_EXPONENT (the packer writes no other; a reader that cannot
 * trust its bytes checks). */
static inline int mlip_kq4_exponents_ok(const uint8_t* w4, int32_t M, int32_t K, int32_t block) {
  const uint8_t* e = w4 + (M * K + 1) / 2;
  const int32_t n = M * ((K + block - 1) / block);
  int32_t i;
  for (i = 0; i < n; ++i) {
    if (mlip_kq4_nibble(e, i) > MLIP_KQ4_MAX_EXPONENT) {
      return 0;
    }
  }
  return 1;
}

/* The smallest e in [0, MLIP_KQ4_MAX_EXPONENT] at which each of the n int8
 * values v is some q * 2^e with q in [-8, 7]; -1 when none is. */
static inline int32_t mlip_kq4_exponent(const int8_t* v, int32_t n) {
  int32_t e, i;
  for (e = 0; e <= MLIP_KQ4_MAX_EXPONENT; ++e) {
    for (i = 0; i < n; ++i) {
      const int32_t x = v[i];
      if (x % (1 << e) != 0 || x / (1 << e) < -8 || x / (1 << e) > 7) {
        break;
      }
    }
    if (i == n) {
      return e;
    }
  }
  return -1;
}

/* Packs the M rows of K int8 values w (row-major) in blocks of `block` into
 * out (mlip_kq4_bytes(M, K, block) bytes, every byte written). Returns -1,
 * with out partly written, at the first block (row m, block b: *bad =
 * m * nb + b when bad is not NULL) that no exponent holds; 0 otherwise. */
static inline int32_t mlip_kq4_pack(const int8_t* w, int32_t M, int32_t K, int32_t block, uint8_t* out,
                                    int32_t* bad) {
  const int32_t nb = (K + block - 1) / block, vbytes = (M * K + 1) / 2;
  int32_t i, m, b, k;
  for (i = 0; i < mlip_kq4_bytes(M, K, block); ++i) {
    out[i] = 0;
  }
  for (m = 0; m < M; ++m) {
    for (b = 0; b < nb; ++b) {
      const int32_t k0 = b * block, k1 = K < k0 + block ? K : k0 + block;
      const int32_t e = mlip_kq4_exponent(w + m * K + k0, k1 - k0);
      if (e < 0) {
        if (bad != 0) {
          *bad = m * nb + b;
        }
        return -1;
      }
      out[vbytes + (m * nb + b) / 2] |= (uint8_t)(e << ((m * nb + b) % 2 * 4));
      for (k = k0; k < k1; ++k) {
        const int32_t i2 = m * K + k;
        out[i2 / 2] |= (uint8_t)(((w[i2] / (1 << e)) & 0xF) << (i2 % 2 * 4));
      }
    }
  }
  return 0;
}

#endif /* MLIP_KQ4_FORMAT_H_ */
