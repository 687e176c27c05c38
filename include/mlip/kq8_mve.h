/* mlip/kq8.h's product for Arm Helium (MVE, Cortex-M55/M85), arm_mve.h:
 * four rows of A against one row of W at a time (the rows left over, one
 * row of A against four of W: mlip_kq8_gemv_mve), 16 products per VMLADAVA
 * (int8 multiply, add across the vector into the int32 sum), A's bytes
 * XORed with flip (VEOR) as they load, unless flip is 0; whole vectors
 * unpredicated, the row's tail by predication (W's lanes past K load as
 * 0). The four sums, one output channel's, are
 * requantized as one vector: TFLite's arithmetic on lanes (the proof of
 * each step is beside it), stored with a narrowing store. */
#ifndef MLIP_KQ8_MVE_H_
#define MLIP_KQ8_MVE_H_

#include "mlip/strict_fp.h" /* before any definition: no contraction (C) */

#include <arm_mve.h>
#include <stdint.h>

/* mlip_multiply_by_quantized_multiplier on four lanes with one (q, shift). */
static inline int32x4_t mlip_kq8_mulq_mve(int32x4_t v, int32_t q, int32_t shift) {
  /* VQSHL saturates to int32 as the reference's x * 2^shift does. */
  if (shift > 0) v = vqshlq_r_s32(v, shift);
  /* VQRDMULH is (2 v q + 2^31) >> 32 = floor((v q + 2^30) / 2^31), which is
   * the reference's nudged division for either sign of v q; it saturates
   * only -2^31 * -2^31, as the reference. */
  v = vqrdmulhq_n_s32(v, q);
  /* VRSHL by -e rounds half up; a negative v less 1 (saturating: -2^31
   * stays, and is exact) makes its ties go down, away from zero. */
  if (shift < 0) v = vrshlq_n_s32(vqaddq_s32(v, vshrq_n_s32(v, 31)), shift);
  return v;
}

/* mlip_requantize on four lanes with one (q, shift). */
static inline int32x4_t mlip_kq8_requant_mve(int32x4_t v, int32_t q, int32_t shift, int32_t zy, int32_t lo,
                                             int32_t hi) {
  v = mlip_kq8_mulq_mve(v, q, shift);
  /* The zero point with saturation: the clamp below gives what the
   * reference's int64 sum gives. */
  v = vqaddq_n_s32(v, zy);
  return vminq_s32(vmaxq_s32(v, vdupq_n_s32(lo)), vdupq_n_s32(hi));
}

/* 16 bytes of A at p (lanes past `in` as 0) read as int8 after the XOR. */
static inline int8x16_t mlip_kq8_load_mve(const uint8_t* p, uint8x16_t flip, mve_pred16_t in) {
  return vreinterpretq_s8_u8(veorq_u8(vldrbq_z_u8(p, in), flip));
}

/* mlip_requantize on four lanes, each with its own (q, shift), as
 * mlip_kq8_requant_mve: VQSHL by max(shift, 0) (a left shift, saturating;
 * 0 changes nothing), VQRDMULH, then on the lanes whose shift is negative
 * the tie fix (masked by min(shift, 0) >> 31) and VRSHL by min(shift, 0)
 * (by 0: nothing). */
static inline int32x4_t mlip_kq8_requant_lanes_mve(int32x4_t v, int32x4_t q, int32x4_t shift, int32_t zy, int32_t lo,
                                                   int32_t hi) {
  const int32x4_t zero = vdupq_n_s32(0), rs = vminq_s32(shift, zero);
  v = vqrdmulhq_s32(vqshlq_s32(v, vmaxq_s32(shift, zero)), q);
  v = vrshlq_s32(vqaddq_s32(v, vandq_s32(vshrq_n_s32(v, 31), vshrq_n_s32(rs, 31))), rs);
  return vminq_s32(vmaxq_s32(vqaddq_n_s32(v, zy), vdupq_n_s32(lo)), vdupq_n_s32(hi));
}

/* One row of A against four rows of W (four output channels) at a time:
 * the rows mlip_kq8_gemm_mve leaves when P is not a multiple of 4 (a
 * fully-connected layer of batch 1 is one row), where four rows of A
 * would repeat one: one load of A per 16 bytes serves four VMLADAVAs, 64
 * products per 11 instructions where the block of repeated rows gets 16.
 * Each channel's sum is the reference's (integer: any order); the four are
 * requantized per lane (each channel its own q and shift) and stored with
 * one narrowing store (scattering when ym > 1). Missing channels repeat
 * channel m's row and are not stored. */
