/* The 8-bit forms of CONV2D, FC, GLOBAL_AVGPOOL, GLOBAL_MAXPOOL, ADD and
 * ELTWISE MUL
 * (MAXPOOL and AVGPOOL: op_pool.c, which shares its windows with fp16;
 * RESIZE: op_resize.c, whose 8-bit form is its nearest copy of one byte)
 * (docs/mlip-spec.md section 4a, docs/command-buffer.md "int8 commands"):
 * their validation rules and executors, reached from each opcode's
 * op_<name>.c when the command's MLIP_DTYPE word is not fp16. The
 * arithmetic is mlip/requant.h, the header the CPU's int8 kernels include,
 * so a region gives the bits of those kernels. */
#include "mlip/requant.h"
#include "sim_internal.h"

/* Record j's word k (0 bias, 1 q, 2 shift). */
static uint32_t record_word(const uint8_t* rec, size_t j, size_t k) {
  uint32_t u;
  memcpy(&u, rec + j * MLIP_REQUANT_RECORD_BYTES + k * 4u, sizeof u);
  return u;
}

/* The n requantization records at rec are data, not command words: CONV2D
   and FC check them before they write anything. */
static int records_ok(const uint8_t* rec, size_t n) {
  size_t j;
  for (j = 0; j < n; ++j) {
    if (!mlip_sim_q8_requant_ok(record_word(rec, j, 1), record_word(rec, j, 2), MLIP_REQUANT_MAX_SHIFT)) {
      return 0;
    }
  }
  return 1;
}

/* Output channel j of CONV2D and FC: the products' sum plus record j's
   bias (saturated to int32), requantized by its (q, shift) into [lo, hi]. */
static void store_requantized(uint8_t* p, int32_t acc, const uint8_t* rec, size_t j, int32_t zy, int32_t lo,
                              int32_t hi) {
  const int32_t s = mlip_add_sat_i32(acc, mlip_sim_as_i32(record_word(rec, j, 0)));
  mlip_sim_q8_store(p, mlip_requantize(s, mlip_sim_as_i32(record_word(rec, j, 1)), mlip_sim_as_i32(record_word(rec, j, 2)), zy,
                            lo, hi));
}

/* The sum of (x[i] - zx) * w[i] over n bytes, x of type dt, w int8. Integer
   sums do not depend on their order: the loop is written for the compiler
   to vectorize (mlip_sim_q8_value: no branch per byte). */
static int32_t dot_q8(uint32_t dt, const uint8_t* x, const uint8_t* w, size_t n, int32_t zx) {
  const int32_t sx = mlip_sim_q8_sign(dt);
  int32_t acc = 0; /* callers bound n (MLIP_INT8_MAX_TAPS): no overflow */
  size_t i;
  for (i = 0; i < n; ++i) {
    acc += (mlip_sim_q8_value(x[i], sx) - zx) * mlip_sim_q8_value(w[i], 0x80);
  }
  return acc;
}

/* ---- the element type of every command ----------------------------------- */

mlip_status mlip_sim_check_dtype(const mlip_sim_view* v, const mlip_cmd* c) {
  const uint32_t dt = c->w[MLIP_DTYPE];
  const int q8 = v->hdr.quantize == MLIP_QUANT_INT8;
  switch (c->opcode) {
    case MLIP_OP_CONV2D:
    case MLIP_OP_FC:
    case MLIP_OP_MAXPOOL:
    case MLIP_OP_AVGPOOL:
    case MLIP_OP_GLOBAL_AVGPOOL:
    case MLIP_OP_GLOBAL_MAXPOOL:
    case MLIP_OP_ADD:
    case MLIP_OP_ELTWISE:
    case MLIP_OP_RESIZE:
      if (q8) {
        return dt == MLIP_DT_INT8 || dt == MLIP_DT_UINT8 ? MLIP_OK : MLIP_ERR_INVALID_ARG;
      }
      return dt == MLIP_DT_FP16 ? MLIP_OK : MLIP_ERR_INVALID_ARG;
    case MLIP_OP_TABLE:
      return q8 && (dt == MLIP_DT_INT8 || dt == MLIP_DT_UINT8) ? MLIP_OK : MLIP_ERR_INVALID_ARG; /* no fp16 form */
    case MLIP_OP_CONVERT:
    case MLIP_OP_ACTIVATION:
      return !q8 && dt == MLIP_DT_FP16 ? MLIP_OK : MLIP_ERR_INVALID_ARG; /* no 8-bit form */
    default:
      return dt == 0u ? MLIP_OK : MLIP_ERR_INVALID_ARG; /* DMA, LAYOUT, BARRIER: the word is unused */
  }
}

