/* NORM: LayerNormalization of each row of halves, fp32 statistics, an
 * optional fp32 scale and shift per column, or the 8-bit LayerNormalization
 * between a dequantization and a quantization (operands: MLIP_FIELDS_norm,
 * mlip/cmd_table.h). Its validation rule (docs/command-buffer.md) and its
 * executors (docs/mlip-spec.md sections 4 and 4a); the opcode table
 * (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_norm(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_norm_args* a = &d->u.norm;
  const int q8 = a->dtype != MLIP_DT_FP16;
  const uint64_t len = mlip_sim_mul3(a->rows, a->len, q8 ? 1u : 2u);
  const uint64_t plen = mlip_sim_sat_mul(a->len, 4u);
  /* 8-bit: positive finite scales (data the compiler copied from the
     model's constants). */
  if (q8 && (!(a->x_scale > 0.0f) || !(a->y_scale > 0.0f) || a->x_scale > 3.4e38f || a->y_scale > 3.4e38f)) {
    return MLIP_ERR_INVALID_ARG;
  }
  MLIP_TRY(mlip_sim_check_ocm(v, a->in, len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->out, len));
  if (a->gamma != MLIP_NO_OFFSET) {
    MLIP_TRY(mlip_sim_check_ocm(v, a->gamma, plen));
    if (mlip_sim_overlaps(a->out, len, a->gamma, plen)) {
      return MLIP_ERR_INVALID_ARG;
    }
  }
  if (a->beta != MLIP_NO_OFFSET) {
    MLIP_TRY(mlip_sim_check_ocm(v, a->beta, plen));
    if (mlip_sim_overlaps(a->out, len, a->beta, plen)) {
      return MLIP_ERR_INVALID_ARG;
    }
  }
  /* In place is allowed (a row's statistics are complete before any of it
     is written); any other overlap is not. */
  if (a->out != a->in && mlip_sim_overlaps(a->out, len, a->in, len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, a->out, len);
}

/* Per row (docs/mlip-spec.md section 4), each operation one fp32 step:
   mean = (sum of x in order) / len; var = (sum of (x - mean)^2 in order) /
   len; inv = 1 / mlip_sqrtf(var + eps); y = ((x - mean) * inv) * gamma +
   beta; one rounding. */
/* 8-bit (docs/mlip-spec.md 4a): the operations of the CPU's int8 build of
   DequantizeLinear, LayerNormalization, QuantizeLinear (templates/kernels
   dequantize_linear.c, normalize_rows.c, quantize_linear.c) in their order,
   each one IEEE binary32 operation (mlip_sqrtf is correctly rounded, as
   sqrtf), so the bytes are theirs: x = (float)(q - x_zp) * x_scale; the
   fp16 form's mean, variance, inv and ((x - mean) * inv) * gamma + beta;
   then v = y / y_scale rounded half to even plus y_zp, saturated (v first
   clamped to one past the range, which changes no result), NaN giving y_zp
   as QuantizeLinear's kernel does. A row's
   statistics are complete before it is written: in place is safe. */
static float norm_q8_x(const mlip_norm_args* a, const uint8_t* x, size_t i, int32_t sg) {
  return (float)(mlip_sim_q8_value(x[i], sg) - a->x_zp) * a->x_scale;
}

static mlip_status norm_q8(const mlip_norm_args* a, uint8_t* ocm) {
  const uint8_t* in = ocm + a->in;
  uint8_t* out = ocm + a->out;
  const uint8_t* gamma = a->gamma != MLIP_NO_OFFSET ? ocm + a->gamma : NULL;
  const uint8_t* beta = a->beta != MLIP_NO_OFFSET ? ocm + a->beta : NULL;
  const size_t rows = a->rows, len = a->len;
  const float n = (float)a->len;
  const int32_t sg = mlip_sim_q8_sign(a->dtype), lo = mlip_sim_q8_lo(a->dtype), hi = mlip_sim_q8_hi(a->dtype);
  const float vlo = (float)(lo - a->y_zp - 1), vhi = (float)(hi - a->y_zp + 1);
  size_t r, i;
  for (r = 0; r < rows; ++r) {
    const uint8_t* x = in + r * len;
    uint8_t* y = out + r * len;
    float sum = 0.0f, sq = 0.0f, mean, inv;
    for (i = 0; i < len; ++i) {
      sum = sum + norm_q8_x(a, x, i, sg);
    }
    mean = sum / n;
    for (i = 0; i < len; ++i) {
      const float c = norm_q8_x(a, x, i, sg) - mean;
      const float c2 = c * c;
      sq = sq + c2;
    }
    inv = sq / n;
    inv = inv + a->eps;
    inv = 1.0f / mlip_sqrtf(inv);
    for (i = 0; i < len; ++i) {
      float t = norm_q8_x(a, x, i, sg) - mean;
      int32_t q;
      t = t * inv;
      if (gamma != NULL) {
        t = t * mlip_sim_ldf(gamma + i * 4u);
      }
      if (beta != NULL) {
        t = t + mlip_sim_ldf(beta + i * 4u);
      }
      t = t / a->y_scale;
      t = t < vlo ? vlo : (t > vhi ? vhi : t);
      /* NaN (epsilon 0 and a constant row: 0 * inf) gives the zero point,
         as quantize_linear.c */
      q = t != t ? a->y_zp : (int32_t)mlip_round_half_even_f32(t) + a->y_zp;
      mlip_sim_q8_store(y + i, q < lo ? lo : (q > hi ? hi : q));
    }
  }
  return MLIP_OK;
}

mlip_status mlip_sim_exec_norm(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_norm_args* a = &d->u.norm;
  const uint8_t* in = ocm + a->in;
  uint8_t* out = ocm + a->out;
  const uint8_t* gamma = a->gamma != MLIP_NO_OFFSET ? ocm + a->gamma : NULL;
  const uint8_t* beta = a->beta != MLIP_NO_OFFSET ? ocm + a->beta : NULL;
  const size_t rows = a->rows, len = a->len;
  const float n = (float)a->len;
  size_t r, i;
  (void)env; /* works in the tile's OCM only */
  if (a->dtype != MLIP_DT_FP16) {
    return norm_q8(a, ocm);
  }
  for (r = 0; r < rows; ++r) {
    const uint8_t* x = in + r * len * 2u;
    uint8_t* y = out + r * len * 2u;
    float sum = 0.0f, sq = 0.0f, mean, inv;
    for (i = 0; i < len; ++i) {
      sum = sum + mlip_sim_h2f(mlip_sim_ld16(x + i * 2u));
    }
    mean = sum / n;
    for (i = 0; i < len; ++i) {
      const float c = mlip_sim_h2f(mlip_sim_ld16(x + i * 2u)) - mean;
      const float c2 = c * c;
      sq = sq + c2;
    }
    inv = sq / n;
    inv = inv + a->eps;
    inv = 1.0f / mlip_sqrtf(inv);
    for (i = 0; i < len; ++i) {
      float t = mlip_sim_h2f(mlip_sim_ld16(x + i * 2u)) - mean;
      t = t * inv;
      if (gamma != NULL) {
        t = t * mlip_sim_ldf(gamma + i * 4u);
      }
      if (beta != NULL) {
        t = t + mlip_sim_ldf(beta + i * 4u);
      }
      mlip_sim_st16(y + i * 2u, mlip_sim_round_result(t));
    }
  }
  return MLIP_OK;
}