static inline void mlip_kq8_gemv_mve(int32_t M, int32_t K, const uint8_t* a0, uint32_t flip, const int8_t* w,
                                     const int32_t* ch, int32_t zy, int32_t lo, int32_t hi, uint8_t* y, int32_t ym) {
  const uint8x16_t fv = vdupq_n_u8((uint8_t)flip);
  const uint32x4_t c3 = vmulq_n_u32(vidupq_n_u32(0, 1), (uint32_t)MLIP_KQ8_CH); /* ch's words of each lane */
  const uint32x4_t yo = vmulq_n_u32(vidupq_n_u32(0, 1), (uint32_t)ym);
  int32_t m, k;
  for (m = 0; m < M; m += 4) {
    const int32_t nm = M - m < 4 ? M - m : 4;
    const mve_pred16_t out = vctp32q((uint32_t)nm);
    const int32_t* c = ch + MLIP_KQ8_CH * m;
    const int8_t* w0 = w + m * K;
    const int8_t* w1 = nm > 1 ? w0 + K : w0;
    const int8_t* w2 = nm > 2 ? w0 + 2 * K : w0;
    const int8_t* w3 = nm > 3 ? w0 + 3 * K : w0;
    const uint8_t* pa = a0;
    int32_t s0 = c[0], s1 = nm > 1 ? c[3] : 0, s2 = nm > 2 ? c[6] : 0, s3 = nm > 3 ? c[9] : 0;
    int32x4_t acc;
    if (flip == 0) {
#if defined(__GNUC__) && !defined(__clang__)
      /* In assembly for the reason mlip_kq8_gemm_mve's loop is. */
      int32_t nv = K >> 4;
      k = K & 15;
      if (nv > 0)
        __asm__ volatile(
            "1:\n\t"
            "vldrb.8 q0, [%[pa]], #16\n\t"
            "vldrb.8 q1, [%[w0]], #16\n\t"
            "vmladava.s8 %[s0], q0, q1\n\t"
            "vldrb.8 q2, [%[w1]], #16\n\t"
            "vmladava.s8 %[s1], q0, q2\n\t"
            "vldrb.8 q1, [%[w2]], #16\n\t"
            "vmladava.s8 %[s2], q0, q1\n\t"
            "vldrb.8 q2, [%[w3]], #16\n\t"
            "vmladava.s8 %[s3], q0, q2\n\t"
            "subs %[nv], %[nv], #1\n\t"
            "bne 1b"
            : [s0] "+Te"(s0), [s1] "+Te"(s1), [s2] "+Te"(s2), [s3] "+Te"(s3), [pa] "+r"(pa), [w0] "+r"(w0),
              [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3), [nv] "+r"(nv)
            :
            : "q0", "q1", "q2", "memory", "cc");
#else
      for (k = K; k >= 16; k -= 16, pa += 16, w0 += 16, w1 += 16, w2 += 16, w3 += 16) {
        const int8x16_t av = vldrbq_s8((const int8_t*)pa);
        s0 = vmladavaq_s8(s0, av, vldrbq_s8(w0));
        s1 = vmladavaq_s8(s1, av, vldrbq_s8(w1));
        s2 = vmladavaq_s8(s2, av, vldrbq_s8(w2));
        s3 = vmladavaq_s8(s3, av, vldrbq_s8(w3));
      }
#endif
    } else {
      for (k = K; k >= 16; k -= 16, pa += 16, w0 += 16, w1 += 16, w2 += 16, w3 += 16) {
        const int8x16_t av = vreinterpretq_s8_u8(veorq_u8(vldrbq_u8(pa), fv));
        s0 = vmladavaq_s8(s0, av, vldrbq_s8(w0));
        s1 = vmladavaq_s8(s1, av, vldrbq_s8(w1));
        s2 = vmladavaq_s8(s2, av, vldrbq_s8(w2));
        s3 = vmladavaq_s8(s3, av, vldrbq_s8(w3));
      }
    }
    if (k > 0) { /* the tail: W's lanes past K load as 0 and add nothing */
      const mve_pred16_t in = vctp8q((uint32_t)k);
      const int8x16_t av = mlip_kq8_load_mve(pa, fv, in);
      s0 = vmladavaq_s8(s0, av, vldrbq_z_s8(w0, in));
      s1 = vmladavaq_s8(s1, av, vldrbq_z_s8(w1, in));
      s2 = vmladavaq_s8(s2, av, vldrbq_z_s8(w2, in));
      s3 = vmladavaq_s8(s3, av, vldrbq_z_s8(w3, in));
    }
    acc = vsetq_lane_s32(s3, vsetq_lane_s32(s2, vsetq_lane_s32(s1, vdupq_n_s32(s0), 1), 2), 3);
    acc = mlip_kq8_requant_lanes_mve(acc, vldrwq_gather_shifted_offset_z_s32(c + 1, c3, out),
                                     vldrwq_gather_shifted_offset_z_s32(c + 2, c3, out), zy, lo, hi);
    if (ym == 1) vstrbq_p_s32((int8_t*)(y + m), acc, out);
    else vstrbq_scatter_offset_p_s32((int8_t*)(y + m * ym), yo, acc, out);
  }
}

