/* RESIZE: an NHWC block resampled through a row and a column tap table
 * (nearest: one tap, a copy; bilinear: two weighted taps), fp16 or 8-bit
 * (nearest only: a copy of the byte, exact, input and output sharing scale
 * and zero point) (operands: MLIP_FIELDS_resize, mlip/cmd_table.h). One
 * validator and one executor for both
 * element sizes. Its validation rule (docs/command-buffer.md) and its
 * executor (docs/mlip-spec.md sections 4 and 4a); the opcode table
 * (opcodes.c) names both. */
#include "sim_internal.h"

#define RESIZE_ENTRY_BYTES MLIP_RESIZE_ENTRY_BYTES /* uint32 index, float32 weight */

mlip_status mlip_sim_check_resize(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_resize_args* a = &d->u.resize;
  /* fp16, or an 8-bit type (the element type's rule checked which; the
     per-field rule TAPS allows it one tap each way: nearest, a copy) */
  const uint64_t eb = a->dtype != MLIP_DT_FP16 ? 1u : 2u;
  const uint64_t in_len = mlip_sim_mul4(a->in_h, a->in_w, a->c, eb);
  const uint64_t out_len = mlip_sim_mul4(a->out_h, a->out_w, a->c, eb);
  const uint64_t row_len = mlip_sim_mul3(a->out_h, a->row_taps, RESIZE_ENTRY_BYTES);
  const uint64_t col_len = mlip_sim_mul3(a->out_w, a->col_taps, RESIZE_ENTRY_BYTES);
  MLIP_TRY(mlip_sim_check_ocm(v, a->in, in_len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->out, out_len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->row_table, row_len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->col_table, col_len));
  if (mlip_sim_overlaps(a->out, out_len, a->in, in_len) || mlip_sim_overlaps(a->out, out_len, a->row_table, row_len) ||
      mlip_sim_overlaps(a->out, out_len, a->col_table, col_len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, a->out, out_len);
}

static uint32_t ld32(const uint8_t* p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Every index of a table in [0, limit) after subtracting base: the tables
   are data in OCM, so the executor checks them before writing anything. */
static int table_ok(const uint8_t* t, uint64_t entries, uint32_t base, uint32_t limit) {
  uint64_t i;
  for (i = 0; i < entries; ++i) {
    uint32_t k = ld32(t + i * RESIZE_ENTRY_BYTES);
    if (k < base || k - base >= limit) {
      return 0;
    }
  }
  return 1;
}

/* Tap t of entry o: its index (rebased) and weight. */
static uint32_t tap_index(const uint8_t* t, size_t o, uint32_t taps, uint32_t k, uint32_t base) {
  return ld32(t + ((size_t)o * taps + k) * RESIZE_ENTRY_BYTES) - base;
}
static float tap_weight(const uint8_t* t, size_t o, uint32_t taps, uint32_t k) {
  return mlip_sim_bits_to_float(ld32(t + ((size_t)o * taps + k) * RESIZE_ENTRY_BYTES + 4u));
}

mlip_status mlip_sim_exec_resize(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_resize_args* a = &d->u.resize;
  const uint8_t* in = ocm + a->in;
  uint8_t* out = ocm + a->out;
  const uint8_t* rows = ocm + a->row_table;
  const uint8_t* cols = ocm + a->col_table;
  const uint32_t in_h = a->in_h, in_w = a->in_w;
  const size_t ch = a->c, out_h = a->out_h, out_w = a->out_w;
  const uint32_t rt = a->row_taps, ct = a->col_taps, base = a->row_base;
  const size_t eb = a->dtype != MLIP_DT_FP16 ? 1u : 2u; /* 8-bit: nearest only (the validator) */
  size_t oh, ow, cc;
  (void)env; /* works in the tile's OCM only */
  if (!table_ok(rows, (uint64_t)out_h * rt, base, in_h) || !table_ok(cols, (uint64_t)out_w * ct, 0u, in_w)) {
    return MLIP_ERR_INVALID_ARG;
  }
  for (oh = 0; oh < out_h; ++oh) {
    for (ow = 0; ow < out_w; ++ow) {
      if (rt == 1u && ct == 1u) {
        /* nearest: the position's elements themselves, every bit (NaN
           payloads too), of either size */
        const size_t r = tap_index(rows, oh, 1u, 0u, base), q = tap_index(cols, ow, 1u, 0u, 0u);
        memcpy(out + (oh * out_w + ow) * ch * eb, in + (r * in_w + q) * ch * eb, ch * eb);
        continue;
      }
      for (cc = 0; cc < ch; ++cc) {
        /* rows outermost: s = 0 + wr0 * line(r0) + wr1 * line(r1), each
           line(r) = 0 + wc0 * x[r][q0] + wc1 * x[r][q1] (or x[r][q0]
           alone for one tap), every operation one fp32 rounding */
        float s = 0.0f;
        uint32_t kr, kc;
        for (kr = 0; kr < rt; ++kr) {
          const size_t r = tap_index(rows, oh, rt, kr, base);
          float line = 0.0f;
          if (ct == 1u) {
            line = mlip_sim_h2f(mlip_sim_ld16(in + ((r * in_w + tap_index(cols, ow, 1u, 0u, 0u)) * ch + cc) * 2u));
          } else {
            for (kc = 0; kc < ct; ++kc) {
              const size_t q = tap_index(cols, ow, ct, kc, 0u);
              line = line + tap_weight(cols, ow, ct, kc) * mlip_sim_h2f(mlip_sim_ld16(in + ((r * in_w + q) * ch + cc) * 2u));
            }
          }
          s = rt == 1u ? line : s + tap_weight(rows, oh, rt, kr) * line;
        }
        mlip_sim_st16(out + ((oh * out_w + ow) * ch + cc) * 2u, mlip_sim_round_result(s));
      }
    }
  }
  return MLIP_OK;
}
