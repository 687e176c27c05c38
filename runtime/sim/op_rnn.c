/* RNN: the time loop of one direction of an LSTM or GRU layer in one
 * command (operands: MLIP_FIELDS_rnn, mlip/cmd_table.h): fp16, per
 * step the recurrent product R h in fp32, the gates with the input
 * projections the command reads (a MATMUL wrote them), the activations of
 * the ACTIVATION command (mlip_sim_apply_act: one definition of sigmoid and
 * tanh), the state update, and the step's output row; 8-bit, the CPU
 * kernel's fp32 operations between a dequantization and a quantization
 * (rnn_q8 below). Its validation rule
 * (docs/command-buffer.md) and its executor (docs/mlip-spec.md section 4,
 * RNN); the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

#include "mlip/kmath_f.h"

/* Gates per hidden unit: LSTM i, o, f, c; GRU z, r, h. */
static uint64_t rnn_gates(uint32_t cell) {
  return cell == MLIP_RNN_LSTM ? 4u : 3u;
}

mlip_status mlip_sim_check_rnn(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_rnn_args* a = &d->u.rnn;
  const int lstm = a->cell == MLIP_RNN_LSTM;
  /* 8-bit: 1-byte inputs and outputs, fp32 weights and state, both biases */
  const int q8 = a->dtype != MLIP_DT_FP16;
  const uint64_t wb = q8 ? 4u : 2u, sb = q8 ? 4u : 2u, eb = q8 ? 1u : 2u;
  const uint64_t gh = mlip_sim_sat_mul(rnn_gates(a->cell), a->hidden);
  const uint64_t xp_len = mlip_sim_mul4(a->steps, a->batch, q8 ? a->input : gh, eb);
  const uint64_t r_len = mlip_sim_mul3(gh, a->hidden, wb);
  const uint64_t w_len_in = mlip_sim_mul3(gh, a->input, 4u);
  const uint64_t bias_len = mlip_sim_mul3(gh, q8 ? 2u : 1u, 4u);
  const uint64_t state_len = mlip_sim_mul3(a->batch, a->hidden, sb);
  const uint64_t y_len = mlip_sim_mul4(a->steps, a->batch, a->hidden, eb);
  const uint64_t work_len = mlip_sim_sat_mul(mlip_sim_sat_add(gh, a->hidden), 4u);
  const int has_bias = a->bias != MLIP_NO_OFFSET;
  /* The operands it writes (h, c, y, work) overlap nothing else. */
  uint32_t w_off[4];
  uint64_t w_len[4];
  uint32_t r_off[4];
  uint64_t r_len_of[4];
  size_t nw = 0, nr = 0, i, j;
  /* The cell state belongs to the LSTM alone, linear_before_reset to the GRU. */
  if (lstm ? (a->c == MLIP_NO_OFFSET || a->lbr != 0u) : a->c != MLIP_NO_OFFSET) {
    return MLIP_ERR_INVALID_ARG;
  }
  /* 8-bit: positive finite scales (data the compiler copied from the model). */
  if (q8 && (!(a->x_scale > 0.0f) || !(a->y_scale > 0.0f) || a->x_scale > 3.4e38f || a->y_scale > 3.4e38f)) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (q8) {
    MLIP_TRY(mlip_sim_check_ocm(v, a->w, w_len_in));
    r_off[nr] = a->w, r_len_of[nr++] = w_len_in;
  }
  MLIP_TRY(mlip_sim_check_ocm(v, a->xp, xp_len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->r, r_len));
  if (has_bias) {
    MLIP_TRY(mlip_sim_check_ocm(v, a->bias, bias_len));
  }
  MLIP_TRY(mlip_sim_check_ocm(v, a->h, state_len));
  if (lstm) {
    MLIP_TRY(mlip_sim_check_ocm(v, a->c, state_len));
  }
  MLIP_TRY(mlip_sim_check_ocm(v, a->y, y_len));
  MLIP_TRY(mlip_sim_check_ocm(v, a->work, work_len));
  w_off[nw] = a->h, w_len[nw++] = state_len;
  if (lstm) {
    w_off[nw] = a->c, w_len[nw++] = state_len;
  }
  w_off[nw] = a->y, w_len[nw++] = y_len;
  w_off[nw] = a->work, w_len[nw++] = work_len;
  r_off[nr] = a->xp, r_len_of[nr++] = xp_len;
  r_off[nr] = a->r, r_len_of[nr++] = r_len;
  if (has_bias) {
    r_off[nr] = a->bias, r_len_of[nr++] = bias_len;
  }
  for (i = 0; i < nw; ++i) {
    for (j = i + 1u; j < nw; ++j) {
      if (mlip_sim_overlaps(w_off[i], w_len[i], w_off[j], w_len[j])) {
        return MLIP_ERR_INVALID_ARG;
      }
    }
    for (j = 0; j < nr; ++j) {
      if (mlip_sim_overlaps(w_off[i], w_len[i], r_off[j], r_len_of[j])) {
        return MLIP_ERR_INVALID_ARG;
      }
    }
    MLIP_TRY(mlip_sim_check_write(v, section, w_off[i], w_len[i]));
  }
  return MLIP_OK;
}

