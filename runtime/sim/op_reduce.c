/* REDUCE: sums (ReduceSum) and means (ReduceMean) over one axis of a
 * row-major block of halves, [outer][len][inner] -> [outer][inner] (operands:
 * MLIP_FIELDS_reduce, mlip/cmd_table.h), or of 8-bit values dequantized,
 * the result quantized (a DequantizeLinear, ReduceMean or ReduceSum,
 * QuantizeLinear of the CPU's int8 build). Its validation rule
 * (docs/command-buffer.md) and its executor (docs/mlip-spec.md section 4);
 * the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_reduce(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_reduce_args* a = &d->u.reduce;
  const int q8 = a->dtype != MLIP_DT_FP16;
  const uint64_t in_len = mlip_sim_mul4(a->outer, a->len, a->inner, q8 ? 1u : 2u);
  const uint64_t out_len = mlip_sim_mul3(a->outer, a->inner, q8 ? 1u : 2u);
  /* 8-bit: positive finite scales (data the compiler copied from the
     model's constants) */
  if (q8 && (!(a->x_scale > 0.0f) || !(a->y_scale > 0.0f) || a->x_scale > 3.4e38f || a->y_scale > 3.4e38f)) {
    return MLIP_ERR_INVALID_ARG;
  }
  MLIP_TRY(mlip_sim_check_ocm(v, a->in, in_len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->out, out_len));
  if (mlip_sim_overlaps(a->out, out_len, a->in, in_len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, a->out, out_len);
}

/* sum = 0.0f, then + x[o][j][i] for j in order (fp32); mean: sum / len
   (fp32); one rounding. 8-bit (docs/mlip-spec.md 4a): the operations of
   the CPU's dequantize_linear.c, reduce.c and quantize_linear.c in their
   order, each one IEEE binary32 operation: x = (float)(q - x_zp) *
   x_scale, the same sum and mean, then QuantizeLinear (NaN to y_zp). */
mlip_status mlip_sim_exec_reduce(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_reduce_args* a = &d->u.reduce;
  const int q8 = a->dtype != MLIP_DT_FP16;
  const int32_t lo = q8 ? mlip_sim_q8_lo(a->dtype) : 0, hi = q8 ? mlip_sim_q8_hi(a->dtype) : 0;
  const uint8_t* in = ocm + a->in;
  uint8_t* out = ocm + a->out;
  const size_t outer = a->outer, len = a->len, inner = a->inner;
  size_t o, j, i;
  (void)env; /* works in the tile's OCM only */
  for (o = 0; o < outer; ++o) {
    for (i = 0; i < inner; ++i) {
      float s = 0.0f;
      for (j = 0; j < len; ++j) {
        const size_t e = (o * len + j) * inner + i;
        s = s + (q8 ? (float)(mlip_sim_q8_value(in[e], mlip_sim_q8_sign(a->dtype)) - a->x_zp) * a->x_scale
                    : mlip_sim_h2f(mlip_sim_ld16(in + e * 2u)));
      }
      if (a->mean) {
        s = s / (float)a->len;
      }
      if (q8) {
        mlip_sim_q8_store(out + o * inner + i, mlip_sim_q8_quantize(s, a->y_scale, a->y_zp, lo, hi));
      } else {
        mlip_sim_st16(out + (o * inner + i) * 2u, mlip_sim_round_result(s));
      }
    }
  }
  return MLIP_OK;
}
