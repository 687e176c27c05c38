/* mlip/kq8.h's product for the Arm DSP extension (Cortex-M4, M7, M33,
 * M35P), arm_acle.h: two rows of A against two rows of W at a time (the
 * row left when P is odd against three rows of W: mlip_kq8_gemv_dsp), four
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

/* mlip_rounding_shift_right(x, -shift) for shift in [-31, -1] and x in
 * [INT32_MIN + 1, INT32_MAX - 1] (what mlip_rounding_doubling_high_mul gives
 * for q in [0, 2^31): |x| <= |v| q / 2^31 + 1/2 < 2^31 - 1), in four
 * instructions. With e = -shift, the reference is floor(x / 2^e) plus
 * 1 when the remainder r exceeds 2^(e-1) - 1 + (x < 0): for x >= 0 that is
 * floor((x + 2^(e-1)) / 2^e), for x < 0 floor((x - 1 + 2^(e-1)) / 2^e),
 * i.e. floor((y + 2^(e-1)) / 2^e) with y = x + (x >> 31) (x less 1 when
 * negative: y >= INT32_MIN, no overflow). And floor((y + 2^(e-1)) / 2^e)
 * = floor((floor(y / 2^(e-1)) + 1) / 2) (floor(u / 2) = floor(floor(u) / 2)
 * with u = y / 2^(e-1) + 1), whose steps stay inside int32: (y >> (e-1)) + 1
 * is at most 2^31 - 1 (y <= 2^31 - 2). e - 1 = ~shift. GCC and Clang shift a negative value
 * arithmetically (their documented behaviour; this header is theirs only,
 * mlip/kisa.h). */
static inline int32_t mlip_kq8_rshift_dsp(int32_t x, int32_t shift) {
  const int32_t y = x + (x >> 31);
  return ((y >> ~shift) + 1) >> 1;
}

/* SMMULR: (a * b + 2^31) >> 32, the rounded high word of the 64-bit product
 * (inline assembly: ACLE has no intrinsic for it). For |a| < 2^30 and q in
 * [0, 2^31), SMMULR(2a, q) = floor((2 a q + 2^31) / 2^32) = floor((a q +
 * 2^30) / 2^31) = mlip_rounding_doubling_high_mul(a, q) (its nudged division
 * is that floor for either sign, and nothing saturates): one instruction
 * where the 64-bit form takes five. */
