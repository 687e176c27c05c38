/* runtime.sim_rnn: the RNN command (docs/mlip-spec.md section 4, RNN) on
   tiny hand-computed data: LSTM with a zero state and one step, with given
   states and three steps forward and reverse (two sequences), GRU with
   linear_before_reset 0 and 1, reverse and without bias; and its rules.
   Expected halves computed independently in Python: each fp32 step of the
   spec rounded by numpy (sigmoid and tanh in double rounded to fp32), the
   state and the outputs to fp16. The first case by hand: with a zero state
   the gates are xp + bias, i = sigmoid(0.625), o = sigmoid(1.5), f unused
   (c = 0), g = tanh(2.0625): c = 0.6514 * 0.9683 = 0.6307 (0x390C),
   h = 0.8176 * tanh(0.6307) = 0.4566 (0x374E). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cmdbuf_builder.h"
#include "mlip/platform.h"
#include "mlip/region.h"
#include "sim_internal.h"

uint64_t mlip_platform_time_ns(void) { return 0; }

#define TILE_OCM 4096u
/* Operands: xp, R, bias, h, c, y, work. */
enum { XP = 0, RW = 256, BIAS = 384, H = 512, C = 640, Y = 768, WORK = 1024 };

static cb_builder b;
static uint8_t ocm[TILE_OCM];
static uint32_t layer0;

static void fresh(void) {
  cb_init(&b, MLIP_MCPU_CN10KA, 1, TILE_OCM);
  layer0 = cb_layer(&b, MLIP_LAYER_RNN, "rnn");
  memset(ocm, 0, sizeof ocm);
}
static mlip_status run(void) { return cb_run(&b, ocm, sizeof ocm, NULL, 0, NULL, 0, NULL, 0, NULL, 0); }
static void seth(uint32_t off, float v) {
  uint16_t h = cb_h(v);
  memcpy(ocm + off, &h, 2);
}
static void setf(uint32_t off, float v) { memcpy(ocm + off, &v, 4); }
static void set_halves(uint32_t off, const float* v, uint32_t n) {
  uint32_t i;
  for (i = 0; i < n; ++i) seth(off + 2u * i, v[i]);
}
static uint16_t geth(uint32_t off) {
  uint16_t h;
  memcpy(&h, ocm + off, 2);
  return h;
}
static void expect_halves(uint32_t off, const uint16_t* want, uint32_t n) {
  uint32_t i;
  for (i = 0; i < n; ++i) {
    if (geth(off + 2u * i) != want[i]) print_error("element %u: got 0x%04X want 0x%04X\n", i, geth(off + 2u * i), want[i]);
    assert_int_equal(geth(off + 2u * i), want[i]);
  }
}

/* R [8][2] (LSTM; its first 6 rows: GRU) and the fp32 bias [8]. */
static const float kR[16] = {0.5f, -0.5f, 0.25f, 0.75f, 1, -1, 0.125f, 0.5f, -0.25f, 0.25f, 0.75f, -0.125f, 0.5f, 0.5f, -1, 0.25f};
static const float kBias[8] = {0.125f, -0.25f, 0.5f, 0, 0.25f, -0.125f, 0.0625f, 0.375f};

static mlip_rnn_args* rnn(uint32_t cell, uint32_t steps, uint32_t batch) {
  const uint32_t gates = cell == MLIP_RNN_LSTM ? 4u : 3u;
  mlip_rnn_args* a = cb_op_rnn(&b, CB_MAIN, 0, layer0);
  uint32_t i;
  set_halves(RW, kR, gates * 2u * 2u);
  for (i = 0; i < gates * 2u; ++i) setf(BIAS + 4u * i, kBias[i]);
  a->xp = XP;
  a->r = RW;
  a->bias = BIAS;
  a->h = H;
  a->c = cell == MLIP_RNN_LSTM ? C : MLIP_NO_OFFSET;
  a->y = Y;
  a->work = WORK;
  a->steps = steps;
  a->batch = batch;
  a->hidden = 2;
  a->cell = cell;
  a->dtype = MLIP_DT_FP16;
  return a;
}

static void test_lstm_one_step_zero_state(void** state) {
  const float xp[8] = {0.5f, -0.25f, 1, 0.75f, -1, 0.125f, 2, -0.5f};
  const uint16_t y[2] = {0x374E, 0xA814}, c[2] = {0x390C, 0xAA02};
  (void)state;
  fresh();
  set_halves(XP, xp, 8);
  rnn(MLIP_RNN_LSTM, 1, 1);
  assert_int_equal(run(), MLIP_OK);
  expect_halves(Y, y, 2);
  expect_halves(H, y, 2); /* the state is the last output */
  expect_halves(C, c, 2);
}

/* xp [3][2][8] = ((i * 7) % 11 - 5) / 8; h0 and c0 given. Reverse: the
   steps from 2 down to 0, each output at its own step. */
