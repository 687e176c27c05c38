/* DMA_IN and DMA_OUT: 2-D strided copies between a binding in DDR and the OCM
 * of a tile (operands: MLIP_FIELDS_dma, mlip/cmd_table.h), converting fp32
 * in DDR to fp16 in OCM or back when `convert` says so (docs/mlip-spec.md
 * section 3: a region's border read or written by the layer itself).
 * Its validation rule (docs/command-buffer.md) and its executor
 * (docs/mlip-spec.md); the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

/* The bytes of one row in DDR: twice the OCM's fp16 bytes when converting. */
static uint64_t ddr_row_bytes(const mlip_dma_args* a) {
  return a->convert != 0u ? 2u * (uint64_t)a->row_bytes : (uint64_t)a->row_bytes;
}

mlip_status mlip_sim_check_dma(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_dma_args* a = &d->u.dma;
  mlip_binding b;
  uint64_t rows = a->rows;
  uint64_t row_bytes = a->row_bytes;
  uint64_t ddr_end, ocm_end;
  if (a->binding >= v->hdr.sections[MLIP_SEC_BINDINGS].count) {
    return MLIP_ERR_INVALID_ARG;
  }
  /* DCVT: fp32 -> fp16 on the way in, fp16 -> fp32 on the way out, whole halves */
  if (a->convert != 0u) {
    const uint32_t want = d->opcode == MLIP_OP_DMA_IN ? MLIP_CVT_F32_TO_F16 : MLIP_CVT_F16_TO_F32;
    if (a->convert != want || row_bytes % 2u != 0u || section == MLIP_SEC_INIT) {
      return MLIP_ERR_INVALID_ARG;
    }
  }
  /* Rows do not overlap in OCM, so a DMA moves at most ocm_size bytes. */
  if (rows > 1u && (uint64_t)a->ocm_stride < row_bytes) {
    return MLIP_ERR_INVALID_ARG;
  }
  mlip_sim_read_binding(v, a->binding, &b);
  if (d->opcode == MLIP_OP_DMA_OUT && b.kind != MLIP_BIND_OUTPUT && b.kind != MLIP_BIND_SCRATCH) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (section == MLIP_SEC_INIT && b.kind != MLIP_BIND_WEIGHTS) {
    return MLIP_ERR_INVALID_ARG; /* loading runs without the run-time bindings */
  }
  ddr_end = mlip_sim_sat_add(mlip_sim_sat_add(a->ddr_offset, mlip_sim_sat_mul(rows - 1u, a->ddr_stride)), ddr_row_bytes(a));
  if (ddr_end > (uint64_t)b.size) {
    return MLIP_ERR_BOUNDS;
  }
  /* extent from ocm_offset */
  ocm_end = mlip_sim_sat_add(mlip_sim_sat_mul(rows - 1u, a->ocm_stride), row_bytes);
  MLIP_TRY(mlip_sim_check_ocm(v, a->ocm_offset, ocm_end));
  if (d->opcode == MLIP_OP_DMA_IN) {
    if (section == MLIP_SEC_INIT) {
      if (a->ocm_offset < v->hdr.ocm_pinned_offset) {
        return MLIP_ERR_BOUNDS; /* INIT fills only the pinned range */
      }
    } else {
      MLIP_TRY(mlip_sim_check_write(v, section, a->ocm_offset, ocm_end));
    }
  }
  return MLIP_OK;
}

mlip_status mlip_sim_exec_dma(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_sim_view* v = env->view;
  const mlip_dma_args* a = &d->u.dma;
  mlip_binding b;
  const uint8_t* src_ddr = NULL;
  uint8_t* dst_ddr = NULL;
  uint64_t rows = a->rows;
  uint64_t row_bytes = a->row_bytes;
  uint64_t ddr_end = (uint64_t)a->ddr_offset + (rows - 1u) * a->ddr_stride + ddr_row_bytes(a);
  uint64_t r;
  mlip_sim_read_binding(v, a->binding, &b);
  switch (b.kind) {
    case MLIP_BIND_INPUT:
      if (b.index >= v->hdr.num_inputs) {
        return MLIP_ERR_INTERNAL;
      }
      src_ddr = (const uint8_t*)env->inputs[b.index];
      break;
    case MLIP_BIND_OUTPUT:
      if (b.index >= v->hdr.num_outputs) {
        return MLIP_ERR_INTERNAL;
      }
      dst_ddr = (uint8_t*)env->outputs[b.index];
      src_ddr = dst_ddr;
      break;
    case MLIP_BIND_SCRATCH:
      if (ddr_end > (uint64_t)env->scratch_size) {
        return MLIP_ERR_INTERNAL;
      }
      dst_ddr = env->scratch;
      src_ddr = dst_ddr;
      break;
    case MLIP_BIND_WEIGHTS:
      if (ddr_end > (uint64_t)v->hdr.sections[MLIP_SEC_WEIGHTS].size) {
        return MLIP_ERR_INTERNAL;
      }
      src_ddr = v->buf + v->hdr.sections[MLIP_SEC_WEIGHTS].offset;
      break;
    default: return MLIP_ERR_INTERNAL;
  }
  if (src_ddr == NULL || (d->opcode == MLIP_OP_DMA_OUT && dst_ddr == NULL)) {
    return MLIP_ERR_INTERNAL;
  }
  for (r = 0; r < rows; ++r) {
    size_t ddr_off = (size_t)(a->ddr_offset + r * a->ddr_stride);
    size_t ocm_off = (size_t)(a->ocm_offset + r * a->ocm_stride);
    if (a->convert != 0u) { /* row_bytes / 2 elements; the check fixed the direction */
      if (d->opcode == MLIP_OP_DMA_IN) {
        mlip_sim_convert_elems(ocm + ocm_off, src_ddr + ddr_off, (size_t)(row_bytes / 2u), a->convert);
      } else {
        mlip_sim_convert_elems(dst_ddr + ddr_off, ocm + ocm_off, (size_t)(row_bytes / 2u), a->convert);
      }
    } else if (d->opcode == MLIP_OP_DMA_IN) {
      memmove(ocm + ocm_off, src_ddr + ddr_off, (size_t)row_bytes);
    } else {
      memmove(dst_ddr + ddr_off, ocm + ocm_off, (size_t)row_bytes);
    }
  }
  return MLIP_OK;
}
