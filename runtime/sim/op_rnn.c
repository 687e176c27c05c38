/* RNN: the time loop of one direction of an LSTM or GRU layer in one
 * command (operands: MLIP_FIELDS_rnn, mlip/cmd_table.h; fp16 only): per
 * step the recurrent product R h in fp32, the gates with the input
 * projections the command reads (a MATMUL wrote them), the activations of
 * the ACTIVATION command (mlip_sim_apply_act: one definition of sigmoid and
 * tanh), the state update, and the step's output row. Its validation rule
 * (docs/command-buffer.md) and its executor (docs/mlip-spec.md section 4,
 * RNN); the opcode table (opcodes.c) names both. */
#include "sim_internal.h"

/* Gates per hidden unit: LSTM i, o, f, c; GRU z, r, h. */
static uint64_t rnn_gates(uint32_t cell) {
  return cell == MLIP_RNN_LSTM ? 4u : 3u;
}

mlip_status mlip_sim_check_rnn(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_rnn_args* a = &d->u.rnn;
  const int lstm = a->cell == MLIP_RNN_LSTM;
  const uint64_t gh = mlip_sim_sat_mul(rnn_gates(a->cell), a->hidden);
  const uint64_t xp_len = mlip_sim_mul4(a->steps, a->batch, gh, 2u);
  const uint64_t r_len = mlip_sim_mul3(gh, a->hidden, 2u);
  const uint64_t bias_len = mlip_sim_sat_mul(gh, 4u);
  const uint64_t state_len = mlip_sim_mul3(a->batch, a->hidden, 2u);
  const uint64_t y_len = mlip_sim_mul4(a->steps, a->batch, a->hidden, 2u);
  const uint64_t work_len = mlip_sim_sat_mul(mlip_sim_sat_add(gh, a->hidden), 4u);
  const int has_bias = a->bias != MLIP_NO_OFFSET;
  /* The operands it writes (h, c, y, work) overlap nothing else. */
  uint32_t w_off[4];
  uint64_t w_len[4];
  uint32_t r_off[3];
  uint64_t r_len_of[3];
  size_t nw = 0, nr = 0, i, j;
  /* The cell state belongs to the LSTM alone, linear_before_reset to the GRU. */
  if (lstm ? (a->c == MLIP_NO_OFFSET || a->lbr != 0u) : a->c != MLIP_NO_OFFSET) {
    return MLIP_ERR_INVALID_ARG;
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

mlip_status mlip_sim_exec_rnn(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d) {
  const mlip_rnn_args* a = &d->u.rnn;
  const size_t hs = a->hidden, batch = a->batch, steps = a->steps;
  const size_t gh = (size_t)rnn_gates(a->cell) * hs;
  const uint8_t* bias = a->bias != MLIP_NO_OFFSET ? ocm + a->bias : NULL;
  size_t i, b;
  (void)env; /* works in the tile's OCM only */
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
