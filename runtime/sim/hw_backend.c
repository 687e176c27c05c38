/* The hardware backend of mlip_region_run() (header flag MLIP_FLAG_HW):
 * the registered driver (mlip/region.h, mlip_hw_driver) loads the buffer
 * once, runs MAIN on the caller's resolved bindings and reports the
 * device's cycle count, which region.c records in the region's stats
 * (docs/runtime.md, "mlip_region_run()"). No driver ships with mlipc: a
 * port for a device provides one. */
#include "hw_backend.h"

/* The registered hardware driver: a copy, so the caller's struct may be
 * temporary. The slot is read only while the flag says present; the flag's
 * non-zero initializer keeps it in .data, so an image whose .bss is not
 * zeroed never calls through a stale slot. */
#define MLIP_HW_ABSENT 0x4D4C4841u  /* "AHLM" */
#define MLIP_HW_PRESENT 0x4D4C4850u /* "PHLM" */
static mlip_hw_driver mlip_hw_driver_slot;
static uint32_t mlip_hw_driver_present = MLIP_HW_ABSENT;

void mlip_hw_register(const mlip_hw_driver* driver) {
  if (driver == NULL || driver->load == NULL || driver->submit == NULL || driver->wait == NULL) {
    memset(&mlip_hw_driver_slot, 0, sizeof mlip_hw_driver_slot);
    mlip_hw_driver_present = MLIP_HW_ABSENT;
    return;
  }
  mlip_hw_driver_slot = *driver;
  mlip_hw_driver_present = MLIP_HW_PRESENT;
}

/* The DDR pointer of binding b as the caller resolved it. */
static void* resolve_binding(const mlip_sim_view* v, const mlip_binding* b, void* const* inputs, void* const* outputs,
                             uint8_t* scratch) {
  switch (b->kind) {
    case MLIP_BIND_INPUT: return b->index < v->hdr.num_inputs ? inputs[b->index] : NULL;
    case MLIP_BIND_OUTPUT: return b->index < v->hdr.num_outputs ? outputs[b->index] : NULL;
    case MLIP_BIND_SCRATCH: return scratch;
    /* The driver API takes non-const pointers; DMA_OUT never writes WEIGHTS. */
    case MLIP_BIND_WEIGHTS: return (void*)(uintptr_t)(v->buf + v->hdr.sections[MLIP_SEC_WEIGHTS].offset);
    default: return NULL;
  }
}

mlip_status mlip_hw_run(const mlip_region* region, const mlip_sim_view* v, void* const* inputs,
                        void* const* outputs, uint8_t* scratch, uint64_t* device_cycles) {
  void* ptrs[MLIP_REGION_MAX_BINDINGS];
  uint32_t sizes[MLIP_REGION_MAX_BINDINGS];
  const uint32_t n = v->hdr.sections[MLIP_SEC_BINDINGS].count;
  uint32_t i;
  mlip_status st;
  *device_cycles = 0;
  if (mlip_hw_driver_present != MLIP_HW_PRESENT) {
    return MLIP_ERR_NO_DEVICE;
  }
  if (n > MLIP_REGION_MAX_BINDINGS) {
    return MLIP_ERR_UNSUPPORTED;
  }
  if (region->state->loaded != MLIP_STATE_DONE) {
    st = mlip_hw_driver_slot.load(mlip_hw_driver_slot.ctx, region->cmdbuf, region->cmdbuf_size);
    if (st != MLIP_OK) {
      return st;
    }
    region->state->loaded = MLIP_STATE_DONE;
  }
  for (i = 0; i < n; ++i) {
    mlip_binding b;
    mlip_sim_read_binding(v, i, &b);
    ptrs[i] = resolve_binding(v, &b, inputs, outputs, scratch);
    sizes[i] = b.size;
  }
  st = mlip_hw_driver_slot.submit(mlip_hw_driver_slot.ctx, region->cmdbuf, region->cmdbuf_size, ptrs, sizes, n);
  if (st != MLIP_OK) {
    return st;
  }
  return mlip_hw_driver_slot.wait(mlip_hw_driver_slot.ctx, device_cycles);
}
