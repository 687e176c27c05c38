/* ACTIVATION: an activation on its own, element by element (operands:
 * MLIP_FIELDS_activation, mlip/cmd_table.h; fp16 only).
 * Its validation rule (docs/command-buffer.md) and its executor
 * (docs/mlip-spec.md); the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_activation(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_activation_args* a = &d->u.activation;
  const uint64_t len = (uint64_t)a->count * 2u;
  MLIP_TRY(mlip_sim_check_ocm(v, a->in, len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->out, len));
  /* In place is allowed (each element is read before it is written);
     any other overlap would read results. */
  if (a->out != a->in && mlip_sim_overlaps(a->out, len, a->in, len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, a->out, len);
}

mlip_status mlip_sim_exec_activation(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_activation_args* a = &d->u.activation;
  const uint8_t* in = ocm + a->in;
  uint8_t* out = ocm + a->out;
  const size_t n = a->count;
  size_t i;
  (void)env; /* works in the tile's OCM only */
  for (i = 0; i < n; ++i) {
    float x = mlip_sim_h2f(mlip_sim_ld16(in + i * 2u));
    x = mlip_sim_apply_act(x, a->act, a->act_lo, a->act_hi);
    mlip_sim_st16(out + i * 2u, mlip_sim_round_result(x));
  }
  return MLIP_OK;
}
