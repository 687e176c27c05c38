/* int8 kernels with instruction-set variants: an int8 matrix product whose
 * outputs are requantized as QLinearConv's (mlip_kq8_gemm), and the
 * convolution that runs on it (mlip_kq8_conv: im2col, then the product).
 *
 * The CPU kernels' first kernel with variants, and the model for the
 * others (docs/adding-an-operator.md, "Kernel variants"): the portable
 * reference mlip_kq8_gemm_ref below; one variant per instruction set in
 * mlip/kq8_<isa>.h (mve, dsp, neon, x86), each included where mlip/kisa.h
 * says the compiler takes it; mlip_kq8_gemm, the one function callers name,
 * is the best variant compiled here, else the reference. Every variant gives
 * the reference's bits for every input that meets the preconditions below
 * (integer arithmetic: the same sums, the same requantization and
 * saturations, mlip/requant.h); tests/variants runs them all against it on
 * random cases on x86-64, AArch64 (qemu-aarch64), Cortex-M55 and Cortex-M4
 * (qemu-system-arm).
 *
 * The product (P rows of A, M rows of W, both K values long; A's bytes are
 * read as int8 values after an XOR with `flip`, so that A may be uint8 data:
 * flip 0x80 reads a uint8 byte b as b - 128, flip 0 an int8 byte as itself):
 *   acc  = ch[3m] + sum over k < K of A[p][k] * W[m][k]        (exact)
 *   y[p * yp + m * ym] = mlip_requantize(acc, ch[3m + 1], ch[3m + 2], zy, lo, hi)
 * stored as one byte (int8 or uint8 outputs alike: the value's low byte).
 * ch holds three int32 per output channel m: the sum's start, the
 * multiplier q (0 or in [2^30, 2^31)) and the shift (in [-31, 30]), or
 * the bits of a float32 scale and MLIP_REQUANT_F32 (--requant ort).
 * Preconditions: |ch[3m]| + 2^14 * K < 2^31, so that no partial sum
 * overflows in any order (every product is at most 2^14 in magnitude), and
 * lo <= hi.
 *
 * The convolution: QLinearConv (ops/conv_integer.h) for int8 weights whose
 * zero points are all 0 (onnxruntime's per-channel symmetric weights,
 * TFLite's), x int8 or uint8 with a zero point zx, y int8 or uint8. With
 * xs = x - 128 for uint8 x and x itself for int8 x (an int8 either way: A's
 * bytes with flip 0x80 or 0),
 *   sum (x - zx) * w = sum xs * w + (128 or 0 - zx) * sum w,
 * and a padding tap, where x holds zx, adds nothing: so a row of A is the
 * window's bytes of x (padding as zx's byte), W the weights, and the
 * channel's start (mlip_kq8_start) the second term plus the bias, which
 * QLinearConv adds with saturation: the start takes it where no sum can
 * saturate (every real layer; the compiler keeps the direct loops
 * otherwise). A fully-connected layer (one group, a 1x1x1 input and
 * kernel, no padding, rows of exactly C bytes) reads x itself as A, one
 * row per image; others gather `rows` windows at a time into a scratch
 * buffer (im2col: the 1-D and 2-D layers with windows of several taps from
 * a band of x's rows turned channels-last, a run of bytes per window row,
 * mlip_kq8_conv_banded), but a depthwise layer (group == C > 1), whose product
 * would have one row of W: its input channels are copied one at a time
 * into the scratch inside their padding, and the depthwise kernel
 * mlip_kq8_dw (a reference and variants of its own, mlip_kq8_dw_fn)
 * computes each output channel from that plane, with no bounds to check.
 * Where the compiler stores the activations channels-last (x_cl, y_cl;
 * c/layout.h) a layer writes y at [n, out..., m]; a pointwise layer reads
 * such x as its product's rows, with nothing to gather; a depthwise one
 * (mlip_kq8_conv_dwc) copies x's rows into a padded channels-last band and
 * its kernel mlip_kq8_dwc (a reference and variants, mlip_kq8_dwc_fn)
 * computes all channels of a position at once, vectorized over channels. */
#ifndef MLIP_KQ8_H_
#define MLIP_KQ8_H_

#include "mlip/strict_fp.h" /* before any definition: no contraction (C) */

#include <stdint.h>
#include <string.h>

#include "mlip/kisa.h"
#include "mlip/requant.h"

/* The int32 values per output channel in `ch`: start, q, shift. */
#define MLIP_KQ8_CH 3

/* The signature of mlip_kq8_gemm and of each of its variants. */
typedef void (*mlip_kq8_gemm_fn)(int32_t P, int32_t M, int32_t K, const uint8_t* a, uint32_t flip, const int8_t* w,
                                 const int32_t* ch, int32_t zy, int32_t lo, int32_t hi, uint8_t* y, int32_t yp,
                                 int32_t ym);

/* The product of A's byte b, as the int8 value it stands for ((b ^ flip)
 * read as two's complement), and the weight w: u * w - 128 * w with u =
 * b ^ flip ^ 0x80 in [0, 255], the same integer as (u - 128) * w. Written
 * so because GCC 12.2 miscompiles a loop summing int8 * int8 products when
 * it vectorizes it with VNNI (-march=native on Zen 4, Ice Lake, Alder
 * Lake: sums wrong in their high bits; tests/variants found it); this form
 * it vectorizes correctly. */
static inline int32_t mlip_kq8_product(uint8_t b, uint32_t flip, int8_t w) {
  return (int32_t)((b ^ flip ^ 0x80u) & 0xFFu) * (int32_t)w - 128 * (int32_t)w;
}

/* Whether any of the M channels' pairs is a float32 one (onnxruntime's
 * arithmetic, mlip/requant.h). The variants whose requantization is
 * fixed-point code (mve, dsp) hand such a product to the
 * reference (docs/adding-an-operator.md, "Kernel variants"); the NEON
 * variant requantizes float32 pairs on its lanes (FCVTNS rounds half to
 * even) and the x86 one with mlip_requantize itself, so neither needs it. */
static inline int mlip_kq8_has_f32(const int32_t* ch, int32_t M) {
  int32_t m;
  for (m = 0; m < M; ++m)
    if (ch[MLIP_KQ8_CH * m + 2] == MLIP_REQUANT_F32) return 1;
  return 0;
}

