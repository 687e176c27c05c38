/* mlip_region_run(): validate once, check what the caller provides, then
 * either hand the buffer to the registered hardware driver (header flag
 * MLIP_FLAG_HW, hw_backend.c) or simulate it: INIT once, MAIN every run.
 * Either way a successful run is counted in the region's own stats entry
 * (after its layers' entries, when the caller provides it): the cycles the
 * backend counted (the device's counter, or the cycle model's sum), the
 * host time, the runs. */
#include "hw_backend.h"
#include "mlip/platform.h"

/* The sum of the layers' cycles so far (the simulator's per-layer counts). */
static uint64_t layer_cycles_sum(const mlip_layer_stats* stats, uint32_t layers) {
  uint64_t sum = 0;
  uint32_t i;
  for (i = 0; i < layers; ++i) {
    sum += stats[i].cycles;
  }
  return sum;
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
  uint32_t i, layers;
  uint64_t t0, cycles = 0;
  mlip_layer_stats* whole;
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
  layers = v.hdr.sections[MLIP_SEC_LAYERS].count;
  if (region->stats != NULL && region->stats_capacity < layers) {
    return MLIP_ERR_BOUNDS;
  }
  whole = region->stats != NULL && region->stats_capacity > layers ? &region->stats[layers] : NULL;
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
        /* A region whose layers read and write only its borders has an
           empty scratch, which the caller's planner may give as NULL. */
        if (scratch == NULL && b.size > 0u) {
          return MLIP_ERR_NULL;
        }
        if (scratch_size < b.size) {
          return MLIP_ERR_BOUNDS;
        }
        break;
      default: break; /* WEIGHTS: inside the buffer, checked with the section table */
    }
  }

  t0 = mlip_platform_time_ns();
  if (hw) {
    st = mlip_hw_run(region, &v, inputs, outputs, scratch, &cycles);
  } else {
    const uint64_t before = whole != NULL ? layer_cycles_sum(region->stats, layers) : 0u;
    env.view = &v;
    env.ocm = region->ocm;
    env.inputs = inputs;
    env.outputs = outputs;
    env.scratch = scratch;
    env.scratch_size = scratch == NULL ? 0u : scratch_size;
    env.stats = region->stats;
    st = MLIP_OK;
    if (region->state->loaded != MLIP_STATE_DONE) {
      st = mlip_sim_run_section(&env, MLIP_SEC_INIT);
      if (st == MLIP_OK) {
        region->state->loaded = MLIP_STATE_DONE;
      }
    }
    if (st == MLIP_OK) {
      st = mlip_sim_run_section(&env, MLIP_SEC_MAIN);
    }
    if (whole != NULL) {
      cycles = layer_cycles_sum(region->stats, layers) - before;
    }
  }
  if (st == MLIP_OK && whole != NULL) {
    whole->cycles += cycles;
    whole->host_ns += mlip_platform_time_ns() - t0;
    whole->runs += 1u;
  }
  return st;
}