/* sum over k of R[row][k] * s(k), in order, in fp32 (s: the state's halves,
   or the fp32 values at `f32` when not NULL), plus the bias. */
static float rnn_dot(const uint8_t* r, const uint8_t* bias, size_t row, size_t hidden, const uint8_t* h,
                     const uint8_t* f32) {
  const uint8_t* rr = r + row * hidden * 2u;
  float acc = 0.0f;
  size_t k;
  for (k = 0; k < hidden; ++k) {
    const float s = f32 != NULL ? mlip_sim_ldf(f32 + k * 4u) : mlip_sim_h2f(mlip_sim_ld16(h + k * 2u));
    const float p = mlip_sim_h2f(mlip_sim_ld16(rr + k * 2u)) * s;
    acc = acc + p;
  }
  if (bias != NULL) {
    acc = acc + mlip_sim_ldf(bias + row * 4u);
  }
  return acc;
}

static float rnn_act(float v, uint32_t act) {
  return mlip_sim_apply_act(v, act, 0.0f, 0.0f);
}

/* One LSTM step of one sequence: gates i, o, f, c (docs/mlip-spec.md). */
static void lstm_step(const mlip_rnn_args* a, const uint8_t* xp, const uint8_t* r, const uint8_t* bias, uint8_t* h,
                      uint8_t* c, uint8_t* y, uint8_t* work) {
  const size_t hs = a->hidden, gh = 4u * hs;
  size_t g, j;
  for (g = 0; g < gh; ++g) {
    const float pre = mlip_sim_h2f(mlip_sim_ld16(xp + g * 2u)) + rnn_dot(r, bias, g, hs, h, NULL);
    mlip_sim_stf(work + g * 4u, pre);
  }
  for (j = 0; j < hs; ++j) {
    const float gi = rnn_act(mlip_sim_ldf(work + j * 4u), MLIP_ACT_SIGMOID);
    const float go = rnn_act(mlip_sim_ldf(work + (hs + j) * 4u), MLIP_ACT_SIGMOID);
    const float gf = rnn_act(mlip_sim_ldf(work + (2u * hs + j) * 4u), MLIP_ACT_SIGMOID);
    const float gc = rnn_act(mlip_sim_ldf(work + (3u * hs + j) * 4u), MLIP_ACT_TANH);
    const float kept = gf * mlip_sim_h2f(mlip_sim_ld16(c + j * 2u));
    const float added = gi * gc;
    const float cn = kept + added;
    const float hn = go * rnn_act(cn, MLIP_ACT_TANH);
    const uint16_t hb = mlip_sim_round_result(hn);
    mlip_sim_st16(c + j * 2u, mlip_sim_round_result(cn));
    mlip_sim_st16(h + j * 2u, hb);
    mlip_sim_st16(y + j * 2u, hb);
  }
}

