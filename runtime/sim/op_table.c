/* TABLE: an 8-bit tensor through a 256-entry lookup table (int8 buffers
 * only): the compiler fills the table with what the CPU's int8 kernel
 * computes for each input value (a Sigmoid, Tanh, HardSwish, ... of the
 * dequantized input, requantized; passes/fold_qdq makes it once for both),
 * so the command is exact by construction. Its validation rule
 * (docs/command-buffer.md) and its executor (docs/mlip-spec.md 4a); the
 * opcode table (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_table(const mlip_sim_view* v, uint32_t section, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  const uint64_t len = w[MLIP_TBL_COUNT];
  if (len < 1u) {
    return MLIP_ERR_INVALID_ARG;
  }
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_TBL_IN], len));
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_TBL_OUT], len));
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_TBL_TABLE], MLIP_TABLE_BYTES));
  /* In place is allowed (each element is read before it is written); any
     other overlap would read results, and the table is never written. */
  if ((w[MLIP_TBL_OUT] != w[MLIP_TBL_IN] && mlip_sim_overlaps(w[MLIP_TBL_OUT], len, w[MLIP_TBL_IN], len)) ||
      mlip_sim_overlaps(w[MLIP_TBL_OUT], len, w[MLIP_TBL_TABLE], MLIP_TABLE_BYTES)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, w[MLIP_TBL_OUT], len);
}

mlip_status mlip_sim_exec_table(const mlip_sim_env* env, uint8_t* ocm, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  const uint32_t dt = w[MLIP_DTYPE];
  const uint8_t* in = ocm + w[MLIP_TBL_IN];
  uint8_t* out = ocm + w[MLIP_TBL_OUT];
  const uint8_t* table = ocm + w[MLIP_TBL_TABLE];
  const size_t n = w[MLIP_TBL_COUNT];
  size_t i;
  (void)env; /* works in the tile's OCM only */
  for (i = 0; i < n; ++i) {
    out[i] = table[mlip_sim_q8_load(dt, in + i) - mlip_sim_q8_lo(dt)]; /* an index in [0, 255] */
  }
  return MLIP_OK;
}