static void lstm_three_steps(uint32_t reverse, const uint16_t* y, const uint16_t* c) {
  const float h0[4] = {0.25f, -0.5f, 0.5f, 0.125f}, c0[4] = {-0.75f, 1, 0.5f, -0.25f};
  uint32_t i;
  fresh();
  for (i = 0; i < 48; ++i) seth(XP + 2u * i, (float)((int)((i * 7u) % 11u) - 5) / 8.0f);
  set_halves(H, h0, 4);
  set_halves(C, c0, 4);
  rnn(MLIP_RNN_LSTM, 3, 2)->reverse = reverse;
  assert_int_equal(run(), MLIP_OK);
  expect_halves(Y, y, 12);
  expect_halves(C, c, 4);
  expect_halves(H, reverse ? y : y + 8, 4); /* the last step's outputs */
}

static void test_lstm_given_states(void** state) {
  const uint16_t fwd[12] = {0xB100, 0x33E9, 0x362E, 0xA917, 0xB15C, 0x32CB, 0x32A7, 0x2BDD, 0xB2AB, 0x3316, 0x2C08, 0x30B2};
  const uint16_t fwd_c[4] = {0xB5E3, 0x3836, 0x2D7F, 0x3505};
  const uint16_t rev[12] = {0xAFFC, 0x355D, 0x30AB, 0x305C, 0xB460, 0x338E, 0x22EF, 0x3015, 0xB820, 0x3335, 0x326D, 0x227E};
  const uint16_t rev_c[4] = {0xB4B7, 0x3865, 0x343A, 0x364D};
  (void)state;
  lstm_three_steps(0, fwd, fwd_c);
  lstm_three_steps(1, rev, rev_c);
}

/* xp [2][1][6] = ((i * 5) % 9 - 4) / 4, h0 = {0.5, -0.25}. */
static void gru_case(uint32_t lbr, uint32_t reverse, int bias, int zero_state, const uint16_t* y) {
  const float h0[2] = {0.5f, -0.25f};
  uint32_t i;
  mlip_rnn_args* a;
  fresh();
  for (i = 0; i < 12; ++i) seth(XP + 2u * i, (float)((int)((i * 5u) % 9u) - 4) / 4.0f);
  if (!zero_state) set_halves(H, h0, 2);
  a = rnn(MLIP_RNN_GRU, 2, 1);
  a->lbr = lbr;
  a->reverse = reverse;
  if (!bias) a->bias = MLIP_NO_OFFSET;
  assert_int_equal(run(), MLIP_OK);
  expect_halves(Y, y, 4);
}

static void test_gru(void** state) {
  const uint16_t lbr0[4] = {0xA77F, 0x33C2, 0x3420, 0xA783};
  const uint16_t lbr1[4] = {0xAD16, 0x340E, 0x3258, 0xA129};
  const uint16_t rev_plain[4] = {0xB4DA, 0x32E1, 0x3068, 0xB177};
  (void)state;
  gru_case(0, 0, 1, 0, lbr0);
  gru_case(1, 0, 1, 0, lbr1);
  gru_case(0, 1, 0, 1, rev_plain); /* reverse, no bias, zero state */
}

/* Damaged commands get an error code: a step count whose operands pass
   the end of OCM, a cell state on a GRU (none on an LSTM), an unknown cell,
   linear_before_reset on an LSTM, a written operand over another. */
static void test_rnn_rules(void** state) {
  mlip_rnn_args* a;
  (void)state;
  fresh();
  rnn(MLIP_RNN_LSTM, 1000, 1);
  assert_int_equal(run(), MLIP_ERR_BOUNDS);
  fresh();
  rnn(MLIP_RNN_LSTM, 0xFFFFFFFFu, 0xFFFFFFFFu)->hidden = 0xFFFFFFFFu; /* sizes saturate, never wrap */
  assert_int_not_equal(run(), MLIP_OK);
  fresh();
  rnn(MLIP_RNN_GRU, 1, 1)->c = C;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  fresh();
  rnn(MLIP_RNN_LSTM, 1, 1)->c = MLIP_NO_OFFSET;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  fresh();
  rnn(MLIP_RNN_LSTM, 1, 1)->cell = 3;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  fresh();
  rnn(MLIP_RNN_LSTM, 1, 1)->lbr = 1;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  fresh();
  a = rnn(MLIP_RNN_LSTM, 1, 1);
  a->y = H; /* the output over the state */
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  fresh();
  a = rnn(MLIP_RNN_GRU, 1, 1);
  a->work = RW; /* the working values over the weights */
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  fresh();
  rnn(MLIP_RNN_GRU, 1, 1)->steps = 0;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_lstm_one_step_zero_state),
    cmocka_unit_test(test_lstm_given_states),
    cmocka_unit_test(test_gru),
    cmocka_unit_test(test_rnn_rules),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
