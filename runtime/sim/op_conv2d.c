/* CONV2D on an NHWC block: groups, strides, dilations, padding taps skipped,
 * fused bias and activation (fp16), or the int8/uint8 form with its
 * requantization records (operands: MLIP_FIELDS_conv2d, mlip/cmd_table.h).
 * Its validation rule (docs/command-buffer.md) and its executors for both
 * element types (docs/mlip-spec.md sections 4 and 4a); the opcode table
 * (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_conv2d(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_conv2d_args* a = &d->u.conv2d;
  /* fp16, or an 8-bit type (the element type's rule checked which): one-byte
     elements, a requantization record per output channel at bias. */
  const int q8 = a->dtype != MLIP_DT_FP16;
  /* 16x8 (int16): two-byte activations, int8 weights, 16-byte records. */
  const int wide = a->dtype == MLIP_DT_INT16;
  const uint64_t eb = q8 && !wide ? 1u : 2u, wb = q8 ? 1u : 2u;
  const uint64_t bb = wide ? MLIP_REQUANT16_RECORD_BYTES : (q8 ? MLIP_REQUANT_RECORD_BYTES : 4u);
  const int has_bias = a->bias != MLIP_NO_OFFSET;
  uint64_t in_len, w_len, b_len, out_len;
  uint64_t icpg, g_lo, g_hi;
  /* 8-bit: at most 33025 products of at most 255 * 128 per output, so the
     int32 sum cannot overflow (16x8: the int64 sum within 2^62 with its
     bias); the clamp ordered. */
  if (q8 && (mlip_sim_mul3(a->kh, a->kw, a->ic_per_group) > MLIP_INT8_MAX_TAPS || a->clamp_lo > a->clamp_hi)) {
    return MLIP_ERR_INVALID_ARG;
  }
  /* 4-bit weights (w4_block n, its rule: 8-bit only): a block inside a row,
     a packed row per output channel. */
  if (a->w4_block > mlip_sim_mul3(a->kh, a->kw, a->ic_per_group)) {
    return MLIP_ERR_INVALID_ARG;
  }
  in_len = mlip_sim_mul4(a->in_h, a->in_w, a->in_c, eb);
  w_len = a->w4_block != 0u
              ? (uint64_t)a->out_c * mlip_sim_w4_row_bytes(mlip_sim_mul3(a->kh, a->kw, a->ic_per_group), a->w4_block)
              : mlip_sim_sat_mul(mlip_sim_mul4(a->out_c, a->kh, a->kw, a->ic_per_group), wb);
  b_len = (uint64_t)a->out_c * bb;
  out_len = mlip_sim_mul4(a->out_h, a->out_w, a->out_c, eb);
  MLIP_TRY(mlip_sim_check_ocm(v, a->in, in_len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->weights, w_len));
  if (has_bias) {
    MLIP_TRY(mlip_sim_check_ocm(v, a->bias, b_len));
  }
  MLIP_TRY(mlip_sim_check_ocm(v, a->out, out_len));
  if (mlip_sim_overlaps(a->out, out_len, a->in, in_len) || mlip_sim_overlaps(a->out, out_len, a->weights, w_len) ||
      (has_bias && mlip_sim_overlaps(a->out, out_len, a->bias, b_len))) {
    return MLIP_ERR_INVALID_ARG;
  }
  /* Block channel j is layer channel oc_base + j, of group
     (oc_base + j) / oc_per_group, which reads block input channels
     [group * ic_per_group - ic_base, + ic_per_group). The groups grow with j,
     so the first and last channel bound them all. */
  icpg = a->ic_per_group;
  g_lo = (uint64_t)a->oc_base / a->oc_per_group;
  g_hi = ((uint64_t)a->oc_base + a->out_c - 1u) / a->oc_per_group;
  if (g_hi >= (uint64_t)a->groups || g_lo * icpg < (uint64_t)a->ic_base ||
      g_hi * icpg + icpg - (uint64_t)a->ic_base > (uint64_t)a->in_c) {
    return MLIP_ERR_BOUNDS;
  }
  return mlip_sim_check_write(v, section, a->out, out_len);
}

