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
  /* mode 1: gamma holds a divisor for each of the 256 quantized variances */
  const uint64_t plen = q8 && a->mode ? 256u * 4u : mlip_sim_sat_mul(a->len, 4u);
  /* 8-bit: positive finite scales (data the compiler copied from the
     model's constants); mode 0 reads both gamma and beta, mode 1 the
     divisors alone (and the variance's scale). */
  if (q8 && (!(a->x_scale > 0.0f) || !(a->y_scale > 0.0f) || a->x_scale > 3.4e38f || a->y_scale > 3.4e38f)) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (q8 && (a->mode ? a->gamma == MLIP_NO_OFFSET || a->beta != MLIP_NO_OFFSET || !(a->v_scale > 0.0f) ||
                           a->v_scale > 3.4e38f
                     : a->gamma == MLIP_NO_OFFSET || a->beta == MLIP_NO_OFFSET)) {
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
/* Element i of a row: a half, or an 8-bit value dequantized. */
typedef float (*norm_load)(const mlip_norm_args* a, const uint8_t* x, size_t i);
static float norm_f16(const mlip_norm_args* a, const uint8_t* x, size_t i) {
  (void)a;
  return mlip_sim_h2f(mlip_sim_ld16(x + i * 2u));
}
static float norm_q8(const mlip_norm_args* a, const uint8_t* x, size_t i) {
  return (float)(mlip_sim_q8_value(x[i], mlip_sim_q8_sign(a->dtype)) - a->x_zp) * a->x_scale;
}

/* A row's mean and inv, then y_i = ((x_i - mean) * inv) * gamma_i + beta_i,
   each step one fp32 operation in the order above (both forms). */
typedef struct {
  float mean, inv;
} norm_row;
static norm_row norm_stats(const mlip_norm_args* a, const uint8_t* x, norm_load ld) {
  const float n = (float)a->len;
  norm_row r;
  float sum = 0.0f, sq = 0.0f;
  size_t i;
  for (i = 0; i < a->len; ++i) {
    sum = sum + ld(a, x, i);
  }
  r.mean = sum / n;
  for (i = 0; i < a->len; ++i) {
    const float c = ld(a, x, i) - r.mean;
    const float c2 = c * c;
    sq = sq + c2;
  }
  r.inv = sq / n;
  r.inv = r.inv + a->eps;
  r.inv = 1.0f / mlip_sqrtf(r.inv);
  return r;
}
static float norm_value(const mlip_norm_args* a, const uint8_t* ocm, const uint8_t* x, norm_load ld, norm_row r,
                        size_t i) {
  float t = ld(a, x, i) - r.mean;
  t = t * r.inv;
  if (a->gamma != MLIP_NO_OFFSET) {
    t = t * mlip_sim_ldf(ocm + a->gamma + i * 4u);
  }
  if (a->beta != MLIP_NO_OFFSET) {
    t = t + mlip_sim_ldf(ocm + a->beta + i * 4u);
  }
  return t;
}

/* 8-bit mode 1 (docs/mlip-spec.md 4a): the CPU's int8 build of the opset-13
   decomposition in onnxruntime's layout, kernel by kernel: DequantizeLinear,
   ReduceMean (sum in order from 0, one division), Sub, Pow 2 (mlip_powf,
   the Pow kernel's), ReduceMean, QuantizeLinear of the variance; the
   integer and float steps from the quantized variance to the divisor (an
   Add of the quantized epsilon, DequantizeLinear, Sqrt) are the compiler's
   table of 256 divisors; then Div and QuantizeLinear. */
static void norm_q8_decomposed(const mlip_norm_args* a, uint8_t* ocm, const uint8_t* x, uint8_t* y, int32_t lo,
                               int32_t hi) {
  const float n = (float)a->len;
  float sum = 0.0f, sq = 0.0f, mean, var, den;
  size_t i;
  for (i = 0; i < a->len; ++i) {
    sum = sum + norm_q8(a, x, i);
  }
  mean = sum / n;
  for (i = 0; i < a->len; ++i) {
    const float c = norm_q8(a, x, i) - mean;
    sq = sq + mlip_powf(c, 2.0f);
  }
  var = sq / n;
  den = mlip_sim_ldf(ocm + a->gamma + (size_t)(mlip_sim_q8_quantize(var, a->v_scale, a->v_zp, lo, hi) - lo) * 4u);
  for (i = 0; i < a->len; ++i) {
    const float t = (norm_q8(a, x, i) - mean) / den;
    mlip_sim_q8_store(y + i, mlip_sim_q8_quantize(t, a->y_scale, a->y_zp, lo, hi));
  }
}

mlip_status mlip_sim_exec_norm(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_norm_args* a = &d->u.norm;
  const int q8 = a->dtype != MLIP_DT_FP16;
  const size_t eb = q8 ? 1u : 2u, len = a->len;
  const norm_load ld = q8 ? norm_q8 : norm_f16;
  const int32_t lo = q8 ? mlip_sim_q8_lo(a->dtype) : 0, hi = q8 ? mlip_sim_q8_hi(a->dtype) : 0;
  size_t r, i;
  (void)env; /* works in the tile's OCM only */
  for (r = 0; r < a->rows; ++r) {
    const uint8_t* x = ocm + a->in + r * len * eb;
    uint8_t* y = ocm + a->out + r * len * eb;
    norm_row st;
    if (q8 && a->mode) {
      norm_q8_decomposed(a, ocm, x, y, lo, hi);
      continue;
    }
    st = norm_stats(a, x, ld);
    for (i = 0; i < len; ++i) {
      const float t = norm_value(a, ocm, x, ld, st, i);
      if (q8) {
        /* NaN (epsilon 0 and a constant row: 0 * inf) gives the zero point */
        mlip_sim_q8_store(y + i, mlip_sim_q8_quantize(t, a->y_scale, a->y_zp, lo, hi));
      } else {
        mlip_sim_st16(y + i * 2u, mlip_sim_round_result(t));
      }
    }
  }
  return MLIP_OK;
}