static inline void mlip_kq8_gemm_mve(int32_t P, int32_t M, int32_t K, const uint8_t* a, uint32_t flip,
                                     const int8_t* w, const int32_t* ch, int32_t zy, int32_t lo, int32_t hi,
                                     uint8_t* y, int32_t yp, int32_t ym) {
  if (mlip_kq8_has_f32(ch, M)) { /* onnxruntime's arithmetic: the reference (mlip_kq8_has_f32) */
    mlip_kq8_gemm_ref(P, M, K, a, flip, w, ch, zy, lo, hi, y, yp, ym);
    return;
  }
  /* The four rows' outputs as byte offsets, for a scattering store. */
  const uint32x4_t offsets = vmulq_n_u32(vidupq_n_u32(0, 1), (uint32_t)yp);
  /* Lanes past K read flip ^ 0, but W's are 0 there: they add nothing. */
  const uint8x16_t fv = vdupq_n_u8((uint8_t)flip);
  int32_t p, m, k;
  for (p = 0; p + 4 <= P; p += 4) {
    const uint8_t* a0 = a + p * K;
    const uint8_t* a1 = a0 + K;
    const uint8_t* a2 = a0 + 2 * K;
    const uint8_t* a3 = a0 + 3 * K;
    for (m = 0; m < M; ++m) {
      const int8_t* wm = w + m * K;
      const int32_t* c = ch + MLIP_KQ8_CH * m;
      int32_t s0 = c[0], s1 = c[0], s2 = c[0], s3 = c[0];
      int32x4_t acc;
      uint8_t* yo = y + p * yp + m * ym;
      const uint8_t *p0 = a0, *p1 = a1, *p2 = a2, *p3 = a3;
      const int8_t* pw = wm;
      /* Whole vectors unpredicated (no VEOR when flip is 0: the gather
       * has XORed the bytes), then the tail. */
      if (flip == 0) {
#if defined(__GNUC__) && !defined(__clang__)
        /* The same loads and VMLADAVAs as the loop below, in assembly: GCC
         * 12 keeps the five pointers and four sums of that loop in too few
         * registers (it recomputes the pointers from a shared index and
         * spills them), 26 instructions per 16 bytes where these take 11.
         * "Te": the even registers VMLADAVA's sum must be in. */
        int32_t nv = K >> 4;
        k = K & 15;
        if (nv > 0)
          __asm__ volatile(
              "1:\n\t"
              "vldrb.8 q0, [%[pw]], #16\n\t"
              "vldrb.8 q1, [%[p0]], #16\n\t"
              "vmladava.s8 %[s0], q1, q0\n\t"
              "vldrb.8 q2, [%[p1]], #16\n\t"
              "vmladava.s8 %[s1], q2, q0\n\t"
              "vldrb.8 q1, [%[p2]], #16\n\t"
              "vmladava.s8 %[s2], q1, q0\n\t"
              "vldrb.8 q2, [%[p3]], #16\n\t"
              "vmladava.s8 %[s3], q2, q0\n\t"
              "subs %[nv], %[nv], #1\n\t"
              "bne 1b"
              : [s0] "+Te"(s0), [s1] "+Te"(s1), [s2] "+Te"(s2), [s3] "+Te"(s3), [p0] "+r"(p0), [p1] "+r"(p1),
                [p2] "+r"(p2), [p3] "+r"(p3), [pw] "+r"(pw), [nv] "+r"(nv)
              :
              : "q0", "q1", "q2", "memory", "cc");
#else
        for (k = K; k >= 16; k -= 16, p0 += 16, p1 += 16, p2 += 16, p3 += 16, pw += 16) {
          const int8x16_t wv = vldrbq_s8(pw);
          s0 = vmladavaq_s8(s0, vldrbq_s8((const int8_t*)p0), wv);
          s1 = vmladavaq_s8(s1, vldrbq_s8((const int8_t*)p1), wv);
          s2 = vmladavaq_s8(s2, vldrbq_s8((const int8_t*)p2), wv);
          s3 = vmladavaq_s8(s3, vldrbq_s8((const int8_t*)p3), wv);
        }
#endif
      } else {
        for (k = K; k >= 16; k -= 16, p0 += 16, p1 += 16, p2 += 16, p3 += 16, pw += 16) {
          const int8x16_t wv = vldrbq_s8(pw);
          s0 = vmladavaq_s8(s0, vreinterpretq_s8_u8(veorq_u8(vldrbq_u8(p0), fv)), wv);
          s1 = vmladavaq_s8(s1, vreinterpretq_s8_u8(veorq_u8(vldrbq_u8(p1), fv)), wv);
          s2 = vmladavaq_s8(s2, vreinterpretq_s8_u8(veorq_u8(vldrbq_u8(p2), fv)), wv);
          s3 = vmladavaq_s8(s3, vreinterpretq_s8_u8(veorq_u8(vldrbq_u8(p3), fv)), wv);
        }
      }
      if (k > 0) {
        const mve_pred16_t in = vctp8q((uint32_t)k);
        const int8x16_t wv = vldrbq_z_s8(pw, in);
        s0 = vmladavaq_s8(s0, mlip_kq8_load_mve(p0, fv, in), wv);
        s1 = vmladavaq_s8(s1, mlip_kq8_load_mve(p1, fv, in), wv);
        s2 = vmladavaq_s8(s2, mlip_kq8_load_mve(p2, fv, in), wv);
        s3 = vmladavaq_s8(s3, mlip_kq8_load_mve(p3, fv, in), wv);
      }
      acc = vsetq_lane_s32(s3, vsetq_lane_s32(s2, vsetq_lane_s32(s1, vdupq_n_s32(s0), 1), 2), 3);
      acc = mlip_kq8_requant_mve(acc, c[1], c[2], zy, lo, hi);
      if (yp == 1) {
        vstrbq_s32((int8_t*)yo, acc);
      } else {
        vstrbq_scatter_offset_s32((int8_t*)yo, offsets, acc);
      }
    }
  }
  /* The rows left (fewer than 4): four channels at a time. */
  for (; p < P; ++p) mlip_kq8_gemv_mve(M, K, a + p * K, flip, w, ch, zy, lo, hi, y + p * yp, ym);
}

