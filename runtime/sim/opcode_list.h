/* The simulator's opcodes, one row each: the opcode (mlip/cmdbuf.h) and the
 * name of the op_<name>.c whose mlip_sim_check_<name> and
 * mlip_sim_exec_<name> validate and run it (a pair of opcodes with the same
 * operands may share one). An X-macro list without include guard:
 * sim_internal.h includes it for the declarations, opcodes.c for the table. */
MLIP_SIM_OPCODE(MLIP_OP_DMA_IN, dma)
MLIP_SIM_OPCODE(MLIP_OP_DMA_OUT, dma)
MLIP_SIM_OPCODE(MLIP_OP_CONVERT, convert)
MLIP_SIM_OPCODE(MLIP_OP_LAYOUT, layout)
MLIP_SIM_OPCODE(MLIP_OP_CONV2D, conv2d)
MLIP_SIM_OPCODE(MLIP_OP_FC, fc)
MLIP_SIM_OPCODE(MLIP_OP_MAXPOOL, pool)
MLIP_SIM_OPCODE(MLIP_OP_AVGPOOL, pool)
MLIP_SIM_OPCODE(MLIP_OP_GLOBAL_AVGPOOL, global_pool)
MLIP_SIM_OPCODE(MLIP_OP_GLOBAL_MAXPOOL, global_pool)
MLIP_SIM_OPCODE(MLIP_OP_ADD, add)
MLIP_SIM_OPCODE(MLIP_OP_BARRIER, barrier) /* opcodes.c */
MLIP_SIM_OPCODE(MLIP_OP_ACTIVATION, activation)
MLIP_SIM_OPCODE(MLIP_OP_ELTWISE, eltwise)
MLIP_SIM_OPCODE(MLIP_OP_RESIZE, resize)
MLIP_SIM_OPCODE(MLIP_OP_TABLE, table)