/* The reference: the formula above, term by term. */
static inline void mlip_kq8_gemm_ref(int32_t P, int32_t M, int32_t K, const uint8_t* a, uint32_t flip,
                                     const int8_t* w, const int32_t* ch, int32_t zy, int32_t lo, int32_t hi, uint8_t* y,
                                     int32_t yp, int32_t ym) {
  int32_t p, m, k;
  for (p = 0; p < P; ++p) {
    for (m = 0; m < M; ++m) {
      const uint8_t* ap = a + p * K;
      const int8_t* wm = w + m * K;
      const int32_t* c = ch + MLIP_KQ8_CH * m;
      int32_t acc = c[0];
      for (k = 0; k < K; ++k) acc += mlip_kq8_product(ap[k], flip, wm[k]);
      y[p * yp + m * ym] = (uint8_t)mlip_requantize(acc, c[1], c[2], zy, lo, hi);
    }
  }
}

/* A QLinearConv as mlip_kq8_conv runs it. x [n, c, in...], y [n, m,
 * out...], both row-major, 1-D and 2-D with size-1 leading axes; w the
 * weights [m][c / groups * taps] with each row zero-padded to k bytes. */
typedef struct {
  int32_t n, c, m, groups;
  int32_t in[3], out[3], kernel[3], stride[3], dilation[3], pad[3]; /* D, H, W; pad: the leading pads */
  int32_t k;     /* a row's bytes: c / groups * taps, or more (zero weights) */
  int32_t rows;  /* output positions per product: the scratch holds rows * k bytes */
  int32_t x_u8;  /* x is uint8 (else int8) */
  int32_t zx, zy, lo, hi;
  /* x, y stored channels-last ([n, out..., m]: the compiler's choice,
   * c/layout.h) rather than [n, c, in...]; x only where
   * mlip_kq8_conv_reads_cl says the layer can read it so. */
  int32_t x_cl, y_cl;
} mlip_kq8_conv_t;

/* The signature of mlip_kq8_dw and of each of its variants: one output
 * channel of a depthwise layer from its input channel's padded plane. */
typedef void (*mlip_kq8_dw_fn)(const mlip_kq8_conv_t* d, const uint8_t* plane, const int32_t* ext, const int8_t* w,
                               const int32_t* c, uint8_t* y);

/* The depthwise reference: per output position, its window's taps in the
 * padded plane (bytes already read as int8: XORed with flip when it was
 * made; ext its extents, D, H, W), no bounds to check; acc = c[0] + sum
 * of the taps' products with w (the channel's weight row), requantized by
 * c[1], c[2]; y the channel's outputs in order. */
static inline void mlip_kq8_dw_ref(const mlip_kq8_conv_t* d, const uint8_t* plane, const int32_t* ext, const int8_t* w,
                                   const int32_t* c, uint8_t* y) {
  int32_t od, oh, ow, kd, kh, kw;
  for (od = 0; od < d->out[0]; ++od)
    for (oh = 0; oh < d->out[1]; ++oh)
      for (ow = 0; ow < d->out[2]; ++ow) {
        const uint8_t* p0 = plane + (od * d->stride[0] * ext[1] + oh * d->stride[1]) * ext[2] + ow * d->stride[2];
        const int8_t* wt = w;
        int32_t acc = c[0];
        for (kd = 0; kd < d->kernel[0]; ++kd)
          for (kh = 0; kh < d->kernel[1]; ++kh) {
            const uint8_t* pr = p0 + (kd * d->dilation[0] * ext[1] + kh * d->dilation[1]) * ext[2];
            for (kw = 0; kw < d->kernel[2]; ++kw) acc += mlip_kq8_product(pr[kw * d->dilation[2]], 0, *wt++);
          }
        *y++ = (uint8_t)mlip_requantize(acc, c[1], c[2], d->zy, d->lo, d->hi);
      }
}

/* The signature of the channels-last depthwise kernel and of each of its
 * variants: one output row of a depthwise layer of mlip_kq8_conv_dwc (one
 * output channel per input channel, c of them) from the band that holds
 * the row's windows (mlip_kq8_dwc_with: `span` padded input rows in a
 * ring, the window's first in slot s0, each `width` columns of the c
 * channels' bytes, already read as int8). w: the weights tap-major, tap t
 * of channel ch at w[t * c + ch]; y: the row's first output, channel ch of
 * position ow at y[ow * c + ch] (y_cl) or y[ch * osize + ow]. */
typedef void (*mlip_kq8_dwc_fn)(const mlip_kq8_conv_t* d, const uint8_t* band, int32_t s0, int32_t span,
                                int32_t width, const int8_t* w, const int32_t* ch, uint8_t* y);

/* The reference: per position and channel, its window's taps in the band,
 * acc = ch[3c] + sum of the products, requantized by ch[3c + 1], ch[3c + 2]. */
static inline void mlip_kq8_dwc_ref(const mlip_kq8_conv_t* d, const uint8_t* band, int32_t s0, int32_t span,
                                    int32_t width, const int8_t* w, const int32_t* ch, uint8_t* y) {
  const int32_t c = d->c, osize = d->out[1] * d->out[2];
  const int32_t yq = d->y_cl ? c : 1, ys = d->y_cl ? 1 : osize;
  int32_t ow, k, kh, kw, slot;
  for (ow = 0; ow < d->out[2]; ++ow)
    for (k = 0; k < c; ++k) {
      const int32_t* cc = ch + MLIP_KQ8_CH * k;
      int32_t acc = cc[0];
      for (kh = 0, slot = s0; kh < d->kernel[1]; ++kh) {
        const uint8_t* row = band + (slot * width + ow * d->stride[2]) * c + k;
        for (kw = 0; kw < d->kernel[2]; ++kw)
          acc += mlip_kq8_product(row[kw * d->dilation[2] * c], 0, w[(kh * d->kernel[2] + kw) * c + k]);
        slot += d->dilation[1];
        while (slot >= span) slot -= span;
      }
      y[ow * yq + k * ys] = (uint8_t)mlip_requantize(acc, cc[1], cc[2], d->zy, d->lo, d->hi);
    }
}

