/* mlip_region_run(): validate once, check what the caller provides, then
 * either hand the buffer to the registered hardware driver (header flag
 * MLIP_FLAG_HW) or simulate it: INIT once, MAIN every run. */
#include "sim_internal.h"

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

/* The DDR pointer and size of binding b as the caller resolved it. */
static void resolve_binding(const mlip_sim_view* v, const mlip_binding* b, void* const* inputs, void* const* outputs,
                            uint8_t* scratch, void** ptr) {
  switch (b->kind) {
    case MLIP_BIND_INPUT: *ptr = b->index < v->hdr.num_inputs ? inputs[b->index] : NULL; break;
    case MLIP_BIND_OUTPUT: *ptr = b->index < v->hdr.num_outputs ? outputs[b->index] : NULL; break;
    case MLIP_BIND_SCRATCH: *ptr = scratch; break;
    /* The driver API takes non-const pointers; DMA_OUT never writes WEIGHTS. */
    case MLIP_BIND_WEIGHTS:
      *ptr = (void*)(uintptr_t)(v->buf + v->hdr.sections[MLIP_SEC_WEIGHTS].offset);
      break;
    default: *ptr = NULL; break;
  }
}

static mlip_status run_hw(const mlip_region* region, const mlip_sim_view* v, void* const* inputs,
                          void* const* outputs, uint8_t* scratch) {
  void* ptrs[MLIP_REGION_MAX_BINDINGS];
  uint32_t sizes[MLIP_REGION_MAX_BINDINGS];
  uint32_t n = v->hdr.sections[MLIP_SEC_BINDINGS].count;
  uint32_t i;
  uint64_t hw_cycles = 0;
  mlip_status st;
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
    resolve_binding(v, &b, inputs, outputs, scratch, &ptrs[i]);
    sizes[i] = b.size;
  }
  st = mlip_hw_driver_slot.submit(mlip_hw_driver_slot.ctx, region->cmdbuf, region->cmdbuf_size, ptrs, sizes, n);
  if (st != MLIP_OK) {
    return st;
  }
  return mlip_hw_driver_slot.wait(mlip_hw_driver_slot.ctx, &hw_cycles);
}

/* Each word of the state is one of its three values, and INIT never ran
   on a buffer that was not validated. */
static int state_ok(const mlip_region_state* st) {
  const uint32_t v = st->validated, l = st->loaded;
  const int v_ok = v == 0u || v == MLIP_STATE_NOT_YET || v == MLIP_STATE_DONE;
  const int l_ok = l == 0u || l == MLIP_STATE_NOT_YET || (l == MLIP_STATE_DONE && v == MLIP_STATE_DONE);
  return v_ok && l_ok;
}

mlip_status mlip_region_run(const mlip_region* region, void* const* inputs, const uint32_t* input_sizes,
                            uint32_t num_inputs, void* const* outputs, const uint32_t* output_sizes,
                            uint32_t num_outputs, uint8_t* scratch, uint32_t scratch_size) {
  mlip_sim_view v;
  mlip_sim_env env;
  mlip_status st;
  uint32_t i;
  int hw;
  if (region == NULL || region->state == NULL || region->cmdbuf == NULL) {
    return MLIP_ERR_NULL;
  }
  if (!mlip_sim_host_little_endian()) {
    return MLIP_ERR_UNSUPPORTED;
  }
  if (!state_ok(region->state)) {
    return MLIP_ERR_STATE;
  }
  if (region->state->validated != MLIP_STATE_DONE) {
    st = mlip_cmdbuf_validate(region->cmdbuf, region->cmdbuf_size);
    if (st != MLIP_OK) {
      return st;
    }
    region->state->validated = MLIP_STATE_DONE;
    /* The counters start from zero whatever the memory held. */
    if (region->stats != NULL) {
      memset(region->stats, 0, (size_t)region->stats_capacity * sizeof region->stats[0]);
    }
  }
  /* Cheap structural re-check on every run (no CRC): the header and section
     table the executor reads from are still consistent with the size. */
  st = mlip_sim_open(region->cmdbuf, region->cmdbuf_size, 0, &v);
  if (st != MLIP_OK) {
    return st;
  }
  hw = (v.hdr.flags & MLIP_FLAG_HW) != 0u;

  if (!hw) {
    if (region->ocm == NULL) {
      return MLIP_ERR_NULL;
    }
    if ((uint64_t)region->ocm_capacity < (uint64_t)v.hdr.num_tiles * (uint64_t)v.hdr.ocm_size) {
      return MLIP_ERR_BOUNDS;
    }
  }
  if (region->stats != NULL && region->stats_capacity < v.hdr.sections[MLIP_SEC_LAYERS].count) {
    return MLIP_ERR_BOUNDS;
  }
  if (num_inputs != v.hdr.num_inputs || num_outputs != v.hdr.num_outputs) {
    return MLIP_ERR_COUNT;
  }
  if ((num_inputs > 0u && (inputs == NULL || input_sizes == NULL)) ||
      (num_outputs > 0u && (outputs == NULL || output_sizes == NULL))) {
    return MLIP_ERR_NULL;
  }
  for (i = 0; i < num_inputs; ++i) {
    if (inputs[i] == NULL) {
      return MLIP_ERR_NULL;
    }
  }
  for (i = 0; i < num_outputs; ++i) {
    if (outputs[i] == NULL) {
      return MLIP_ERR_NULL;
    }
  }
  /* Every run, not only at validation: the buffer's bindings against the
     caller's arrays. The executor re-checks each command against its
     binding, so together no access leaves the caller's memory. */
  for (i = 0; i < v.hdr.sections[MLIP_SEC_BINDINGS].count; ++i) {
    mlip_binding b;
    mlip_sim_read_binding(&v, i, &b);
    switch (b.kind) {
      case MLIP_BIND_INPUT:
        if (b.index >= num_inputs || b.size > input_sizes[b.index]) {
          return MLIP_ERR_BOUNDS;
        }
        break;
      case MLIP_BIND_OUTPUT:
        if (b.index >= num_outputs || b.size > output_sizes[b.index]) {
          return MLIP_ERR_BOUNDS;
        }
        break;
      case MLIP_BIND_SCRATCH:
        if (scratch == NULL) {
          return MLIP_ERR_NULL;
        }
        if (scratch_size < b.size) {
          return MLIP_ERR_BOUNDS;
        }
        break;
      default: break; /* WEIGHTS: inside the buffer, checked with the section table */
    }
  }

  if (hw) {
    return run_hw(region, &v, inputs, outputs, scratch);
  }

  env.view = &v;
  env.ocm = region->ocm;
  env.inputs = inputs;
  env.outputs = outputs;
  env.scratch = scratch;
  env.scratch_size = scratch == NULL ? 0u : scratch_size;
  env.stats = region->stats;
  if (region->state->loaded != MLIP_STATE_DONE) {
    st = mlip_sim_run_section(&env, MLIP_SEC_INIT);
    if (st != MLIP_OK) {
      return st;
    }
    region->state->loaded = MLIP_STATE_DONE;
  }
  return mlip_sim_run_section(&env, MLIP_SEC_MAIN);
}
