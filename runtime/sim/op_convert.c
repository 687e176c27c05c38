/* CONVERT: fp32 <-> fp16 in OCM (no arithmetic: the sign of a NaN is kept)
 * (operands: MLIP_FIELDS_convert, mlip/cmd_table.h; fp16 only).
 * Its validation rule (docs/command-buffer.md) and its executor
 * (docs/mlip-spec.md); the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_convert(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_convert_args* a = &d->u.convert;
  const uint64_t n = a->count;
  /* mode and count: the per-field rules (CVT, NZ) */
  const uint64_t src_len = mlip_sim_sat_mul(n, a->mode == MLIP_CVT_F32_TO_F16 ? 4u : 2u);
  const uint64_t dst_len = mlip_sim_sat_mul(n, a->mode == MLIP_CVT_F32_TO_F16 ? 2u : 4u);
  MLIP_TRY(mlip_sim_check_ocm(v, a->src, src_len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->dst, dst_len));
  if (mlip_sim_overlaps(a->src, src_len, a->dst, dst_len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, a->dst, dst_len);
}

/* The conversion itself (docs/mlip-spec.md section 4, "fp32 -> fp16" and
 * "fp16 -> fp32"), once: CONVERT runs it in OCM, a converting DMA
 * (op_dma.c) on each row it moves. */
void mlip_sim_convert_elems(uint8_t* dst, const uint8_t* src, size_t n, uint32_t mode) {
  size_t i;
  if (mode == MLIP_CVT_F32_TO_F16) {
    for (i = 0; i < n; ++i) {
      mlip_sim_st16(dst + i * 2u, mlip_f32_to_f16(mlip_sim_ldf(src + i * 4u)));
    }
  } else {
    for (i = 0; i < n; ++i) {
      mlip_sim_stf(dst + i * 4u, mlip_sim_h2f(mlip_sim_ld16(src + i * 2u)));
    }
  }
}

mlip_status mlip_sim_exec_convert(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_convert_args* a = &d->u.convert;
  (void)env; /* works in the tile's OCM only */
  mlip_sim_convert_elems(ocm + a->dst, ocm + a->src, (size_t)a->count, a->mode);
  return MLIP_OK;
}