#define MLIP_KQ8_GEMM_MVE(X) X(mlip_kq8_gemm_mve, "mve")

/* mlip/kq8.h's depthwise kernel: four output positions at a time, in
 * order across rows (so that narrow rows fill the lanes), their taps
 * gathered from the padded plane as int32 lanes (VLDRB.S32 at the lanes'
 * offsets), each tap one VMLA by its weight; the lanes' offsets step as a
 * vector (a lane past the row's end moves to the next row); the four sums
 * requantized as the product's are (one channel, one q and shift), stored
 * with a narrowing store. Missing positions are predicated off. Windows of
 * more than 64 taps take the reference. */
static inline void mlip_kq8_dw_mve(const mlip_kq8_conv_t* d, const uint8_t* plane, const int32_t* ext, const int8_t* w,
                                   const int32_t* c, uint8_t* y) {
  if (c[2] == MLIP_REQUANT_F32) { /* onnxruntime's arithmetic: the reference (mlip_kq8_has_f32) */
    mlip_kq8_dw_ref(d, plane, ext, w, c, y);
    return;
  }
  const int32_t rs = ext[2], ps = ext[1] * ext[2]; /* the plane's row and depth strides */
  const int32_t sw = d->stride[2], ow_n = d->out[2], n = d->out[1] * d->out[2];
  const int32_t taps = d->kernel[0] * d->kernel[1] * d->kernel[2];
  /* From a lane's (oh, ow + ow_n) to (oh + 1, ow): its offset's step. */
  const uint32_t row_step = (uint32_t)(d->stride[1] * rs) - (uint32_t)(ow_n * sw);
  int32_t toff[64];
  int32_t od, p, t, kd, kh, kw;
  if (taps > 64) {
    mlip_kq8_dw_ref(d, plane, ext, w, c, y);
    return;
  }
  for (kd = 0, t = 0; kd < d->kernel[0]; ++kd)
    for (kh = 0; kh < d->kernel[1]; ++kh)
      for (kw = 0; kw < d->kernel[2]; ++kw)
        toff[t++] = kd * d->dilation[0] * ps + kh * d->dilation[1] * rs + kw * d->dilation[2];
  for (od = 0; od < d->out[0]; ++od, y += n) {
    const int8_t* base = (const int8_t*)plane + od * d->stride[0] * ps;
    uint32x4_t ow = vidupq_n_u32(0, 1);               /* each lane's ow */
    uint32x4_t offs = vmulq_n_u32(ow, (uint32_t)sw); /* each lane's window offset in the plane */
    for (p = 0; p < n; p += 4) {
      const mve_pred16_t in = vctp32q((uint32_t)(n - p));
      int32x4_t acc = vdupq_n_s32(c[0]);
      mve_pred16_t wrap;
      /* Lanes past the row's end to the next row (more than once when a
       * row is narrower than 4). */
      while ((wrap = vcmpcsq_n_u32(ow, (uint32_t)ow_n)) != 0) {
        ow = vsubq_m_n_u32(ow, ow, (uint32_t)ow_n, wrap);
        offs = vaddq_m_n_u32(offs, offs, row_step, wrap);
      }
      for (t = 0; t < taps; ++t) acc = vmlaq_n_s32(acc, vldrbq_gather_offset_z_s32(base + toff[t], offs, in), w[t]);
      acc = mlip_kq8_requant_mve(acc, c[1], c[2], d->zy, d->lo, d->hi);
      vstrbq_p_s32((int8_t*)(y + p), acc, in);
      ow = vaddq_n_u32(ow, 4u);
      offs = vaddq_n_u32(offs, (uint32_t)(4 * sw));
    }
  }
}