/* ---- CONV2D --------------------------------------------------------------- */

int mlip_sim_conv2d_q8_words_ok(const mlip_cmd* c) {
  const uint32_t* w = c->w;
  const uint32_t dt = w[MLIP_DTYPE];
  /* At most 33025 products of at most 255 * 128 per output: the int32 sum cannot overflow. */
  return w[MLIP_CONV_ACT] == MLIP_ACT_NONE && w[MLIP_CONV_BIAS] != MLIP_NO_OFFSET &&
         mlip_sim_q8_clamp_ok(dt, w[MLIP_CONV_CLAMP_LO], w[MLIP_CONV_CLAMP_HI]) &&
         mlip_sim_q8_in_type(dt, w[MLIP_CONV_X_ZP]) && mlip_sim_q8_in_type(dt, w[MLIP_CONV_Y_ZP]) &&
         mlip_sim_mul3(w[MLIP_CONV_KH], w[MLIP_CONV_KW], w[MLIP_CONV_IC_PER_GROUP]) <= MLIP_INT8_MAX_TAPS;
}

#if !MLIP_SIM_COMPACT
/* For speed, a block of MLIP_SIM_Q8_CB output channels summed side by side,
   its weights widened once into lanes (the sums are integers, so the bits
   are the reference loop's below), where a sum per output would be too
   short to vectorize:
   - depthwise (one input channel per output channel: the input channel
     of output j is j + oc_base - ic_base, so the lanes read a run of input
     bytes at each tap), kernels of at most MLIP_SIM_Q8_DW_TAPS taps;
   - a kernel of at most MLIP_SIM_Q8_LANE_TAPS weights per output channel
     (a pointwise layer of few channels, a first layer of one or three):
     channels of one group, each input byte broadcast to the lanes. */
#ifndef MLIP_SIM_Q8_CB
#define MLIP_SIM_Q8_CB 32u
#endif
#ifndef MLIP_SIM_Q8_DW_TAPS
#define MLIP_SIM_Q8_DW_TAPS 25u
#endif
#ifndef MLIP_SIM_Q8_LANE_TAPS
#define MLIP_SIM_Q8_LANE_TAPS 64u
#endif
#define MLIP_SIM_Q8_WL_TAPS \
  (MLIP_SIM_Q8_DW_TAPS > MLIP_SIM_Q8_LANE_TAPS ? MLIP_SIM_Q8_DW_TAPS : MLIP_SIM_Q8_LANE_TAPS)