/* The executor computes each output as the spec's sum in the order kh, kw,
 * ic (padding taps skipped), then bias, activation and one rounding. For
 * speed it computes many such sums side by side without changing any of
 * them: a block of output channels of one group in the lanes of a small
 * array (the compiler vectorizes across the lanes) and a run of output
 * positions (in raster order), with the block's weights converted to fp32 once per
 * chunk of input channels and shared by the run. The sizes change no bit;
 * they bound the stack (about 5.5 KiB at these defaults) and a build may
 * set its own. Built for size (MLIP_SIM_COMPACT, sim_internal.h) it runs
 * the reference loop instead, one output at a time. */
#ifndef MLIP_SIM_CONV_CB
#define MLIP_SIM_CONV_CB 16u /* output channels per block (lanes) */
#endif
#ifndef MLIP_SIM_CONV_PB
#define MLIP_SIM_CONV_PB 16u /* output positions per run */
#endif
#ifndef MLIP_SIM_CONV_KC
#define MLIP_SIM_CONV_KC 32u /* input channels per converted chunk of weights */
#endif
#ifndef MLIP_SIM_CONV_DW_TAPS
#define MLIP_SIM_CONV_DW_TAPS 25u /* depthwise kernels up to 5x5 keep their taps converted */
#endif
#define CONV_CB MLIP_SIM_CONV_CB
#define CONV_PB MLIP_SIM_CONV_PB
#define CONV_KC MLIP_SIM_CONV_KC
#define CONV_DW_TAPS MLIP_SIM_CONV_DW_TAPS

typedef struct conv_geom {
  const uint8_t* in;
  const uint8_t* wt;
  const uint8_t* bias; /* NULL: none */
  uint8_t* out;
  const mlip_conv2d_args* a; /* the command (activation) */
  int64_t in_h, in_w, sh, sw, dh, dw, pt, pl;
  size_t in_c, out_h, out_w, out_c, kh_n, kw_n, icpg, ocpg, oc_base, ic_base;
} conv_geom;

/* First input channel (of the block's OCM input) that output channel j reads. */
static size_t conv_cbase(const conv_geom* g, size_t j) {
  /* In 64 bits as the validator computed it (size_t may be 32-bit). */
  return (size_t)((((uint64_t)g->oc_base + j) / g->ocpg) * g->icpg - g->ic_base);
}

/* Weight (kh, kw, ic) of output channel j, in fp32. */
static float conv_weight(const conv_geom* g, size_t j, size_t kh, size_t kw, size_t ic) {
  return mlip_sim_h2f(mlip_sim_ld16(g->wt + (((j * g->kh_n + kh) * g->kw_n + kw) * g->icpg + ic) * 2u));
}

/* Bias, activation and one rounding to fp16 of channels [j, j + nj), stored
   at (oh, ow). */
static void conv_store(const conv_geom* g, size_t oh, size_t ow, size_t j, const float* acc, size_t nj) {
  float v[CONV_CB];
  size_t q;
  for (q = 0; q < nj; ++q) {
    v[q] = g->bias != NULL ? acc[q] + mlip_sim_ldf(g->bias + (j + q) * 4u) : acc[q];
  }
  mlip_sim_act_row(v, nj, g->a->act, g->a->act_lo, g->a->act_hi);
  mlip_sim_round_row(v, g->out + ((oh * g->out_w + ow) * g->out_c + j) * 2u, nj);
}

/* Input column of output column ow at tap kw, or -1 in the padding. */
static int64_t conv_iw(const conv_geom* g, size_t ow, size_t kw) {
  const int64_t iw = (int64_t)ow * g->sw - g->pl + (int64_t)kw * g->dw;
  return iw < 0 || iw >= g->in_w ? -1 : iw;
}