static inline int32_t mlip_kq8_smmulr(int32_t a, int32_t b) {
  int32_t r;
  __asm__("smmulr %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
  return r;
}

/* mlip_requantize in 32-bit steps. */
static inline int32_t mlip_kq8_requant_dsp(int32_t acc, int32_t q, int32_t shift, int32_t zy, int32_t lo,
                                           int32_t hi) {
  int32_t v = acc;
  if (shift > 0) {
    const int64_t s = (int64_t)v * ((int64_t)1 << shift);
    v = s > INT32_MAX ? INT32_MAX : (s < INT32_MIN ? INT32_MIN : (int32_t)s);
  }
  /* floor((v q + 2^30) / 2^31): the reference's nudged division for either
   * sign (q is never -2^31, so nothing saturates); SMLAL on the nudge. */
  v = (int32_t)(((int64_t)v * q + ((int64_t)1 << 30)) >> 31);
  /* The reference's rounding shift, ties away from zero (mlip_kq8_rshift_dsp's
   * precondition holds: q < 2^31). */
  if (shift < 0) v = mlip_kq8_rshift_dsp(v, shift);
  v = __qadd(v, zy);
  return v < lo ? lo : (v > hi ? hi : v);
}

/* One row of A against three rows of W (three output channels) at a time:
 * the row mlip_kq8_gemm_dsp leaves when P is odd (a fully-connected layer
 * of batch 1 is one row), where a second row of A would repeat it: A's
 * word is loaded (XORed) and widened once for three channels, 12 products
 * per 20 instructions where the 2 x 2 block with a repeated row gets 8 per
 * 20. Three, not four: the loop's pointers, sums and words then fit the
 * core's twelve free registers (four channels would not). Missing
 * channels repeat channel m's row and are not stored. */
static inline void mlip_kq8_gemv_dsp(int32_t M, int32_t K, const uint8_t* a0, uint32_t flip, const int8_t* w,
                                     const int32_t* ch, int32_t zy, int32_t lo, int32_t hi, uint8_t* y, int32_t ym) {
  const uint32_t flip4 = flip * 0x01010101u;
  const int32_t K4 = K & ~3;
  int32_t m, k, i;
  for (m = 0; m < M; m += 3) {
    const int32_t nm = M - m < 3 ? M - m : 3;
    const int32_t* c = ch + MLIP_KQ8_CH * m;
    const int8_t* w0 = w + m * K;
    const int8_t* w1 = nm > 1 ? w0 + K : w0;
    const int8_t* w2 = nm > 2 ? w0 + 2 * K : w0;
    const uint8_t *pa = a0, *const pend = a0 + K4;
    const int8_t *p0 = w0, *p1 = w1, *p2 = w2;
    int32_t s[3];
    int32_t s0 = c[0], s1 = nm > 1 ? c[3] : 0, s2 = nm > 2 ? c[6] : 0;
/* A's word x widened once, then each channel's word: four products each. */
#define MLIP_KQ8_DSP_ROW_(x)                                                                           \
  do {                                                                                                 \
    const int32_t xe = (int32_t)__sxtb16(x), xo = (int32_t)mlip_kq8_sxtb16_odd(x);                    \
    uint32_t v = mlip_kq8_word(p0);                                                                    \
    s0 = __smlad(xe, (int32_t)__sxtb16(v), s0);                                                        \
    s0 = __smlad(xo, (int32_t)mlip_kq8_sxtb16_odd(v), s0);                                             \
    v = mlip_kq8_word(p1);                                                                             \
    s1 = __smlad(xe, (int32_t)__sxtb16(v), s1);                                                        \
    s1 = __smlad(xo, (int32_t)mlip_kq8_sxtb16_odd(v), s1);                                             \
    v = mlip_kq8_word(p2);                                                                             \
    s2 = __smlad(xe, (int32_t)__sxtb16(v), s2);                                                        \
    s2 = __smlad(xo, (int32_t)mlip_kq8_sxtb16_odd(v), s2);                                             \
    pa += 4, p0 += 4, p1 += 4, p2 += 4;                                                                \
  } while (0)
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
    /* The loop in assembly: GCC 12 turns its four pointers into one index
     * and keeps the bases and the bound on the stack (26 instructions per
     * step where these take 20, 21 with the XOR, at -O2 and -Os alike). An
     * unaligned LDR is allowed on these cores; 0x80808080 is an immediate
     * of EOR (flip is 0 or 0x80, mlip/kq8.h). Not at -O0, where the frame
     * pointer leaves too few registers for its twelve operands. */
    if (pa != pend) {
      uint32_t x, xo, v, t;
#define MLIP_KQ8_DSP_GEMV_ASM_(XOR)                                                              \
  __asm__ volatile("1:\n\t"                                                                     \
                   "ldr %[x], [%[pa]], #4\n\t" XOR                                              \
                   "ldr %[v], [%[p0]], #4\n\t"                                                  \
                   "sxtb16 %[xo], %[x], ror #8\n\t"                                             \
                   "sxtb16 %[x], %[x]\n\t"                                                      \
                   "sxtb16 %[t], %[v]\n\t"                                                      \
                   "sxtb16 %[v], %[v], ror #8\n\t"                                              \
                   "smlad %[s0], %[x], %[t], %[s0]\n\t"                                         \
                   "smlad %[s0], %[xo], %[v], %[s0]\n\t"                                        \
                   "ldr %[v], [%[p1]], #4\n\t"                                                  \
                   "sxtb16 %[t], %[v]\n\t"                                                      \
                   "sxtb16 %[v], %[v], ror #8\n\t"                                              \
                   "smlad %[s1], %[x], %[t], %[s1]\n\t"                                         \
                   "smlad %[s1], %[xo], %[v], %[s1]\n\t"                                        \
                   "ldr %[v], [%[p2]], #4\n\t"                                                  \
                   "sxtb16 %[t], %[v]\n\t"                                                      \
                   "sxtb16 %[v], %[v], ror #8\n\t"                                              \
                   "smlad %[s2], %[x], %[t], %[s2]\n\t"                                         \
                   "smlad %[s2], %[xo], %[v], %[s2]\n\t"                                        \
                   "cmp %[pa], %[pend]\n\t"                                                     \
                   "bne 1b"                                                                     \
                   : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [pa] "+r"(pa), [p0] "+r"(p0), \
                     [p1] "+r"(p1), [p2] "+r"(p2), [x] "=&r"(x), [xo] "=&r"(xo), [v] "=&r"(v),  \
                     [t] "=&r"(t)                                                               \
                   : [pend] "r"(pend)                                                           \
                   : "memory", "cc")
      if (flip4 == 0) MLIP_KQ8_DSP_GEMV_ASM_("");
      else MLIP_KQ8_DSP_GEMV_ASM_("eor %[x], %[x], #0x80808080\n\t");
#undef MLIP_KQ8_DSP_GEMV_ASM_
    }
#else
    if (flip4 == 0) {
      while (pa != pend) MLIP_KQ8_DSP_ROW_(mlip_kq8_word(pa));
    } else {
      while (pa != pend) MLIP_KQ8_DSP_ROW_(mlip_kq8_word(pa) ^ flip4);
    }
#endif
#undef MLIP_KQ8_DSP_ROW_
    for (k = K4; k < K; ++k) {
      s0 += mlip_kq8_product(a0[k], flip, w0[k]);
      s1 += mlip_kq8_product(a0[k], flip, w1[k]);
      s2 += mlip_kq8_product(a0[k], flip, w2[k]);
    }
    s[0] = s0, s[1] = s1, s[2] = s2;
    for (i = 0; i < nm; ++i)
      y[(m + i) * ym] = (uint8_t)mlip_kq8_requant_dsp(s[i], c[MLIP_KQ8_CH * i + 1], c[MLIP_KQ8_CH * i + 2], zy, lo, hi);
  }
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
  for (p = 0; p + 2 <= P; p += 2) {
    const uint8_t* a0 = a + p * K;
    const uint8_t* a1 = a0 + K;
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
        yo[yp] = (uint8_t)mlip_kq8_requant_dsp(s10, c0[1], c0[2], zy, lo, hi);
        if (nm > 1) yo[yp + ym] = (uint8_t)mlip_kq8_requant_dsp(s11, c1[1], c1[2], zy, lo, hi);
      }
    }
  }
  /* The row left when P is odd: three channels at a time. */
  if (p < P) mlip_kq8_gemv_dsp(M, K, a + p * K, flip, w, ch, zy, lo, hi, y + p * yp, ym);
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

