/* LAYOUT: [outer][a][b] -> [outer][b][a] element transpose in OCM (CHW <->
 * HWC) (operands: MLIP_FIELDS_layout, mlip/cmd_table.h).
 * Its validation rule (docs/command-buffer.md) and its executor
 * (docs/mlip-spec.md); the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_layout(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_layout_args* a = &d->u.layout;
  const uint64_t len = mlip_sim_mul4(a->outer, a->a, a->b, a->elem_bytes);
  MLIP_TRY(mlip_sim_check_ocm(v, a->src, len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->dst, len));
  if (mlip_sim_overlaps(a->src, len, a->dst, len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, a->dst, len);
}

mlip_status mlip_sim_exec_layout(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_layout_args* a = &d->u.layout;
  const uint8_t* src = ocm + a->src;
  uint8_t* dst = ocm + a->dst;
  size_t outer = a->outer, ra = a->a, cb = a->b, e = a->elem_bytes;
  size_t o, i, j;
  (void)env; /* works in the tile's OCM only */
  for (o = 0; o < outer; ++o) {
    for (i = 0; i < ra; ++i) {
      for (j = 0; j < cb; ++j) {
        memcpy(dst + ((o * cb + j) * ra + i) * e, src + ((o * ra + i) * cb + j) * e, e);
      }
    }
  }
  return MLIP_OK;
}
