/* CONV2D on an NHWC block: groups, strides, dilations, padding taps skipped,
 * fused bias and activation.
 * Its validation rule (docs/command-buffer.md) and its executor
 * (docs/mlip-spec.md); the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_conv2d(const mlip_sim_view* v, uint32_t section, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  /* fp16, or an 8-bit type (mlip_sim_check_dtype checked which): one-byte
     elements, a requantization record per output channel at BIAS. */
  const int q8 = w[MLIP_DTYPE] != MLIP_DT_FP16;
  const uint64_t eb = q8 ? 1u : 2u, bb = q8 ? MLIP_REQUANT_RECORD_BYTES : 4u;
  static const uint8_t nonzero[] = {
    MLIP_CONV_IN_H, MLIP_CONV_IN_W, MLIP_CONV_IN_C, MLIP_CONV_OUT_H, MLIP_CONV_OUT_W, MLIP_CONV_OUT_C,
    MLIP_CONV_KH, MLIP_CONV_KW, MLIP_CONV_STRIDE_H, MLIP_CONV_STRIDE_W, MLIP_CONV_DIL_H, MLIP_CONV_DIL_W,
    MLIP_CONV_GROUPS, MLIP_CONV_IC_PER_GROUP, MLIP_CONV_OC_PER_GROUP,
  };
  uint64_t in_len, w_len, b_len, out_len;
  uint64_t icpg, g_lo, g_hi;
  int has_bias = w[MLIP_CONV_BIAS] != MLIP_NO_OFFSET;
  size_t i;
  for (i = 0; i < sizeof nonzero; ++i) {
    if (w[nonzero[i]] == 0u) {
      return MLIP_ERR_INVALID_ARG;
    }
  }
  if (q8 ? !mlip_sim_conv2d_q8_words_ok(c) : !mlip_sim_act_ok(w[MLIP_CONV_ACT])) {
    return MLIP_ERR_INVALID_ARG;
  }
  in_len = mlip_sim_mul4(w[MLIP_CONV_IN_H], w[MLIP_CONV_IN_W], w[MLIP_CONV_IN_C], eb);
  w_len = mlip_sim_sat_mul(
      mlip_sim_mul4(w[MLIP_CONV_OUT_C], w[MLIP_CONV_KH], w[MLIP_CONV_KW], w[MLIP_CONV_IC_PER_GROUP]), eb);
  b_len = (uint64_t)w[MLIP_CONV_OUT_C] * bb;
  out_len = mlip_sim_mul4(w[MLIP_CONV_OUT_H], w[MLIP_CONV_OUT_W], w[MLIP_CONV_OUT_C], eb);
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_CONV_IN], in_len));
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_CONV_WEIGHTS], w_len));
  if (has_bias) {
    MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_CONV_BIAS], b_len));
  }
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_CONV_OUT], out_len));
  if (mlip_sim_overlaps(w[MLIP_CONV_OUT], out_len, w[MLIP_CONV_IN], in_len) ||
      mlip_sim_overlaps(w[MLIP_CONV_OUT], out_len, w[MLIP_CONV_WEIGHTS], w_len) ||
      (has_bias && mlip_sim_overlaps(w[MLIP_CONV_OUT], out_len, w[MLIP_CONV_BIAS], b_len))) {
    return MLIP_ERR_INVALID_ARG;
  }
  /* Block channel j is layer channel oc_base + j, of group
     (oc_base + j) / oc_per_group, which reads block input channels
     [group * ic_per_group - ic_base, + ic_per_group). The groups grow with j,
     so the first and last channel bound them all. */
  icpg = w[MLIP_CONV_IC_PER_GROUP];
  g_lo = (uint64_t)w[MLIP_CONV_OC_BASE] / w[MLIP_CONV_OC_PER_GROUP];
  g_hi = ((uint64_t)w[MLIP_CONV_OC_BASE] + w[MLIP_CONV_OUT_C] - 1u) / w[MLIP_CONV_OC_PER_GROUP];
  if (g_hi >= (uint64_t)w[MLIP_CONV_GROUPS] || g_lo * icpg < (uint64_t)w[MLIP_CONV_IC_BASE] ||
      g_hi * icpg + icpg - (uint64_t)w[MLIP_CONV_IC_BASE] > (uint64_t)w[MLIP_CONV_IN_C]) {
    return MLIP_ERR_BOUNDS;
  }
  return mlip_sim_check_write(v, section, w[MLIP_CONV_OUT], out_len);
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
  const uint32_t* w;   /* the command's words (activation) */
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
  mlip_sim_act_row(v, nj, g->w[MLIP_CONV_ACT], g->w[MLIP_CONV_ACT_LO], g->w[MLIP_CONV_ACT_HI]);
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

mlip_status mlip_sim_exec_conv2d(const mlip_sim_env* env, uint8_t* ocm, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  conv_geom g;
  if (w[MLIP_DTYPE] != MLIP_DT_FP16) {
    return mlip_sim_exec_conv2d_q8(env, ocm, c); /* op_int8.c */
  }
  (void)env; /* works in the tile's OCM only */
  g.in = ocm + w[MLIP_CONV_IN];
  g.wt = ocm + w[MLIP_CONV_WEIGHTS];
  g.bias = w[MLIP_CONV_BIAS] != MLIP_NO_OFFSET ? ocm + w[MLIP_CONV_BIAS] : NULL;
  g.out = ocm + w[MLIP_CONV_OUT];
  g.w = w;
  g.in_h = w[MLIP_CONV_IN_H];
  g.in_w = w[MLIP_CONV_IN_W];
  g.sh = w[MLIP_CONV_STRIDE_H];
  g.sw = w[MLIP_CONV_STRIDE_W];
  g.dh = w[MLIP_CONV_DIL_H];
  g.dw = w[MLIP_CONV_DIL_W];
  g.pt = w[MLIP_CONV_PAD_TOP];
  g.pl = w[MLIP_CONV_PAD_LEFT];
  g.in_c = w[MLIP_CONV_IN_C];
  g.out_h = w[MLIP_CONV_OUT_H];
  g.out_w = w[MLIP_CONV_OUT_W];
  g.out_c = w[MLIP_CONV_OUT_C];
  g.kh_n = w[MLIP_CONV_KH];
  g.kw_n = w[MLIP_CONV_KW];
  g.icpg = w[MLIP_CONV_IC_PER_GROUP];
  g.ocpg = w[MLIP_CONV_OC_PER_GROUP];
  g.oc_base = w[MLIP_CONV_OC_BASE];
  g.ic_base = w[MLIP_CONV_IC_BASE];
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