#define MLIP_KQ8_DW_MVE(X) X(mlip_kq8_dw_mve, "mve")

/* mlip/kq8.h's channels-last depthwise kernel: per output position, 16
 * channels at a time (the last ones 8 at a time, predicated), each tap a
 * widening VLDRB.S16 of 8 channels' bytes from the band and of their
 * weights (tap-major: contiguous), their products exact in int32 lanes by
 * VMULLB (even channels) and VMULLT (odd ones), added to the even and odd
 * sums (Helium has no lane-by-lane multiply-accumulate of two vectors);
 * the taps' offsets in the band from a table made once per output row (no
 * ring arithmetic per position); the channels' starts and (q, shift) by
 * gathering loads from ch (3 words per channel), the requantization per
 * lane (mlip_kq8_requant_lanes_mve), the outputs by scattering stores (even
 * and odd channels apart). Windows of more than 64 taps take the
 * reference (as do layers with float32 pairs: mlip_kq8_dwc_with). */
static inline void mlip_kq8_dwc_mve(const mlip_kq8_conv_t* d, const uint8_t* band, int32_t s0, int32_t span,
                                    int32_t width, const int8_t* w, const int32_t* ch, uint8_t* y) {
  const int32_t c = d->c, taps = d->kernel[1] * d->kernel[2];
  if (taps > 64) {
    mlip_kq8_dwc_ref(d, band, s0, span, width, w, ch, y);
    return;
  }
  const int32_t yq = d->y_cl ? c : 1, ys = d->y_cl ? 1 : d->out[1] * d->out[2], zy = d->zy, lo = d->lo, hi = d->hi;
  const uint32x4_t c6 = vmulq_n_u32(vidupq_n_u32(0, 1), 6u);                /* ch's words of every other channel */
  const uint32x4_t yo = vmulq_n_u32(vidupq_n_u32(0, 1), (uint32_t)(2 * ys)); /* their outputs' offsets */
  int32_t toff[64];
  int32_t ow, k, kh, kw, t, slot;
  for (kh = 0, t = 0, slot = s0; kh < d->kernel[1]; ++kh) {
    for (kw = 0; kw < d->kernel[2]; ++kw) toff[t++] = (slot * width + kw * d->dilation[2]) * c;
    slot += d->dilation[1];
    while (slot >= span) slot -= span;
  }
/* Requantizes the sums a of the channels k0, k0 + 2, ... and stores them. */
#define MLIP_KQ8_DWC_OUT_(a, k0)                                                                          \
  vstrbq_scatter_offset_s32((int8_t*)yr + (k0) * ys, yo,                                                  \
                            mlip_kq8_requant_lanes_mve(a, vldrwq_gather_shifted_offset_s32(ch + 3 * (k0) + 1, c6), \
                                                       vldrwq_gather_shifted_offset_s32(ch + 3 * (k0) + 2, c6), zy, lo, hi))
  for (ow = 0; ow < d->out[2]; ++ow) {
    const uint8_t* col = band + ow * d->stride[2] * c;
    uint8_t* yr = y + ow * yq;
    for (k = 0; k + 16 <= c; k += 16) {
      int32x4_t e0 = vldrwq_gather_shifted_offset_s32(ch + 3 * k, c6);
      int32x4_t o0 = vldrwq_gather_shifted_offset_s32(ch + 3 * k + 3, c6);
      int32x4_t e1 = vldrwq_gather_shifted_offset_s32(ch + 3 * k + 24, c6);
      int32x4_t o1 = vldrwq_gather_shifted_offset_s32(ch + 3 * k + 27, c6);
      const int8_t* wt = w + k;
      const int8_t* xk = (const int8_t*)col + k;
#if defined(__GNUC__) && !defined(__clang__)
      /* The taps' loop below in assembly: GCC 12 keeps its four sums and
       * four temporaries in too few registers and spills one per tap.
       * "l": the widening loads take r0-r7 only. */
      {
        const int32_t* to = toff;
        const int8_t* xp;
        __asm__ volatile(
            "dls lr, %[n]\n"
            "1:\n\t"
            "ldr %[xp], [%[to]], #4\n\t"
            "add %[xp], %[xk]\n\t"
            "vldrb.s16 q4, [%[xp]]\n\t"
            "vldrb.s16 q5, [%[wt]]\n\t"
            "vmullb.s16 q6, q4, q5\n\t"
            "vmullt.s16 q7, q4, q5\n\t"
            "vadd.i32 %q[e0], %q[e0], q6\n\t"
            "vadd.i32 %q[o0], %q[o0], q7\n\t"
            "vldrb.s16 q4, [%[xp], #8]\n\t"
            "vldrb.s16 q5, [%[wt], #8]\n\t"
            "vmullb.s16 q6, q4, q5\n\t"
            "vmullt.s16 q7, q4, q5\n\t"
            "vadd.i32 %q[e1], %q[e1], q6\n\t"
            "vadd.i32 %q[o1], %q[o1], q7\n\t"
            "add %[wt], %[c]\n\t"
            "le lr, 1b"
            : [e0] "+w"(e0), [o0] "+w"(o0), [e1] "+w"(e1), [o1] "+w"(o1), [to] "+r"(to), [wt] "+l"(wt),
              [xp] "=&l"(xp)
            : [n] "r"(taps), [xk] "r"(xk), [c] "r"(c)
            : "lr", "q4", "q5", "q6", "q7", "memory");
      }
#else
      for (t = 0; t < taps; ++t, wt += c) {
        const int8_t* xp = xk + toff[t];
        const int16x8_t x0 = vldrbq_s16(xp), w0 = vldrbq_s16(wt);
        const int16x8_t x1 = vldrbq_s16(xp + 8), w1 = vldrbq_s16(wt + 8);
        e0 = vaddq_s32(e0, vmullbq_int_s16(x0, w0));
        o0 = vaddq_s32(o0, vmulltq_int_s16(x0, w0));
        e1 = vaddq_s32(e1, vmullbq_int_s16(x1, w1));
        o1 = vaddq_s32(o1, vmulltq_int_s16(x1, w1));
      }
#endif
      MLIP_KQ8_DWC_OUT_(e0, k);
      MLIP_KQ8_DWC_OUT_(o0, k + 1);
      MLIP_KQ8_DWC_OUT_(e1, k + 8);
      MLIP_KQ8_DWC_OUT_(o1, k + 9);
    }
    for (; k < c; k += 8) {
      const mve_pred16_t in = vctp16q((uint32_t)(c - k));
      const mve_pred16_t ine = vctp32q((uint32_t)(c - k + 1) / 2), ino = vctp32q((uint32_t)(c - k) / 2);
      int32x4_t e = vldrwq_gather_shifted_offset_z_s32(ch + 3 * k, c6, ine);
      int32x4_t o = vldrwq_gather_shifted_offset_z_s32(ch + 3 * k + 3, c6, ino);
      const int8_t* wt = w + k;
      for (t = 0; t < taps; ++t, wt += c) {
        const int16x8_t x0 = vldrbq_z_s16((const int8_t*)col + k + toff[t], in), w0 = vldrbq_z_s16(wt, in);
        e = vaddq_s32(e, vmullbq_int_s16(x0, w0));
        o = vaddq_s32(o, vmulltq_int_s16(x0, w0));
      }
      e = mlip_kq8_requant_lanes_mve(e, vldrwq_gather_shifted_offset_z_s32(ch + 3 * k + 1, c6, ine),
                                     vldrwq_gather_shifted_offset_z_s32(ch + 3 * k + 2, c6, ine), zy, lo, hi);
      vstrbq_scatter_offset_p_s32((int8_t*)yr + k * ys, yo, e, ine);
      if (c - k > 1) {
        o = mlip_kq8_requant_lanes_mve(o, vldrwq_gather_shifted_offset_z_s32(ch + 3 * k + 4, c6, ino),
                                       vldrwq_gather_shifted_offset_z_s32(ch + 3 * k + 5, c6, ino), zy, lo, hi);
        vstrbq_scatter_offset_p_s32((int8_t*)yr + (k + 1) * ys, yo, o, ino);
      }
    }
  }
#undef MLIP_KQ8_DWC_OUT_
}