#if MLIP_SIM_COMPACT
/* The reference: one output at a time, the spec's loop. */
static void conv_reference(const conv_geom* g) {
  size_t oh, ow, j, kh, kw, ic;
  for (oh = 0; oh < g->out_h; ++oh) {
    for (ow = 0; ow < g->out_w; ++ow) {
      for (j = 0; j < g->out_c; ++j) {
        const size_t cb = conv_cbase(g, j);
        float acc = 0.0f;
        for (kh = 0; kh < g->kh_n; ++kh) {
          const int64_t ih = (int64_t)oh * g->sh - g->pt + (int64_t)kh * g->dh;
          if (ih < 0 || ih >= g->in_h) {
            continue; /* padding: skipped, adds nothing */
          }
          for (kw = 0; kw < g->kw_n; ++kw) {
            const int64_t iw = conv_iw(g, ow, kw);
            const uint8_t* xp;
            if (iw < 0) {
              continue;
            }
            xp = g->in + (((size_t)ih * (size_t)g->in_w + (size_t)iw) * g->in_c + cb) * 2u;
            for (ic = 0; ic < g->icpg; ++ic) {
              const float p = mlip_sim_h2f(mlip_sim_ld16(xp + ic * 2u)) * conv_weight(g, j, kh, kw, ic);
              acc = acc + p;
            }
          }
        }
        conv_store(g, oh, ow, j, &acc, 1u);
      }
    }
  }
}

#else
/* Weights (kh, kw, ic0 .. ic0 + kc) of channels [j, j + nj) in fp32, one row
   of lanes per input channel; lanes past nj hold zeros (their sums are
   never stored). */
static void conv_weights(const conv_geom* g, size_t j, size_t nj, size_t kh, size_t kw, size_t ic0, size_t kc,
                         float (*wf)[CONV_CB]) {
  float row[CONV_KC];
  size_t q, ic;
  for (q = 0; q < CONV_CB; ++q) {
    if (q < nj) {
      mlip_sim_h2f_row(g->wt + ((((j + q) * g->kh_n + kh) * g->kw_n + kw) * g->icpg + ic0) * 2u, row, kc);
    } else {
      memset(row, 0, sizeof row);
    }
    for (ic = 0; ic < kc; ++ic) {
      wf[ic][q] = row[ic];
    }
  }
}

/* Channels [j, j + nj) of one group at output positions [pos0, pos0 + np)
   in raster order (row by row). `wf` holds the block's whole kernel
   converted (`all`: a small kernel, converted once per block), or is where
   each chunk is converted. */
static void conv_run(const conv_geom* g, size_t pos0, size_t np, size_t j, size_t nj, int all,
                     float (*wf)[CONV_CB]) {
  float acc[CONV_PB][CONV_CB];
  size_t oh[CONV_PB], ow[CONV_PB];
  const size_t cb = conv_cbase(g, j);
  size_t p, q, kh, kw, ic0, ic;
  memset(acc, 0, sizeof acc);
  for (p = 0; p < np; ++p) {
    oh[p] = (pos0 + p) / g->out_w;
    ow[p] = (pos0 + p) % g->out_w;
  }
  for (kh = 0; kh < g->kh_n; ++kh) {
    for (kw = 0; kw < g->kw_n; ++kw) {
      for (ic0 = 0; ic0 < g->icpg; ic0 += CONV_KC) {
        const size_t kc = g->icpg - ic0 < CONV_KC ? g->icpg - ic0 : CONV_KC;
        float(*wk)[CONV_CB] = all ? wf + (kh * g->kw_n + kw) * g->icpg : wf;
        if (!all) {
          conv_weights(g, j, nj, kh, kw, ic0, kc, wf);
        }
        for (p = 0; p < np; ++p) {
          const int64_t ih = (int64_t)oh[p] * g->sh - g->pt + (int64_t)kh * g->dh;
          const int64_t iw = conv_iw(g, ow[p], kw);
          const uint8_t* xp;
          float a[CONV_CB];
          if (ih < 0 || ih >= g->in_h || iw < 0) {
            continue; /* padding: skipped, adds nothing */
          }
          xp = g->in + (((size_t)ih * (size_t)g->in_w + (size_t)iw) * g->in_c + cb + ic0) * 2u;
          memcpy(a, acc[p], sizeof a);
          for (ic = 0; ic < kc; ++ic) {
            const float x = mlip_sim_h2f(mlip_sim_ld16(xp + ic * 2u));
            for (q = 0; q < CONV_CB; ++q) {
              a[q] = a[q] + x * wk[ic][q];
            }
          }
          memcpy(acc[p], a, sizeof a);
        }
      }
    }
  }
  for (p = 0; p < np; ++p) {
    conv_store(g, oh[p], ow[p], j, acc[p], nj);
  }
}

