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

/* Output channels are computed four at a time: four independent sums, each
 * in the spec's order (kh, kw, then ic), so the host overlaps their
 * latencies (and converts a shared input once); every sum is the one a
 * channel-at-a-time loop would give, bit for bit. */
#define CONV_BLOCK 4u

mlip_status mlip_sim_exec_conv2d(const mlip_sim_env* env, uint8_t* ocm, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  if (w[MLIP_DTYPE] != MLIP_DT_FP16) {
    return mlip_sim_exec_conv2d_q8(env, ocm, c); /* op_int8.c */
  }
  const uint8_t* in = ocm + w[MLIP_CONV_IN];
  const uint8_t* wt = ocm + w[MLIP_CONV_WEIGHTS];
  const uint8_t* bias = w[MLIP_CONV_BIAS] != MLIP_NO_OFFSET ? ocm + w[MLIP_CONV_BIAS] : NULL;
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
  const size_t w_step = kh_n * kw_n * icpg * 2u; /* bytes from one output channel's weights to the next */
  size_t oh, ow, j, nj, q, kh, kw, ic;
  (void)env; /* works in the tile's OCM only */
  for (oh = 0; oh < out_h; ++oh) {
    for (ow = 0; ow < out_w; ++ow) {
      for (j = 0; j < out_c; j += nj) {
        float acc[CONV_BLOCK] = {0.0f, 0.0f, 0.0f, 0.0f};
        size_t cbase[CONV_BLOCK] = {0, 0, 0, 0};
        nj = out_c - j < CONV_BLOCK ? out_c - j : CONV_BLOCK;
        for (q = 0; q < nj; ++q) {
          /* In 64 bits as the validator computed it (size_t may be 32-bit). */
          cbase[q] = (size_t)((((uint64_t)oc_base + j + q) / ocpg) * icpg - ic_base);
        }
        for (kh = 0; kh < kh_n; ++kh) {
          const int64_t ih = (int64_t)oh * sh - pt + (int64_t)kh * dh;
          if (ih < 0 || ih >= in_h) {
            continue; /* padding: skipped, adds nothing */
          }
          for (kw = 0; kw < kw_n; ++kw) {
            const int64_t iw = (int64_t)ow * sw - pl + (int64_t)kw * dw;
            const uint8_t* xp;
            const uint8_t* wp;
            if (iw < 0 || iw >= in_w) {
              continue;
            }
            xp = in + ((size_t)ih * (size_t)in_w + (size_t)iw) * in_c * 2u;
            wp = wt + (((j * kh_n + kh) * kw_n + kw) * icpg) * 2u;
            if (nj == CONV_BLOCK && cbase[0] == cbase[CONV_BLOCK - 1u]) {
              /* one group: the four channels read the same inputs */
              const uint8_t* x0 = xp + cbase[0] * 2u;
              float a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
              for (ic = 0; ic < icpg; ++ic) {
                const float x = mlip_sim_h2f(mlip_sim_ld16(x0 + ic * 2u));
                const uint8_t* wi = wp + ic * 2u;
                const float p0 = x * mlip_sim_h2f(mlip_sim_ld16(wi));
                const float p1 = x * mlip_sim_h2f(mlip_sim_ld16(wi + w_step));
                const float p2 = x * mlip_sim_h2f(mlip_sim_ld16(wi + 2u * w_step));
                const float p3 = x * mlip_sim_h2f(mlip_sim_ld16(wi + 3u * w_step));
                a0 = a0 + p0;
                a1 = a1 + p1;
                a2 = a2 + p2;
                a3 = a3 + p3;
              }
              acc[0] = a0;
              acc[1] = a1;
              acc[2] = a2;
              acc[3] = a3;
            } else {
              for (q = 0; q < nj; ++q) {
                const uint8_t* xq = xp + cbase[q] * 2u;
                const uint8_t* wq = wp + q * w_step;
                float a = acc[q];
                for (ic = 0; ic < icpg; ++ic) {
                  const float p = mlip_sim_h2f(mlip_sim_ld16(xq + ic * 2u)) * mlip_sim_h2f(mlip_sim_ld16(wq + ic * 2u));
                  a = a + p;
                }
                acc[q] = a;
              }
            }
          }
        }
        for (q = 0; q < nj; ++q) {
          float v = acc[q];
          if (bias != NULL) {
            v = v + mlip_sim_ldf(bias + (j + q) * 4u);
          }
          v = mlip_sim_apply_act(v, w[MLIP_CONV_ACT], w[MLIP_CONV_ACT_LO], w[MLIP_CONV_ACT_HI]);
          mlip_sim_st16(out + ((oh * out_w + ow) * out_c + j + q) * 2u, mlip_sim_round_result(v));
        }
      }
    }
  }
  return MLIP_OK;
}