#define MLIP_KQ8_DWC_MVE(X) X(mlip_kq8_dwc_mve, "mve")

/* mlip/kq8.h's QLinearAdd: four outputs per vector, each input's bytes
 * widened to int32 lanes by one load (VLDRB.U32; an int8 byte u is the
 * value (u ^ 0x80) - 128, so one VEOR and the zero point plus 128 make the
 * value less its zero point for either type), scaled by 2^20 (exact: at
 * most 255 * 2^20) and by the input's (q, shift), the two added (no
 * overflow: each at most 2^28 in magnitude), requantized and stored by a
 * narrowing store; the run's tail by predication. The scalings are
 * mlip_kq8_mulq_mve's steps without its branches (every shift here is in
 * [-31, 0]: VRSHL by 0 changes nothing, and the tie fix is masked off by
 * `tie`, all zeros, when the shift is 0), the parameters held in registers
 * for the loop; an output with a left shift (never made: its multiplier
 * would be 1 or more) takes the reference. A broadcast input (stride 0) is
 * scaled once, by the reference's scalar arithmetic. */
static inline int32x4_t mlip_kq8_mulq_le0_mve(int32x4_t v, int32_t q, int32_t shift, int32x4_t tie) {
  v = vqrdmulhq_n_s32(v, q);
  return vrshlq_n_s32(vqaddq_s32(v, vandq_s32(vshrq_n_s32(v, 31), tie)), shift);
}