/* Depthwise (one input channel per output channel, read at the same index):
 * channels [j, j + nj) side by side over every position, the block's taps
 * converted once. */
static void conv_depthwise_block(const conv_geom* g, size_t j, size_t nj) {
  float wf[CONV_DW_TAPS][CONV_CB];
  const size_t cb = conv_cbase(g, j);
  size_t oh, ow, q, kh, kw;
  for (kh = 0; kh < g->kh_n; ++kh) {
    for (kw = 0; kw < g->kw_n; ++kw) {
      for (q = 0; q < CONV_CB; ++q) {
        wf[kh * g->kw_n + kw][q] = q < nj ? conv_weight(g, j + q, kh, kw, 0) : 0.0f;
      }
    }
  }
  for (oh = 0; oh < g->out_h; ++oh) {
    for (ow = 0; ow < g->out_w; ++ow) {
      float a[CONV_CB];
      memset(a, 0, sizeof a);
      for (kh = 0; kh < g->kh_n; ++kh) {
        const int64_t ih = (int64_t)oh * g->sh - g->pt + (int64_t)kh * g->dh;
        if (ih < 0 || ih >= g->in_h) {
          continue;
        }
        for (kw = 0; kw < g->kw_n; ++kw) {
          const int64_t iw = conv_iw(g, ow, kw);
          const uint8_t* xp;
          const float* wk = wf[kh * g->kw_n + kw];
          float x[CONV_CB];
          if (iw < 0) {
            continue;
          }
          xp = g->in + (((size_t)ih * (size_t)g->in_w + (size_t)iw) * g->in_c + cb) * 2u;
          if (nj < CONV_CB) {
            memset(x, 0, sizeof x); /* never read past the block's last channel */
          }
          /* (a count the compiler cannot unroll, so that it vectorizes) */
          mlip_sim_h2f_row(xp, x, nj);
          for (q = 0; q < CONV_CB; ++q) {
            a[q] = a[q] + x[q] * wk[q];
          }
        }
      }
      conv_store(g, oh, ow, j, a, nj);
    }
  }
}

#endif

static MLIP_SIM_NOINLINE mlip_status conv2d_q8(const mlip_conv2d_args* a, uint8_t* ocm); /* below */
static MLIP_SIM_NOINLINE mlip_status conv2d_q16(const mlip_conv2d_args* a, uint8_t* ocm); /* below */
static MLIP_SIM_NOINLINE mlip_status conv2d_q4(const mlip_conv2d_args* a, uint8_t* ocm);  /* below */

