/* ELTWISE: a binary function of a full-size operand and a cycled one (equal
 * shapes, one value per channel, a scalar, trailing dimensions, or one value
 * per row of b_rep elements), with a fused activation;
 * 8-bit and 16x8: MUL only, the product requantized (QLinearMul) (operands:
 * MLIP_FIELDS_eltwise, mlip/cmd_table.h).
 * Its validation rule (docs/command-buffer.md) and its executor for both
 * element types (docs/mlip-spec.md sections 4 and 4a); the opcode table
 * (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_eltwise(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_eltwise_args* a = &d->u.eltwise;
  const int q8 = a->dtype != MLIP_DT_FP16; /* an integer type: the element type's rule checked which */
  const uint64_t eb = q8 && a->dtype != MLIP_DT_INT16 ? 1u : 2u; /* int16 (16x8): two bytes, as fp16 */
  const uint64_t len = (uint64_t)a->count * eb;
  const uint64_t b_len = (uint64_t)a->b_len * eb;
  /* 8-bit: |(a - a_zp) * (b - b_zp)| <= 255 * 255, exact in int32; 16x8
     (zero points 0): at most 32768 * 32768 = 2^30, exact too. */
  if (a->b_base >= a->b_len || (q8 && (a->lo > a->hi || a->b_sqrt != 0u))) {
    return MLIP_ERR_INVALID_ARG;
  }
  MLIP_TRY(mlip_sim_check_ocm(v, a->a, len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->b, b_len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->out, len));
  if (mlip_sim_overlaps(a->out, len, a->a, len) || mlip_sim_overlaps(a->out, len, a->b, b_len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, a->out, len);
}

/* f(a, b) in fp32 (docs/mlip-spec.md section 4). */
static float eltwise_fn(uint32_t fn, float a, float b) {
  switch (fn) {
    case MLIP_ELT_ADD: return a + b;
    case MLIP_ELT_SUB: return a - b;
    case MLIP_ELT_RSUB: return b - a;
    case MLIP_ELT_MUL: return a * b;
    case MLIP_ELT_MAX:
      if (a != a || b != b) {
        return mlip_sim_bits_to_float(0x7FC00000u); /* a NaN operand gives NaN */
      }
      return a > b ? a : b; /* -0 and +0: b */
    case MLIP_ELT_MIN:
      if (a != a || b != b) {
        return mlip_sim_bits_to_float(0x7FC00000u);
      }
      return a < b ? a : b;
    case MLIP_ELT_PRELU: return a < 0.0f ? a * b : a;
    case MLIP_ELT_DIV: return a / b;
    default: return a;
  }
}

/* 8-bit MUL (docs/mlip-spec.md 4a): (a - a_zp) * (b - b_zp), requantized
   by (q, shift) into [lo, hi]. 16x8 (int16, two bytes an element): the
   same on the int16 values, as the CPU's QLinearMul on int16. */
static void eltwise_q8(const mlip_eltwise_args* a, uint8_t* ocm) {
  const uint32_t dt = a->dtype;
  const uint8_t* x = ocm + a->a;
  const uint8_t* y = ocm + a->b;
  uint8_t* out = ocm + a->out;
  const size_t n = a->count, b_len = a->b_len, rep = a->b_rep > 1u ? a->b_rep : 1u;
  size_t i, j = a->b_base, k = 0;
  const int wide = dt == MLIP_DT_INT16;
  for (i = 0; i < n; ++i) {
    const int32_t xa = wide ? mlip_sim_i16_load(x + i * 2u) : mlip_sim_q8_load(dt, x + i);
    const int32_t xb = wide ? mlip_sim_i16_load(y + j * 2u) : mlip_sim_q8_load(dt, y + j);
    const int32_t r = mlip_requantize((xa - a->a_zp) * (xb - a->b_zp), a->q, a->shift, a->y_zp, a->lo, a->hi);
    if (wide) {
      mlip_sim_i16_store(out + i * 2u, r);
    } else {
      mlip_sim_q8_store(out + i, r);
    }
    if (++k == rep) {
      k = 0;
      j = j + 1u == b_len ? 0u : j + 1u;
    }
  }
}

mlip_status mlip_sim_exec_eltwise(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_eltwise_args* a = &d->u.eltwise;
  const uint8_t* x = ocm + a->a;
  const uint8_t* y = ocm + a->b;
  uint8_t* out = ocm + a->out;
  const size_t n = a->count, b_len = a->b_len, rep = a->b_rep > 1u ? a->b_rep : 1u;
  const int guard = a->b_sqrt != 0u || a->b_add != 0.0f;
  size_t i, j = a->b_base, k = 0;
  (void)env; /* works in the tile's OCM only */
  if (a->dtype != MLIP_DT_FP16) {
    eltwise_q8(a, ocm);
    return MLIP_OK;
  }
  for (i = 0; i < n; ++i) {
    float bv = mlip_sim_h2f(mlip_sim_ld16(y + j * 2u)), r;
    if (guard) { /* the folded guard: b + b_add in fp32, its square root */
      bv = bv + a->b_add;
      if (a->b_sqrt) {
        bv = mlip_sqrtf(bv);
      }
    }
    r = eltwise_fn(a->func, mlip_sim_h2f(mlip_sim_ld16(x + i * 2u)), bv);
    r = mlip_sim_apply_act(r, a->act, a->act_lo, a->act_hi);
    mlip_sim_st16(out + i * 2u, mlip_sim_round_result(r));
    if (++k == rep) { /* b's element i / rep, cycled from b_base */
      k = 0;
      j = j + 1u == b_len ? 0u : j + 1u;
    }
  }
  return MLIP_OK;
}
