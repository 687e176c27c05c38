/* GLOBAL_AVGPOOL and GLOBAL_MAXPOOL: [hw][c] -> [c], fp16 or 8-bit,
 * GLOBAL_AVGPOOL 16x8 too (operands: MLIP_FIELDS_global_pool, mlip/cmd_table.h).
 * Its validation rule (docs/command-buffer.md) and its executor for both
 * element types (docs/mlip-spec.md sections 4 and 4a); the opcode table
 * (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_global_pool(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_global_pool_args* a = &d->u.global_pool;
  const int q8 = a->dtype != MLIP_DT_FP16; /* an integer type: the element type's rule checked which */
  const int wide = a->dtype == MLIP_DT_INT16; /* 16x8, GLOBAL_AVGPOOL only (its forms WIDE, GLOBAL_MAXPOOL's BOTH) */
  const uint64_t eb = q8 && !wide ? 1u : 2u;
  const uint64_t in_len = mlip_sim_mul3(a->hw, a->c, eb);
  const uint64_t out_len = (uint64_t)a->c * eb;
  /* 8-bit GLOBAL_AVGPOOL: at most 8421504 positions of at most 255, so the
     int32 sum cannot overflow; 16x8: an int64 sum (below 2^32 positions of
     at most 2^15, far inside mlip_requantize64's 2^62); its clamp ordered. */
  if (q8 && d->opcode == MLIP_OP_GLOBAL_AVGPOOL && ((!wide && a->hw > MLIP_INT8_MAX_POOL_HW) || a->lo > a->hi)) {
    return MLIP_ERR_INVALID_ARG;
  }
  MLIP_TRY(mlip_sim_check_ocm(v, a->in, in_len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->out, out_len));
  if (mlip_sim_overlaps(a->out, out_len, a->in, in_len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, a->out, out_len);
}

/* 8-bit: the largest integer, or the int32 sum of x - x_zp requantized by
   (q, shift) into [lo, hi]. 16x8 GLOBAL_AVGPOOL (int16, two bytes an
   element): the int64 sum of x - x_zp requantized by mlip_requantize64, as
   the CPU's QLinearGlobalAveragePool on int16
   (templates/kernels/qlinear_global_avgpool16.c). */
static void global_pool_q8(const mlip_global_pool_args* a, int is_max, uint8_t* ocm) {
  const uint32_t dt = a->dtype;
  const uint8_t* in = ocm + a->in;
  uint8_t* out = ocm + a->out;
  const size_t hw = a->hw, ch = a->c;
  size_t p, cc;
  for (cc = 0; cc < ch; ++cc) {
    if (dt == MLIP_DT_INT16) {
      int64_t acc = 0;
      for (p = 0; p < hw; ++p) {
        acc += (int64_t)mlip_sim_i16_load(in + (p * ch + cc) * 2u) - a->x_zp;
      }
      mlip_sim_i16_store(out + cc * 2u, mlip_requantize64(acc, a->q, a->shift, a->y_zp, a->lo, a->hi));
    } else if (is_max) {
      int32_t r = mlip_sim_q8_lo(dt);
      for (p = 0; p < hw; ++p) {
        const int32_t x = mlip_sim_q8_load(dt, in + p * ch + cc);
        r = x > r ? x : r;
      }
      mlip_sim_q8_store(out + cc, r);
    } else {
      int32_t acc = 0; /* at most 8421504 terms of at most 255: no overflow */
      for (p = 0; p < hw; ++p) {
        acc += mlip_sim_q8_load(dt, in + p * ch + cc) - a->x_zp;
      }
      mlip_sim_q8_store(out + cc, mlip_requantize(acc, a->q, a->shift, a->y_zp, a->lo, a->hi));
    }
  }
}

mlip_status mlip_sim_exec_global_pool(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_global_pool_args* a = &d->u.global_pool;
  const uint8_t* in = ocm + a->in;
  uint8_t* out = ocm + a->out;
  const size_t hw = a->hw, ch = a->c;
  const int is_max = d->opcode == MLIP_OP_GLOBAL_MAXPOOL;
  /* Converted once, outside the branch: GCC 12 at -Os for Cortex-M55 turns
   * a conversion under `if` into a conditional vcvt that MVE does not have
   * (the assembler stops on "vcvtne.f32.u32"). */
  const float count = (float)hw;
  size_t p, cc;
  (void)env; /* works in the tile's OCM only */
  if (a->dtype != MLIP_DT_FP16) {
    global_pool_q8(a, is_max, ocm);
    return MLIP_OK;
  }
  for (cc = 0; cc < ch; ++cc) {
    float r = is_max ? mlip_sim_neg_inf() : 0.0f;
    for (p = 0; p < hw; ++p) {
      const float x = mlip_sim_h2f(mlip_sim_ld16(in + (p * ch + cc) * 2u));
      if (is_max) {
        if (x > r || x != x) {
          r = x; /* a NaN wins over any number */
        }
      } else {
        r = r + x;
      }
    }
    if (!is_max) {
      r = r / count;
    }
    r = mlip_sim_apply_act(r, a->act, a->act_lo, a->act_hi);
    mlip_sim_st16(out + cc * 2u, mlip_sim_round_result(r));
  }
  return MLIP_OK;
}