mlip_status mlip_sim_exec_conv2d(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_conv2d_args* a = &d->u.conv2d;
  conv_geom g;
  (void)env; /* works in the tile's OCM only */
  if (a->dtype == MLIP_DT_INT16) {
    return conv2d_q16(a, ocm);
  }
  if (a->dtype != MLIP_DT_FP16) {
    return a->w4_block != 0u ? conv2d_q4(a, ocm) : conv2d_q8(a, ocm);
  }
  g.in = ocm + a->in;
  g.wt = ocm + a->weights;
  g.bias = a->bias != MLIP_NO_OFFSET ? ocm + a->bias : NULL;
  g.out = ocm + a->out;
  g.a = a;
  g.in_h = a->in_h;
  g.in_w = a->in_w;
  g.sh = a->stride_h;
  g.sw = a->stride_w;
  g.dh = a->dil_h;
  g.dw = a->dil_w;
  g.pt = a->pad_top;
  g.pl = a->pad_left;
  g.in_c = a->in_c;
  g.out_h = a->out_h;
  g.out_w = a->out_w;
  g.out_c = a->out_c;
  g.kh_n = a->kh;
  g.kw_n = a->kw;
  g.icpg = a->ic_per_group;
  g.ocpg = a->oc_per_group;
  g.oc_base = a->oc_base;
  g.ic_base = a->ic_base;
#if MLIP_SIM_COMPACT
  conv_reference(&g);
  return MLIP_OK;
#else
  {
  float wf[CONV_KC][CONV_CB];
  const size_t positions = g.out_h * g.out_w;
  size_t pos, j, nj;
  if (g.icpg == 1u && g.ocpg == 1u && g.kh_n * g.kw_n <= CONV_DW_TAPS) {
    for (j = 0; j < g.out_c; j += nj) {
      nj = g.out_c - j < CONV_CB ? g.out_c - j : CONV_CB;
      conv_depthwise_block(&g, j, nj);
    }
    return MLIP_OK;
  }
  /* Blocks never straddle a group, so each reads one run of input channels. */
  for (j = 0; j < g.out_c; j += nj) {
    const size_t group_end = (size_t)(((uint64_t)g.oc_base + j) / g.ocpg + 1u) * g.ocpg - g.oc_base;
    /* A kernel of at most CONV_KC weights per channel is converted once. */
    const int all = g.kh_n * g.kw_n * g.icpg <= CONV_KC;
    nj = g.out_c - j < CONV_CB ? g.out_c - j : CONV_CB;
    nj = group_end - j < nj ? group_end - j : nj;
    if (all) {
      size_t kh, kw;
      for (kh = 0; kh < g.kh_n; ++kh) {
        for (kw = 0; kw < g.kw_n; ++kw) {
          conv_weights(&g, j, nj, kh, kw, 0, g.icpg, wf + (kh * g.kw_n + kw) * g.icpg);
        }
      }
    }
    for (pos = 0; pos < positions; pos += CONV_PB) {
      conv_run(&g, pos, positions - pos < CONV_PB ? positions - pos : CONV_PB, j, nj, all, wf);
    }
  }
  return MLIP_OK;
  }
#endif
}

/* ---- 8-bit (docs/mlip-spec.md 4a) ----------------------------------------- *
 * acc = sum (x - x_zp) * w in int32 over the taps inside the block, then
 * the record's bias and requantization (mlip_sim_q8_store_requantized). */

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

static void conv2d_q8_lanes(const mlip_conv2d_args* a, const uint8_t* in, const uint8_t* wt, const uint8_t* rec,
                            uint8_t* out, size_t j0, size_t nj, int depthwise) {
  const uint32_t dt = a->dtype;
  const int64_t in_h = a->in_h, in_w = a->in_w;
  const size_t in_c = a->in_c;
  const size_t out_h = a->out_h, out_w = a->out_w, out_c = a->out_c;
  const size_t kh_n = a->kh, kw_n = a->kw, icpg = a->ic_per_group;
  const size_t taps = kh_n * kw_n * icpg;
  const int64_t sh = a->stride_h, sw = a->stride_w;
  const int64_t dh = a->dil_h, dw = a->dil_w;
  const int64_t pt = a->pad_top, pl = a->pad_left;
  /* The block's first input channel, in 64 bits as the validator computed
     it (size_t may be 32-bit); depthwise, lane q reads the one after q. */
  const size_t cbase = (size_t)((((uint64_t)a->oc_base + j0) / a->oc_per_group) * icpg - a->ic_base);
  const int32_t zx = a->x_zp, zy = a->y_zp;
  const int32_t lo = a->clamp_lo, hi = a->clamp_hi;
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
        mlip_sim_q8_store_requantized(out + (oh * out_w + ow) * out_c + j0 + q, acc[q], rec, j0 + q, zy, lo, hi);
      }
    }
  }
}
#endif