/* mlip/kq8.h's channels-last depthwise kernel: per output position, 4
 * channels at a time, one word of the band (their 4 bytes) and one of
 * their weights (tap-major: contiguous) per tap, each widened by SXTB16
 * (even channels) and SXTB16 of the word rotated by 8 (odd ones), and the
 * four products by SMLABB / SMLATT (int16 halves; the sums as the
 * reference's, no overflow by the product's precondition), the taps'
 * offsets in the band from a table made once per output row; the last
 * channels (fewer than 4) by the reference's arithmetic. Windows of more
 * than 64 taps take the reference (as do layers with float32 pairs:
 * mlip_kq8_dwc_with). */
static inline void mlip_kq8_dwc_dsp(const mlip_kq8_conv_t* d, const uint8_t* band, int32_t s0, int32_t span,
                                    int32_t width, const int8_t* w, const int32_t* ch, uint8_t* y) {
  const int32_t c = d->c, kh_n = d->kernel[1], kw_n = d->kernel[2], taps = kh_n * kw_n;
  const int32_t yq = d->y_cl ? c : 1, ys = d->y_cl ? 1 : d->out[1] * d->out[2];
  const int32_t tstep = d->dilation[2] * c, rstep = width * c;
  const int32_t zy = d->zy, lo = d->lo, hi = d->hi;
  int32_t toff[64]; /* the taps' offsets in the band, made once per output row */
  int32_t ow, k, kh, kw, t, slot;
  if (taps > 64) {
    mlip_kq8_dwc_ref(d, band, s0, span, width, w, ch, y);
    return;
  }
  for (kh = 0, t = 0, slot = s0; kh < kh_n; ++kh) {
    for (kw = 0; kw < kw_n; ++kw) toff[t++] = slot * rstep + kw * tstep;
    slot += d->dilation[1];
    while (slot >= span) slot -= span;
  }
  for (ow = 0; ow < d->out[2]; ++ow) {
    const uint8_t* col = band + ow * d->stride[2] * c;
    uint8_t* yr = y + ow * yq;
    for (k = 0; k < c; k += 4) {
      const int32_t* cc = ch + MLIP_KQ8_CH * k;
      const int8_t* wt = w + k;
      if (k + 4 <= c) {
        int32_t a0 = cc[0], a1 = cc[3], a2 = cc[6], a3 = cc[9];
        const uint8_t* xk = col + k;
        for (t = 0; t < taps; ++t, wt += c) {
          const uint32_t xv = mlip_kq8_word(xk + toff[t]), wv = mlip_kq8_word(wt);
          const int32_t xe = (int32_t)__sxtb16(xv), xo = (int32_t)mlip_kq8_sxtb16_odd(xv);
          const int32_t we = (int32_t)__sxtb16(wv), wo = (int32_t)mlip_kq8_sxtb16_odd(wv);
          a0 = __smlabb(xe, we, a0);
          a2 = __smlatt(xe, we, a2);
          a1 = __smlabb(xo, wo, a1);
          a3 = __smlatt(xo, wo, a3);
        }
        yr[k * ys] = (uint8_t)mlip_kq8_requant_dsp(a0, cc[1], cc[2], zy, lo, hi);
        yr[(k + 1) * ys] = (uint8_t)mlip_kq8_requant_dsp(a1, cc[4], cc[5], zy, lo, hi);
        yr[(k + 2) * ys] = (uint8_t)mlip_kq8_requant_dsp(a2, cc[7], cc[8], zy, lo, hi);
        yr[(k + 3) * ys] = (uint8_t)mlip_kq8_requant_dsp(a3, cc[10], cc[11], zy, lo, hi);
      } else {
        int32_t j;
        for (j = k; j < c; ++j, cc += MLIP_KQ8_CH) {
          int32_t acc = cc[0];
          const int8_t* wj = w + j;
          for (t = 0; t < taps; ++t, wj += c) acc += mlip_kq8_product(col[j + toff[t]], 0, *wj);
          yr[j * ys] = (uint8_t)mlip_kq8_requant_dsp(acc, cc[1], cc[2], zy, lo, hi);
        }
      }
    }
  }
}