static inline int32x4_t mlip_kq8_add_in_mve(const uint8_t* x, mve_pred16_t in, uint32x4_t flip, int32_t z, int32_t q,
                                            int32_t s, int32x4_t tie) {
  const int32x4_t v = vreinterpretq_s32_u32(veorq_u32(vldrbq_z_u32(x, in), flip));
  return mlip_kq8_mulq_le0_mve(vshlq_n_s32(vsubq_n_s32(v, z), MLIP_QADD_LEFT_SHIFT), q, s, tie);
}

static inline void mlip_kq8_add_mve(const mlip_kq8_add_t* p, int32_t n, const void* a, int32_t as, const void* b,
                                    int32_t bs, void* y) {
  if (n <= 0) return;
  if (p->shift > 0) { /* a left shift (MLIP_REQUANT_F32 too): the reference */
    mlip_kq8_add_ref(p, n, a, as, b, bs, y);
    return;
  }
  const uint8_t *pa = (const uint8_t*)a, *pb = (const uint8_t*)b;
  int8_t* py = (int8_t*)y;
  const uint32x4_t flip = vdupq_n_u32(p->u8 ? 0u : 0x80u);
  const int32_t za = p->za + (p->u8 ? 0 : 128), zb = p->zb + (p->u8 ? 0 : 128);
  const int32_t qa = p->qa, sa = p->sa, qb = p->qb, sb = p->sb, q = p->q, shift = p->shift, zy = p->zy;
  const int32x4_t ta = vdupq_n_s32(sa < 0 ? -1 : 0), tb = vdupq_n_s32(sb < 0 ? -1 : 0);
  const int32x4_t ty = vdupq_n_s32(shift < 0 ? -1 : 0), lo = vdupq_n_s32(p->lo), hi = vdupq_n_s32(p->hi);
  const int32x4_t ca = vdupq_n_s32(mlip_multiply_by_quantized_multiplier(
      (mlip_kq8_value(a, 0, p->u8) - p->za) * ((int32_t)1 << MLIP_QADD_LEFT_SHIFT), qa, sa));
  const int32x4_t cb = vdupq_n_s32(mlip_multiply_by_quantized_multiplier(
      (mlip_kq8_value(b, 0, p->u8) - p->zb) * ((int32_t)1 << MLIP_QADD_LEFT_SHIFT), qb, sb));
  int32_t i;
/* The output's requantization of the sum v (mlip_kq8_requant_mve's steps). */
#define MLIP_KQ8_ADD_OUT_(v) \
  vminq_s32(vmaxq_s32(vqaddq_n_s32(mlip_kq8_mulq_le0_mve(v, q, shift, ty), zy), lo), hi)
  if (as && bs) { /* the common case: both inputs step along the run */
    for (i = 0; i < n; i += 4) {
      const mve_pred16_t in = vctp32q((uint32_t)(n - i));
      const int32x4_t va = mlip_kq8_add_in_mve(pa + i, in, flip, za, qa, sa, ta);
      const int32x4_t vb = mlip_kq8_add_in_mve(pb + i, in, flip, zb, qb, sb, tb);
      vstrbq_p_s32(py + i, MLIP_KQ8_ADD_OUT_(vaddq_s32(va, vb)), in);
    }
    return;
  }
  for (i = 0; i < n; i += 4) {
    const mve_pred16_t in = vctp32q((uint32_t)(n - i));
    const int32x4_t va = as ? mlip_kq8_add_in_mve(pa + i, in, flip, za, qa, sa, ta) : ca;
    const int32x4_t vb = bs ? mlip_kq8_add_in_mve(pb + i, in, flip, zb, qb, sb, tb) : cb;
    vstrbq_p_s32(py + i, MLIP_KQ8_ADD_OUT_(vaddq_s32(va, vb)), in);
  }
#undef MLIP_KQ8_ADD_OUT_
}

#define MLIP_KQ8_ADD_MVE(X) X(mlip_kq8_add_mve, "mve")

/* mlip/kq8.h's QLinearGlobalAveragePool: a plane's bytes 16 at a time, each
 * vector added across into the sum by VADDVA (.S8 or .U8: the bytes' own
 * values), the plane's tail by predication; then the sum less size * zx
 * (the same integer as the reference's sum of x - zx; computed modulo 2^32,
 * exact because that sum is inside int32) and the scalar requantization. */