static void conv2d_q8_lanes(const mlip_cmd* c, const uint8_t* in, const uint8_t* wt, const uint8_t* rec,
                            uint8_t* out, size_t j0, size_t nj, int depthwise) {
  const uint32_t* w = c->w;
  const uint32_t dt = w[MLIP_DTYPE];
  const int64_t in_h = w[MLIP_CONV_IN_H], in_w = w[MLIP_CONV_IN_W];
  const size_t in_c = w[MLIP_CONV_IN_C];
  const size_t out_h = w[MLIP_CONV_OUT_H], out_w = w[MLIP_CONV_OUT_W], out_c = w[MLIP_CONV_OUT_C];
  const size_t kh_n = w[MLIP_CONV_KH], kw_n = w[MLIP_CONV_KW], icpg = w[MLIP_CONV_IC_PER_GROUP];
  const size_t taps = kh_n * kw_n * icpg;
  const int64_t sh = w[MLIP_CONV_STRIDE_H], sw = w[MLIP_CONV_STRIDE_W];
  const int64_t dh = w[MLIP_CONV_DIL_H], dw = w[MLIP_CONV_DIL_W];
  const int64_t pt = w[MLIP_CONV_PAD_TOP], pl = w[MLIP_CONV_PAD_LEFT];
  /* The block's first input channel, in 64 bits as the validator computed
     it (size_t may be 32-bit); depthwise, lane q reads the one after q. */
  const size_t cbase = (size_t)((((uint64_t)w[MLIP_CONV_OC_BASE] + j0) / w[MLIP_CONV_OC_PER_GROUP]) * icpg -
                                w[MLIP_CONV_IC_BASE]);
  const int32_t zx = mlip_sim_as_i32(w[MLIP_CONV_X_ZP]), zy = mlip_sim_as_i32(w[MLIP_CONV_Y_ZP]);
  const int32_t lo = mlip_sim_as_i32(w[MLIP_CONV_CLAMP_LO]), hi = mlip_sim_as_i32(w[MLIP_CONV_CLAMP_HI]);
  const int32_t sx = mlip_sim_q8_sign(dt);
  int16_t wl[MLIP_SIM_Q8_WL_TAPS][MLIP_SIM_Q8_CB]; /* int8 weights, widened once */
  size_t oh, ow, kh, kw, ic, q, t;
  for (t = 0; t < taps; ++t) {
    for (q = 0; q < MLIP_SIM_Q8_CB; ++q) {
      wl[t][q] = (int16_t)(q < nj ? mlip_sim_q8_value(wt[(j0 + q) * taps + t], 0x80) : 0);
    }
  }
  for (oh = 0; oh < out_h; ++oh) {
    for (ow = 0; ow < out_w; ++ow) {
      int32_t acc[MLIP_SIM_Q8_CB];
      for (q = 0; q < MLIP_SIM_Q8_CB; ++q) {
        acc[q] = 0;
      }
      for (kh = 0; kh < kh_n; ++kh) {
        const int64_t ih = (int64_t)oh * sh - pt + (int64_t)kh * dh;
        if (ih < 0 || ih >= in_h) {
          continue; /* padding: the zero point, a real 0 */
        }
        for (kw = 0; kw < kw_n; ++kw) {
          const int64_t iw = (int64_t)ow * sw - pl + (int64_t)kw * dw;
          int16_t(*wk)[MLIP_SIM_Q8_CB] = wl + (kh * kw_n + kw) * icpg;
          const uint8_t* xp;
          if (iw < 0 || iw >= in_w) {
            continue;
          }
          xp = in + ((size_t)ih * (size_t)in_w + (size_t)iw) * in_c + cbase;
          if (depthwise && nj == MLIP_SIM_Q8_CB) {
            for (q = 0; q < MLIP_SIM_Q8_CB; ++q) {
              acc[q] += (mlip_sim_q8_value(xp[q], sx) - zx) * wk[0][q];
            }
          } else if (depthwise) { /* never read past the block's last channel */
            for (q = 0; q < nj; ++q) {
              acc[q] += (mlip_sim_q8_value(xp[q], sx) - zx) * wk[0][q];
            }
          } else {
            for (ic = 0; ic < icpg; ++ic) {
              const int32_t xv = mlip_sim_q8_value(xp[ic], sx) - zx;
              for (q = 0; q < MLIP_SIM_Q8_CB; ++q) {
                acc[q] += xv * wk[ic][q];
              }
            }
          }
        }
      }
      for (q = 0; q < nj; ++q) {
        store_requantized(out + (oh * out_w + ow) * out_c + j0 + q, acc[q], rec, j0 + q, zy, lo, hi);
      }
    }
  }
}
#endif