#define MLIP_KQ8_DWC_DSP(X) X(mlip_kq8_dwc_dsp, "dsp")

/* mlip/kq8.h's QLinearAdd, one output at a time in 32-bit steps: an input
 * byte less its zero point (one EOR reads int8 and uint8 bytes alike: an
 * int8 byte u is (u ^ 0x80) - 128) is d, |d| <= 255; the reference scales
 * d * 2^20 by (q, shift), which is SMMULR(d * 2^21, q) (|d * 2^20| < 2^28:
 * mlip_kq8_smmulr's identity), then the rounding shift
 * (mlip_kq8_rshift_dsp). The sum s of the two is below 2^29 in magnitude,
 * so the output's multiply is SMMULR(2 s, q) too, unless its shift is
 * positive (then mlip_kq8_requant_dsp). A broadcast input (stride 0) is
 * scaled once. */
static inline int32_t mlip_kq8_add_in_dsp(int32_t d, int32_t q, int32_t shift) {
  const int32_t v = mlip_kq8_smmulr(d * ((int32_t)1 << (MLIP_QADD_LEFT_SHIFT + 1)), q);
  return shift < 0 ? mlip_kq8_rshift_dsp(v, shift) : v;
}

static inline void mlip_kq8_add_dsp(const mlip_kq8_add_t* p, int32_t n, const void* a, int32_t as, const void* b,
                                    int32_t bs, void* y) {
  const uint8_t *pa = (const uint8_t*)a, *pb = (const uint8_t*)b;
  uint8_t* py = (uint8_t*)y;
  const uint32_t flip = p->u8 ? 0u : 0x80u;
  const int32_t za = p->za + (p->u8 ? 0 : 128), zb = p->zb + (p->u8 ? 0 : 128);
  const int32_t qa = p->qa, sa = p->sa, qb = p->qb, sb = p->sb, q = p->q, shift = p->shift;
  const int32_t zy = p->zy, lo = p->lo, hi = p->hi;
  int32_t i, ca = 0, cb = 0;
  if (n <= 0) return;
  if (shift == MLIP_REQUANT_F32) { /* not a precondition's case; the reference takes it */
    mlip_kq8_add_ref(p, n, a, as, b, bs, y);
    return;
  }
  if (!as) ca = mlip_kq8_add_in_dsp((int32_t)(pa[0] ^ flip) - za, qa, sa);
  if (!bs) cb = mlip_kq8_add_in_dsp((int32_t)(pb[0] ^ flip) - zb, qb, sb);
  for (i = 0; i < n; ++i) {
    const int32_t va = as ? mlip_kq8_add_in_dsp((int32_t)(pa[i] ^ flip) - za, qa, sa) : ca;
    const int32_t vb = bs ? mlip_kq8_add_in_dsp((int32_t)(pb[i] ^ flip) - zb, qb, sb) : cb;
    const int32_t s = va + vb;
    int32_t v;
    if (shift > 0) {
      v = mlip_kq8_requant_dsp(s, q, shift, zy, lo, hi);
    } else {
      v = mlip_kq8_smmulr(2 * s, q);
      if (shift < 0) v = mlip_kq8_rshift_dsp(v, shift);
      v = __qadd(v, zy);
      v = v < lo ? lo : (v > hi ? hi : v);
    }
    py[i] = (uint8_t)v;
  }
}

