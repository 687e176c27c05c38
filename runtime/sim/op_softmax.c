/* SOFTMAX: Softmax and LogSoftmax of each row of halves, or the 8-bit
 * Softmax between a dequantization and a quantization (operands:
 * MLIP_FIELDS_softmax, mlip/cmd_table.h). Its validation rule
 * (docs/command-buffer.md) and its executors (docs/mlip-spec.md sections 4
 * and 4a); the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

#include "mlip/kmath_f.h"

mlip_status mlip_sim_check_softmax(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_softmax_args* a = &d->u.softmax;
  const int q8 = a->dtype != MLIP_DT_FP16;
  const uint64_t len = mlip_sim_mul3(a->rows, a->len, q8 ? 1u : 2u);
  /* 8-bit: Softmax only, and positive finite scales (a scale is data the
     compiler copied from the model's constants). */
  if (q8 && (a->log != 0u || !(a->x_scale > 0.0f) || !(a->y_scale > 0.0f) || a->x_scale > 3.4e38f ||
             a->y_scale > 3.4e38f)) {
    return MLIP_ERR_INVALID_ARG;
  }
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
/* 8-bit (docs/mlip-spec.md 4a): the operations of the CPU's int8 build of
   DequantizeLinear, Softmax, QuantizeLinear (templates/kernels
   dequantize_linear.c, softmax.c, quantize_linear.c) in their order, each
   an IEEE binary32 operation or mlip/kmath_f.h's mlip_exp_f (host-independent
   bits, the CPU Softmax's exponential), so the bytes are theirs: x = (float)(q - x_zp) * x_scale; m the
   largest x; s the sum in order of mlip_exp_f(x - m) from 0; y = mlip_exp_f(x
   - m) / s; then v = y / y_scale rounded half to even plus y_zp, saturated
   (v first clamped to one past the range, which changes no result and keeps
   the rounding's argument small). Element i is read before it is written,
   after every element before it: in place is safe. */
static mlip_status softmax_q8(const mlip_softmax_args* a, uint8_t* ocm) {
  const uint8_t* in = ocm + a->in;
  uint8_t* out = ocm + a->out;
  const size_t rows = a->rows, len = a->len;
  const int32_t sg = mlip_sim_q8_sign(a->dtype), lo = mlip_sim_q8_lo(a->dtype), hi = mlip_sim_q8_hi(a->dtype);
  size_t r, i;
  for (r = 0; r < rows; ++r) {
    const uint8_t* x = in + r * len;
    uint8_t* y = out + r * len;
    float m = mlip_sim_neg_inf(), s = 0.0f;
    for (i = 0; i < len; ++i) {
      const float v = (float)(mlip_sim_q8_value(x[i], sg) - a->x_zp) * a->x_scale;
      m = v > m ? v : m;
    }
    for (i = 0; i < len; ++i) {
      const float t = (float)(mlip_sim_q8_value(x[i], sg) - a->x_zp) * a->x_scale - m;
      s = s + mlip_exp_f(t);
    }
    for (i = 0; i < len; ++i) {
      const float t = (float)(mlip_sim_q8_value(x[i], sg) - a->x_zp) * a->x_scale - m;
      const float p = mlip_exp_f(t) / s;
      mlip_sim_q8_store(y + i, mlip_sim_q8_quantize(p, a->y_scale, a->y_zp, lo, hi));
    }
  }
  return MLIP_OK;
}

mlip_status mlip_sim_exec_softmax(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_softmax_args* a = &d->u.softmax;
  const uint8_t* in = ocm + a->in;
  uint8_t* out = ocm + a->out;
  const size_t rows = a->rows, len = a->len;
  size_t r, i;
  (void)env; /* works in the tile's OCM only */
  if (a->dtype != MLIP_DT_FP16) {
    return softmax_q8(a, ocm);
  }
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