static MLIP_SIM_NOINLINE mlip_status conv2d_q8(const mlip_conv2d_args* a, uint8_t* ocm) {
  const uint32_t dt = a->dtype;
  const uint8_t* in = ocm + a->in;
  const uint8_t* wt = ocm + a->weights;
  const uint8_t* rec = ocm + a->bias;
  uint8_t* out = ocm + a->out;
  const int64_t in_h = a->in_h, in_w = a->in_w;
  const size_t in_c = a->in_c;
  const size_t out_h = a->out_h, out_w = a->out_w, out_c = a->out_c;
  const size_t kh_n = a->kh, kw_n = a->kw;
  const int64_t sh = a->stride_h, sw = a->stride_w;
  const int64_t dh = a->dil_h, dw = a->dil_w;
  const int64_t pt = a->pad_top, pl = a->pad_left;
  const size_t icpg = a->ic_per_group, ocpg = a->oc_per_group;
  const size_t oc_base = a->oc_base, ic_base = a->ic_base;
  const int32_t zx = a->x_zp, zy = a->y_zp;
  const int32_t lo = a->clamp_lo, hi = a->clamp_hi;
  size_t oh, ow, j, kh, kw;
  if (!mlip_sim_q8_records_ok(rec, out_c, a->requant)) {
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
        conv2d_q8_lanes(a, in, wt, rec, out, j0, nj, depthwise);
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
            acc += mlip_sim_q8_dot(dt, in + ((size_t)ih * (size_t)in_w + iw0) * in_c, wj + kh * kw_n * icpg,
                                   kw_n * icpg, zx);
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
            acc += mlip_sim_q8_dot(dt, xp, wp, icpg, zx);
          }
        }
        mlip_sim_q8_store_requantized(out + (oh * out_w + ow) * out_c + j, acc, rec, j, zy, lo, hi);
      }
    }
  }
  return MLIP_OK;
}

/* ---- 4-bit weights (w4_block n > 0) -------------------------------------- *
 * conv2d_q8's reference loop, one output channel at a time: its packed row
 * (mlip/kq4_format.h) unpacked once into int8 values when it has at most
 * MLIP_SIM_W4_ROW weights, else each weight unpacked on read. The same
 * integer sums, so the bits of the int8 command on the unpacked values. */
static MLIP_SIM_NOINLINE mlip_status conv2d_q4(const mlip_conv2d_args* a, uint8_t* ocm) {
  const uint32_t dt = a->dtype;
  const uint8_t* in = ocm + a->in;
  const uint8_t* wt = ocm + a->weights;
  const uint8_t* rec = ocm + a->bias;
  uint8_t* out = ocm + a->out;
  const int64_t in_h = a->in_h, in_w = a->in_w;
  const size_t in_c = a->in_c;
  const size_t out_h = a->out_h, out_w = a->out_w, out_c = a->out_c;
  const size_t kh_n = a->kh, kw_n = a->kw;
  const size_t icpg = a->ic_per_group, ocpg = a->oc_per_group;
  const uint32_t k = a->kh * a->kw * a->ic_per_group; /* at most MLIP_INT8_MAX_TAPS: checked */
  const uint64_t rb = mlip_sim_w4_row_bytes(k, a->w4_block);
  int8_t row[MLIP_SIM_W4_ROW];
  size_t oh, ow, j, kh, kw;
  if (!mlip_sim_q8_records_ok(rec, out_c, a->requant) || !mlip_sim_w4_ok(wt, out_c, k, a->w4_block)) {
    return MLIP_ERR_INVALID_ARG;
  }
  for (j = 0; j < out_c; ++j) {
    const size_t cbase = (size_t)((((uint64_t)a->oc_base + j) / ocpg) * icpg - a->ic_base);
    const uint8_t* wj = wt + j * rb;
    const int unpacked = k <= MLIP_SIM_W4_ROW;
    if (unpacked) {
      mlip_kq4_unpack(wj, 1, (int32_t)k, (int32_t)a->w4_block, 0, 0, (int32_t)k, row);
    }
    for (oh = 0; oh < out_h; ++oh) {
      for (ow = 0; ow < out_w; ++ow) {
        int32_t acc = 0;
        for (kh = 0; kh < kh_n; ++kh) {
          const int64_t ih = (int64_t)oh * a->stride_h - a->pad_top + (int64_t)kh * a->dil_h;
          if (ih < 0 || ih >= in_h) {
            continue; /* padding: the zero point, a real 0 */
          }
          for (kw = 0; kw < kw_n; ++kw) {
            const int64_t iw = (int64_t)ow * a->stride_w - a->pad_left + (int64_t)kw * a->dil_w;
            const size_t t0 = (kh * kw_n + kw) * icpg;
            const uint8_t* xp;
            if (iw < 0 || iw >= in_w) {
              continue; /* the tap's address is formed only inside the input (UBSan: pointer overflow) */
            }
            xp = in + ((size_t)ih * (size_t)in_w + (size_t)iw) * in_c + cbase;
            acc += unpacked ? mlip_sim_q8_dot(dt, xp, (const uint8_t*)row + t0, icpg, a->x_zp)
                            : mlip_sim_q4_dot(dt, xp, wj, k, a->w4_block, t0, icpg, a->x_zp);
          }
        }
        mlip_sim_q8_store_requantized(out + (oh * out_w + ow) * out_c + j, acc, rec, j, a->y_zp, a->clamp_lo,
                                      a->clamp_hi);
      }
    }
  }
  return MLIP_OK;
}