#define MLIP_KQ8_ADD_DSP(X) X(mlip_kq8_add_dsp, "dsp")

/* mlip/kq8.h's QLinearGlobalAveragePool: a plane's bytes four at a time,
 * USADA8 against 0 adding the word's four unsigned bytes to the sum (an
 * int8 byte XORed with 0x80 first: its value plus 128), the tail byte by
 * byte; then the sum less size * (zx, plus 128 for int8) (the reference's
 * sum of x - zx, computed modulo 2^32, exact because that sum is inside
 * int32) and the scalar requantization. */
static inline void mlip_kq8_gap_dsp(int32_t planes, int32_t size, const void* x, int32_t u8, int32_t zx, int32_t q,
                                    int32_t shift, int32_t zy, int32_t lo, int32_t hi, void* y) {
  const uint8_t* px = (const uint8_t*)x;
  const uint32_t flip = u8 ? 0u : 0x80u, flip4 = flip * 0x01010101u;
  const uint32_t off = (uint32_t)size * (uint32_t)(zx + (u8 ? 0 : 128));
  int32_t p, i;
  for (p = 0; p < planes; ++p, px += size) {
    uint32_t sum = 0;
    for (i = 0; i + 4 <= size; i += 4) sum = __usada8(mlip_kq8_word(px + i) ^ flip4, 0u, sum);
    for (; i < size; ++i) sum += (uint32_t)(px[i] ^ flip);
    ((uint8_t*)y)[p] = (uint8_t)mlip_requantize((int32_t)(sum - off), q, shift, zy, lo, hi);
  }
}

#define MLIP_KQ8_GAP_DSP(X) X(mlip_kq8_gap_dsp, "dsp")

#endif /* MLIP_KQ8_DSP_H_ */
