/* REDUCE: sums (ReduceSum) and means (ReduceMean) over one axis of a
 * row-major block of halves, [outer][len][inner] -> [outer][inner] (operands:
 * MLIP_FIELDS_reduce, mlip/cmd_table.h; fp16 only). Its validation rule
 * (docs/command-buffer.md) and its executor (docs/mlip-spec.md section 4);
 * the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_reduce(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_reduce_args* a = &d->u.reduce;
  const uint64_t in_len = mlip_sim_mul4(a->outer, a->len, a->inner, 2u);
  const uint64_t out_len = mlip_sim_mul3(a->outer, a->inner, 2u);
  MLIP_TRY(mlip_sim_check_ocm(v, a->in, in_len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->out, out_len));
  if (mlip_sim_overlaps(a->out, out_len, a->in, in_len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, a->out, out_len);
}

/* sum = 0.0f, then + x[o][j][i] for j in order (fp32); mean: sum / len
   (fp32); one rounding. */
mlip_status mlip_sim_exec_reduce(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_reduce_args* a = &d->u.reduce;
  const uint8_t* in = ocm + a->in;
  uint8_t* out = ocm + a->out;
  const size_t outer = a->outer, len = a->len, inner = a->inner;
  size_t o, j, i;
  (void)env; /* works in the tile's OCM only */
  for (o = 0; o < outer; ++o) {
    for (i = 0; i < inner; ++i) {
      float s = 0.0f;
      for (j = 0; j < len; ++j) {
        s = s + mlip_sim_h2f(mlip_sim_ld16(in + ((o * len + j) * inner + i) * 2u));
      }
      if (a->mean) {
        s = s / (float)a->len;
      }
      mlip_sim_st16(out + (o * inner + i) * 2u, mlip_sim_round_result(s));
    }
  }
  return MLIP_OK;
}