/* QLinearAdd's fixed-point arithmetic (mlip/requant.h, mlip_qadd_sum, then
 * mlip_requantize) on a run of n outputs, what the generated code calls on
 * the innermost (simplified) axis of its broadcast loops. Input A's element
 * i is a[i * as] (as 1: a run of the tensor; 0: one element broadcast along
 * the run), B's b[i * bs]; all three tensors int8 or all uint8 (u8).
 * Preconditions: sa and sb in [-31, 0] (the inputs' real multipliers are
 * at most 1/2, ops::add_requant), (q, shift) a fixed-point pair (onnxruntime's
 * float32 arithmetic keeps the generic loops), lo <= hi. y may be a or b
 * (the same bytes, stride 1): element i is read before it is written. */
typedef struct {
  int32_t u8;           /* uint8 tensors (else int8) */
  int32_t za, qa, sa;   /* A's zero point and (q, shift) */
  int32_t zb, qb, sb;   /* B's */
  int32_t q, shift, zy; /* the output's (q, shift) and zero point */
  int32_t lo, hi;       /* the output's clamp */
} mlip_kq8_add_t;

/* The signature of mlip_kq8_add and of each of its variants. */
typedef void (*mlip_kq8_add_fn)(const mlip_kq8_add_t* p, int32_t n, const void* a, int32_t as, const void* b,
                                int32_t bs, void* y);

/* Byte i of x as the int8 or uint8 value it holds. */
static inline int32_t mlip_kq8_value(const void* x, int32_t i, int32_t u8) {
  return u8 ? (int32_t)((const uint8_t*)x)[i] : (int32_t)((const int8_t*)x)[i];
}

/* The reference: mlip_qadd_sum and mlip_requantize per output, as the
 * generic elementwise loop computes them. */
static inline void mlip_kq8_add_ref(const mlip_kq8_add_t* p, int32_t n, const void* a, int32_t as, const void* b,
                                    int32_t bs, void* y) {
  int32_t i;
  for (i = 0; i < n; ++i) {
    const int32_t s = mlip_qadd_sum(mlip_kq8_value(a, i * as, p->u8) - p->za, p->qa, p->sa,
                                    mlip_kq8_value(b, i * bs, p->u8) - p->zb, p->qb, p->sb);
    ((uint8_t*)y)[i] = (uint8_t)mlip_requantize(s, p->q, p->shift, p->zy, p->lo, p->hi);
  }
}

/* QLinearGlobalAveragePool: `planes` planes of `size` bytes each (int8, or
 * uint8 when u8), per plane the int32 sum of x - zx, requantized by (q,
 * shift) (either arithmetic: mlip_requantize), plus zy, saturated to [lo,
 * hi], one byte per plane. Precondition: 255 * size < 2^31 (no sum leaves
 * int32; the compiler bounds the plane). */
typedef void (*mlip_kq8_gap_fn)(int32_t planes, int32_t size, const void* x, int32_t u8, int32_t zx, int32_t q,
                                int32_t shift, int32_t zy, int32_t lo, int32_t hi, void* y);

/* The reference: the sum element by element, as the operator reads. */
static inline void mlip_kq8_gap_ref(int32_t planes, int32_t size, const void* x, int32_t u8, int32_t zx, int32_t q,
                                    int32_t shift, int32_t zy, int32_t lo, int32_t hi, void* y) {
  int32_t p, i;
  for (p = 0; p < planes; ++p) {
    int32_t acc = 0;
    for (i = 0; i < size; ++i) acc += mlip_kq8_value(x, p * size + i, u8) - zx;
    ((uint8_t*)y)[p] = (uint8_t)mlip_requantize(acc, q, shift, zy, lo, hi);
  }
}

/* One input row's n columns into a banded layer's band (mlip_kq8_band_rows),
 * channels-last: channel ic's byte src[ic * isize + i], XORed with flip, to
 * dst[i * icg + ic]; a channel's row is read front to back. */
static inline void mlip_kq8_band_row_ref(uint8_t* dst, const uint8_t* src, int32_t n, int32_t icg, int32_t isize,
                                         uint8_t flip) {
  int32_t ic, i;
  for (ic = 0; ic < icg; ++ic, src += isize)
    for (i = 0; i < n; ++i) dst[i * icg + ic] = (uint8_t)(src[i] ^ flip);
}

/* The variants compiled here, and the one mlip_kq8_gemm is. */
#if MLIP_HAVE_MVE
#include "mlip/kq8_mve.h"
#endif
#if MLIP_HAVE_DSP
#include "mlip/kq8_dsp.h"
#endif
#if MLIP_HAVE_NEON
#include "mlip/kq8_neon.h"
#endif
#if MLIP_HAVE_X86
#include "mlip/kq8_x86.h"
#endif
#ifndef MLIP_KQ8_GEMM_MVE
#define MLIP_KQ8_GEMM_MVE(X)
#endif
#ifndef MLIP_KQ8_GEMM_DSP
#define MLIP_KQ8_GEMM_DSP(X)
#endif
#ifndef MLIP_KQ8_GEMM_NEON
#define MLIP_KQ8_GEMM_NEON(X)
#endif
#ifndef MLIP_KQ8_GEMM_X86
#define MLIP_KQ8_GEMM_X86(X)
#endif
/* X(function, "name") for every variant compiled here, best first
 * (tests/variants runs each against the reference). */
#define MLIP_KQ8_GEMM_VARIANTS(X) MLIP_KQ8_GEMM_MVE(X) MLIP_KQ8_GEMM_DSP(X) MLIP_KQ8_GEMM_NEON(X) MLIP_KQ8_GEMM_X86(X)

#if MLIP_HAVE_MVE
#define MLIP_KQ8_GEMM_BEST mlip_kq8_gemm_mve
#define MLIP_KQ8_GEMM_NAME "mve"
#elif MLIP_HAVE_DSP
#define MLIP_KQ8_GEMM_BEST mlip_kq8_gemm_dsp
#define MLIP_KQ8_GEMM_NAME "dsp"
#elif MLIP_HAVE_NEON
#define MLIP_KQ8_GEMM_BEST mlip_kq8_gemm_neon
#define MLIP_KQ8_GEMM_NAME "neon"
#elif MLIP_HAVE_X86
#define MLIP_KQ8_GEMM_BEST mlip_kq8_gemm_x86
#define MLIP_KQ8_GEMM_NAME "x86"
#else
#define MLIP_KQ8_GEMM_BEST mlip_kq8_gemm_ref
#define MLIP_KQ8_GEMM_NAME "ref"
#endif

