/* SOFTMAX: Softmax and LogSoftmax of each row of halves (operands:
 * MLIP_FIELDS_softmax, mlip/cmd_table.h; fp16 only). Its validation rule
 * (docs/command-buffer.md) and its executor (docs/mlip-spec.md section 4);
 * the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

mlip_status mlip_sim_check_softmax(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_softmax_args* a = &d->u.softmax;
  const uint64_t len = mlip_sim_mul3(a->rows, a->len, 2u);
  MLIP_TRY(mlip_sim_check_ocm(v, a->in, len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->out, len));
  /* In place is allowed (the executor reads each element for the last
     time just before it writes it); any other overlap is not. */
  if (a->out != a->in && mlip_sim_overlaps(a->out, len, a->in, len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return mlip_sim_check_write(v, section, a->out, len);
}

/* Per row (docs/mlip-spec.md section 4): m the largest element (fp32
   comparisons, NaN never chosen; -inf for a row of -inf and NaN), s the
   sum in order of mlip_expf(x - m), then y = mlip_expf(x - m) / s, or
   (x - m) - mlip_logf(s); one rounding. Element i is read before it is
   written and after every element before it, so in place is safe. */
mlip_status mlip_sim_exec_softmax(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_softmax_args* a = &d->u.softmax;
  const uint8_t* in = ocm + a->in;
  uint8_t* out = ocm + a->out;
  const size_t rows = a->rows, len = a->len;
  size_t r, i;
  (void)env; /* works in the tile's OCM only */
  for (r = 0; r < rows; ++r) {
    const uint8_t* x = in + r * len * 2u;
    uint8_t* y = out + r * len * 2u;
    float m = mlip_sim_neg_inf(), s = 0.0f, ls = 0.0f;
    for (i = 0; i < len; ++i) {
      const float v = mlip_sim_h2f(mlip_sim_ld16(x + i * 2u));
      m = v > m ? v : m;
    }
    for (i = 0; i < len; ++i) {
      const float t = mlip_sim_h2f(mlip_sim_ld16(x + i * 2u)) - m;
      s = s + mlip_expf(t);
    }
    if (a->log) {
      ls = mlip_logf(s);
    }
    for (i = 0; i < len; ++i) {
      const float t = mlip_sim_h2f(mlip_sim_ld16(x + i * 2u)) - m;
      const float r2 = a->log ? t - ls : mlip_expf(t) / s;
      mlip_sim_st16(y + i * 2u, mlip_sim_round_result(r2));
    }
  }
  return MLIP_OK;
}