mlip_status mlip_sim_exec_conv2d_q8(const mlip_sim_env* env, uint8_t* ocm, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  const uint32_t dt = w[MLIP_DTYPE];
  const uint8_t* in = ocm + w[MLIP_CONV_IN];
  const uint8_t* wt = ocm + w[MLIP_CONV_WEIGHTS];
  const uint8_t* rec = ocm + w[MLIP_CONV_BIAS];
  uint8_t* out = ocm + w[MLIP_CONV_OUT];
  const int64_t in_h = w[MLIP_CONV_IN_H], in_w = w[MLIP_CONV_IN_W];
  const size_t in_c = w[MLIP_CONV_IN_C];
  const size_t out_h = w[MLIP_CONV_OUT_H], out_w = w[MLIP_CONV_OUT_W], out_c = w[MLIP_CONV_OUT_C];
  const size_t kh_n = w[MLIP_CONV_KH], kw_n = w[MLIP_CONV_KW];
  const int64_t sh = w[MLIP_CONV_STRIDE_H], sw = w[MLIP_CONV_STRIDE_W];
  const int64_t dh = w[MLIP_CONV_DIL_H], dw = w[MLIP_CONV_DIL_W];
  const int64_t pt = w[MLIP_CONV_PAD_TOP], pl = w[MLIP_CONV_PAD_LEFT];
  const size_t icpg = w[MLIP_CONV_IC_PER_GROUP], ocpg = w[MLIP_CONV_OC_PER_GROUP];
  const size_t oc_base = w[MLIP_CONV_OC_BASE], ic_base = w[MLIP_CONV_IC_BASE];
  const int32_t zx = mlip_sim_as_i32(w[MLIP_CONV_X_ZP]), zy = mlip_sim_as_i32(w[MLIP_CONV_Y_ZP]);
  const int32_t lo = mlip_sim_as_i32(w[MLIP_CONV_CLAMP_LO]), hi = mlip_sim_as_i32(w[MLIP_CONV_CLAMP_HI]);
  size_t oh, ow, j, kh, kw;
  (void)env; /* works in the tile's OCM only */
  if (!records_ok(rec, out_c)) {
    return MLIP_ERR_INVALID_ARG;
  }
#if !MLIP_SIM_COMPACT
  {
    const int depthwise = icpg == 1u && ocpg == 1u && kh_n * kw_n <= MLIP_SIM_Q8_DW_TAPS;
    if (depthwise || kh_n * kw_n * icpg <= MLIP_SIM_Q8_LANE_TAPS) {
      size_t j0, nj;
      for (j0 = 0; j0 < out_c; j0 += nj) {
        /* other than depthwise, blocks never straddle a group: one run of
           input channels each */
        const size_t group_end = (size_t)(((uint64_t)oc_base + j0) / ocpg + 1u) * ocpg - oc_base;
        nj = out_c - j0 < MLIP_SIM_Q8_CB ? out_c - j0 : MLIP_SIM_Q8_CB;
        nj = !depthwise && group_end - j0 < nj ? group_end - j0 : nj;
        conv2d_q8_lanes(c, in, wt, rec, out, j0, nj, depthwise);
      }
      return MLIP_OK;
    }
  }
#endif
  for (oh = 0; oh < out_h; ++oh) {
    for (ow = 0; ow < out_w; ++ow) {
      for (j = 0; j < out_c; ++j) {
        /* In 64 bits as the validator computed it (size_t may be 32-bit). */
        const size_t cbase = (size_t)((((uint64_t)oc_base + j) / ocpg) * icpg - ic_base);
        const uint8_t* wj = wt + j * kh_n * kw_n * icpg;
        int32_t acc = 0; /* at most 33025 products of at most 255 * 128: no overflow */
        for (kh = 0; kh < kh_n; ++kh) {
          const int64_t ih = (int64_t)oh * sh - pt + (int64_t)kh * dh;
          if (ih < 0 || ih >= in_h) {
            continue; /* padding: the zero point, a real 0 */
          }
#if !MLIP_SIM_COMPACT
          if (dw == 1 && icpg == in_c && cbase == 0u && (int64_t)ow * sw - pl >= 0 &&
              (int64_t)ow * sw - pl + (int64_t)kw_n <= in_w) {
            /* the whole row of taps reads consecutive bytes, and so are its
               weights: one longer sum (integers: the same value) */
            const size_t iw0 = (size_t)((int64_t)ow * sw - pl);
            acc += dot_q8(dt, in + ((size_t)ih * (size_t)in_w + iw0) * in_c, wj + kh * kw_n * icpg, kw_n * icpg, zx);
            continue;
          }
#endif
          for (kw = 0; kw < kw_n; ++kw) {
            const int64_t iw = (int64_t)ow * sw - pl + (int64_t)kw * dw;
            const uint8_t* xp;
            const uint8_t* wp;
            if (iw < 0 || iw >= in_w) {
              continue;
            }
            xp = in + ((size_t)ih * (size_t)in_w + (size_t)iw) * in_c + cbase;
            wp = wj + (kh * kw_n + kw) * icpg;
            acc += dot_q8(dt, xp, wp, icpg, zx);
          }
        }
        store_requantized(out + (oh * out_w + ow) * out_c + j, acc, rec, j, zy, lo, hi);
      }
    }
  }
  return MLIP_OK;
}