#ifndef MLIP_KQ8_DW_MVE
#define MLIP_KQ8_DW_MVE(X)
#endif
#ifndef MLIP_KQ8_DW_DSP
#define MLIP_KQ8_DW_DSP(X)
#endif
/* The depthwise kernel's variants, best first, and the one mlip_kq8_dw is. */
#define MLIP_KQ8_DW_VARIANTS(X) MLIP_KQ8_DW_MVE(X) MLIP_KQ8_DW_DSP(X)
#if MLIP_HAVE_MVE
#define MLIP_KQ8_DW_BEST mlip_kq8_dw_mve
#define MLIP_KQ8_DW_NAME "mve"
#elif MLIP_HAVE_DSP
#define MLIP_KQ8_DW_BEST mlip_kq8_dw_dsp
#define MLIP_KQ8_DW_NAME "dsp"
#else
#define MLIP_KQ8_DW_BEST mlip_kq8_dw_ref
#define MLIP_KQ8_DW_NAME "ref"
#endif

#ifndef MLIP_KQ8_DWC_MVE
#define MLIP_KQ8_DWC_MVE(X)
#endif
#ifndef MLIP_KQ8_DWC_DSP
#define MLIP_KQ8_DWC_DSP(X)
#endif
/* The channels-last depthwise kernel's variants, best first, and the one
 * mlip_kq8_conv calls. */
#define MLIP_KQ8_DWC_VARIANTS(X) MLIP_KQ8_DWC_MVE(X) MLIP_KQ8_DWC_DSP(X)
#if MLIP_HAVE_MVE
#define MLIP_KQ8_DWC_BEST mlip_kq8_dwc_mve
#define MLIP_KQ8_DWC_NAME "mve"
#elif MLIP_HAVE_DSP
#define MLIP_KQ8_DWC_BEST mlip_kq8_dwc_dsp
#define MLIP_KQ8_DWC_NAME "dsp"
#else
#define MLIP_KQ8_DWC_BEST mlip_kq8_dwc_ref
#define MLIP_KQ8_DWC_NAME "ref"
#endif

/* n bytes from src to dst, each XORed with flip (channels-last rows read
 * as int8): a word at a time, the tail byte by byte. */
static inline void mlip_kq8_copy_xor_ref(uint8_t* dst, const uint8_t* src, int32_t n, uint8_t flip) {
  const uint32_t f4 = flip * 0x01010101u;
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    uint32_t v;
    memcpy(&v, src + i, sizeof v);
    v ^= f4;
    memcpy(dst + i, &v, sizeof v);
  }
  for (; i < n; ++i) dst[i] = (uint8_t)(src[i] ^ flip);
}

/* The banded convolution's copies: Helium's, else the portable ones. */
#if MLIP_HAVE_MVE
#define MLIP_KQ8_BAND_ROW mlip_kq8_band_row_mve
#define MLIP_KQ8_COPY mlip_kq8_copy_mve
#define MLIP_KQ8_COPY_XOR mlip_kq8_copy_xor_mve
#else
#define MLIP_KQ8_BAND_ROW mlip_kq8_band_row_ref
#define MLIP_KQ8_COPY(dst, src, n) memcpy((dst), (src), (size_t)(n))
#define MLIP_KQ8_COPY_XOR mlip_kq8_copy_xor_ref
#endif

#ifndef MLIP_KQ8_ADD_MVE
#define MLIP_KQ8_ADD_MVE(X)
#endif
#ifndef MLIP_KQ8_ADD_DSP
#define MLIP_KQ8_ADD_DSP(X)
#endif
/* QLinearAdd's variants, best first, and the one mlip_kq8_add is. */
#define MLIP_KQ8_ADD_VARIANTS(X) MLIP_KQ8_ADD_MVE(X) MLIP_KQ8_ADD_DSP(X)
#if MLIP_HAVE_MVE
#define MLIP_KQ8_ADD_BEST mlip_kq8_add_mve
#define MLIP_KQ8_ADD_NAME "mve"
#elif MLIP_HAVE_DSP
#define MLIP_KQ8_ADD_BEST mlip_kq8_add_dsp
#define MLIP_KQ8_ADD_NAME "dsp"
#else
#define MLIP_KQ8_ADD_BEST mlip_kq8_add_ref
#define MLIP_KQ8_ADD_NAME "ref"
#endif

#ifndef MLIP_KQ8_GAP_MVE
#define MLIP_KQ8_GAP_MVE(X)
#endif
#ifndef MLIP_KQ8_GAP_DSP
#define MLIP_KQ8_GAP_DSP(X)
#endif
/* QLinearGlobalAveragePool's variants, best first, and the one mlip_kq8_gap is. */
#define MLIP_KQ8_GAP_VARIANTS(X) MLIP_KQ8_GAP_MVE(X) MLIP_KQ8_GAP_DSP(X)
#if MLIP_HAVE_MVE
#define MLIP_KQ8_GAP_BEST mlip_kq8_gap_mve
#define MLIP_KQ8_GAP_NAME "mve"
#elif MLIP_HAVE_DSP
#define MLIP_KQ8_GAP_BEST mlip_kq8_gap_dsp
#define MLIP_KQ8_GAP_NAME "dsp"
#else
#define MLIP_KQ8_GAP_BEST mlip_kq8_gap_ref
#define MLIP_KQ8_GAP_NAME "ref"
#endif

/* QLinearGlobalAveragePool: what the generated code calls. */
static inline void mlip_kq8_gap(int32_t planes, int32_t size, const void* x, int32_t u8, int32_t zx, int32_t q,
                                int32_t shift, int32_t zy, int32_t lo, int32_t hi, void* y) {
  MLIP_KQ8_GAP_BEST(planes, size, x, u8, zx, q, shift, zy, lo, hi, y);
}

/* QLinearAdd on a run: what the generated code calls. */
static inline void mlip_kq8_add(const mlip_kq8_add_t* p, int32_t n, const void* a, int32_t as, const void* b,
                                int32_t bs, void* y) {
  MLIP_KQ8_ADD_BEST(p, n, a, as, b, bs, y);
}

/* The one function callers name: the best variant compiled here. */
static inline void mlip_kq8_gemm(int32_t P, int32_t M, int32_t K, const uint8_t* a, uint32_t flip, const int8_t* w,
                                 const int32_t* ch, int32_t zy, int32_t lo, int32_t hi, uint8_t* y, int32_t yp,
                                 int32_t ym) {
  MLIP_KQ8_GEMM_BEST(P, M, K, a, flip, w, ch, zy, lo, hi, y, yp, ym);
}

