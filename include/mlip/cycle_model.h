/* The MLIP cycle model (docs/mlip-spec.md section 5), written once: the
 * compiler (codegen/mlip) estimates every layer with it when it chooses
 * splits and fills each layer's est_cycles, and the simulator
 * (runtime/sim) accumulates it per layer while it runs. Implemented in
 * runtime/sim/cycle_model.c: C99, no state, no heap. */
#ifndef MLIP_CYCLE_MODEL_H_
#define MLIP_CYCLE_MODEL_H_

#include <stdint.h>

#include "mlip/cmdbuf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An 8-bit CONV2D or FC (MLIP_DTYPE int8/uint8) runs at this many times
 * macs_per_cycle: an assumption (docs/mlip-spec.md section 5), the ratio of
 * most NPUs, not a published MLIP figure. */
#define MLIP_INT8_MAC_FACTOR 4u
/* A 16x8 CONV2D or FC (MLIP_DT_INT16: int16 activations, int8 weights)
 * runs at half the int8 rate: each product takes two 8x8 multipliers (the
 * int16 value's two bytes). An assumption too (docs/mlip-spec.md section 5). */
#define MLIP_INT16X8_MAC_FACTOR 2u
/* A 16x8 MATMUL of two int16 operands (b_int16) takes four 8x8 multipliers
 * per product (two bytes by two): a quarter of the int8 rate, the fp16
 * rate. An assumption too. */
#define MLIP_INT16X16_MAC_FACTOR 1u

/* The target constants the model needs (the header carries them). */
typedef struct mlip_cycle_rates {
  uint32_t macs_per_cycle;      /* per tile */
  uint32_t dma_bytes_per_cycle; /* per tile */
  uint32_t eltwise_per_cycle;   /* elements per cycle per tile */
  uint32_t cmd_overhead_cycles; /* per command other than BARRIER */
} mlip_cycle_rates;

mlip_cycle_rates mlip_cycle_rates_of(const mlip_header* hdr);

/* One command's work on its tile (a decoded command: mlip_cmd_decode):
 * cycles of the compute engine and of the DMA engine (at most one is
 * non-zero). Returns 1 when the command counts as a command (pays
 * cmd_overhead_cycles), 0 for BARRIER. An unknown opcode costs nothing. A
 * zero rate (the validator rejects one) divides by one. */
int mlip_cmd_cycles(const mlip_cycle_rates* rates, const mlip_decoded_cmd* cmd, uint64_t* compute, uint64_t* dma);

/* A contiguous run of one layer's commands, per tile. */
typedef struct mlip_cycle_run {
  uint64_t compute[MLIP_MAX_TILES];
  uint64_t dma[MLIP_MAX_TILES];
  uint64_t cmds[MLIP_MAX_TILES];
} mlip_cycle_run;

void mlip_cycle_run_reset(mlip_cycle_run* run);
/* Adds a command to its tile (a tile number past MLIP_MAX_TILES counts as the last tile). */
void mlip_cycle_run_add(mlip_cycle_run* run, const mlip_cycle_rates* rates, const mlip_decoded_cmd* cmd);
/* DMA and compute overlap: a tile takes max(compute, DMA) + overhead * its
 * commands; the run takes as long as its slowest tile. */
uint64_t mlip_cycle_run_total(const mlip_cycle_run* run, const mlip_cycle_rates* rates);

#ifdef __cplusplus
}
#endif

#endif /* MLIP_CYCLE_MODEL_H_ */