/* ---- 16x8 (docs/mlip-spec.md 4a) ------------------------------------------ *
 * acc = sum x * w in int64 over the taps inside the block (x int16 with
 * zero point 0, so padding adds nothing), plus the record's int64 bias,
 * then mlip_requantize64 into [clamp_lo, clamp_hi]: the CPU's 16x8
 * QLinearConv (templates/kernels/conv_integer.c, wide), bit for bit. */
static MLIP_SIM_NOINLINE mlip_status conv2d_q16(const mlip_conv2d_args* a, uint8_t* ocm) {
  const uint8_t* in = ocm + a->in;
  const uint8_t* wt = ocm + a->weights;
  const uint8_t* rec = ocm + a->bias;
  uint8_t* out = ocm + a->out;
  const int64_t in_h = a->in_h, in_w = a->in_w;
  const size_t in_c = a->in_c;
  const size_t out_h = a->out_h, out_w = a->out_w, out_c = a->out_c;
  const size_t kh_n = a->kh, kw_n = a->kw;
  const int64_t sh = a->stride_h, sw = a->stride_w;
  const int64_t dh = a->dil_h, dw = a->dil_w;
  const int64_t pt = a->pad_top, pl = a->pad_left;
  const size_t icpg = a->ic_per_group, ocpg = a->oc_per_group;
  const size_t oc_base = a->oc_base, ic_base = a->ic_base;
  size_t oh, ow, j, kh, kw;
  if (!mlip_sim_q16_records_ok(rec, out_c, a->requant)) {
    return MLIP_ERR_INVALID_ARG;
  }
  for (oh = 0; oh < out_h; ++oh) {
    for (ow = 0; ow < out_w; ++ow) {
      for (j = 0; j < out_c; ++j) {
        /* In 64 bits as the validator computed it (size_t may be 32-bit). */
        const size_t cbase = (size_t)((((uint64_t)oc_base + j) / ocpg) * icpg - ic_base);
        const uint8_t* wj = wt + j * kh_n * kw_n * icpg;
        int64_t acc = 0;
        for (kh = 0; kh < kh_n; ++kh) {
          const int64_t ih = (int64_t)oh * sh - pt + (int64_t)kh * dh;
          if (ih < 0 || ih >= in_h) {
            continue; /* padding: 0 */
          }
          for (kw = 0; kw < kw_n; ++kw) {
            const int64_t iw = (int64_t)ow * sw - pl + (int64_t)kw * dw;
            if (iw < 0 || iw >= in_w) {
              continue;
            }
            acc += mlip_sim_q16_dot(in + (((size_t)ih * (size_t)in_w + (size_t)iw) * in_c + cbase) * 2u,
                                    wj + (kh * kw_n + kw) * icpg, icpg);
          }
        }
        mlip_sim_q16_store_requantized(out + ((oh * out_w + ow) * out_c + j) * 2u, acc, rec, j, a->clamp_lo,
                                       a->clamp_hi);
      }
    }
  }
  return MLIP_OK;
}