/* ---- the convolution ----------------------------------------------------- */


/* The start of output channel m's sum (ch[3m]) for QLinearConv with a
 * uint8 (x_u8) or int8 input of zero point zx, the channel's weights w (k
 * of them, a padded row) and its int32 bias: (128 or 0 - zx) times the
 * weights' sum, plus the bias. QLinearConv adds the bias with saturation;
 * the sum starts with it only where that cannot saturate, whatever the
 * input (|bias| + 255 * 128 * k <= 2^31 - 1), and where the product's
 * precondition holds; then it returns 0, else -1 (the compiler keeps the
 * direct loops, conv_integer.c). The compiler calls it at compile time
 * (c/kernels/conv_integer.cpp), tests/variants on its random cases. */
static inline int mlip_kq8_start(const int8_t* w, int32_t k, int32_t x_u8, int32_t zx, int32_t bias, int32_t* start) {
  int64_t sum = 0, s;
  int32_t i;
  for (i = 0; i < k; ++i) sum += w[i];
  s = ((x_u8 ? 128 : 0) - (int64_t)zx) * sum + bias;
  *start = 0;
  if ((bias < 0 ? -(int64_t)bias : (int64_t)bias) + 32640 * (int64_t)k > INT32_MAX) return -1;
  if ((s < 0 ? -s : s) + 16384 * (int64_t)k > INT32_MAX) return -1;
  *start = (int32_t)s;
  return 0;
}

/* A 1x1 layer of one group without padding or stride: on channels-last
 * input each output position's window is x's c bytes at that position. */
static inline int mlip_kq8_conv_pointwise(const mlip_kq8_conv_t* d) {
  return d->groups == 1 && d->kernel[0] * d->kernel[1] * d->kernel[2] == 1 &&
         d->pad[0] + d->pad[1] + d->pad[2] == 0 && d->stride[0] * d->stride[1] * d->stride[2] == 1;
}

/* A fully-connected layer, or a pointwise one on channels-last int8 input:
 * x itself holds the product's rows (one per image and output position, c
 * bytes; k == c, no padded rows), so there is nothing to gather. (On uint8
 * input the product would XOR each byte once per output channel: such a
 * layer copies blocks of rows XORed into the scratch, mlip_kq8_conv_with.) */
static inline int mlip_kq8_conv_direct(const mlip_kq8_conv_t* d) {
  return d->groups == 1 && d->k == d->c && d->kernel[0] * d->kernel[1] * d->kernel[2] == 1 &&
         d->pad[0] + d->pad[1] + d->pad[2] == 0 &&
         (d->in[0] * d->in[1] * d->in[2] == 1 || (d->x_cl && !d->x_u8 && mlip_kq8_conv_pointwise(d)));
}

/* The scratch bytes mlip_kq8_conv needs (the compiler plans them in the arena). */
/* A depthwise layer (one input channel per group, any number of outputs
 * per group): each output channel by mlip_kq8_dw on its input channel's
 * plane, padded, rather than windows gathered for a product of one row. */
static inline int mlip_kq8_conv_depthwise(const mlip_kq8_conv_t* d) { return d->groups > 1 && d->c == d->groups; }

/* The extents (D, H, W) of a depthwise layer's padded plane: what its
 * windows reach, the leading pads included. */
static inline void mlip_kq8_dw_extent(const mlip_kq8_conv_t* d, int32_t* ext) {
  int32_t a;
  for (a = 0; a < 3; ++a) ext[a] = (d->out[a] - 1) * d->stride[a] + (d->kernel[a] - 1) * d->dilation[a] + 1;
}

/* A 1-D or 2-D depthwise layer of one output channel per input channel:
 * it can run on channels-last tensors (mlip_kq8_dwc_with), all channels
 * of a position at once. */
static inline int mlip_kq8_conv_dwc(const mlip_kq8_conv_t* d) {
  return mlip_kq8_conv_depthwise(d) && d->m == d->c && d->in[0] == 1 && d->kernel[0] == 1 && d->pad[0] == 0 &&
         d->out[0] == 1;
}

/* Whether the layer can read channels-last x (x_cl): a depthwise one of
 * mlip_kq8_conv_dwc (whose y the compiler stores the way x is), a
 * pointwise one (one product on x). The compiler asks it
 * (c/kernels/conv_integer.cpp); every layer can write channels-last y. */
static inline int mlip_kq8_conv_reads_cl(const mlip_kq8_conv_t* d) {
  return mlip_kq8_conv_dwc(d) || mlip_kq8_conv_pointwise(d);
}

static inline int32_t mlip_kq8_conv_scratch(const mlip_kq8_conv_t* d) {
  int32_t ext[3];
  if (d->x_cl && mlip_kq8_conv_depthwise(d)) return 0; /* its band only (mlip_kq8_conv_band) */
  if (mlip_kq8_conv_depthwise(d)) {
    mlip_kq8_dw_extent(d, ext);
    return ext[0] * ext[1] * ext[2] + 3; /* the DSP variant's last word reads 3 bytes past the window */
  }
  return mlip_kq8_conv_direct(d) ? 0 : d->rows * d->k;
}

/* A dense or grouped 1-D or 2-D layer whose window has more than one tap
 * gathers its rows from a channels-last band (mlip_kq8_band_rows) rather
 * than byte by byte from x's channel planes: its weight rows are then in
 * tap-major order, [kh][kw][ic] (the compiler packs them so,
 * c/kernels/conv_integer.cpp), so that each window row is one run of
 * kernel[2] * c / groups bytes of the band (or one run of c / groups bytes
 * per tap when dilated along W). A sum of integers in another order: the
 * same sum (the product's precondition bounds every partial sum). */
static inline int mlip_kq8_conv_banded(const mlip_kq8_conv_t* d) {
  return !mlip_kq8_conv_depthwise(d) && !mlip_kq8_conv_direct(d) && d->in[0] == 1 && d->kernel[0] == 1 &&
         d->pad[0] == 0 && d->out[0] == 1 && d->kernel[1] * d->kernel[2] > 1;
}

/* The band's geometry: `span` rows (a window's height, dilation included)
 * of `width` columns (what the windows reach, the pads included) of c /
 * groups bytes each. */
