/* MATMUL: batched matrix products of row-major blocks, B shared (constant
 * weights) or one per product, B stored transposed or not, scaled, with a
 * bias per column and a fused activation; or the 8-bit product of two
 * computed operands (16x8: int16 A, int16 or int8 B, an int64 sum),
 * requantized by one record per column (operands:
 * MLIP_FIELDS_matmul, mlip/cmd_table.h). Its validation rule
 * (docs/command-buffer.md) and its executors (docs/mlip-spec.md sections 4
 * and 4a); the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_matmul(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_matmul_args* a = &d->u.matmul;
  /* 8-bit (the element type's rule checked which): one-byte elements, a
     requantization record per column at bias (PIN_OPT: required), k within
     MLIP_INT8_MAX_TAPS: 33025 products of at most 255 * 255 (both operands
     less their zero points) stay within int32; the clamp ordered. */
  const int q8 = a->dtype != MLIP_DT_FP16;
  /* 16x8 (int16, docs/mlip-spec.md 4a): A and the output two bytes, B two
     (b_int16: computed) or one (int8 weights), 16-byte records; the k bound
     keeps the int64 sum of products below 2^30 far inside 2^62. */
  const int wide = a->dtype == MLIP_DT_INT16;
  const uint64_t eb = q8 && !wide ? 1u : 2u, beb = wide ? (a->b_int16 ? 2u : 1u) : eb;
  const uint64_t bb = wide ? MLIP_REQUANT16_RECORD_BYTES : (q8 ? MLIP_REQUANT_RECORD_BYTES : 4u);
  const uint64_t a_len = mlip_sim_mul4(a->batch, a->m, a->k, eb);
  const uint64_t b_len = mlip_sim_mul4(a->b_shared ? 1u : a->batch, a->k, a->n, beb);
  const uint64_t out_len = mlip_sim_mul4(a->batch, a->m, a->n, eb);
  const uint64_t bias_len = mlip_sim_sat_mul(a->n, bb);
  const int has_bias = a->bias != MLIP_NO_OFFSET;
  if (q8 && (a->k > MLIP_INT8_MAX_TAPS || a->clamp_lo > a->clamp_hi || (!wide && a->b_int16 != 0u))) {
    return MLIP_ERR_INVALID_ARG;
  }
  MLIP_TRY(mlip_sim_check_ocm(v, a->a, a_len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->b, b_len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->out, out_len));
  if (has_bias) {
    MLIP_TRY(mlip_sim_check_ocm(v, a->bias, bias_len));
  }
  if (mlip_sim_overlaps(a->out, out_len, a->a, a_len) || mlip_sim_overlaps(a->out, out_len, a->b, b_len) ||
      (has_bias && mlip_sim_overlaps(a->out, out_len, a->bias, bias_len))) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, a->out, out_len);
}

/* Element (kk, j) of product t's B: its offset in elements. */
static size_t matmul_b_index(const mlip_matmul_args* a, size_t t, size_t kk, size_t j) {
  const size_t base = a->b_shared ? 0u : t * (size_t)a->k * (size_t)a->n;
  return base + (a->trans_b ? j * (size_t)a->k + kk : kk * (size_t)a->n + j);
}

/* 8-bit (docs/mlip-spec.md 4a): each output the int32 sum of (a - a_zp) *
   (b - b_zp) over k, then its column's record: bias, requantization,
   y_zp, clamp (mlip/requant.h: the arithmetic of the CPU's QLinearMatMul,
   templates/kernels/matmul_integer.c, so the bits are its). */
