/* PERMUTE: a strided copy in OCM, dst[i0][i1][i2][i3] = src[i0 * s0 + i1 * s1
 * + i2 * s2 + i3 * s3], any element size (operands: MLIP_FIELDS_permute,
 * mlip/cmd_table.h): a transpose of any permutation, a slice with steps, the
 * gather of one index, a broadcast. Bits are moved, nothing is computed.
 * Its validation rule (docs/command-buffer.md) and its executor
 * (docs/mlip-spec.md); the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_permute(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_permute_args* a = &d->u.permute;
  const uint64_t e = a->elem_bytes;
  const uint64_t out_len = mlip_sim_mul4(mlip_sim_mul3(a->d0, a->d1, a->d2), a->d3, e, 1u);
  /* the source extent: the largest element read, plus one */
  uint64_t last = mlip_sim_sat_mul((uint64_t)a->d0 - 1u, a->s0);
  uint64_t src_len;
  last = mlip_sim_sat_add(last, mlip_sim_sat_mul((uint64_t)a->d1 - 1u, a->s1));
  last = mlip_sim_sat_add(last, mlip_sim_sat_mul((uint64_t)a->d2 - 1u, a->s2));
  last = mlip_sim_sat_add(last, mlip_sim_sat_mul((uint64_t)a->d3 - 1u, a->s3));
  src_len = mlip_sim_sat_mul(mlip_sim_sat_add(last, 1u), e);
  MLIP_TRY(mlip_sim_check_ocm(v, a->src, src_len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->dst, out_len));
  if (mlip_sim_overlaps(a->src, src_len, a->dst, out_len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, a->dst, out_len);
}

mlip_status mlip_sim_exec_permute(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_permute_args* a = &d->u.permute;
  const uint8_t* src = ocm + a->src;
  uint8_t* dst = ocm + a->dst;
  const size_t e = a->elem_bytes;
  size_t i0, i1, i2, i3;
  (void)env; /* works in the tile's OCM only */
  for (i0 = 0; i0 < a->d0; ++i0) {
    for (i1 = 0; i1 < a->d1; ++i1) {
      for (i2 = 0; i2 < a->d2; ++i2) {
        const size_t base = i0 * a->s0 + i1 * a->s1 + i2 * a->s2;
        for (i3 = 0; i3 < a->d3; ++i3) {
          memcpy(dst, src + (base + i3 * a->s3) * e, e);
          dst += e;
        }
      }
    }
  }
  return MLIP_OK;
}
