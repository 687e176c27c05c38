/* ADD: element-wise sum with a fused activation (fp16), or QLinearAdd of two
 * 8-bit tensors (operands: MLIP_FIELDS_add, mlip/cmd_table.h).
 * Its validation rule (docs/command-buffer.md) and its executor for both
 * element types (docs/mlip-spec.md sections 4 and 4a); the opcode table
 * (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_add(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_add_args* a = &d->u.add;
  const int q8 = a->dtype != MLIP_DT_FP16; /* an integer type: the element type's rule checked which */
  const uint64_t len = (uint64_t)a->count * (q8 && a->dtype != MLIP_DT_INT16 ? 1u : 2u); /* int16: two bytes */
  /* 8-bit: the operands' multipliers are below 1 (sa, sb at most 0: the
     per-field rule SHIFT0), so each term of mlip_qadd_sum stays within
     255 * 2^20 and their sum within int32; 16x8 (mlip_qadd16_sum, zero
     points 0): each within 2^15 * 2^15. */
  if (q8 && a->lo > a->hi) {
    return MLIP_ERR_INVALID_ARG;
  }
  MLIP_TRY(mlip_sim_check_ocm(v, a->a, len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->b, len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->out, len));
  if (mlip_sim_overlaps(a->out, len, a->a, len) || mlip_sim_overlaps(a->out, len, a->b, len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, a->out, len);
}

/* 8-bit: s = mlip_qadd_sum(a - a_zp, qa, sa, b - b_zp, qb, sb), then
   requantized by (qy, sy) into [lo, hi]; requant ORT: mlip_qadd_f32 of
   the stored values with qa, qb, qy as the float32 ra, rb, offset (the
   zero points are in the offset). 16x8 (int16, two bytes an element): the
   same with mlip_qadd16_sum (a left shift of 15, not 20: TFLite's int16
   Add), as the CPU's QLinearAdd on int16. */
static int32_t add_load(uint32_t dt, const uint8_t* p, size_t i) {
  return dt == MLIP_DT_INT16 ? mlip_sim_i16_load(p + i * 2u) : mlip_sim_q8_load(dt, p + i);
}
static void add_store(uint32_t dt, uint8_t* p, size_t i, int32_t v) {
  if (dt == MLIP_DT_INT16) {
    mlip_sim_i16_store(p + i * 2u, v);
  } else {
    mlip_sim_q8_store(p + i, v);
  }
}
static void add_q8(const mlip_add_args* a, uint8_t* ocm) {
  const uint32_t dt = a->dtype;
  const uint8_t* x = ocm + a->a;
  const uint8_t* y = ocm + a->b;
  uint8_t* out = ocm + a->out;
  const size_t n = a->count;
  const int32_t left = dt == MLIP_DT_INT16 ? MLIP_QADD16_LEFT_SHIFT : MLIP_QADD_LEFT_SHIFT;
  size_t i;
  if (a->requant == MLIP_REQUANT_ORT) {
    const float ra = mlip_f32_of_bits(a->qa), rb = mlip_f32_of_bits(a->qb), offset = mlip_f32_of_bits(a->qy);
    for (i = 0; i < n; ++i) {
      add_store(dt, out, i, mlip_qadd_f32(add_load(dt, x, i), add_load(dt, y, i), ra, rb, offset, a->lo, a->hi));
    }
    return;
  }
  for (i = 0; i < n; ++i) {
    const int32_t s = mlip_qadd_sum_shifted(add_load(dt, x, i) - a->a_zp, a->qa, a->sa, add_load(dt, y, i) - a->b_zp,
                                            a->qb, a->sb, left);
    add_store(dt, out, i, mlip_requantize(s, a->qy, a->sy, a->y_zp, a->lo, a->hi));
  }
}

mlip_status mlip_sim_exec_add(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_add_args* a = &d->u.add;
  const uint8_t* x = ocm + a->a;
  const uint8_t* y = ocm + a->b;
  uint8_t* out = ocm + a->out;
  const size_t n = a->count;
  size_t i;
  (void)env; /* works in the tile's OCM only */
  if (a->dtype != MLIP_DT_FP16) {
    add_q8(a, ocm);
    return MLIP_OK;
  }
  for (i = 0; i < n; ++i) {
    float s = mlip_sim_h2f(mlip_sim_ld16(x + i * 2u)) + mlip_sim_h2f(mlip_sim_ld16(y + i * 2u));
    s = mlip_sim_apply_act(s, a->act, a->act_lo, a->act_hi);
    mlip_sim_st16(out + i * 2u, mlip_sim_round_result(s));
  }
  return MLIP_OK;
}
