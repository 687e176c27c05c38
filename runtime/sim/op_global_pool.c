/* GLOBAL_AVGPOOL and GLOBAL_MAXPOOL: [hw][c] -> [c].
 * Its validation rule (docs/command-buffer.md) and its executor
 * (docs/mlip-spec.md); the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_global_pool(const mlip_sim_view* v, uint32_t section, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  if (w[MLIP_DTYPE] != MLIP_DT_FP16) {
    return mlip_sim_check_global_pool_q8(v, section, c); /* op_int8.c */
  }
  uint64_t in_len, out_len;
  if (w[MLIP_GPOOL_HW] < 1u || w[MLIP_GPOOL_C] < 1u || !mlip_sim_act_ok(w[MLIP_GPOOL_ACT])) {
    return MLIP_ERR_INVALID_ARG;
  }
  in_len = mlip_sim_mul3(w[MLIP_GPOOL_HW], w[MLIP_GPOOL_C], 2u);
  out_len = (uint64_t)w[MLIP_GPOOL_C] * 2u;
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_GPOOL_IN], in_len));
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_GPOOL_OUT], out_len));
  if (mlip_sim_overlaps(w[MLIP_GPOOL_OUT], out_len, w[MLIP_GPOOL_IN], in_len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, w[MLIP_GPOOL_OUT], out_len);
}

mlip_status mlip_sim_exec_global_pool(const mlip_sim_env* env, uint8_t* ocm, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  if (w[MLIP_DTYPE] != MLIP_DT_FP16) {
    return mlip_sim_exec_global_pool_q8(env, ocm, c); /* op_int8.c */
  }
  const uint8_t* in = ocm + w[MLIP_GPOOL_IN];
  uint8_t* out = ocm + w[MLIP_GPOOL_OUT];
  const size_t hw = w[MLIP_GPOOL_HW], ch = w[MLIP_GPOOL_C];
  const int is_max = c->opcode == MLIP_OP_GLOBAL_MAXPOOL;
  /* Converted once, outside the branch: GCC 12 at -Os for Cortex-M55 turns
   * a conversion under `if` into a conditional vcvt that MVE does not have
   * (the assembler stops on "vcvtne.f32.u32"). */
  const float count = (float)hw;
  size_t p, cc;
  (void)env; /* works in the tile's OCM only */
  for (cc = 0; cc < ch; ++cc) {
    float r = is_max ? mlip_sim_neg_inf() : 0.0f;
    for (p = 0; p < hw; ++p) {
      const float x = mlip_sim_h2f(mlip_sim_ld16(in + (p * ch + cc) * 2u));
      if (is_max) {
        if (x > r) {
          r = x;
        }
      } else {
        r = r + x;
      }
    }
    if (!is_max) {
      r = r / count;
    }
    r = mlip_sim_apply_act(r, w[MLIP_GPOOL_ACT], w[MLIP_GPOOL_ACT_LO], w[MLIP_GPOOL_ACT_HI]);
    mlip_sim_st16(out + cc * 2u, mlip_sim_round_result(r));
  }
  return MLIP_OK;
}