/* One GRU step of one sequence: gates z, r, h (docs/mlip-spec.md). */
static void gru_step(const mlip_rnn_args* a, const uint8_t* xp, const uint8_t* r, const uint8_t* bias, uint8_t* h,
                     uint8_t* y, uint8_t* work) {
  const size_t hs = a->hidden, gh = 3u * hs;
  uint8_t* rh = work + gh * 4u; /* r * h, fp32 (linear_before_reset 0) */
  size_t g, j;
  /* z and r, and with linear_before_reset R_h h + Rb_h, from the old state */
  for (g = 0; g < (a->lbr ? gh : 2u * hs); ++g) {
    mlip_sim_stf(work + g * 4u, rnn_dot(r, bias, g, hs, h, NULL));
  }
  for (j = 0; j < hs; ++j) {
    const float gz = rnn_act(mlip_sim_h2f(mlip_sim_ld16(xp + j * 2u)) + mlip_sim_ldf(work + j * 4u), MLIP_ACT_SIGMOID);
    const float gr =
        rnn_act(mlip_sim_h2f(mlip_sim_ld16(xp + (hs + j) * 2u)) + mlip_sim_ldf(work + (hs + j) * 4u), MLIP_ACT_SIGMOID);
    mlip_sim_stf(work + j * 4u, gz);
    mlip_sim_stf(work + (hs + j) * 4u, gr);
    if (!a->lbr) {
      mlip_sim_stf(rh + j * 4u, gr * mlip_sim_h2f(mlip_sim_ld16(h + j * 2u)));
    }
  }
  if (!a->lbr) {
    for (j = 0; j < hs; ++j) {
      mlip_sim_stf(work + (2u * hs + j) * 4u, rnn_dot(r, bias, 2u * hs + j, hs, h, rh));
    }
  }
  for (j = 0; j < hs; ++j) {
    const float gz = mlip_sim_ldf(work + j * 4u), gr = mlip_sim_ldf(work + (hs + j) * 4u);
    const float lin = mlip_sim_ldf(work + (2u * hs + j) * 4u);
    const float rec = a->lbr ? gr * lin : lin;
    const float gn = rnn_act(mlip_sim_h2f(mlip_sim_ld16(xp + (2u * hs + j) * 2u)) + rec, MLIP_ACT_TANH);
    const float kept = gz * mlip_sim_h2f(mlip_sim_ld16(h + j * 2u));
    const float fresh = (1.0f - gz) * gn;
    const uint16_t hb = mlip_sim_round_result(fresh + kept);
    mlip_sim_st16(h + j * 2u, hb);
    mlip_sim_st16(y + j * 2u, hb);
  }
}

/* 8-bit (docs/mlip-spec.md 4a): the operations of the CPU's int8 build of
   DequantizeLinear, LSTM or GRU, QuantizeLinear (templates/kernels
   dequantize_linear.c, recurrent_packed.c, quantize_linear.c; the order is
   ops/recurrent.cpp's reference), each an IEEE binary32 operation or
   mlip/kmath_f.h's mlip_sigmoid_f and mlip_tanh_f (the CPU kernel's), so
   the bytes are theirs. Per sequence and step: x[k] = (float)(q - x_zp) *
   x_scale; a gate row's pre-activation dot(x, W[row]) + dot(h, R[row]) +
   (Wb[row] + Rb[row]), each dot summed from 0 in order; the new state of
   every unit from the old state; h (fp32, kept) quantized to y by
   QuantizeLinear's rounding. The cell state stays fp32 too. */
static float q8_x(const mlip_rnn_args* a, const uint8_t* x, size_t k, int32_t sg) {
  return (float)(mlip_sim_q8_value(x[k], sg) - a->x_zp) * a->x_scale;
}
static float q8_dot_x(const mlip_rnn_args* a, const uint8_t* x, const uint8_t* w, size_t row, int32_t sg) {
  const size_t in = a->input;
  float s = 0.0f;
  size_t k;
  for (k = 0; k < in; ++k) {
    s += q8_x(a, x, k, sg) * mlip_sim_ldf(w + (row * in + k) * 4u);
  }
  return s;
}
static float q8_dot_h(const uint8_t* h, const uint8_t* r, size_t row, size_t hs) {
  float s = 0.0f;
  size_t k;
  for (k = 0; k < hs; ++k) {
    s += mlip_sim_ldf(h + k * 4u) * mlip_sim_ldf(r + (row * hs + k) * 4u);
  }
  return s;
}
/* dot(x, W) + dot(h, R) + (Wb + Rb) of gate row `row` (h: fp32 [hidden]). */
static float q8_pre(const mlip_rnn_args* a, const uint8_t* ocm, const uint8_t* x, const uint8_t* h, size_t row,
                    int32_t sg) {
  const size_t gh = (size_t)rnn_gates(a->cell) * a->hidden;
  float s = q8_dot_x(a, x, ocm + a->w, row, sg);
  s = s + q8_dot_h(h, ocm + a->r, row, a->hidden);
  if (a->bias != MLIP_NO_OFFSET) {
    s = s + (mlip_sim_ldf(ocm + a->bias + row * 4u) + mlip_sim_ldf(ocm + a->bias + (gh + row) * 4u));
  }
  return s;
}