/* ---- FC ------------------------------------------------------------------- */

int mlip_sim_fc_q8_words_ok(const mlip_cmd* c) {
  const uint32_t* w = c->w;
  const uint32_t dt = w[MLIP_DTYPE];
  /* At most 33025 products of at most 255 * 128 per output: the int32 sum cannot overflow. */
  return w[MLIP_FC_K] <= MLIP_INT8_MAX_TAPS && w[MLIP_FC_FIRST] == 1u && w[MLIP_FC_LAST] == 1u &&
         w[MLIP_FC_ACC] == MLIP_NO_OFFSET && w[MLIP_FC_BIAS] != MLIP_NO_OFFSET && w[MLIP_FC_ACT] == MLIP_ACT_NONE &&
         mlip_sim_q8_clamp_ok(dt, w[MLIP_FC_CLAMP_LO], w[MLIP_FC_CLAMP_HI]) &&
         mlip_sim_q8_in_type(dt, w[MLIP_FC_X_ZP]) && mlip_sim_q8_in_type(dt, w[MLIP_FC_Y_ZP]);
}

mlip_status mlip_sim_exec_fc_q8(const mlip_sim_env* env, uint8_t* ocm, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  const uint32_t dt = w[MLIP_DTYPE];
  const uint8_t* in = ocm + w[MLIP_FC_IN];
  const uint8_t* wt = ocm + w[MLIP_FC_WEIGHTS];
  const uint8_t* rec = ocm + w[MLIP_FC_BIAS];
  uint8_t* out = ocm + w[MLIP_FC_OUT];
  const size_t n_n = w[MLIP_FC_N], k_n = w[MLIP_FC_K], oc_n = w[MLIP_FC_OUT_C];
  const int32_t zx = mlip_sim_as_i32(w[MLIP_FC_X_ZP]), zy = mlip_sim_as_i32(w[MLIP_FC_Y_ZP]);
  const int32_t lo = mlip_sim_as_i32(w[MLIP_FC_CLAMP_LO]), hi = mlip_sim_as_i32(w[MLIP_FC_CLAMP_HI]);
  size_t n, o;
  (void)env; /* works in the tile's OCM only */
  if (!records_ok(rec, oc_n)) {
    return MLIP_ERR_INVALID_ARG;
  }
  for (n = 0; n < n_n; ++n) {
    for (o = 0; o < oc_n; ++o) {
      const uint8_t* xp = in + n * k_n;
      const uint8_t* wp = wt + o * k_n;
      /* at most 33025 products of at most 255 * 128: no overflow */
      store_requantized(out + n * oc_n + o, dot_q8(dt, xp, wp, k_n, zx), rec, o, zy, lo, hi);
    }
  }
  return MLIP_OK;
}

/* ---- GLOBAL_AVGPOOL / GLOBAL_MAXPOOL ---------------------------------------- */

mlip_status mlip_sim_check_global_pool_q8(const mlip_sim_view* v, uint32_t section, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  const uint32_t dt = w[MLIP_DTYPE];
  uint64_t in_len, out_len;
  if (w[MLIP_GPOOL_HW] < 1u || w[MLIP_GPOOL_C] < 1u || w[MLIP_GPOOL_ACT] != MLIP_ACT_NONE) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (c->opcode == MLIP_OP_GLOBAL_AVGPOOL &&
      (w[MLIP_GPOOL_HW] > MLIP_INT8_MAX_POOL_HW || !mlip_sim_q8_in_type(dt, w[MLIP_GPOOL_X_ZP]) ||
       !mlip_sim_q8_in_type(dt, w[MLIP_GPOOL_Y_ZP]) || !mlip_sim_q8_requant_ok(w[MLIP_GPOOL_Q], w[MLIP_GPOOL_SHIFT], MLIP_REQUANT_MAX_SHIFT) ||
       !mlip_sim_q8_clamp_ok(dt, w[MLIP_GPOOL_LO], w[MLIP_GPOOL_HI]))) {
    return MLIP_ERR_INVALID_ARG;
  }
  in_len = (uint64_t)w[MLIP_GPOOL_HW] * w[MLIP_GPOOL_C];
  out_len = w[MLIP_GPOOL_C];
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_GPOOL_IN], in_len));
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_GPOOL_OUT], out_len));
  if (mlip_sim_overlaps(w[MLIP_GPOOL_OUT], out_len, w[MLIP_GPOOL_IN], in_len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, w[MLIP_GPOOL_OUT], out_len);
}

