/* mlip/kq8.h's product for the Arm DSP extension (Cortex-M4, M7, M33,
 * M35P), arm_acle.h: two rows of A against two rows of W at a time, four
 * bytes per load (A's XORed with flip by one EOR); SXTB16 widens a word's
 * even and odd bytes to two int16 pairs, SMLAD adds both products of a
 * pair to the sum (eight products per four loads). Requantization in
 * 32-bit steps; QADD adds the zero point with saturation. */
#ifndef MLIP_KQ8_DSP_H_
#define MLIP_KQ8_DSP_H_

#include "mlip/strict_fp.h" /* before any definition: no contraction (C) */

#include <arm_acle.h>
#include <stdint.h>
#include <string.h>

/* Four bytes as one word (an unaligned LDR on these cores). */
static inline uint32_t mlip_kq8_word(const void* p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* SXTB16 of x rotated right by 8 (its odd bytes), one instruction: the
 * compilers do not fold the rotation into SXTB16's operand themselves. */
static inline uint32_t mlip_kq8_sxtb16_odd(uint32_t x) {
  uint32_t r;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
  return r;
}

/* mlip_requantize in 32-bit steps. GCC and Clang shift a negative value
 * arithmetically (their documented behaviour; this header is theirs only,
 * mlip/kisa.h). */
static inline int32_t mlip_kq8_requant_dsp(int32_t acc, int32_t q, int32_t shift, int32_t zy, int32_t lo,
                                           int32_t hi) {
  int32_t v = acc;
  if (shift > 0) {
    const int64_t s = (int64_t)v * ((int64_t)1 << shift);
    v = s > INT32_MAX ? INT32_MAX : (s < INT32_MIN ? INT32_MIN : (int32_t)s);
  }
  /* floor((v q + 2^30) / 2^31): the reference's nudged division for either
   * sign (q is never -2^31, so nothing saturates). */
  v = (int32_t)(((int64_t)v * q + ((int64_t)1 << 30)) >> 31);
  if (shift < 0) {
    /* The reference's rounding shift, ties away from zero, in 32 bits. */
    const int32_t e = -shift;
    const int32_t mask = (int32_t)(((uint32_t)1 << e) - 1u);
    const int32_t threshold = (mask >> 1) + (v < 0);
    v = (v >> e) + ((v & mask) > threshold);
  }
  v = __qadd(v, zy);
  return v < lo ? lo : (v > hi ? hi : v);
}

static inline void mlip_kq8_gemm_dsp(int32_t P, int32_t M, int32_t K, const uint8_t* a, uint32_t flip,
                                     const int8_t* w, const int32_t* ch, int32_t zy, int32_t lo, int32_t hi,
                                     uint8_t* y, int32_t yp, int32_t ym) {
  if (mlip_kq8_has_f32(ch, M)) { /* onnxruntime's arithmetic: the reference (mlip_kq8_has_f32) */
    mlip_kq8_gemm_ref(P, M, K, a, flip, w, ch, zy, lo, hi, y, yp, ym);
    return;
  }
  const uint32_t flip4 = flip * 0x01010101u; /* the XOR of A's bytes, four at a time */
  int32_t p, m, k;
  for (p = 0; p < P; p += 2) {
    const int32_t np = P - p < 2 ? P - p : 2;
    const uint8_t* a0 = a + p * K;
    const uint8_t* a1 = np > 1 ? a0 + K : a0; /* a missing row repeats row 0, not stored */
    for (m = 0; m < M; m += 2) {
      const int32_t nm = M - m < 2 ? M - m : 2;
      const int8_t* w0 = w + m * K;
      const int8_t* w1 = nm > 1 ? w0 + K : w0;
      const int32_t* c0 = ch + MLIP_KQ8_CH * m;
      const int32_t* c1 = nm > 1 ? c0 + MLIP_KQ8_CH : c0;
      int32_t s00 = c0[0], s01 = c1[0], s10 = c0[0], s11 = c1[0];
/* Even bytes (0, 2), then odd bytes (1, 3) rotated down; four products
 * of the rows' words x0, x1 and the channels' v0, v1 into each sum. */
#define MLIP_KQ8_DSP_STEP_(x0, x1, v0, v1)                                                        \
  do {                                                                                           \
    const int32_t x0e = (int32_t)__sxtb16(x0), x0o = (int32_t)mlip_kq8_sxtb16_odd(x0); \
    const int32_t x1e = (int32_t)__sxtb16(x1), x1o = (int32_t)mlip_kq8_sxtb16_odd(x1); \
    const int32_t v0e = (int32_t)__sxtb16(v0), v0o = (int32_t)mlip_kq8_sxtb16_odd(v0); \
    const int32_t v1e = (int32_t)__sxtb16(v1), v1o = (int32_t)mlip_kq8_sxtb16_odd(v1); \
    s00 = __smlad(x0e, v0e, s00);                                                                \
    s00 = __smlad(x0o, v0o, s00);                                                                \
    s01 = __smlad(x0e, v1e, s01);                                                                \
    s01 = __smlad(x0o, v1o, s01);                                                                \
    s10 = __smlad(x1e, v0e, s10);                                                                \
    s10 = __smlad(x1o, v0o, s10);                                                                \
    s11 = __smlad(x1e, v1e, s11);                                                                \
    s11 = __smlad(x1o, v1o, s11);                                                                \
  } while (0)
      /* No EOR when flip is 0 (the gather has XORed the bytes). */
      if (flip4 == 0) {
        for (k = 0; k + 4 <= K; k += 4) {
          const uint32_t x0 = mlip_kq8_word(a0 + k), x1 = mlip_kq8_word(a1 + k);
          const uint32_t v0 = mlip_kq8_word(w0 + k), v1 = mlip_kq8_word(w1 + k);
          MLIP_KQ8_DSP_STEP_(x0, x1, v0, v1);
        }
      } else {
        for (k = 0; k + 4 <= K; k += 4) {
          const uint32_t x0 = mlip_kq8_word(a0 + k) ^ flip4, x1 = mlip_kq8_word(a1 + k) ^ flip4;
          const uint32_t v0 = mlip_kq8_word(w0 + k), v1 = mlip_kq8_word(w1 + k);
          MLIP_KQ8_DSP_STEP_(x0, x1, v0, v1);
        }
      }
#undef MLIP_KQ8_DSP_STEP_
      for (; k < K; ++k) {
        s00 += mlip_kq8_product(a0[k], flip, w0[k]);
        s01 += mlip_kq8_product(a0[k], flip, w1[k]);
        s10 += mlip_kq8_product(a1[k], flip, w0[k]);
        s11 += mlip_kq8_product(a1[k], flip, w1[k]);
      }
      {
        uint8_t* yo = y + p * yp + m * ym;
        yo[0] = (uint8_t)mlip_kq8_requant_dsp(s00, c0[1], c0[2], zy, lo, hi);
        if (nm > 1) yo[ym] = (uint8_t)mlip_kq8_requant_dsp(s01, c1[1], c1[2], zy, lo, hi);
        if (np > 1) {
          yo[yp] = (uint8_t)mlip_kq8_requant_dsp(s10, c0[1], c0[2], zy, lo, hi);
          if (nm > 1) yo[yp + ym] = (uint8_t)mlip_kq8_requant_dsp(s11, c1[1], c1[2], zy, lo, hi);
        }
      }
    }
  }
}

#define MLIP_KQ8_GEMM_DSP(X) X(mlip_kq8_gemm_dsp, "dsp")

/* mlip/kq8.h's depthwise kernel: a window row's taps four at a time, one
 * word of the plane (its bytes already int8 values) against the weights
 * packed in int16 pairs once per channel (taps 0 and 2, 1 and 3 of each
 * group of four; 0 past the row's end): SXTB16 of the word and of the word
 * rotated by 8, two SMLADs; rows of one word two outputs at a time. The last word of a row may read up to 3 bytes
 * past the window, times a 0 weight (mlip_kq8_conv_scratch leaves them in
 * the scratch). Dilated rows, and windows of more than 32 words, take the
 * reference. */
static inline void mlip_kq8_dw_dsp(const mlip_kq8_conv_t* d, const uint8_t* plane, const int32_t* ext, const int8_t* w,
                                   const int32_t* c, uint8_t* y) {
  if (c[2] == MLIP_REQUANT_F32) { /* onnxruntime's arithmetic: the reference (mlip_kq8_has_f32) */
    mlip_kq8_dw_ref(d, plane, ext, w, c, y);
    return;
  }
  const int32_t words = (d->kernel[2] + 3) / 4, rows = d->kernel[0] * d->kernel[1];
  const int32_t rs = ext[2], ps = ext[1] * ext[2];
  uint32_t we[32], wo[32];
  int32_t roff[32];
  int32_t od, oh, ow, r, j, kd, kh;
  if (d->dilation[2] != 1 || rows * words > 32) {
    mlip_kq8_dw_ref(d, plane, ext, w, c, y);
    return;
  }
  for (kd = 0, r = 0; kd < d->kernel[0]; ++kd)
    for (kh = 0; kh < d->kernel[1]; ++kh, ++r) roff[r] = kd * d->dilation[0] * ps + kh * d->dilation[1] * rs;
  for (r = 0; r < rows; ++r)
    for (j = 0; j < words; ++j) {
      int32_t b[4], i;
      for (i = 0; i < 4; ++i) b[i] = 4 * j + i < d->kernel[2] ? w[r * d->kernel[2] + 4 * j + i] : 0;
      we[r * words + j] = ((uint32_t)b[0] & 0xFFFFu) | (uint32_t)b[2] << 16;
      wo[r * words + j] = ((uint32_t)b[1] & 0xFFFFu) | (uint32_t)b[3] << 16;
    }
  for (od = 0; od < d->out[0]; ++od)
    for (oh = 0; oh < d->out[1]; ++oh) {
      const uint8_t* base = plane + od * d->stride[0] * ps + oh * d->stride[1] * rs;
      ow = 0;
      if (words == 1) {
        /* Rows of at most 4 taps (3x3, 1x3, ...): one word each; two
         * outputs at a time share the weights' loads. */
        for (; ow + 2 <= d->out[2]; ow += 2, y += 2) {
          const uint8_t* pa = base + ow * d->stride[2];
          const uint8_t* pb = pa + d->stride[2];
          int32_t acc0 = c[0], acc1 = c[0];
          for (r = 0; r < rows; ++r) {
            const uint32_t xa = mlip_kq8_word(pa + roff[r]), xb = mlip_kq8_word(pb + roff[r]);
            const int32_t e = (int32_t)we[r], o = (int32_t)wo[r];
            acc0 = __smlad((int32_t)__sxtb16(xa), e, acc0);
            acc0 = __smlad((int32_t)mlip_kq8_sxtb16_odd(xa), o, acc0);
            acc1 = __smlad((int32_t)__sxtb16(xb), e, acc1);
            acc1 = __smlad((int32_t)mlip_kq8_sxtb16_odd(xb), o, acc1);
          }
          y[0] = (uint8_t)mlip_kq8_requant_dsp(acc0, c[1], c[2], d->zy, d->lo, d->hi);
          y[1] = (uint8_t)mlip_kq8_requant_dsp(acc1, c[1], c[2], d->zy, d->lo, d->hi);
        }
      }
      for (; ow < d->out[2]; ++ow) {
        const uint8_t* p0 = base + ow * d->stride[2];
        int32_t acc = c[0];
        const uint32_t *e = we, *o = wo;
        for (r = 0; r < rows; ++r) {
          const uint8_t* pr = p0 + roff[r];
          for (j = 0; j < words; ++j) {
            const uint32_t x = mlip_kq8_word(pr + 4 * j);
            acc = __smlad((int32_t)__sxtb16(x), (int32_t)*e++, acc);
            acc = __smlad((int32_t)mlip_kq8_sxtb16_odd(x), (int32_t)*o++, acc);
          }
        }
        *y++ = (uint8_t)mlip_kq8_requant_dsp(acc, c[1], c[2], d->zy, d->lo, d->hi);
      }
    }
}

#define MLIP_KQ8_DW_DSP(X) X(mlip_kq8_dw_dsp, "dsp")

#endif /* MLIP_KQ8_DSP_H_ */