static void rnn_q8(const mlip_rnn_args* a, uint8_t* ocm) {
  const size_t hs = a->hidden, batch = a->batch, steps = a->steps, in = a->input;
  const size_t gh = (size_t)rnn_gates(a->cell) * hs;
  const int32_t sg = mlip_sim_q8_sign(a->dtype), lo = mlip_sim_q8_lo(a->dtype), hi = mlip_sim_q8_hi(a->dtype);
  const uint8_t* bias = a->bias != MLIP_NO_OFFSET ? ocm + a->bias : NULL;
  /* work: hn [hidden], then GRU's z, r, r * h [hidden] each */
  uint8_t* hn = ocm + a->work;
  uint8_t* z = hn + hs * 4u;
  uint8_t* rg = z + hs * 4u;
  uint8_t* rh = rg + hs * 4u;
  size_t i, b, j;
  for (i = 0; i < steps; ++i) {
    const size_t s = a->reverse ? steps - 1u - i : i;
    for (b = 0; b < batch; ++b) {
      const uint8_t* x = ocm + a->xp + (s * batch + b) * in;
      uint8_t* h = ocm + a->h + b * hs * 4u;
      uint8_t* y = ocm + a->y + (s * batch + b) * hs;
      if (a->cell == MLIP_RNN_LSTM) {
        uint8_t* c = ocm + a->c + b * hs * 4u;
        for (j = 0; j < hs; ++j) {
          const float ig = mlip_sigmoid_f(q8_pre(a, ocm, x, h, j, sg));
          const float fg = mlip_sigmoid_f(q8_pre(a, ocm, x, h, 2u * hs + j, sg));
          const float cg = mlip_tanh_f(q8_pre(a, ocm, x, h, 3u * hs + j, sg));
          const float cn = fg * mlip_sim_ldf(c + j * 4u) + ig * cg;
          float og;
          mlip_sim_stf(c + j * 4u, cn);
          og = mlip_sigmoid_f(q8_pre(a, ocm, x, h, hs + j, sg));
          mlip_sim_stf(hn + j * 4u, og * mlip_tanh_f(cn));
        }
      } else {
        for (j = 0; j < hs; ++j) {
          mlip_sim_stf(z + j * 4u, mlip_sigmoid_f(q8_pre(a, ocm, x, h, j, sg)));
        }
        for (j = 0; j < hs; ++j) {
          mlip_sim_stf(rg + j * 4u, mlip_sigmoid_f(q8_pre(a, ocm, x, h, hs + j, sg)));
        }
        for (j = 0; j < hs; ++j) {
          mlip_sim_stf(rh + j * 4u, mlip_sim_ldf(rg + j * 4u) * mlip_sim_ldf(h + j * 4u));
        }
        for (j = 0; j < hs; ++j) {
          const size_t row = 2u * hs + j;
          const float zj = mlip_sim_ldf(z + j * 4u), hj = mlip_sim_ldf(h + j * 4u);
          float sh, hh;
          if (a->lbr) {
            float sx = q8_dot_x(a, x, ocm + a->w, row, sg), sr = q8_dot_h(h, ocm + a->r, row, hs);
            if (bias != NULL) {
              sx = sx + mlip_sim_ldf(bias + row * 4u);
              sr = sr + mlip_sim_ldf(bias + (gh + row) * 4u);
            }
            sh = sx + mlip_sim_ldf(rg + j * 4u) * sr;
          } else {
            sh = q8_pre(a, ocm, x, rh, row, sg);
          }
          hh = mlip_tanh_f(sh);
          mlip_sim_stf(hn + j * 4u, (1.0f - zj) * hh + zj * hj);
        }
      }
      for (j = 0; j < hs; ++j) {
        const float v = mlip_sim_ldf(hn + j * 4u);
        mlip_sim_stf(h + j * 4u, v);
        mlip_sim_q8_store(y + j, mlip_sim_q8_quantize(v, a->y_scale, a->y_zp, lo, hi));
      }
    }
  }
}

mlip_status mlip_sim_exec_rnn(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_rnn_args* a = &d->u.rnn;
  const size_t hs = a->hidden, batch = a->batch, steps = a->steps;
  const size_t gh = (size_t)rnn_gates(a->cell) * hs;
  const uint8_t* bias = a->bias != MLIP_NO_OFFSET ? ocm + a->bias : NULL;
  size_t i, b;
  (void)env; /* works in the tile's OCM only */
  if (a->dtype != MLIP_DT_FP16) {
    rnn_q8(a, ocm);
    return MLIP_OK;
  }
  for (i = 0; i < steps; ++i) {
    const size_t s = a->reverse ? steps - 1u - i : i;
    for (b = 0; b < batch; ++b) {
      const uint8_t* xp = ocm + a->xp + (s * batch + b) * gh * 2u;
      uint8_t* h = ocm + a->h + b * hs * 2u;
      uint8_t* y = ocm + a->y + (s * batch + b) * hs * 2u;
      if (a->cell == MLIP_RNN_LSTM) {
        lstm_step(a, xp, ocm + a->r, bias, h, ocm + a->c + b * hs * 2u, y, ocm + a->work);
      } else {
        gru_step(a, xp, ocm + a->r, bias, h, y, ocm + a->work);
      }
    }
  }
  return MLIP_OK;
}
