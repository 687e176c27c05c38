/* TABLE: an 8-bit tensor through a 256-entry lookup table (int8 buffers
 * only; operands: MLIP_FIELDS_table, mlip/cmd_table.h): the compiler fills
 * the table with what the CPU's int8 kernel computes for each input value
 * (a Sigmoid, Tanh, HardSwish, ... of the dequantized input, requantized;
 * passes/fold_qdq makes it once for both), so the command is exact by
 * construction. Its 16x8 form: an int16 tensor through 513 int16 knots
 * interpolated (mlip/lut16.h, the function of the CPU's 16x8 lookup kernel,
 * templates/kernels/qlinear_lookup16.c), so the CPU's bits too. Its
 * validation rule (docs/command-buffer.md) and its executor
 * (docs/mlip-spec.md 4a); the opcode table (opcodes.c) names both. */
#include "mlip/lut16.h"
#include "sim_internal.h"

mlip_status mlip_sim_check_table(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_table_args* a = &d->u.table;
  /* int16: two bytes per element, the 513 knots */
  const int wide = a->dtype == MLIP_DT_INT16;
  const uint64_t len = (uint64_t)a->count * (wide ? 2u : 1u);
  const uint64_t tlen = wide ? MLIP_TABLE16_BYTES : MLIP_TABLE_BYTES;
  MLIP_TRY(mlip_sim_check_ocm(v, a->in, len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->out, len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->table, tlen));
  /* In place is allowed (each element is read before it is written); any
     other overlap would read results, and the table is never written. */
  if ((a->out != a->in && mlip_sim_overlaps(a->out, len, a->in, len)) ||
      mlip_sim_overlaps(a->out, len, a->table, tlen)) {
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
  if (dt == MLIP_DT_INT16) { /* the knots of x's segment, interpolated */
    for (i = 0; i < n; ++i) {
      const int32_t x = mlip_sim_i16_load(in + i * 2u);
      const size_t k = (size_t)mlip_lut16_segment(x);
      mlip_sim_i16_store(out + i * 2u, mlip_lut16_between(x, mlip_sim_i16_load(table + k * 2u),
                                                          mlip_sim_i16_load(table + k * 2u + 2u)));
    }
    return MLIP_OK;
  }
  for (i = 0; i < n; ++i) {
    out[i] = table[mlip_sim_q8_load(dt, in + i) - mlip_sim_q8_lo(dt)]; /* an index in [0, 255] */
  }
  return MLIP_OK;
}
