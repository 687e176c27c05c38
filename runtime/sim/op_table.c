/* TABLE: an 8-bit tensor through a 256-entry lookup table (int8 buffers
 * only; operands: MLIP_FIELDS_table, mlip/cmd_table.h): the compiler fills
 * the table with what the CPU's int8 kernel computes for each input value
 * (a Sigmoid, Tanh, HardSwish, ... of the dequantized input, requantized;
 * passes/fold_qdq makes it once for both), so the command is exact by
 * construction. Its validation rule (docs/command-buffer.md) and its
 * executor (docs/mlip-spec.md 4a); the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_table(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_table_args* a = &d->u.table;
  const uint64_t len = a->count;
  MLIP_TRY(mlip_sim_check_ocm(v, a->in, len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->out, len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->table, MLIP_TABLE_BYTES));
  /* In place is allowed (each element is read before it is written); any
     other overlap would read results, and the table is never written. */
  if ((a->out != a->in && mlip_sim_overlaps(a->out, len, a->in, len)) ||
      mlip_sim_overlaps(a->out, len, a->table, MLIP_TABLE_BYTES)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, a->out, len);
}

mlip_status mlip_sim_exec_table(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_table_args* a = &d->u.table;
  const uint32_t dt = a->dtype;
  const uint8_t* in = ocm + a->in;
  uint8_t* out = ocm + a->out;
  const uint8_t* table = ocm + a->table;
  const size_t n = a->count;
  size_t i;
  (void)env; /* works in the tile's OCM only */
  for (i = 0; i < n; ++i) {
    out[i] = table[mlip_sim_q8_load(dt, in + i) - mlip_sim_q8_lo(dt)]; /* an index in [0, 255] */
  }
  return MLIP_OK;
}
