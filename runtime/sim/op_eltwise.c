/* ELTWISE: a binary function of a full-size operand and a cycled one (equal
 * shapes, one value per channel, or a scalar), with a fused activation;
 * the 8-bit MUL's words and arithmetic are op_int8.c's, its operands'
 * bounds these.
 * Its validation rule (docs/command-buffer.md) and its executor
 * (docs/mlip-spec.md); the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_eltwise(const mlip_sim_view* v, uint32_t section, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  const int q8 = w[MLIP_DTYPE] != MLIP_DT_FP16; /* an 8-bit type: mlip_sim_check_dtype checked which */
  const uint64_t eb = q8 ? 1u : 2u;
  const uint64_t len = (uint64_t)w[MLIP_ELT_COUNT] * eb;
  const uint64_t b_len = (uint64_t)w[MLIP_ELT_B_LEN] * eb;
  if (w[MLIP_ELT_COUNT] < 1u || w[MLIP_ELT_B_LEN] < 1u ||
      w[MLIP_ELT_B_BASE] >= w[MLIP_ELT_B_LEN] || w[MLIP_ELT_FUNC] < (uint32_t)MLIP_ELT_ADD ||
      w[MLIP_ELT_FUNC] >= (uint32_t)MLIP_ELT_COUNT_ || !mlip_sim_act_ok(w[MLIP_ELT_ACT]) ||
      (q8 && !mlip_sim_eltwise_q8_words_ok(c))) {
    return MLIP_ERR_INVALID_ARG;
  }
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_ELT_A], len));
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_ELT_B], b_len));
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_ELT_OUT], len));
  if (mlip_sim_overlaps(w[MLIP_ELT_OUT], len, w[MLIP_ELT_A], len) ||
      mlip_sim_overlaps(w[MLIP_ELT_OUT], len, w[MLIP_ELT_B], b_len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, w[MLIP_ELT_OUT], len);
}

/* f(a, b) in fp32 (docs/mlip-spec.md section 4). */
static float eltwise_fn(uint32_t fn, float a, float b) {
  switch (fn) {
    case MLIP_ELT_ADD: return a + b;
    case MLIP_ELT_SUB: return a - b;
    case MLIP_ELT_RSUB: return b - a;
    case MLIP_ELT_MUL: return a * b;
    case MLIP_ELT_MAX:
      if (a != a || b != b) {
        return mlip_sim_bits_to_float(0x7FC00000u); /* a NaN operand gives NaN */
      }
      return a > b ? a : b; /* -0 and +0: b */
    case MLIP_ELT_MIN:
      if (a != a || b != b) {
        return mlip_sim_bits_to_float(0x7FC00000u);
      }
      return a < b ? a : b;
    case MLIP_ELT_PRELU: return a < 0.0f ? a * b : a;
    default: return a;
  }
}

mlip_status mlip_sim_exec_eltwise(const mlip_sim_env* env, uint8_t* ocm, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  if (w[MLIP_DTYPE] != MLIP_DT_FP16) {
    return mlip_sim_exec_eltwise_q8(env, ocm, c); /* op_int8.c */
  }
  const uint8_t* a = ocm + w[MLIP_ELT_A];
  const uint8_t* b = ocm + w[MLIP_ELT_B];
  uint8_t* out = ocm + w[MLIP_ELT_OUT];
  const size_t n = w[MLIP_ELT_COUNT], b_len = w[MLIP_ELT_B_LEN];
  size_t i, j = w[MLIP_ELT_B_BASE];
  (void)env; /* works in the tile's OCM only */
  for (i = 0; i < n; ++i) {
    float r = eltwise_fn(w[MLIP_ELT_FUNC], mlip_sim_h2f(mlip_sim_ld16(a + i * 2u)), mlip_sim_h2f(mlip_sim_ld16(b + j * 2u)));
    r = mlip_sim_apply_act(r, w[MLIP_ELT_ACT], w[MLIP_ELT_ACT_LO], w[MLIP_ELT_ACT_HI]);
    mlip_sim_st16(out + i * 2u, mlip_sim_round_result(r));
    j = j + 1u == b_len ? 0u : j + 1u;
  }
  return MLIP_OK;
}