static inline void mlip_kq8_band_geometry(const mlip_kq8_conv_t* d, int32_t* span, int32_t* width) {
  *span = (d->kernel[1] - 1) * d->dilation[1] + 1;
  *width = (d->out[2] - 1) * d->stride[2] + (d->kernel[2] - 1) * d->dilation[2] + 1;
}

/* The band's bytes (0 for a layer that has none); the convolution's
 * scratch is mlip_kq8_conv_scratch's bytes (the rows), then these. */
static inline int32_t mlip_kq8_conv_band(const mlip_kq8_conv_t* d) {
  int32_t span, width;
  const int dwc = d->x_cl && mlip_kq8_conv_depthwise(d); /* a band of all c channels */
  if (!dwc && !mlip_kq8_conv_banded(d)) return 0;
  mlip_kq8_band_geometry(d, &span, &width);
  return span * width * (dwc ? d->c : d->c / d->groups);
}

/* A depthwise layer with a given kernel (mlip_kq8_dw or a variant): the
 * scratch (mlip_kq8_conv_scratch's bytes) filled with the padding's byte
 * once, then per image and input channel its plane copied inside the
 * padding, every byte XORed with flip (the kernels read int8 values; the
 * padding is zx's byte, XORed too), and each of the group's output
 * channels computed from it. */
static inline void mlip_kq8_dw_with(const mlip_kq8_conv_t* d, const void* x, const int8_t* w, const int32_t* ch,
                                    void* y, void* scratch, mlip_kq8_dw_fn fn) {
  const int32_t ocg = d->m / d->groups;
  const int32_t isize = d->in[0] * d->in[1] * d->in[2], osize = d->out[0] * d->out[1] * d->out[2];
  const uint8_t flip = d->x_u8 ? 0x80u : 0u, padv = (uint8_t)((uint8_t)d->zx ^ flip);
  uint8_t* plane = (uint8_t*)scratch;
  int32_t ext[3], lim[3], width, n, g, j, i, id, ih;
  mlip_kq8_dw_extent(d, ext);
  /* The input's part of the plane: [pad, lim) on each axis. */
  for (i = 0; i < 3; ++i) lim[i] = d->pad[i] + d->in[i] < ext[i] ? d->pad[i] + d->in[i] : ext[i];
  width = lim[2] - d->pad[2]; /* a row's bytes from x */
  for (i = 0; i < ext[0] * ext[1] * ext[2] + 3; ++i) plane[i] = padv; /* with the 3 bytes after it */
  for (n = 0; n < d->n; ++n) {
    for (g = 0; g < d->groups; ++g) {
      const uint8_t* xg = (const uint8_t*)x + (n * d->c + g) * isize;
      for (id = d->pad[0]; id < lim[0]; ++id) {
        const uint8_t* xr = xg + (id - d->pad[0]) * d->in[1] * d->in[2];
        uint8_t* pr = plane + (id * ext[1] + d->pad[1]) * ext[2] + d->pad[2];
        for (ih = d->pad[1]; ih < lim[1]; ++ih, xr += d->in[2], pr += ext[2])
          for (i = 0; i < width; ++i) pr[i] = (uint8_t)(xr[i] ^ flip);
      }
      for (j = 0; j < ocg; ++j) {
        const int32_t oc = g * ocg + j;
        fn(d, plane, ext, w + oc * d->k, ch + MLIP_KQ8_CH * oc, (uint8_t*)y + (n * d->m + oc) * osize);
      }
    }
  }
}

/* One row of A: the window of output position (od, oh, ow) of the group
 * whose input is xg, tap by tap in the weights' order, each byte XORed with
 * flip (so that the product reads int8 values with flip 0: one XOR per
 * byte here rather than one per byte and output channel there), padding
 * taps as pad (zx's byte, XORed), the tail to k as 0. A 1x1 window
 * without padding is one byte per input channel (a pointwise layer: a
 * strided copy); a window row inside x is copied without bounds checks. */
static inline void mlip_kq8_gather(const mlip_kq8_conv_t* d, const uint8_t* xg, int32_t od, int32_t oh, int32_t ow,
                                   uint8_t flip, uint8_t pad, uint8_t* row) {
  const int32_t icg = d->c / d->groups, isize = d->in[0] * d->in[1] * d->in[2];
  const int32_t kw_n = d->kernel[2], dw = d->dilation[2];
  const int32_t iw0 = ow * d->stride[2] - d->pad[2];
  int32_t t = 0, ic, kd, kh, kw;
  if (d->kernel[0] * d->kernel[1] * kw_n == 1 && d->pad[0] + d->pad[1] + d->pad[2] == 0) {
    const uint8_t* xp = xg + (od * d->stride[0] * d->in[1] + oh * d->stride[1]) * d->in[2] + iw0;
    for (ic = 0; ic < icg; ++ic) row[ic] = (uint8_t)(xp[ic * isize] ^ flip);
    t = icg;
  } else {
    /* Window row by window row (kd, kh), for every input channel: its
     * bounds are checked once per window row, not per channel. */
    const int32_t inside = iw0 >= 0 && iw0 + (kw_n - 1) * dw < d->in[2];
    const int32_t ktaps = d->kernel[0] * d->kernel[1] * kw_n; /* one channel's taps */
    for (kd = 0; kd < d->kernel[0]; ++kd) {
      const int32_t id = od * d->stride[0] - d->pad[0] + kd * d->dilation[0];
      const int32_t din = id >= 0 && id < d->in[0];
      for (kh = 0; kh < d->kernel[1]; ++kh) {
        const int32_t ih = oh * d->stride[1] - d->pad[1] + kh * d->dilation[1];
        uint8_t* dst = row + (kd * d->kernel[1] + kh) * kw_n;
        if (!din || ih < 0 || ih >= d->in[1]) {
          for (ic = 0; ic < icg; ++ic, dst += ktaps)
            for (kw = 0; kw < kw_n; ++kw) dst[kw] = pad;
          continue;
        }
        {
          const uint8_t* src = xg + (id * d->in[1] + ih) * d->in[2];
          if (inside && kw_n == 3 && dw == 1) { /* 3x3 and 1x3 windows: the common case */
            for (ic = 0; ic < icg; ++ic, dst += ktaps, src += isize) {
              dst[0] = (uint8_t)(src[iw0] ^ flip);
              dst[1] = (uint8_t)(src[iw0 + 1] ^ flip);
              dst[2] = (uint8_t)(src[iw0 + 2] ^ flip);
            }
          } else if (inside) {
            for (ic = 0; ic < icg; ++ic, dst += ktaps, src += isize)
              for (kw = 0; kw < kw_n; ++kw) dst[kw] = (uint8_t)(src[iw0 + kw * dw] ^ flip);
          } else {
            for (ic = 0; ic < icg; ++ic, dst += ktaps, src += isize)
              for (kw = 0; kw < kw_n; ++kw) {
                const int32_t iw = iw0 + kw * dw;
                dst[kw] = iw >= 0 && iw < d->in[2] ? (uint8_t)(src[iw] ^ flip) : pad;
              }
          }
        }
      }
    }
    t = icg * ktaps;
  }
  for (; t < d->k; ++t) row[t] = 0;
}