static inline void mlip_kq8_gap_mve(int32_t planes, int32_t size, const void* x, int32_t u8, int32_t zx, int32_t q,
                                    int32_t shift, int32_t zy, int32_t lo, int32_t hi, void* y) {
  const uint8_t* px = (const uint8_t*)x;
  const uint32_t off = (uint32_t)size * (uint32_t)zx;
  int32_t p, i;
  for (p = 0; p < planes; ++p, px += size) {
    uint32_t sum = 0;
    if (u8) {
      for (i = 0; i < size; i += 16) sum = vaddvaq_p_u8(sum, vldrbq_z_u8(px + i, vctp8q((uint32_t)(size - i))), vctp8q((uint32_t)(size - i)));
    } else {
      int32_t ss = 0;
      for (i = 0; i < size; i += 16)
        ss = vaddvaq_p_s8(ss, vldrbq_z_s8((const int8_t*)px + i, vctp8q((uint32_t)(size - i))), vctp8q((uint32_t)(size - i)));
      sum = (uint32_t)ss;
    }
    ((uint8_t*)y)[p] = (uint8_t)mlip_requantize((int32_t)(sum - off), q, shift, zy, lo, hi);
  }
}

#define MLIP_KQ8_GAP_MVE(X) X(mlip_kq8_gap_mve, "mve")

/* The banded convolution's copies (mlip/kq8.h, mlip_kq8_conv_banded): byte
 * moves, so the same bytes as the portable loops. */

/* n bytes from src to dst: 16 per VLDRB/VSTRB, the last ones predicated.
 * Under GCC a tail-predicated low-overhead loop (WLSTP/LETP: three
 * instructions per 16 bytes; GCC 12's own code of the loop below takes
 * nine, moving each VCTP's predicate through a general register). */
static inline void mlip_kq8_copy_mve(uint8_t* dst, const uint8_t* src, int32_t n) {
#if defined(__GNUC__) && !defined(__clang__)
  __asm__ volatile(
      "wlstp.8 lr, %[n], 2f\n"
      "1:\n\t"
      "vldrb.8 q0, [%[s]], #16\n\t"
      "vstrb.8 q0, [%[d]], #16\n\t"
      "letp lr, 1b\n"
      "2:\n"
      : [d] "+r"(dst), [s] "+r"(src)
      : [n] "r"(n)
      : "lr", "q0", "memory");
#else
  for (; n > 0; n -= 16, dst += 16, src += 16) {
    const mve_pred16_t in = vctp8q((uint32_t)n);
    vstrbq_p_u8(dst, vldrbq_z_u8(src, in), in);
  }
#endif
}

/* n bytes from src to dst, each XORed with flip: mlip_kq8_copy_mve's loop
 * with a VEOR (four instructions per 16 bytes). */
static inline void mlip_kq8_copy_xor_mve(uint8_t* dst, const uint8_t* src, int32_t n, uint8_t flip) {
  const uint8x16_t fv = vdupq_n_u8(flip);
#if defined(__GNUC__) && !defined(__clang__)
  __asm__ volatile(
      "wlstp.8 lr, %[n], 2f\n"
      "1:\n\t"
      "vldrb.8 q0, [%[s]], #16\n\t"
      "veor q0, q0, %q[f]\n\t"
      "vstrb.8 q0, [%[d]], #16\n\t"
      "letp lr, 1b\n"
      "2:\n"
      : [d] "+r"(dst), [s] "+r"(src)
      : [n] "r"(n), [f] "w"(fv)
      : "lr", "q0", "memory");
#else
  for (; n > 0; n -= 16, dst += 16, src += 16) {
    const mve_pred16_t in = vctp8q((uint32_t)n);
    vstrbq_p_u8(dst, veorq_u8(vldrbq_z_u8(src, in), fv), in);
  }
#endif
}

/* n columns of one input row into the band, channels-last
 * (mlip_kq8_band_row_ref): channel ic's bytes src[ic * isize + i] ^ flip to
 * dst[i * icg + ic], 8 columns per widening VLDRB.U16, VEOR and scattering
 * VSTRB.16 (offsets i * icg for i < 8 fit 16 bits up to icg 9362; wider
 * groups take the portable loop). */
static inline void mlip_kq8_band_row_mve(uint8_t* dst, const uint8_t* src, int32_t n, int32_t icg, int32_t isize,
                                         uint8_t flip) {
  int32_t ic, i;
  if (icg > 9362) {
    mlip_kq8_band_row_ref(dst, src, n, icg, isize, flip);
    return;
  }
  {
    const uint16x8_t offsets = vmulq_n_u16(vidupq_n_u16(0, 1), (uint16_t)icg);
    const uint16x8_t fv = vdupq_n_u16(flip);
    for (ic = 0; ic < icg; ++ic, src += isize)
      for (i = 0; i < n; i += 8) {
        const mve_pred16_t in = vctp16q((uint32_t)(n - i));
        vstrbq_scatter_offset_p_u16(dst + i * icg + ic, offsets, veorq_u16(vldrbq_z_u16(src + i, in), fv), in);
      }
  }
}

#endif /* MLIP_KQ8_MVE_H_ */