mlip_status mlip_sim_exec_global_pool_q8(const mlip_sim_env* env, uint8_t* ocm, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  const uint32_t dt = w[MLIP_DTYPE];
  const uint8_t* in = ocm + w[MLIP_GPOOL_IN];
  uint8_t* out = ocm + w[MLIP_GPOOL_OUT];
  const size_t hw = w[MLIP_GPOOL_HW], ch = w[MLIP_GPOOL_C];
  size_t p, cc;
  (void)env; /* works in the tile's OCM only */
  for (cc = 0; cc < ch; ++cc) {
    if (c->opcode == MLIP_OP_GLOBAL_MAXPOOL) {
      int32_t r = mlip_sim_q8_lo(dt);
      for (p = 0; p < hw; ++p) {
        const int32_t x = mlip_sim_q8_load(dt, in + p * ch + cc);
        r = x > r ? x : r;
      }
      mlip_sim_q8_store(out + cc, r);
    } else {
      const int32_t zx = mlip_sim_as_i32(w[MLIP_GPOOL_X_ZP]);
      int32_t acc = 0; /* at most 8421504 terms of at most 255: no overflow */
      for (p = 0; p < hw; ++p) {
        acc += mlip_sim_q8_load(dt, in + p * ch + cc) - zx;
      }
      mlip_sim_q8_store(out + cc, mlip_requantize(acc, mlip_sim_as_i32(w[MLIP_GPOOL_Q]), mlip_sim_as_i32(w[MLIP_GPOOL_SHIFT]),
                                       mlip_sim_as_i32(w[MLIP_GPOOL_Y_ZP]), mlip_sim_as_i32(w[MLIP_GPOOL_LO]),
                                       mlip_sim_as_i32(w[MLIP_GPOOL_HI])));
    }
  }
  return MLIP_OK;
}

/* ---- ADD -------------------------------------------------------------------- */

int mlip_sim_add_q8_words_ok(const mlip_cmd* c) {
  const uint32_t* w = c->w;
  const uint32_t dt = w[MLIP_DTYPE];
  /* The operands' multipliers are below 1 (shift at most 0), so each term
     of mlip_qadd_sum stays within 255 * 2^20 and their sum within int32. */
  return w[MLIP_ADD_ACT] == MLIP_ACT_NONE && mlip_sim_q8_in_type(dt, w[MLIP_ADD_A_ZP]) &&
         mlip_sim_q8_in_type(dt, w[MLIP_ADD_B_ZP]) && mlip_sim_q8_in_type(dt, w[MLIP_ADD_Y_ZP]) &&
         mlip_sim_q8_requant_ok(w[MLIP_ADD_QA], w[MLIP_ADD_SA], 0) && mlip_sim_q8_requant_ok(w[MLIP_ADD_QB], w[MLIP_ADD_SB], 0) &&
         mlip_sim_q8_requant_ok(w[MLIP_ADD_QY], w[MLIP_ADD_SY], MLIP_REQUANT_MAX_SHIFT) &&
         mlip_sim_q8_clamp_ok(dt, w[MLIP_ADD_LO], w[MLIP_ADD_HI]);
}

