/* ADD: element-wise sum with a fused activation (fp16), or of two 8-bit
 * tensors requantized (op_int8.c executes that form; one validator here).
 * Its validation rule (docs/command-buffer.md) and its executor
 * (docs/mlip-spec.md); the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_add(const mlip_sim_view* v, uint32_t section, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  const int q8 = w[MLIP_DTYPE] != MLIP_DT_FP16; /* an 8-bit type: mlip_sim_check_dtype checked which */
  const uint64_t len = (uint64_t)w[MLIP_ADD_COUNT] * (q8 ? 1u : 2u);
  if (w[MLIP_ADD_COUNT] < 1u || !mlip_sim_act_ok(w[MLIP_ADD_ACT]) || (q8 && !mlip_sim_add_q8_words_ok(c))) {
    return MLIP_ERR_INVALID_ARG;
  }
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_ADD_A], len));
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_ADD_B], len));
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_ADD_OUT], len));
  if (mlip_sim_overlaps(w[MLIP_ADD_OUT], len, w[MLIP_ADD_A], len) ||
      mlip_sim_overlaps(w[MLIP_ADD_OUT], len, w[MLIP_ADD_B], len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, w[MLIP_ADD_OUT], len);
}

mlip_status mlip_sim_exec_add(const mlip_sim_env* env, uint8_t* ocm, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  if (w[MLIP_DTYPE] != MLIP_DT_FP16) {
    return mlip_sim_exec_add_q8(env, ocm, c); /* op_int8.c */
  }
  const uint8_t* a = ocm + w[MLIP_ADD_A];
  const uint8_t* b = ocm + w[MLIP_ADD_B];
  uint8_t* out = ocm + w[MLIP_ADD_OUT];
  const size_t n = w[MLIP_ADD_COUNT];
  size_t i;
  (void)env; /* works in the tile's OCM only */
  for (i = 0; i < n; ++i) {
    float s = mlip_sim_h2f(mlip_sim_ld16(a + i * 2u)) + mlip_sim_h2f(mlip_sim_ld16(b + i * 2u));
    s = mlip_sim_apply_act(s, w[MLIP_ADD_ACT], w[MLIP_ADD_ACT_LO], w[MLIP_ADD_ACT_HI]);
    mlip_sim_st16(out + i * 2u, mlip_sim_round_result(s));
  }
  return MLIP_OK;
}
