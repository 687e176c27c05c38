/* Running an MLIP region: the part of a model the compiler offloaded to the
 * accelerator, as one command buffer (include/mlip/cmdbuf.h). Generated
 * code calls mlip_region_run() for each region, in schedule order. The
 * simulator backend runs the commands bit-exactly on the host; the
 * hardware backend hands them to a driver that a port registers (none
 * ships with mlipc: the instruction set is mlipc's own, docs/mlip-spec.md). */
#ifndef MLIP_REGION_H_
#define MLIP_REGION_H_

#include <stddef.h>
#include <stdint.h>

#include "mlip/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Counters, accumulated over runs (set to zero when the region is
   validated, its first run). The stats array a caller gives holds one entry
   per layer of the buffer (the simulator's counts; the hardware backend
   leaves them alone: a device reports whole jobs), optionally followed by
   one entry for the whole region, filled after every successful run by
   either backend: `cycles` the device's cycle counter as the driver's
   wait() reported it (hardware), or the sum of the layers' cycle-model
   counts (simulator); `host_ns` the time around the run; `runs`. The
   generated code gives both (<region function>_stats[layers + 1]). */
typedef struct mlip_layer_stats {
  uint64_t cycles;   /* MLIP cycles: the cycle model of docs/mlip-spec.md, or the device's (region entry, hardware) */
  uint64_t host_ns;  /* host time spent on the layer (simulator) or the run (region entry), mlip_platform_time_ns */
  uint32_t runs;
  uint32_t reserved;
} mlip_layer_stats;

/* Mutable state of one region. Each word is 0 or MLIP_STATE_NOT_YET (not
 * yet) or MLIP_STATE_DONE, values memory does not hold by chance, so the
 * state never depends on .bss being zeroed: the generated code initializes
 * it with MLIP_REGION_STATE_INIT, a non-zero initializer that puts it in
 * .data, and mlip_region_run() refuses any other value with
 * MLIP_ERR_STATE instead of skipping the validation or the INIT section. */
#define MLIP_STATE_NOT_YET 0x4D4C4E59u /* "YNLM" */
#define MLIP_STATE_DONE 0x4D4C4453u    /* "SDLM" */
typedef struct mlip_region_state {
  uint32_t validated; /* MLIP_STATE_DONE: the buffer passed validation */
  uint32_t loaded;    /* MLIP_STATE_DONE: INIT ran (pinned weights are in OCM) */
} mlip_region_state;
#define MLIP_REGION_STATE_INIT {MLIP_STATE_NOT_YET, MLIP_STATE_NOT_YET}

/* One region as the generated code describes it. All storage is static:
 * the OCM of the simulator is an array the compiler sized, in its own
 * section (MLIP_OCM_SECTION), which nothing needs zeroed. */
#define MLIP_OCM_SECTION ".bss.noinit.mlip_ocm"
typedef struct mlip_region {
  const char* name;
  const uint8_t* cmdbuf;
  uint32_t cmdbuf_size;
  uint8_t* ocm;                /* simulator OCM: num_tiles * header.ocm_size bytes; NULL for hw */
  uint32_t ocm_capacity;       /* bytes available at ocm */
  mlip_layer_stats* stats;     /* one entry per layer, then optionally the region's, or NULL */
  uint32_t stats_capacity;     /* entries available at stats: at least the layer count */
  mlip_region_state* state;
} mlip_region;

/* Validates (once), then runs the region: INPUT k reads inputs[k] (an array
 * of input_sizes[k] bytes), OUTPUT k writes outputs[k] (output_sizes[k]
 * bytes), SCRATCH is `scratch` (scratch_size bytes). The sizes are the
 * caller's: on every run, every binding of the buffer must fit the array it
 * is bound to (MLIP_ERR_BOUNDS otherwise), so neither a buffer changed after
 * validation nor a caller's smaller array can make the simulator read or
 * write outside the caller's arrays. Returns MLIP_OK or the first error; on
 * a validation error nothing runs. */
mlip_status mlip_region_run(const mlip_region* region, void* const* inputs, const uint32_t* input_sizes,
                            uint32_t num_inputs, void* const* outputs, const uint32_t* output_sizes,
                            uint32_t num_outputs, uint8_t* scratch, uint32_t scratch_size);

/* Checks a whole command buffer (docs/command-buffer.md) of `size` bytes. */
mlip_status mlip_cmdbuf_validate(const uint8_t* buf, size_t size);

/* CRC32C (Castagnoli), continuing from `crc` (start with 0). */
uint32_t mlip_crc32c(uint32_t crc, const void* data, size_t size);

/* IEEE binary16 conversions as the machine defines them (docs/mlip-spec.md). */
uint16_t mlip_f32_to_f16(float f);
float mlip_f16_to_f32(uint16_t h);

/* The hardware backend: a port that has the device registers a driver.
 * Without one, a region compiled for hardware returns MLIP_ERR_NO_DEVICE. */
typedef struct mlip_hw_driver {
  void* ctx;
  /* Loads the buffer (INIT section, pinned weights) once per region. */
  mlip_status (*load)(void* ctx, const uint8_t* cmdbuf, uint32_t size);
  /* Starts the MAIN section with every binding resolved (in BINDINGS order). */
  mlip_status (*submit)(void* ctx, const uint8_t* cmdbuf, uint32_t size, void* const* bindings,
                        const uint32_t* binding_sizes, uint32_t num_bindings);
  /* Waits for completion; reports the device's cycle counter for the job,
     which mlip_region_run() adds to the region's stats entry. */
  mlip_status (*wait)(void* ctx, uint64_t* hw_cycles);
} mlip_hw_driver;

/* Registers (or with NULL, removes) the hardware driver. */
void mlip_hw_register(const mlip_hw_driver* driver);

#ifdef __cplusplus
}
#endif

#endif /* MLIP_REGION_H_ */
