/* MAXPOOL and AVGPOOL on an NHWC block, fp16, 8-bit and 16x8 (operands:
 * MLIP_FIELDS_pool, mlip/cmd_table.h).
 * Its validation rule (docs/command-buffer.md) and its executor
 * (docs/mlip-spec.md sections 4 and 4a); the opcode table (opcodes.c) names
 * both. The element types share the words of the window, their checks,
 * and each window's taps and count; they differ in the arithmetic of a
 * window only (fp32 sum and one division, or an integer sum requantized by
 * the entry of the window's count: int32 and mlip_requantize for 8 bits,
 * int64 and mlip_requantize64 for int16, as the CPU's QLinearAveragePool
 * kernel). */
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

mlip_status mlip_sim_check_pool(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_pool_args* a = &d->u.pool;
  const int q8 = a->dtype != MLIP_DT_FP16; /* an integer type: the element type's rule checked which */
  /* int16 (16x8) and fp16: two bytes */
  const uint64_t eb = q8 && a->dtype != MLIP_DT_INT16 ? 1u : 2u;
  const uint64_t in_len = mlip_sim_mul4(a->in_h, a->in_w, a->c, eb);
  const uint64_t out_len = mlip_sim_mul4(a->out_h, a->out_w, a->c, eb);
  MLIP_TRY(mlip_sim_check_ocm(v, a->in, in_len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->out, out_len));
  if (mlip_sim_overlaps(a->out, out_len, a->in, in_len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (q8 && d->opcode == MLIP_OP_AVGPOOL) {
    /* The 8-bit AVGPOOL's sum of at most 8421504 taps of at most 255 cannot
       overflow int32 (16x8's int64 sum of as many taps of at most 2^16 is
       far inside mlip_requantize64's 2^62, and the table's size takes the
       same bound); its clamp is ordered; its table of kh * kw + 1
       requantization pairs lies in OCM, apart from the output. */
    const uint64_t taps = (uint64_t)a->kh * a->kw; /* both below 2^32 */
    const uint64_t t_len = (taps + 1u) * MLIP_POOL_TABLE_ENTRY_BYTES;
    if (taps > MLIP_INT8_MAX_POOL_HW || a->lo > a->hi) {
      return MLIP_ERR_INVALID_ARG;
    }
    MLIP_TRY(mlip_sim_check_ocm(v, a->table, t_len));
    if (mlip_sim_overlaps(a->out, out_len, a->table, t_len)) {
      return MLIP_ERR_INVALID_ARG;
    }
  }
  return mlip_sim_check_write(v, section, a->out, out_len);
}

/* Table entry n's word k (0 q, 1 shift). */
static uint32_t table_word(const uint8_t* table, uint64_t n, size_t k) {
  uint32_t u;
  memcpy(&u, table + (size_t)n * MLIP_POOL_TABLE_ENTRY_BYTES + k * 4u, sizeof u);
  return u;
}

/* One window of an fp16 pool: the maximum, or the fp32 sum over the count. */
static uint16_t window_f16(const mlip_pool_args* a, int is_max, const uint8_t* in, size_t in_w, size_t ch, size_t cc,
                           int64_t base_h, int64_t base_w, const int64_t k[4], int64_t dh, int64_t dw, uint64_t count) {
  float r = is_max ? mlip_sim_neg_inf() : 0.0f;
  int64_t kh, kw;
  for (kh = k[0]; kh < k[1]; ++kh) {
    const size_t ih = (size_t)(base_h + kh * dh);
    for (kw = k[2]; kw < k[3]; ++kw) {
      const size_t iw = (size_t)(base_w + kw * dw);
      const float x = mlip_sim_h2f(mlip_sim_ld16(in + ((ih * in_w + iw) * ch + cc) * 2u));
      if (is_max) {
        if (x > r || x != x) {
          r = x; /* ties keep the first; a NaN wins over any number */
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
  /* A maximum is a half, a NaN or -inf: exact (a NaN's bits are made
   * 0x7E00 by the rounding, as every NaN result's). */
  r = mlip_sim_apply_act(r, a->act, a->act_lo, a->act_hi);
  return mlip_sim_round_result(r);
}

/* One window of an integer pool: the largest integer (the type's minimum
 * for a window with no tap in the block), or the sum of x - x_zp
 * requantized by the table's entry for the count. 8 bits: an int32 sum and
 * mlip_requantize; 16x8 (int16, two bytes an element): an int64 sum and
 * mlip_requantize64 (equal to mlip_requantize while the sum is within
 * int32), as qlinear_averagepool.c's int16 form. */
static int32_t window_q8(const mlip_pool_args* a, int is_max, const uint8_t* in, size_t in_w, size_t ch, size_t cc,
                         int64_t base_h, int64_t base_w, const int64_t k[4], int64_t dh, int64_t dw, uint64_t count,
                         const uint8_t* table) {
  const uint32_t dt = a->dtype;
  const int wide = dt == MLIP_DT_INT16;
  const int32_t zx = a->x_zp;
  int64_t r = is_max ? mlip_sim_q8_lo(dt) : 0; /* 8 bits: at most 8421504 terms of at most 255, within int32 */
  int64_t kh, kw;
  for (kh = k[0]; kh < k[1]; ++kh) {
    const size_t ih = (size_t)(base_h + kh * dh);
    for (kw = k[2]; kw < k[3]; ++kw) {
      const size_t iw = (size_t)(base_w + kw * dw);
      const size_t at = (ih * in_w + iw) * ch + cc;
      const int32_t x = wide ? mlip_sim_i16_load(in + at * 2u) : mlip_sim_q8_load(dt, in + at);
      if (is_max) {
        r = x > r ? x : r;
      } else {
        r += x - zx;
      }
    }
  }
  if (is_max) {
    return (int32_t)r;
  }
  {
    const int32_t q = mlip_sim_as_i32(table_word(table, count, 0)), shift = mlip_sim_as_i32(table_word(table, count, 1));
    return wide ? mlip_requantize64(r, q, shift, a->y_zp, a->lo, a->hi)
                : mlip_requantize((int32_t)r, q, shift, a->y_zp, a->lo, a->hi);
  }
}

mlip_status mlip_sim_exec_pool(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_pool_args* a = &d->u.pool;
  const int is_max = d->opcode == MLIP_OP_MAXPOOL;
  const int q8 = a->dtype != MLIP_DT_FP16;
  const int wide = a->dtype == MLIP_DT_INT16; /* 16x8 */
  const size_t eb = q8 && !wide ? 1u : 2u;
  const uint8_t* in = ocm + a->in;
  uint8_t* out = ocm + a->out;
  const uint8_t* table = NULL;
  const int64_t in_h = a->in_h, in_w = a->in_w;
  const size_t ch = a->c;
  const size_t out_h = a->out_h, out_w = a->out_w;
  const int64_t kh_n = a->kh, kw_n = a->kw;
  const int64_t sh = a->stride_h, sw = a->stride_w;
  const int64_t pt = a->pad_top, pl = a->pad_left;
  const int64_t dh = (int64_t)a->gap_h + 1, dw = (int64_t)a->gap_w + 1;
  const int include_pad = a->count_include_pad != 0u;
  const int64_t p_top = a->padded_top, p_bottom = a->padded_bottom;
  const int64_t p_left = a->padded_left, p_right = a->padded_right;
  size_t oh, ow, cc;
  (void)env; /* works in the tile's OCM only */
  if (q8 && !is_max) {
    /* The table is data: every entry checked before anything is written. */
    const uint64_t taps = (uint64_t)kh_n * (uint64_t)kw_n;
    uint64_t n;
    table = ocm + a->table;
    /* Entry 0 (no window has count 0) is the fixed-point (0, 0) in either
       arithmetic: an ORT table's is not read. */
    for (n = a->requant == MLIP_REQUANT_ORT ? 1u : 0u; n <= taps; ++n) {
      if (!mlip_sim_q8_requant_ok(table_word(table, n, 0), table_word(table, n, 1), MLIP_REQUANT_MAX_SHIFT,
                                  a->requant)) {
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
        if (wide) {
          mlip_sim_i16_store(o, window_q8(a, is_max, in, (size_t)in_w, ch, cc, base_h, base_w, k, dh, dw, count, table));
        } else if (q8) {
          mlip_sim_q8_store(o, window_q8(a, is_max, in, (size_t)in_w, ch, cc, base_h, base_w, k, dh, dw, count, table));
        } else {
          mlip_sim_st16(o, window_f16(a, is_max, in, (size_t)in_w, ch, cc, base_h, base_w, k, dh, dw, count));
        }
      }
    }
  }
  return MLIP_OK;
}
