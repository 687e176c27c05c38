/* 4-bit weights (--weight-bits 4) for mlip/kq8.h's int8 convolution: the
 * weights stay int8 values in the arithmetic (the same sums, the same
 * requantization, so the same bits as those values stored as int8) and are
 * stored as nibbles, unpacked one weight row at a time into the scratch.
 *
 * The packing (mlip/kq4_format.h; c/kernels/conv_integer.cpp writes it)
 * holds M rows of K weights (K a padded row, mlip_kq8_conv_t.k) in blocks of
 * `block` along K (a Conv's row is one block): for a dense layer PTQ's
 * power-of-two sub-scales (ptq/weight_scale.h).
 *
 * The kernels are the portable reference's (mlip_kq8_gemm_ref,
 * mlip_kq8_dw_ref) on the unpacked rows: the instruction-set variants of
 * kq8.h are not used for 4-bit layers, as for --requant ort on the Helium
 * and DSP variants (docs/adding-an-operator.md, "Kernel variants"). */
#ifndef MLIP_KQ4_H_
#define MLIP_KQ4_H_

#include "mlip/strict_fp.h" /* before any definition: no contraction (C) */

#include <stdint.h>

#include "mlip/kq4_format.h"
#include "mlip/kq8.h"

/* Row m of the M rows of K weights packed at w4, as int8 values, into row. */
static inline void mlip_kq4_row(const uint8_t* w4, int32_t M, int32_t K, int32_t block, int32_t m, int8_t* row) {
  mlip_kq4_unpack(w4, M, K, block, m, 0, K, row);
}

/* The scratch bytes mlip_kq4_conv needs: kq8's, then a row of weights (a
 * depthwise layer's weights all: its rows are short and each is read once
 * per image and channel). */
static inline int32_t mlip_kq4_conv_scratch(const mlip_kq8_conv_t* d) {
  return mlip_kq8_conv_scratch(d) + (mlip_kq8_conv_depthwise(d) ? d->m * d->k : d->k);
}

/* mlip_kq8_gemm_ref on rows m0 .. m0 + M - 1 of the packed weights (mall
 * rows in all), each unpacked into row first. */
static inline void mlip_kq4_gemm(int32_t P, int32_t M, int32_t K, const uint8_t* a, uint32_t flip, const uint8_t* w4,
                                 int32_t mall, int32_t m0, int32_t block, const int32_t* ch, int32_t zy, int32_t lo,
                                 int32_t hi, uint8_t* y, int32_t yp, int32_t ym, int8_t* row) {
  int32_t m;
  for (m = 0; m < M; ++m) {
    mlip_kq4_row(w4, mall, K, block, m0 + m, row);
    mlip_kq8_gemm_ref(P, 1, K, a, flip, row, ch + MLIP_KQ8_CH * m, zy, lo, hi, y + m * ym, yp, ym);
  }
}

/* The convolution of mlip_kq8_conv with weights packed at w4: the same
 * windows (mlip_kq8_gather), sums and requantization. */
static inline void mlip_kq4_conv(const mlip_kq8_conv_t* d, const void* x, const uint8_t* w4, int32_t block,
                                 const int32_t* ch, void* y, void* scratch) {
  const int32_t icg = d->c / d->groups, ocg = d->m / d->groups;
  const int32_t isize = d->in[0] * d->in[1] * d->in[2], osize = d->out[0] * d->out[1] * d->out[2];
  const uint8_t flip = d->x_u8 ? 0x80u : 0u;
  const uint8_t pad = (uint8_t)((uint8_t)d->zx ^ flip);
  uint8_t* a = (uint8_t*)scratch;
  int8_t* row = (int8_t*)(a + mlip_kq8_conv_scratch(d));
  int32_t n, g, m;
  if (mlip_kq8_conv_depthwise(d)) {
    for (m = 0; m < d->m; ++m) mlip_kq4_row(w4, d->m, d->k, block, m, row + m * d->k);
    mlip_kq8_dw_with(d, x, row, ch, y, scratch, mlip_kq8_dw_ref);
    return;
  }
  if (mlip_kq8_conv_direct(d)) {
    mlip_kq4_gemm(d->n, d->m, d->k, (const uint8_t*)x, flip, w4, d->m, 0, block, ch, d->zy, d->lo, d->hi,
                  (uint8_t*)y, d->m, 1, row);
    return;
  }
  for (n = 0; n < d->n; ++n) {
    for (g = 0; g < d->groups; ++g) {
      const uint8_t* xg = (const uint8_t*)x + (n * d->c + g * icg) * isize;
      uint8_t* yg = (uint8_t*)y + (n * d->m + g * ocg) * osize;
      int32_t od = 0, oh = 0, ow = 0, p0;
      for (p0 = 0; p0 < osize; p0 += d->rows) {
        const int32_t np = osize - p0 < d->rows ? osize - p0 : d->rows;
        int32_t r;
        for (r = 0; r < np; ++r) {
          mlip_kq8_gather(d, xg, od, oh, ow, flip, pad, a + r * d->k);
          if (++ow == d->out[2]) {
            ow = 0;
            if (++oh == d->out[1]) {
              oh = 0;
              ++od;
            }
          }
        }
        mlip_kq4_gemm(np, ocg, d->k, a, 0, w4, d->m, g * ocg, block, ch + MLIP_KQ8_CH * g * ocg, d->zy, d->lo, d->hi,
                      yg + p0, 1, osize, row);
      }
    }
  }
}

#endif /* MLIP_KQ4_H_ */