/* The band of a banded layer (mlip_kq8_conv_banded): the rows of the
 * padded input (padded row r is input row r - pad[1]) that output row oh's
 * windows read, channels-last: padded row r in slot r % span, column c
 * (input column c - pad[2]) at (slot * width + c) * icg, its icg channels
 * in order, each byte XORed with flip, padding as pad. *done is the last
 * padded row the band holds (-1 for none); rows are only ever added
 * downwards, and a window's rows fit the span, so each is copied once per
 * image and group. */
static inline void mlip_kq8_band_rows(const mlip_kq8_conv_t* d, const uint8_t* xg, int32_t oh, uint8_t flip,
                                      uint8_t pad, uint8_t* band, int32_t* done) {
  const int32_t icg = d->c / d->groups, isize = d->in[1] * d->in[2];
  const int32_t first = oh * d->stride[1], last = first + (d->kernel[1] - 1) * d->dilation[1];
  int32_t span, width, r, c;
  mlip_kq8_band_geometry(d, &span, &width);
  for (r = first > *done + 1 ? first : *done + 1; r <= last; ++r) {
    const int32_t ih = r - d->pad[1];
    uint8_t* dst = band + (r % span) * width * icg;
    if (ih < 0 || ih >= d->in[1]) {
      for (c = 0; c < width * icg; ++c) dst[c] = pad;
      continue;
    }
    /* The columns before the input, the input's (c0 to c1), those after. */
    {
      const int32_t c0 = d->pad[2] < width ? d->pad[2] : width;
      const int32_t c1 = d->pad[2] + d->in[2] < width ? d->pad[2] + d->in[2] : width;
      for (c = 0; c < c0 * icg; ++c) dst[c] = pad;
      if (c1 > c0) MLIP_KQ8_BAND_ROW(dst + c0 * icg, xg + ih * d->in[2], c1 - c0, icg, isize, flip);
      for (c = c1 * icg; c < width * icg; ++c) dst[c] = pad;
    }
  }
  *done = last;
}

/* One row of A for output position (oh, ow) of a banded layer, from the
 * band that holds output row oh's rows (the window's first in slot s0, of
 * span; rows `width` columns of icg bytes): per window row (kh), its taps'
 * bytes [kw][ic], one run when the window is not dilated along W; the tail
 * to k as 0. */
static inline void mlip_kq8_gather_band(const mlip_kq8_conv_t* d, const uint8_t* band, int32_t s0, int32_t span,
                                        int32_t width, int32_t icg, int32_t ow, uint8_t* row) {
  const int32_t kw_n = d->kernel[2], run = kw_n * icg;
  const uint8_t* col = band + ow * d->stride[2] * icg;
  int32_t kh, kw, t, slot = s0;
  for (kh = 0; kh < d->kernel[1]; ++kh, row += run) {
    const uint8_t* src = col + slot * width * icg;
    if (d->dilation[2] == 1) {
      MLIP_KQ8_COPY(row, src, run);
    } else {
      for (kw = 0; kw < kw_n; ++kw) MLIP_KQ8_COPY(row + kw * icg, src + kw * d->dilation[2] * icg, icg);
    }
    slot += d->dilation[1];
    while (slot >= span) slot -= span;
  }
  for (t = d->kernel[1] * run; t < d->k; ++t) *row++ = 0;
}

/* The convolution with a given product (mlip_kq8_gemm or one of its
 * variants): a fully-connected layer in one product on x; otherwise, for
 * each image and group, `rows` output positions at a time, their windows'
 * bytes into the scratch read as int8 (mlip_kq8_gather, or for a banded
 * layer mlip_kq8_gather_band from the band after the rows), then the
 * product (flip 0) into y. */
static inline void mlip_kq8_conv_with(const mlip_kq8_conv_t* d, const void* x, const int8_t* w, const int32_t* ch,
                                      void* y, void* scratch, mlip_kq8_gemm_fn gemm) {
  const int32_t icg = d->c / d->groups, ocg = d->m / d->groups;
  const int32_t isize = d->in[0] * d->in[1] * d->in[2], osize = d->out[0] * d->out[1] * d->out[2];
  const uint8_t flip = d->x_u8 ? 0x80u : 0u;
  const uint8_t pad = (uint8_t)((uint8_t)d->zx ^ flip); /* zx's byte, int8 or uint8, read as int8 */
  uint8_t* a = (uint8_t*)scratch;
  uint8_t* band = a + mlip_kq8_conv_scratch(d);
  const int banded = mlip_kq8_conv_banded(d);
  int32_t n, g, span, width;
  /* Output (p, m) of an image at yg[p * yp + m * ym]. */
  const int32_t yp = d->y_cl ? d->m : 1, ym = d->y_cl ? 1 : osize, ystep = d->rows * yp;
  mlip_kq8_band_geometry(d, &span, &width);
  if (mlip_kq8_conv_direct(d)) {
    if (d->y_cl || osize == 1) {
      gemm(d->n * osize, d->m, d->k, (const uint8_t*)x, flip, w, ch, d->zy, d->lo, d->hi, (uint8_t*)y, d->m, 1);
    } else {
      for (n = 0; n < d->n; ++n)
        gemm(osize, d->m, d->k, (const uint8_t*)x + n * osize * d->c, flip, w, ch, d->zy, d->lo, d->hi,
             (uint8_t*)y + n * d->m * osize, 1, osize);
    }
    return;
  }
  if (d->x_cl) { /* pointwise on uint8 x (k == c): a block's rows are one run, copied XORed */
    for (n = 0; n < d->n; ++n) {
      const uint8_t* xn = (const uint8_t*)x + n * isize * d->c;
      uint8_t* yn = (uint8_t*)y + n * d->m * osize;
      int32_t p0;
      for (p0 = 0; p0 < osize; p0 += d->rows) {
        const int32_t np = osize - p0 < d->rows ? osize - p0 : d->rows;
        MLIP_KQ8_COPY_XOR(a, xn + p0 * d->c, np * d->c, flip);
        gemm(np, d->m, d->k, a, 0, w, ch, d->zy, d->lo, d->hi, yn + p0 * yp, yp, ym);
      }
    }
    return;
  }
  for (n = 0; n < d->n; ++n) {
    for (g = 0; g < d->groups; ++g) {
      const uint8_t* xg = (const uint8_t*)x + (n * d->c + g * icg) * isize;
      uint8_t* yb = (uint8_t*)y + n * d->m * osize + g * ocg * ym; /* the block's first output */
      int32_t od = 0, oh = 0, ow = 0, p0, done = -1, s0 = 0;
      for (p0 = 0; p0 < osize; p0 += d->rows, yb += ystep) {
        const int32_t np = osize - p0 < d->rows ? osize - p0 : d->rows;
        int32_t r;
        for (r = 0; r < np; ++r) {
          if (banded) {
            if (ow == 0) {
              mlip_kq8_band_rows(d, xg, oh, flip, pad, band, &done);
              s0 = oh * d->stride[1] % span;
            }
            mlip_kq8_gather_band(d, band, s0, span, width, icg, ow, a + r * d->k);
          } else {
            mlip_kq8_gather(d, xg, od, oh, ow, flip, pad, a + r * d->k);
          }
          if (++ow == d->out[2]) {
            ow = 0;
            if (++oh == d->out[1]) {
              oh = 0;
              ++od;
            }
          }
        }
        gemm(np, ocg, d->k, a, 0, w + g * ocg * d->k, ch + MLIP_KQ8_CH * g * ocg, d->zy, d->lo, d->hi, yb, yp,
             ym);
      }
    }
  }
}