static mlip_status matmul_q8(const mlip_matmul_args* a, uint8_t* ocm) {
  const uint8_t* x = ocm + a->a;
  const uint8_t* w = ocm + a->b;
  const uint8_t* rec = ocm + a->bias;
  uint8_t* out = ocm + a->out;
  const int32_t sg = mlip_sim_q8_sign(a->dtype);
  const size_t batch = a->batch, m = a->m, k = a->k, n = a->n;
  size_t t, i, j, kk;
  if (!mlip_sim_q8_records_ok(rec, n, a->requant)) {
    return MLIP_ERR_INVALID_ARG;
  }
  for (t = 0; t < batch; ++t) {
    for (i = 0; i < m; ++i) {
      const uint8_t* xr = x + (t * m + i) * k;
      for (j = 0; j < n; ++j) {
        int32_t acc = 0; /* k <= MLIP_INT8_MAX_TAPS: no overflow (the check) */
        for (kk = 0; kk < k; ++kk) {
          acc += (mlip_sim_q8_value(xr[kk], sg) - a->a_zp) *
                 (mlip_sim_q8_value(w[matmul_b_index(a, t, kk, j)], sg) - a->b_zp);
        }
        mlip_sim_q8_store_requantized(out + (t * m + i) * n + j, acc, rec, j, a->y_zp, a->clamp_lo, a->clamp_hi);
      }
    }
  }
  return MLIP_OK;
}

/* 16x8 (docs/mlip-spec.md 4a): each output the int64 sum of a * b over k
   (A int16, B int16 or int8 by b_int16; zero points 0), plus record j's
   int64 bias, mlip_requantize64 into [lo, hi]: the CPU's QLinearMatMul in
   its 16x8 form (templates/kernels/matmul_integer.c, an int64 sum), so its
   bits. */
static mlip_status matmul_q16(const mlip_matmul_args* a, uint8_t* ocm) {
  const uint8_t* x = ocm + a->a;
  const uint8_t* w = ocm + a->b;
  const uint8_t* rec = ocm + a->bias;
  uint8_t* out = ocm + a->out;
  const size_t batch = a->batch, m = a->m, k = a->k, n = a->n;
  size_t t, i, j, kk;
  if (!mlip_sim_q16_records_ok(rec, n, a->requant)) {
    return MLIP_ERR_INVALID_ARG;
  }
  for (t = 0; t < batch; ++t) {
    for (i = 0; i < m; ++i) {
      const uint8_t* xr = x + (t * m + i) * k * 2u;
      for (j = 0; j < n; ++j) {
        int64_t acc = 0; /* k <= MLIP_INT8_MAX_TAPS products below 2^30 */
        for (kk = 0; kk < k; ++kk) {
          const size_t bi = matmul_b_index(a, t, kk, j);
          const int32_t bv = a->b_int16 ? mlip_sim_i16_load(w + bi * 2u) : mlip_sim_q8_value(w[bi], 0x80);
          acc += (int64_t)mlip_sim_i16_load(xr + kk * 2u) * bv;
        }
        mlip_sim_q16_store_requantized(out + ((t * m + i) * n + j) * 2u, acc, rec, j, a->clamp_lo, a->clamp_hi);
      }
    }
  }
  return MLIP_OK;
}

mlip_status mlip_sim_exec_matmul(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_matmul_args* a = &d->u.matmul;
  const uint8_t* x = ocm + a->a;
  const uint8_t* w = ocm + a->b;
  const uint8_t* bias = a->bias != MLIP_NO_OFFSET ? ocm + a->bias : NULL;
  uint8_t* out = ocm + a->out;
  const size_t batch = a->batch, m = a->m, k = a->k, n = a->n;
  size_t t, i, j, kk;
  (void)env; /* works in the tile's OCM only */
  if (a->dtype == MLIP_DT_INT16) {
    return matmul_q16(a, ocm);
  }
  if (a->dtype != MLIP_DT_FP16) {
    return matmul_q8(a, ocm);
  }
  for (t = 0; t < batch; ++t) {
    for (i = 0; i < m; ++i) {
      const uint8_t* xr = x + (t * m + i) * k * 2u;
      for (j = 0; j < n; ++j) {
        float acc = 0.0f;
        for (kk = 0; kk < k; ++kk) {
          const float p = mlip_sim_h2f(mlip_sim_ld16(xr + kk * 2u)) *
                          mlip_sim_h2f(mlip_sim_ld16(w + matmul_b_index(a, t, kk, j) * 2u));
          acc = acc + p;
        }
        acc = acc * a->alpha;
        if (bias != NULL) {
          acc = acc + mlip_sim_ldf(bias + j * 4u);
        }
        acc = mlip_sim_apply_act(acc, a->act, a->act_lo, a->act_hi);
        mlip_sim_st16(out + ((t * m + i) * n + j) * 2u, mlip_sim_round_result(acc));
      }
    }
  }
  return MLIP_OK;
}
