/* runtime.sim_rnn: the RNN command (docs/mlip-spec.md section 4, RNN) on
   tiny hand-computed data: LSTM with a zero state and one step, with given
   states and three steps forward and reverse (two sequences), GRU with
   linear_before_reset 0 and 1, reverse and without bias; and its rules.
   Expected halves computed independently in Python: each fp32 step of the
   spec rounded by numpy (sigmoid and tanh in double rounded to fp32), the
   state and the outputs to fp16. The first case by hand: with a zero state
   the gates are xp + bias, i = sigmoid(0.625), o = sigmoid(1.5), f unused
   (c = 0), g = tanh(2.0625): c = 0.6514 * 0.9683 = 0.6307 (0x390C),
   h = 0.8176 * tanh(0.6307) = 0.4566 (0x374E). The 8-bit form: below. */
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

/* 8-bit (docs/mlip-spec.md 4a, RNN): an int8 buffer, X int8 [steps][batch][2]
   = (i * 7) % 23 - 11 at scale 0.05, zero point 2; W and R fp32 [8][2]
   (GRU: the first 6 rows), both biases fp32; Y int8 at scale 1/128, zero
   point -3. Expected bytes computed independently in Python in double
   (numpy's exp and tanh), every unrounded output at least 0.01 of a step
   from a rounding boundary, so fp32's and kmath_f's errors cannot move it;
   the final fp32 state within 1e-5 of the double one. */
enum { WQ = 1536 };
static const float kW[16] = {0.25f, 0.5f, -0.5f, 0.125f, 0.75f, -0.25f, 0.5f, 0.5f, -0.125f, 1, 0.25f, -0.75f, 1, 0.25f, -0.5f, -0.5f};
static const float kWb[8] = {0.125f, -0.25f, 0.5f, 0, 0.25f, -0.125f, 0.0625f, 0.375f};
static const float kRb[8] = {0, 0.125f, -0.125f, 0.25f, 0.5f, 0, -0.25f, 0.125f};

static void fresh_q8(void) {
  fresh();
  b.hdr.quantize = MLIP_QUANT_INT8;
}
static mlip_rnn_args* rnn_q8(uint32_t cell, uint32_t steps, uint32_t batch) {
  const uint32_t gates = cell == MLIP_RNN_LSTM ? 4u : 3u;
  mlip_rnn_args* a = cb_op_rnn(&b, CB_MAIN, 0, layer0);
  uint32_t i;
  for (i = 0; i < steps * batch * 2u; ++i) ocm[XP + i] = (uint8_t)(int8_t)((int)((i * 7u) % 23u) - 11);
  for (i = 0; i < gates * 2u * 2u; ++i) {
    setf(WQ + 4u * i, kW[i]);
    setf(RW + 4u * i, kR[i]);
  }
  for (i = 0; i < gates * 2u; ++i) {
    setf(BIAS + 4u * i, kWb[i]);
    setf(BIAS + 4u * (gates * 2u + i), kRb[i]);
  }
  a->xp = XP;
  a->w = WQ;
  a->r = RW;
  a->bias = BIAS;
  a->h = H;
  a->c = cell == MLIP_RNN_LSTM ? C : MLIP_NO_OFFSET;
  a->y = Y;
  a->work = WORK;
  a->steps = steps;
  a->batch = batch;
  a->hidden = 2;
  a->input = 2;
  a->cell = cell;
  a->x_scale = 0.05f;
  a->x_zp = 2;
  a->y_scale = 1.0f / 128.0f;
  a->y_zp = -3;
  a->dtype = MLIP_DT_INT8;
  return a;
}
static void expect_bytes(uint32_t off, const int8_t* want, uint32_t n) {
  uint32_t i;
  for (i = 0; i < n; ++i) {
    if ((int8_t)ocm[off + i] != want[i]) print_error("element %u: got %d want %d\n", i, (int8_t)ocm[off + i], want[i]);
    assert_int_equal((int8_t)ocm[off + i], want[i]);
  }
}
static void expect_floats(uint32_t off, const double* want, uint32_t n) {
  uint32_t i;
  for (i = 0; i < n; ++i) {
    float v;
    memcpy(&v, ocm + off + 4u * i, 4);
    assert_true(v - want[i] < 1e-5 && want[i] - v < 1e-5);
  }
}

