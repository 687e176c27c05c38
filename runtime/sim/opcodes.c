/* The opcode table: for every opcode of MLIP_OPCODES (mlip/cmd_table.h), its
 * validation rules and its executor, each format's pair in its own
 * op_<format>.c. A new opcode is a row and a table in mlip/cmd_table.h, its
 * op_<format>.c, and its work in the cycle model (cycle_model.c). */
#include "sim_internal.h"

/* BARRIER: every earlier command completes first. The simulator runs
 * commands in buffer order, so there is nothing to check or to do. */
mlip_status mlip_sim_check_barrier(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  (void)v;
  (void)section;
  (void)d;
  return MLIP_OK;
}

mlip_status mlip_sim_exec_barrier(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  (void)env;
  (void)ocm;
  (void)d;
  return MLIP_OK;
}

const mlip_sim_opcode* mlip_sim_opcode_of(uint32_t opcode) {
  /* Indexed by opcode; the rest (0 among them) stays {NULL, NULL}. */
  static const mlip_sim_opcode table[MLIP_OP_COUNT_] = {
#define MLIP_SIM_OPCODE_ROW_(NAME, name, value, fmt, forms) [value] = {mlip_sim_check_##fmt, mlip_sim_exec_##fmt},
    MLIP_OPCODES(MLIP_SIM_OPCODE_ROW_)
#undef MLIP_SIM_OPCODE_ROW_
  };
  if (opcode >= (uint32_t)MLIP_OP_COUNT_ || table[opcode].check == NULL) {
    return NULL;
  }
  return &table[opcode];
}