mlip_status mlip_sim_exec_add_q8(const mlip_sim_env* env, uint8_t* ocm, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  const uint32_t dt = w[MLIP_DTYPE];
  const uint8_t* a = ocm + w[MLIP_ADD_A];
  const uint8_t* b = ocm + w[MLIP_ADD_B];
  uint8_t* out = ocm + w[MLIP_ADD_OUT];
  const size_t n = w[MLIP_ADD_COUNT];
  const int32_t za = mlip_sim_as_i32(w[MLIP_ADD_A_ZP]), zb = mlip_sim_as_i32(w[MLIP_ADD_B_ZP]);
  const int32_t qa = mlip_sim_as_i32(w[MLIP_ADD_QA]), sa = mlip_sim_as_i32(w[MLIP_ADD_SA]);
  const int32_t qb = mlip_sim_as_i32(w[MLIP_ADD_QB]), sb = mlip_sim_as_i32(w[MLIP_ADD_SB]);
  size_t i;
  (void)env; /* works in the tile's OCM only */
  for (i = 0; i < n; ++i) {
    const int32_t s = mlip_qadd_sum(mlip_sim_q8_load(dt, a + i) - za, qa, sa, mlip_sim_q8_load(dt, b + i) - zb, qb, sb);
    mlip_sim_q8_store(out + i, mlip_requantize(s, mlip_sim_as_i32(w[MLIP_ADD_QY]), mlip_sim_as_i32(w[MLIP_ADD_SY]), mlip_sim_as_i32(w[MLIP_ADD_Y_ZP]),
                                    mlip_sim_as_i32(w[MLIP_ADD_LO]), mlip_sim_as_i32(w[MLIP_ADD_HI])));
  }
  return MLIP_OK;
}

/* ---- ELTWISE MUL ------------------------------------------------------------ */

int mlip_sim_eltwise_q8_words_ok(const mlip_cmd* c) {
  const uint32_t* w = c->w;
  const uint32_t dt = w[MLIP_DTYPE];
  /* |(a - a_zp) * (b - b_zp)| <= 255 * 255: the product is exact in int32. */
  return w[MLIP_ELT_FUNC] == MLIP_ELT_MUL && w[MLIP_ELT_ACT] == MLIP_ACT_NONE &&
         mlip_sim_q8_in_type(dt, w[MLIP_ELT_A_ZP]) && mlip_sim_q8_in_type(dt, w[MLIP_ELT_B_ZP]) &&
         mlip_sim_q8_in_type(dt, w[MLIP_ELT_Y_ZP]) &&
         mlip_sim_q8_requant_ok(w[MLIP_ELT_Q], w[MLIP_ELT_SHIFT], MLIP_REQUANT_MAX_SHIFT) &&
         mlip_sim_q8_clamp_ok(dt, w[MLIP_ELT_LO], w[MLIP_ELT_HI]);
}

mlip_status mlip_sim_exec_eltwise_q8(const mlip_sim_env* env, uint8_t* ocm, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  const uint32_t dt = w[MLIP_DTYPE];
  const uint8_t* a = ocm + w[MLIP_ELT_A];
  const uint8_t* b = ocm + w[MLIP_ELT_B];
  uint8_t* out = ocm + w[MLIP_ELT_OUT];
  const size_t n = w[MLIP_ELT_COUNT], b_len = w[MLIP_ELT_B_LEN];
  const int32_t za = mlip_sim_as_i32(w[MLIP_ELT_A_ZP]), zb = mlip_sim_as_i32(w[MLIP_ELT_B_ZP]);
  const int32_t zy = mlip_sim_as_i32(w[MLIP_ELT_Y_ZP]);
  const int32_t q = mlip_sim_as_i32(w[MLIP_ELT_Q]), shift = mlip_sim_as_i32(w[MLIP_ELT_SHIFT]);
  const int32_t lo = mlip_sim_as_i32(w[MLIP_ELT_LO]), hi = mlip_sim_as_i32(w[MLIP_ELT_HI]);
  size_t i, j = w[MLIP_ELT_B_BASE];
  (void)env; /* works in the tile's OCM only */
  for (i = 0; i < n; ++i) {
    const int32_t p = (mlip_sim_q8_load(dt, a + i) - za) * (mlip_sim_q8_load(dt, b + j) - zb);
    mlip_sim_q8_store(out + i, mlip_requantize(p, q, shift, zy, lo, hi));
    j = j + 1u == b_len ? 0u : j + 1u;
  }
  return MLIP_OK;
}
