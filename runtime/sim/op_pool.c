/* MAXPOOL and AVGPOOL on an NHWC block.
 * Its validation rule (docs/command-buffer.md) and its executor
 * (docs/mlip-spec.md); the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

/* Taps base + k * step, k in [0, kernel), that lie in [lo, hi): k in [*k0, *k1). */
static int64_t ceil_div_pos(int64_t a, int64_t b) { return a > 0 ? (a + b - 1) / b : 0; }

static void window_range(int64_t base, int64_t kernel, int64_t step, int64_t lo, int64_t hi, int64_t* k0,
                         int64_t* k1) {
  const int64_t a = ceil_div_pos(lo - base, step);
  const int64_t b = ceil_div_pos(hi - base, step);
  *k0 = a;
  *k1 = b < kernel ? b : kernel;
  if (*k1 < *k0) {
    *k1 = *k0;
  }
}

mlip_status mlip_sim_check_pool(const mlip_sim_view* v, uint32_t section, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  if (w[MLIP_DTYPE] != MLIP_DT_FP16) {
    return mlip_sim_check_pool_q8(v, section, c); /* op_int8.c */
  }
  static const uint8_t nonzero[] = {
    MLIP_POOL_IN_H, MLIP_POOL_IN_W, MLIP_POOL_C, MLIP_POOL_OUT_H, MLIP_POOL_OUT_W,
    MLIP_POOL_KH, MLIP_POOL_KW, MLIP_POOL_STRIDE_H, MLIP_POOL_STRIDE_W,
  };
  uint64_t in_len, out_len;
  size_t i;
  for (i = 0; i < sizeof nonzero; ++i) {
    if (w[nonzero[i]] == 0u) {
      return MLIP_ERR_INVALID_ARG;
    }
  }
  if ((c->opcode == MLIP_OP_AVGPOOL && w[MLIP_POOL_COUNT_INCLUDE_PAD] > 1u) || !mlip_sim_act_ok(w[MLIP_POOL_ACT]) ||
      w[MLIP_POOL_GAP_H] > MLIP_POOL_MAX_GAP || w[MLIP_POOL_GAP_W] > MLIP_POOL_MAX_GAP) {
    return MLIP_ERR_INVALID_ARG;
  }
  in_len = mlip_sim_mul4(w[MLIP_POOL_IN_H], w[MLIP_POOL_IN_W], w[MLIP_POOL_C], 2u);
  out_len = mlip_sim_mul4(w[MLIP_POOL_OUT_H], w[MLIP_POOL_OUT_W], w[MLIP_POOL_C], 2u);
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_POOL_IN], in_len));
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_POOL_OUT], out_len));
  if (mlip_sim_overlaps(w[MLIP_POOL_OUT], out_len, w[MLIP_POOL_IN], in_len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, w[MLIP_POOL_OUT], out_len);
}

mlip_status mlip_sim_exec_pool(const mlip_sim_env* env, uint8_t* ocm, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  if (w[MLIP_DTYPE] != MLIP_DT_FP16) {
    return mlip_sim_exec_pool_q8(env, ocm, c); /* op_int8.c */
  }
  const uint8_t* in = ocm + w[MLIP_POOL_IN];
  uint8_t* out = ocm + w[MLIP_POOL_OUT];
  const int64_t in_h = w[MLIP_POOL_IN_H], in_w = w[MLIP_POOL_IN_W];
  const size_t ch = w[MLIP_POOL_C];
  const size_t out_h = w[MLIP_POOL_OUT_H], out_w = w[MLIP_POOL_OUT_W];
  const int64_t kh_n = w[MLIP_POOL_KH], kw_n = w[MLIP_POOL_KW];
  const int64_t sh = w[MLIP_POOL_STRIDE_H], sw = w[MLIP_POOL_STRIDE_W];
  const int64_t pt = w[MLIP_POOL_PAD_TOP], pl = w[MLIP_POOL_PAD_LEFT];
  const int64_t dh = (int64_t)w[MLIP_POOL_GAP_H] + 1, dw = (int64_t)w[MLIP_POOL_GAP_W] + 1;
  const int is_max = c->opcode == MLIP_OP_MAXPOOL;
  const int include_pad = w[MLIP_POOL_COUNT_INCLUDE_PAD] != 0u;
  const int64_t p_top = mlip_sim_as_i32(w[MLIP_POOL_PADDED_TOP]), p_bottom = mlip_sim_as_i32(w[MLIP_POOL_PADDED_BOTTOM]);
  const int64_t p_left = mlip_sim_as_i32(w[MLIP_POOL_PADDED_LEFT]), p_right = mlip_sim_as_i32(w[MLIP_POOL_PADDED_RIGHT]);
  size_t oh, ow, cc;
  (void)env; /* works in the tile's OCM only */
  for (oh = 0; oh < out_h; ++oh) {
    const int64_t base_h = (int64_t)oh * sh - pt;
    int64_t kh0, kh1;
    window_range(base_h, kh_n, dh, 0, in_h, &kh0, &kh1);
    for (ow = 0; ow < out_w; ++ow) {
      const int64_t base_w = (int64_t)ow * sw - pl;
      int64_t kw0, kw1;
      uint64_t count;
      window_range(base_w, kw_n, dw, 0, in_w, &kw0, &kw1);
      if (include_pad) {
        int64_t a0, a1, b0, b1;
        window_range(base_h, kh_n, dh, p_top, p_bottom, &a0, &a1);
        window_range(base_w, kw_n, dw, p_left, p_right, &b0, &b1);
        count = (uint64_t)(a1 - a0) * (uint64_t)(b1 - b0);
      } else {
        count = (uint64_t)(kh1 - kh0) * (uint64_t)(kw1 - kw0);
      }
      for (cc = 0; cc < ch; ++cc) {
        float r = is_max ? mlip_sim_neg_inf() : 0.0f;
        int64_t kh, kw;
        uint16_t h;
        for (kh = kh0; kh < kh1; ++kh) {
          const size_t ih = (size_t)(base_h + kh * dh);
          for (kw = kw0; kw < kw1; ++kw) {
            const size_t iw = (size_t)(base_w + kw * dw);
            const float x = mlip_sim_h2f(mlip_sim_ld16(in + ((ih * (size_t)in_w + iw) * ch + cc) * 2u));
            if (is_max) {
              if (x > r) {
                r = x; /* a NaN is never chosen; ties keep the first */
              }
            } else {
              r = r + x;
            }
          }
        }
        if (!is_max) {
          /* 0 / 0 is not divided (its NaN's sign depends on the host): the quiet NaN */
          r = count == 0u ? mlip_sim_bits_to_float(0x7FC00000u) : r / (float)count;
        }
        /* A maximum is a half or -inf: exact. */
        r = mlip_sim_apply_act(r, w[MLIP_POOL_ACT], w[MLIP_POOL_ACT_LO], w[MLIP_POOL_ACT_HI]);
        h = mlip_sim_round_result(r);
        mlip_sim_st16(out + ((oh * out_w + ow) * ch + cc) * 2u, h);
      }
    }
  }
  return MLIP_OK;
}
