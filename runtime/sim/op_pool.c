/* MAXPOOL and AVGPOOL on an NHWC block, fp16 and 8-bit (MLIP_DTYPE).
 * Its validation rule (docs/command-buffer.md) and its executor
 * (docs/mlip-spec.md sections 4 and 4a); the opcode table (opcodes.c) names
 * both. The two element types share the words of the window, their checks,
 * and each window's taps and count; they differ in the arithmetic of a
 * window only (fp32 sum and one division, or an int32 sum requantized by
 * the entry of the window's count: mlip/requant.h, as the CPU's
 * QLinearAveragePool kernel). */
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

/* The words an 8-bit pool adds: MAXPOOL none (input and output share scale
 * and zero point); AVGPOOL the zero points, the clamp and the table of
 * kh * kw + 1 requantization pairs. */
static mlip_status check_q8_words(const mlip_sim_view* v, const mlip_cmd* c, uint64_t out_len) {
  const uint32_t* w = c->w;
  const uint32_t dt = w[MLIP_DTYPE];
  const uint64_t taps = (uint64_t)w[MLIP_POOL_KH] * w[MLIP_POOL_KW]; /* both below 2^32 */
  uint64_t t_len;
  if (w[MLIP_POOL_ACT] != MLIP_ACT_NONE) {
    return MLIP_ERR_INVALID_ARG; /* a fused Relu or Clip is the clamp */
  }
  if (c->opcode == MLIP_OP_MAXPOOL) {
    return MLIP_OK;
  }
  if (taps > MLIP_INT8_MAX_POOL_HW || !mlip_sim_q8_in_type(dt, w[MLIP_POOL_X_ZP]) ||
      !mlip_sim_q8_in_type(dt, w[MLIP_POOL_Y_ZP]) || !mlip_sim_q8_clamp_ok(dt, w[MLIP_POOL_LO], w[MLIP_POOL_HI])) {
    return MLIP_ERR_INVALID_ARG;
  }
  t_len = (taps + 1u) * MLIP_POOL_TABLE_ENTRY_BYTES;
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_POOL_TABLE], t_len));
  return mlip_sim_overlaps(w[MLIP_POOL_OUT], out_len, w[MLIP_POOL_TABLE], t_len) ? MLIP_ERR_INVALID_ARG : MLIP_OK;
}

