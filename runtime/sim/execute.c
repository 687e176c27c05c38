/* Running the sections of a command buffer (docs/mlip-spec.md, sections 2
 * and 5): every command, in buffer order, decoded once (mlip/cmd_args.h)
 * and run by its opcode's executor (op_<format>.c), with per-layer stats
 * from the cycle model (mlip/cycle_model.h). Every command is re-checked
 * with the validator's rules right before it runs, so even a buffer that
 * changed after validation is never read or written out of bounds. */
#include "mlip/cycle_model.h"
#include "mlip/platform.h"
#include "sim_internal.h"

mlip_status mlip_sim_layer_cycles(const uint8_t* buf, size_t size, uint32_t layer, uint64_t* cycles) {
  mlip_sim_view v;
  mlip_cycle_rates rates;
  uint32_t sec, i;
  uint64_t total = 0;
  if (cycles == NULL) {
    return MLIP_ERR_NULL;
  }
  *cycles = 0;
  MLIP_TRY(mlip_cmdbuf_validate(buf, size));
  MLIP_TRY(mlip_sim_open(buf, size, 0, &v));
  if (layer >= v.hdr.sections[MLIP_SEC_LAYERS].count) {
    return MLIP_ERR_INVALID_ARG;
  }
  rates = mlip_cycle_rates_of(&v.hdr);
  for (sec = MLIP_SEC_INIT; sec <= MLIP_SEC_FINISH; ++sec) {
    mlip_cycle_run run;
    int open = 0;
    mlip_cycle_run_reset(&run);
    for (i = 0; i < v.hdr.sections[sec].count; ++i) {
      mlip_decoded_cmd c;
      mlip_sim_read_cmd(&v, sec, i, &c);
      if (open && c.layer != layer) {
        total += mlip_cycle_run_total(&run, &rates);
        mlip_cycle_run_reset(&run);
        open = 0;
      }
      if (c.layer == layer) {
        mlip_cycle_run_add(&run, &rates, &c);
        open = 1;
      }
    }
    if (open) {
      total += mlip_cycle_run_total(&run, &rates);
    }
  }
  *cycles = total;
  return MLIP_OK;
}

static mlip_status exec_cmd(const mlip_sim_env* env, const mlip_decoded_cmd* c) {
  const mlip_sim_opcode* op = mlip_sim_opcode_of(c->opcode);
  uint8_t* ocm = env->ocm + (size_t)c->tile * (size_t)env->view->hdr.ocm_size;
  if (op == NULL) {
    return MLIP_ERR_INTERNAL;
  }
  return op->exec(env, ocm, c);
}

/* ---- sections -------------------------------------------------------------- */

static void flush_run(const mlip_sim_env* env, uint32_t layer, const mlip_cycle_run* run, uint64_t t0) {
  const mlip_cycle_rates rates = mlip_cycle_rates_of(&env->view->hdr);
  uint64_t t1 = mlip_platform_time_ns();
  mlip_layer_stats* s;
  if (env->stats == NULL || layer >= env->view->hdr.sections[MLIP_SEC_LAYERS].count) {
    return;
  }
  s = &env->stats[layer];
  s->cycles += mlip_cycle_run_total(run, &rates);
  s->host_ns += t1 >= t0 ? t1 - t0 : 0u;
  s->runs += 1u;
}

mlip_status mlip_sim_run_section(const mlip_sim_env* env, uint32_t section) {
  const mlip_sim_view* v = env->view;
  const mlip_cycle_rates rates = mlip_cycle_rates_of(&v->hdr);
  mlip_cycle_run run;
  uint32_t layer = 0;
  int open = 0;
  uint64_t t0 = 0;
  uint32_t i;
  if (section < MLIP_SEC_INIT || section > MLIP_SEC_FINISH || env->ocm == NULL) {
    return MLIP_ERR_INTERNAL;
  }
  mlip_cycle_run_reset(&run);
  for (i = 0; i < v->hdr.sections[section].count; ++i) {
    mlip_decoded_cmd c;
    mlip_status st;
    mlip_sim_read_cmd(v, section, i, &c);
    if (mlip_sim_check_cmd(v, section, &c) != MLIP_OK) {
      return MLIP_ERR_INTERNAL; /* validation guarantees this never happens */
    }
    if (!open || c.layer != layer) {
      if (open) {
        flush_run(env, layer, &run, t0);
      }
      mlip_cycle_run_reset(&run);
      layer = c.layer;
      open = 1;
      t0 = mlip_platform_time_ns();
    }
    st = exec_cmd(env, &c);
    if (st != MLIP_OK) {
      return st;
    }
    mlip_cycle_run_add(&run, &rates, &c);
  }
  if (open) {
    flush_run(env, layer, &run, t0);
  }
  return MLIP_OK;
}
