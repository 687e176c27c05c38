/* NORM: LayerNormalization of each row of halves, fp32 statistics, an
 * optional fp32 scale and shift per column (operands: MLIP_FIELDS_norm,
 * mlip/cmd_table.h; fp16 only). Its validation rule
 * (docs/command-buffer.md) and its executor (docs/mlip-spec.md section 4);
 * the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_norm(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_norm_args* a = &d->u.norm;
  const uint64_t len = mlip_sim_mul3(a->rows, a->len, 2u);
  const uint64_t plen = mlip_sim_sat_mul(a->len, 4u);
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