mlip_status mlip_sim_check_pool(const mlip_sim_view* v, uint32_t section, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  const int q8 = w[MLIP_DTYPE] != MLIP_DT_FP16; /* an 8-bit type: mlip_sim_check_dtype checked which */
  const uint64_t eb = q8 ? 1u : 2u;
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
  in_len = mlip_sim_mul4(w[MLIP_POOL_IN_H], w[MLIP_POOL_IN_W], w[MLIP_POOL_C], eb);
  out_len = mlip_sim_mul4(w[MLIP_POOL_OUT_H], w[MLIP_POOL_OUT_W], w[MLIP_POOL_C], eb);
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_POOL_IN], in_len));
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_POOL_OUT], out_len));
  if (mlip_sim_overlaps(w[MLIP_POOL_OUT], out_len, w[MLIP_POOL_IN], in_len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (q8) {
    MLIP_TRY(check_q8_words(v, c, out_len));
  }
  return mlip_sim_check_write(v, section, w[MLIP_POOL_OUT], out_len);
}

/* Table entry n's word k (0 q, 1 shift). */
static uint32_t table_word(const uint8_t* table, uint64_t n, size_t k) {
  uint32_t u;
  memcpy(&u, table + (size_t)n * MLIP_POOL_TABLE_ENTRY_BYTES + k * 4u, sizeof u);
  return u;
}

/* One window of an fp16 pool: the maximum, or the fp32 sum over the count. */
static uint16_t window_f16(const mlip_cmd* c, const uint8_t* in, size_t in_w, size_t ch, size_t cc, int64_t base_h,
                           int64_t base_w, const int64_t k[4], int64_t dh, int64_t dw, uint64_t count) {
  const uint32_t* w = c->w;
  const int is_max = c->opcode == MLIP_OP_MAXPOOL;
  float r = is_max ? mlip_sim_neg_inf() : 0.0f;
  int64_t kh, kw;
  for (kh = k[0]; kh < k[1]; ++kh) {
    const size_t ih = (size_t)(base_h + kh * dh);
    for (kw = k[2]; kw < k[3]; ++kw) {
      const size_t iw = (size_t)(base_w + kw * dw);
      const float x = mlip_sim_h2f(mlip_sim_ld16(in + ((ih * in_w + iw) * ch + cc) * 2u));
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
  return mlip_sim_round_result(r);
}

/* One window of an 8-bit pool: the largest integer (the type's minimum for
 * a window with no tap in the block), or the int32 sum of x - x_zp
 * requantized by the table's entry for the count. */
static int32_t window_q8(const mlip_cmd* c, const uint8_t* in, size_t in_w, size_t ch, size_t cc, int64_t base_h,
                         int64_t base_w, const int64_t k[4], int64_t dh, int64_t dw, uint64_t count,
                         const uint8_t* table) {
  const uint32_t* w = c->w;
  const uint32_t dt = w[MLIP_DTYPE];
  const int is_max = c->opcode == MLIP_OP_MAXPOOL;
  const int32_t zx = mlip_sim_as_i32(w[MLIP_POOL_X_ZP]);
  int32_t r = is_max ? mlip_sim_q8_lo(dt) : 0; /* a sum of at most 8421504 terms of at most 255: no overflow */
  int64_t kh, kw;
  for (kh = k[0]; kh < k[1]; ++kh) {
    const size_t ih = (size_t)(base_h + kh * dh);
    for (kw = k[2]; kw < k[3]; ++kw) {
      const size_t iw = (size_t)(base_w + kw * dw);
      const int32_t x = mlip_sim_q8_load(dt, in + (ih * in_w + iw) * ch + cc);
      if (is_max) {
        r = x > r ? x : r;
      } else {
        r += x - zx;
      }
    }
  }
  if (is_max) {
    return r;
  }
  return mlip_requantize(r, mlip_sim_as_i32(table_word(table, count, 0)), mlip_sim_as_i32(table_word(table, count, 1)),
                         mlip_sim_as_i32(w[MLIP_POOL_Y_ZP]), mlip_sim_as_i32(w[MLIP_POOL_LO]),
                         mlip_sim_as_i32(w[MLIP_POOL_HI]));
}

mlip_status mlip_sim_exec_pool(const mlip_sim_env* env, uint8_t* ocm, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  const int q8 = w[MLIP_DTYPE] != MLIP_DT_FP16;
  const size_t eb = q8 ? 1u : 2u;
  const uint8_t* in = ocm + w[MLIP_POOL_IN];
  uint8_t* out = ocm + w[MLIP_POOL_OUT];
  const uint8_t* table = NULL;
  const int64_t in_h = w[MLIP_POOL_IN_H], in_w = w[MLIP_POOL_IN_W];
  const size_t ch = w[MLIP_POOL_C];
  const size_t out_h = w[MLIP_POOL_OUT_H], out_w = w[MLIP_POOL_OUT_W];
  const int64_t kh_n = w[MLIP_POOL_KH], kw_n = w[MLIP_POOL_KW];
  const int64_t sh = w[MLIP_POOL_STRIDE_H], sw = w[MLIP_POOL_STRIDE_W];
  const int64_t pt = w[MLIP_POOL_PAD_TOP], pl = w[MLIP_POOL_PAD_LEFT];
  const int64_t dh = (int64_t)w[MLIP_POOL_GAP_H] + 1, dw = (int64_t)w[MLIP_POOL_GAP_W] + 1;
  const int include_pad = w[MLIP_POOL_COUNT_INCLUDE_PAD] != 0u;
  const int64_t p_top = mlip_sim_as_i32(w[MLIP_POOL_PADDED_TOP]), p_bottom = mlip_sim_as_i32(w[MLIP_POOL_PADDED_BOTTOM]);
  const int64_t p_left = mlip_sim_as_i32(w[MLIP_POOL_PADDED_LEFT]), p_right = mlip_sim_as_i32(w[MLIP_POOL_PADDED_RIGHT]);
  size_t oh, ow, cc;
  (void)env; /* works in the tile's OCM only */
  if (q8 && c->opcode == MLIP_OP_AVGPOOL) {
    /* The table is data: every entry checked before anything is written. */
    const uint64_t taps = (uint64_t)kh_n * (uint64_t)kw_n;
    uint64_t n;
    table = ocm + w[MLIP_POOL_TABLE];
    for (n = 0; n <= taps; ++n) {
      if (!mlip_sim_q8_requant_ok(table_word(table, n, 0), table_word(table, n, 1), MLIP_REQUANT_MAX_SHIFT)) {
        return MLIP_ERR_INVALID_ARG;
      }
    }
  }
  for (oh = 0; oh < out_h; ++oh) {
    const int64_t base_h = (int64_t)oh * sh - pt;
    int64_t k[4];
    window_range(base_h, kh_n, dh, 0, in_h, &k[0], &k[1]);
    for (ow = 0; ow < out_w; ++ow) {
      const int64_t base_w = (int64_t)ow * sw - pl;
      uint64_t count;
      window_range(base_w, kw_n, dw, 0, in_w, &k[2], &k[3]);
      if (include_pad) {
        int64_t a0, a1, b0, b1;
        window_range(base_h, kh_n, dh, p_top, p_bottom, &a0, &a1);
        window_range(base_w, kw_n, dw, p_left, p_right, &b0, &b1);
        count = (uint64_t)(a1 - a0) * (uint64_t)(b1 - b0);
      } else {
        count = (uint64_t)(k[1] - k[0]) * (uint64_t)(k[3] - k[2]);
      }
      for (cc = 0; cc < ch; ++cc) {
        uint8_t* o = out + ((oh * out_w + ow) * ch + cc) * eb;
        if (q8) {
          mlip_sim_q8_store(o, window_q8(c, in, (size_t)in_w, ch, cc, base_h, base_w, k, dh, dw, count, table));
        } else {
          mlip_sim_st16(o, window_f16(c, in, (size_t)in_w, ch, cc, base_h, base_w, k, dh, dw, count));
        }
      }
    }
  }
  return MLIP_OK;
}