/* The band of a depthwise layer on channels-last x (mlip_kq8_conv_dwc):
 * mlip_kq8_band_rows' ring of padded rows, each column all c channels' bytes
 * (x's row ih is one run of in[2] * c bytes), XORed with flip, padding as
 * pad. */
static inline void mlip_kq8_band_rows_cl(const mlip_kq8_conv_t* d, const uint8_t* xn, int32_t oh, uint8_t flip,
                                         uint8_t pad, uint8_t* band, int32_t* done) {
  const int32_t c = d->c;
  const int32_t first = oh * d->stride[1], last = first + (d->kernel[1] - 1) * d->dilation[1];
  int32_t span, width, r, i;
  mlip_kq8_band_geometry(d, &span, &width);
  for (r = first > *done + 1 ? first : *done + 1; r <= last; ++r) {
    const int32_t ih = r - d->pad[1];
    uint8_t* dst = band + (r % span) * width * c;
    const int32_t c0 = d->pad[2] < width ? d->pad[2] : width;
    const int32_t c1 = d->pad[2] + d->in[2] < width ? d->pad[2] + d->in[2] : width;
    if (ih < 0 || ih >= d->in[1]) {
      for (i = 0; i < width * c; ++i) dst[i] = pad;
      continue;
    }
    for (i = 0; i < c0 * c; ++i) dst[i] = pad;
    if (c1 > c0) {
      const uint8_t* src = xn + ih * d->in[2] * c;
      if (flip == 0) {
        MLIP_KQ8_COPY(dst + c0 * c, src, (c1 - c0) * c);
      } else {
        MLIP_KQ8_COPY_XOR(dst + c0 * c, src, (c1 - c0) * c, flip);
      }
    }
    for (i = c1 * c; i < width * c; ++i) dst[i] = pad;
  }
  *done = last;
}

/* A depthwise layer of mlip_kq8_conv_dwc on channels-last x with a given
 * kernel (mlip_kq8_dwc_ref or a variant; the reference for float32 pairs,
 * which the variants do not take): per image and output row, the
 * band's new rows (mlip_kq8_band_rows_cl), then the row's outputs, all
 * channels (y channels-last or not, d->y_cl). The scratch is the band
 * (mlip_kq8_conv_band). */
static inline void mlip_kq8_dwc_with(const mlip_kq8_conv_t* d, const void* x, const int8_t* w, const int32_t* ch,
                                     void* y, void* scratch, mlip_kq8_dwc_fn fn) {
  const int32_t isize = d->in[1] * d->in[2], osize = d->out[1] * d->out[2];
  const uint8_t flip = d->x_u8 ? 0x80u : 0u, pad = (uint8_t)((uint8_t)d->zx ^ flip);
  int32_t span, width, n, oh;
  mlip_kq8_band_geometry(d, &span, &width);
  /* onnxruntime's arithmetic (float32 pairs): the reference, whose
   * requantization is mlip_requantize; the variants' is fixed-point
   * (mlip_kq8_has_f32). Asked once per layer, not per row. */
  if (mlip_kq8_has_f32(ch, d->c)) fn = mlip_kq8_dwc_ref;
  for (n = 0; n < d->n; ++n) {
    int32_t done = -1;
    for (oh = 0; oh < d->out[1]; ++oh) {
      mlip_kq8_band_rows_cl(d, (const uint8_t*)x + n * isize * d->c, oh, flip, pad, (uint8_t*)scratch, &done);
      fn(d, (const uint8_t*)scratch, oh * d->stride[1] % span, span, width, w, ch,
         (uint8_t*)y + n * d->m * osize + oh * d->out[2] * (d->y_cl ? d->m : 1));
    }
  }
}

/* The convolution on mlip_kq8_gemm: what the generated code calls. */
static inline void mlip_kq8_conv(const mlip_kq8_conv_t* d, const void* x, const int8_t* w, const int32_t* ch, void* y,
                                 void* scratch) {
  if (d->x_cl && mlip_kq8_conv_depthwise(d)) {
    mlip_kq8_dwc_with(d, x, w, ch, y, scratch, MLIP_KQ8_DWC_BEST);
  } else if (mlip_kq8_conv_depthwise(d)) {
    mlip_kq8_dw_with(d, x, w, ch, y, scratch, MLIP_KQ8_DW_BEST);
  } else {
    mlip_kq8_conv_with(d, x, w, ch, y, scratch, MLIP_KQ8_GEMM_BEST);
  }
}

#endif /* MLIP_KQ8_H_ */
