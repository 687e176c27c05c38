/* LAYOUT: [outer][a][b] -> [outer][b][a] element transpose in OCM (CHW <->
 * HWC).
 * Its validation rule (docs/command-buffer.md) and its executor
 * (docs/mlip-spec.md); the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_layout(const mlip_sim_view* v, uint32_t section, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  uint64_t len;
  if (w[MLIP_LAY_ELEM] != 1u && w[MLIP_LAY_ELEM] != 2u && w[MLIP_LAY_ELEM] != 4u) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (w[MLIP_LAY_OUTER] < 1u || w[MLIP_LAY_A] < 1u || w[MLIP_LAY_B] < 1u) {
    return MLIP_ERR_INVALID_ARG;
  }
  len = mlip_sim_mul4(w[MLIP_LAY_OUTER], w[MLIP_LAY_A], w[MLIP_LAY_B], w[MLIP_LAY_ELEM]);
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_LAY_SRC], len));
  MLIP_TRY(mlip_sim_check_ocm(v, w[MLIP_LAY_DST], len));
  if (mlip_sim_overlaps(w[MLIP_LAY_SRC], len, w[MLIP_LAY_DST], len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, w[MLIP_LAY_DST], len);
}

mlip_status mlip_sim_exec_layout(const mlip_sim_env* env, uint8_t* ocm, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  const uint8_t* src = ocm + w[MLIP_LAY_SRC];
  uint8_t* dst = ocm + w[MLIP_LAY_DST];
  size_t outer = w[MLIP_LAY_OUTER], a = w[MLIP_LAY_A], b = w[MLIP_LAY_B], e = w[MLIP_LAY_ELEM];
  size_t o, i, j;
  (void)env; /* works in the tile's OCM only */
  for (o = 0; o < outer; ++o) {
    for (i = 0; i < a; ++i) {
      for (j = 0; j < b; ++j) {
        memcpy(dst + ((o * b + j) * a + i) * e, src + ((o * a + i) * b + j) * e, e);
      }
    }
  }
  return MLIP_OK;
}