static void test_q8_lstm(void** state) {
  /* one step, zero state */
  const int8_t y1[2] = {-23, 19};
  const double h1[2] = {-0.15512949758920422, 0.17092260929537156}, c1[2] = {-0.3274046365264729, 0.4058847312693813};
  /* three steps, two sequences, given states; forward and reverse */
  const float h0[4] = {0.25f, -0.5f, 0.5f, 0.125f}, c0[4] = {-0.75f, 1, 0.5f, -0.25f};
  const int8_t fwd[12] = {-63, 30, 39, -21, -34, 39, 28, -6, -37, 40, -11, 14};
  const double fwd_c[4] = {-0.7670641261978481, 0.6332662537500906, -0.1089037064069368, 0.2968641073897385};
  const int8_t rev[12] = {-34, 36, 2, 17, -33, 35, 1, 17, -63, 29, 1, 4};
  const double rev_h[4] = {-0.24091511056601606, 0.3080838049737623, 0.037070246919130245, 0.1576869460257167};
  uint32_t r, i;
  (void)state;
  fresh_q8();
  rnn_q8(MLIP_RNN_LSTM, 1, 1);
  assert_int_equal(run(), MLIP_OK);
  expect_bytes(Y, y1, 2);
  expect_floats(H, h1, 2);
  expect_floats(C, c1, 2);
  for (r = 0; r < 2; ++r) {
    fresh_q8();
    for (i = 0; i < 4; ++i) {
      setf(H + 4u * i, h0[i]);
      setf(C + 4u * i, c0[i]);
    }
    rnn_q8(MLIP_RNN_LSTM, 3, 2)->reverse = r;
    assert_int_equal(run(), MLIP_OK);
    expect_bytes(Y, r ? rev : fwd, 12);
    if (r) expect_floats(H, rev_h, 4);
    else expect_floats(C, fwd_c, 4);
  }
}

static void test_q8_gru(void** state) {
  const float h0[2] = {0.5f, -0.25f};
  const int8_t lbr0[4] = {55, -8, 70, -16}, lbr1[4] = {46, -13, 61, -23}, rev_plain[4] = {-10, -6, 18, -21};
  uint32_t k;
  mlip_rnn_args* a;
  (void)state;
  for (k = 0; k < 3; ++k) {
    fresh_q8();
    if (k < 2) {
      setf(H, h0[0]);
      setf(H + 4u, h0[1]);
    }
    a = rnn_q8(MLIP_RNN_GRU, 2, 1);
    a->lbr = k == 1;
    a->reverse = k == 2;
    if (k == 2) memset(ocm + BIAS, 0, 48); /* no bias: zeros (docs/mlip-spec.md 4a) */
    assert_int_equal(run(), MLIP_OK);
    expect_bytes(Y, k == 0 ? lbr0 : k == 1 ? lbr1 : rev_plain, 4);
  }
}

/* The 8-bit form's own rules: positive finite scales, input weights inside
   OCM and clear of the written operands, no 8-bit RNN in an fp16 buffer. */
static void test_q8_rules(void** state) {
  (void)state;
  fresh_q8();
  rnn_q8(MLIP_RNN_LSTM, 1, 1)->x_scale = 0.0f;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  fresh_q8();
  rnn_q8(MLIP_RNN_LSTM, 1, 1)->y_scale = -1.0f;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  fresh_q8();
  rnn_q8(MLIP_RNN_LSTM, 1, 1)->w = TILE_OCM - 8u;
  assert_int_not_equal(run(), MLIP_OK);
  fresh_q8();
  rnn_q8(MLIP_RNN_LSTM, 1, 1)->w = WORK; /* the weights under the working values */
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  fresh();
  rnn_q8(MLIP_RNN_LSTM, 1, 1);
  assert_int_not_equal(run(), MLIP_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_lstm_one_step_zero_state),
    cmocka_unit_test(test_lstm_given_states),
    cmocka_unit_test(test_gru),
    cmocka_unit_test(test_rnn_rules),
    cmocka_unit_test(test_q8_lstm),
    cmocka_unit_test(test_q8_gru),
    cmocka_unit_test(test_q8_rules),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
