/* runtime.sim_transformer: the commands of transformers (docs/mlip-spec.md
   section 4: MATMUL, SOFTMAX, NORM, PERMUTE, REDUCE, ELTWISE DIV and its
   guard, GELU and ERF) on tiny hand-computed
   data. Expected halves computed independently in Python: each fp32 step
   of the spec rounded by numpy, exp/log/sqrt in double rounded to fp32,
   then the result to fp16. */
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
static cb_builder b;
static uint8_t ocm[TILE_OCM];
static uint32_t layer0;

static void fresh(uint32_t kind) {
  cb_init(&b, MLIP_MCPU_CN10KA, 1, TILE_OCM);
  layer0 = cb_layer(&b, kind, "layer");
  memset(ocm, 0, sizeof ocm);
}
static mlip_status run(void) { return cb_run(&b, ocm, sizeof ocm, NULL, 0, NULL, 0, NULL, 0, NULL, 0); }
static void seth(uint32_t off, float v) {
  uint16_t h = cb_h(v);
  memcpy(ocm + off, &h, 2);
}
static void sethb(uint32_t off, uint16_t h) { memcpy(ocm + off, &h, 2); }
static void setf(uint32_t off, float v) { memcpy(ocm + off, &v, 4); }
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

/* ---- MATMUL ------------------------------------------------------------------------ */

static mlip_matmul_args* matmul(uint32_t batch, uint32_t m, uint32_t k, uint32_t n) {
  mlip_matmul_args* a = cb_op_matmul(&b, CB_MAIN, 0, layer0);
  a->a = 0;
  a->b = 128;
  a->bias = MLIP_NO_OFFSET;
  a->out = 384;
  a->batch = batch;
  a->m = m;
  a->k = k;
  a->n = n;
  a->b_shared = 1;
  a->alpha = 1.0f;
  return a;
}

static void test_matmul(void** state) {
  /* A [2][3] = {1, 2, 3; -1, 0.5, 4}, B [3][2] = {1, -1; 2, 0.25; 0.5, 3}:
     A.B = {6.5, 8.5; 2, 13.125}; * 0.5 + {0.5, -5} = {3.75, -0.75; 1.5, 1.5625},
     RELU: {3.75, 0; 1.5, 1.5625} */
  const float av[6] = {1, 2, 3, -1, 0.5f, 4};
  const float bv[6] = {1, -1, 2, 0.25f, 0.5f, 3};
  const uint16_t plain[4] = {0x4680 /* 6.5 */, 0x4840 /* 8.5 */, 0x4000 /* 2 */, 0x4A90 /* 13.125 */};
  const uint16_t relu[4] = {0x4380 /* 3.75 */, 0x0000, 0x3E00 /* 1.5 */, 0x3E40 /* 1.5625 */};
  uint32_t i;
  mlip_matmul_args* a;
  (void)state;
  fresh(MLIP_LAYER_MATMUL);
  for (i = 0; i < 6; ++i) {
    seth(2u * i, av[i]);
    seth(128 + 2u * i, bv[i]);
  }
  matmul(1, 2, 3, 2);
  assert_int_equal(run(), MLIP_OK);
  expect_halves(384, plain, 4);

  /* scale, bias per column, and the same through B stored [n][k] */
  fresh(MLIP_LAYER_MATMUL);
  for (i = 0; i < 6; ++i) seth(2u * i, av[i]);
  for (i = 0; i < 3; ++i) {
    seth(128 + 2u * i, bv[2u * i]);         /* column 0 of B */
    seth(128 + 6u + 2u * i, bv[2u * i + 1u]); /* column 1 */
  }
  setf(256, 0.5f);
  setf(260, -5.0f);
  a = matmul(1, 2, 3, 2);
  a->trans_b = 1;
  a->alpha = 0.5f;
  a->bias = 256;
  a->act = MLIP_ACT_RELU;
  assert_int_equal(run(), MLIP_OK);
  expect_halves(384, relu, 4);

  /* two products, one B each (attention's Q.K^T form): the second B is
     the first negated, so the second product is the first negated */
  fresh(MLIP_LAYER_MATMUL);
  for (i = 0; i < 6; ++i) {
    seth(2u * i, av[i]);
    seth(12 + 2u * i, av[i]);
    seth(128 + 2u * i, bv[i]);
    seth(140 + 2u * i, -bv[i]);
  }
  a = matmul(2, 2, 3, 2);
  a->b_shared = 0;
  assert_int_equal(run(), MLIP_OK);
  expect_halves(384, plain, 4);
  for (i = 0; i < 4; ++i) assert_int_equal(geth(392 + 2u * i), plain[i] ^ 0x8000u);
}

static void test_matmul_rules(void** state) {
  mlip_matmul_args* a;
  (void)state;
  fresh(MLIP_LAYER_MATMUL);
  a = matmul(1, 2, 3, 2);
  a->out = 4; /* overlaps A */
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  fresh(MLIP_LAYER_MATMUL);
  a = matmul(1, 2, 3, 2);
  a->k = 0;
  assert_int_not_equal(run(), MLIP_OK);
}

/* ---- SOFTMAX ----------------------------------------------------------------------- */

static void softmax_case(uint32_t log, uint32_t in_place, const uint16_t* in, const uint16_t* want, uint32_t rows,
                         uint32_t len) {
  mlip_softmax_args* a;
  uint32_t i;
  fresh(MLIP_LAYER_SOFTMAX);
  for (i = 0; i < rows * len; ++i) sethb(2u * i, in[i]);
  a = cb_op_softmax(&b, CB_MAIN, 0, layer0);
  a->in = 0;
  a->out = in_place ? 0 : 256;
  a->rows = rows;
  a->len = len;
  a->log = log;
  a->dtype = MLIP_DT_FP16;
  assert_int_equal(run(), MLIP_OK);
  expect_halves(in_place ? 0 : 256, want, rows * len);
}

static void test_softmax(void** state) {
  /* rows: 0 1 2 3; equal values; two -inf; the largest halves (65504 -
     65504 = 0, -65504 - 65504 = -131008: e^ of it is 0); all -inf (every
     x - max is -inf - -inf = NaN: a NaN row, as onnxruntime gives) */
  const uint16_t in[20] = {0x0000, 0x3C00, 0x4000, 0x4200,  /* 0 1 2 3 */
                           0x4500, 0x4500, 0x4500, 0x4500,  /* 5 5 5 5 */
                           0x0000, 0xFC00, 0x0000, 0xFC00,  /* 0 -inf 0 -inf */
                           0x7BFF, 0x7BFF, 0xFBFF, 0xFBFF,  /* 65504 65504 -65504 -65504 */
                           0xFC00, 0xFC00, 0xFC00, 0xFC00}; /* -inf x4 */
  const uint16_t sm[20] = {0x281A, 0x2D94, 0x3395, 0x3927, 0x3400, 0x3400, 0x3400, 0x3400, 0x3800, 0x0000,
                           0x3800, 0x0000, 0x3800, 0x3800, 0x0000, 0x0000, 0x7E00, 0x7E00, 0x7E00, 0x7E00};
  /* log: (x - max) - log(sum); log 2 = 0.693 (0x398C), log 4 = 1.386 (0x3D8C) */
  const uint16_t lsm[20] = {0xC2E1, 0xC0E1, 0xBDC3, 0xB70B, 0xBD8C, 0xBD8C, 0xBD8C, 0xBD8C, 0xB98C, 0xFC00,
                            0xB98C, 0xFC00, 0xB98C, 0xB98C, 0xFC00, 0xFC00, 0x7E00, 0x7E00, 0x7E00, 0x7E00};
  (void)state;
  softmax_case(0, 0, in, sm, 5, 4);
  softmax_case(0, 1, in, sm, 5, 4); /* in place: the same bits */
  softmax_case(1, 0, in, lsm, 5, 4);
}

static void test_softmax_rules(void** state) {
  mlip_softmax_args* a;
  (void)state;
  fresh(MLIP_LAYER_SOFTMAX);
  a = cb_op_softmax(&b, CB_MAIN, 0, layer0);
  a->in = 0;
  a->out = 2; /* overlaps its input without being it */
  a->rows = 1;
  a->len = 4;
  a->dtype = MLIP_DT_FP16;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
}

/* ---- NORM -------------------------------------------------------------------------- */

static mlip_norm_args* norm(uint32_t rows, uint32_t len, float eps) {
  mlip_norm_args* a = cb_op_norm(&b, CB_MAIN, 0, layer0);
  a->in = 0;
  a->out = 256;
  a->gamma = MLIP_NO_OFFSET;
  a->beta = MLIP_NO_OFFSET;
  a->rows = rows;
  a->len = len;
  a->eps = eps;
  a->dtype = MLIP_DT_FP16;
  return a;
}

static void test_norm(void** state) {
  /* 1 2 3 4: mean 2.5, variance 1.25, 1 / sqrt(1.25) = 0.8944272 */
  const uint16_t plain[4] = {0xBD5E, 0xB728, 0x3728, 0x3D5E};
  /* the same with eps 1e-5, gamma {1, 2, -1, 0.5}, beta {0.25, 0, 1, -1} */
  const uint16_t affine[4] = {0xBC5E, 0xBB28, 0x386C, 0xB544};
  /* a constant row: variance 0, so (x - mean) * 1/sqrt(eps) = 0 and y = beta */
  const uint16_t constant[4] = {0x3400 /* 0.25 */, 0x0000, 0x3C00, 0xBC00};
  /* ... and with eps 0: 0 * (1 / sqrt(0)) = 0 * inf = NaN */
  const uint16_t nan[4] = {0x7E00, 0x7E00, 0x7E00, 0x7E00};
  const float g[4] = {1, 2, -1, 0.5f}, be[4] = {0.25f, 0, 1, -1};
  mlip_norm_args* a;
  uint32_t i;
  (void)state;
  fresh(MLIP_LAYER_LAYERNORM);
  for (i = 0; i < 4; ++i) seth(2u * i, (float)(i + 1u));
  norm(1, 4, 0.0f);
  assert_int_equal(run(), MLIP_OK);
  expect_halves(256, plain, 4);

  fresh(MLIP_LAYER_LAYERNORM);
  for (i = 0; i < 4; ++i) {
    seth(2u * i, (float)(i + 1u));
    seth(8 + 2u * i, 3.0f); /* row 2: constant */
    setf(512 + 4u * i, g[i]);
    setf(640 + 4u * i, be[i]);
  }
  a = norm(2, 4, 1e-5f);
  a->gamma = 512;
  a->beta = 640;
  assert_int_equal(run(), MLIP_OK);
  expect_halves(256, affine, 4);
  expect_halves(264, constant, 4);

  fresh(MLIP_LAYER_LAYERNORM);
  for (i = 0; i < 4; ++i) seth(2u * i, 3.0f);
  a = norm(1, 4, 0.0f);
  a->out = 0; /* in place */
  assert_int_equal(run(), MLIP_OK);
  expect_halves(0, nan, 4);
}

static void test_norm_rules(void** state) {
  mlip_norm_args* a;
  (void)state;
  fresh(MLIP_LAYER_LAYERNORM);
  a = norm(1, 4, 1e-5f);
  a->gamma = 258; /* inside the output */
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
}

/* ---- ELTWISE DIV and its guard, the new activations ---------------------------------- */

static void div_case(float b_add, uint32_t b_sqrt, const float* bv, const uint16_t* want) {
  const float av[4] = {1, 0, 2, -3};
  mlip_eltwise_args* a;
  uint32_t i;
  fresh(MLIP_LAYER_ELTWISE);
  for (i = 0; i < 4; ++i) {
    seth(2u * i, av[i]);
    seth(128 + 2u * i, bv[i]);
  }
  a = cb_op_eltwise(&b, CB_MAIN, 0, layer0);
  a->a = 0;
  a->b = 128;
  a->out = 256;
  a->count = 4;
  a->b_len = 4;
  a->func = MLIP_ELT_DIV;
  a->b_add = b_add;
  a->b_sqrt = b_sqrt;
  assert_int_equal(run(), MLIP_OK);
  expect_halves(256, want, 4);
}

static void test_div_guard(void** state) {
  /* 1 / 0 = inf, 0 / 0 = NaN; with + 1e-15 in fp32 (a half cannot hold
     it): 1 / 1e-15 = inf in fp16, 0 / 1e-15 = 0; sqrt(b + 1e-12) */
  const float b1[4] = {0, 0, 4, 0.5f}, b2[4] = {0, 0, 4, 0.25f};
  const uint16_t plain[4] = {0x7C00, 0x7E00, 0x3800, 0xC600};
  const uint16_t guarded[4] = {0x7C00, 0x0000, 0x3800, 0xC600};
  const uint16_t rooted[4] = {0x7C00, 0x0000, 0x3C00, 0xC600};
  (void)state;
  div_case(0.0f, 0, b1, plain);
  div_case(1e-15f, 0, b1, guarded);
  div_case(1e-12f, 1, b2, rooted);
}

static void act_case(uint32_t act, const uint16_t* in, const uint16_t* want, uint32_t n) {
  mlip_activation_args* a;
  uint32_t i;
  fresh(MLIP_LAYER_ACTIVATION);
  for (i = 0; i < n; ++i) sethb(2u * i, in[i]);
  a = cb_op_activation(&b, CB_MAIN, 0, layer0);
  a->in = 0;
  a->out = 256;
  a->count = n;
  a->act = act;
  assert_int_equal(run(), MLIP_OK);
  expect_halves(256, want, n);
}

static void test_gelu_erf(void** state) {
  /* 0, 1, -1, 3, -3, -10, 10, -inf, inf, NaN: GELU saturates to v and to
     -0 (erf(-7.07) is -1 in fp32), erf to +-1 */
  const uint16_t in[10] = {0x0000, 0x3C00, 0xBC00, 0x4200, 0xC200, 0xC900, 0x4900, 0xFC00, 0x7C00, 0x7E00};
  const uint16_t gelu[10] = {0x0000, 0x3ABB, 0xB114, 0x41FE, 0x9C26, 0x8000, 0x4900, 0x7E00, 0x7C00, 0x7E00};
  const uint16_t gelu_tanh[10] = {0x0000, 0x3ABB, 0xB115, 0x41FE, 0x9B73, 0x8000, 0x4900, 0x7E00, 0x7C00, 0x7E00};
  const uint16_t erf[10] = {0x0000, 0x3ABE, 0xBABE, 0x3C00, 0xBC00, 0xBC00, 0x3C00, 0xBC00, 0x3C00, 0x7E00};
  (void)state;
  act_case(MLIP_ACT_GELU, in, gelu, 10);
  act_case(MLIP_ACT_GELU_TANH, in, gelu_tanh, 10);
  act_case(MLIP_ACT_ERF, in, erf, 10);
}

/* ---- PERMUTE and REDUCE ------------------------------------------------------------ */

static void test_permute_reduce(void** state) {
  /* x [2][3] = 1 .. 6; its transpose [3][2] = 1 4 2 5 3 6 (strides 1, 3) */
  const uint16_t tr[6] = {0x3C00, 0x4400, 0x4000, 0x4500, 0x4200, 0x4600};
  /* the sums of its columns (outer 1, len 2, inner 3): 5 7 9; the means of its rows (outer 2, len 3, inner 1): 2 5 */
  const uint16_t col_sums[3] = {0x4500, 0x4700, 0x4880};
  const uint16_t row_means[2] = {0x4000, 0x4500};
  mlip_permute_args* p;
  mlip_reduce_args* r;
  uint32_t i;
  (void)state;
  fresh(MLIP_LAYER_PERMUTE);
  for (i = 0; i < 6; ++i) seth(2u * i, (float)(i + 1u));
  p = cb_op_permute(&b, CB_MAIN, 0, layer0);
  p->src = 0;
  p->dst = 256;
  p->elem_bytes = 2;
  p->d0 = 1;
  p->d1 = 1;
  p->d2 = 3;
  p->d3 = 2;
  p->s2 = 1;
  p->s3 = 3;
  assert_int_equal(run(), MLIP_OK);
  expect_halves(256, tr, 6);

  fresh(MLIP_LAYER_REDUCE);
  for (i = 0; i < 6; ++i) seth(2u * i, (float)(i + 1u));
  r = cb_op_reduce(&b, CB_MAIN, 0, layer0);
  r->in = 0;
  r->out = 256;
  r->outer = 1;
  r->len = 2;
  r->inner = 3;
  r = cb_op_reduce(&b, CB_MAIN, 0, layer0);
  r->in = 0;
  r->out = 384;
  r->outer = 2;
  r->len = 3;
  r->inner = 1;
  r->mean = 1;
  assert_int_equal(run(), MLIP_OK);
  expect_halves(256, col_sums, 3);
  expect_halves(384, row_means, 2);

  fresh(MLIP_LAYER_PERMUTE);
  p = cb_op_permute(&b, CB_MAIN, 0, layer0);
  p->src = 0;
  p->dst = 4; /* overlaps what it reads */
  p->elem_bytes = 2;
  p->d0 = p->d1 = p->d2 = 1;
  p->d3 = 6;
  p->s3 = 1;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
}

/* PERMUTE beyond 4 dimensions: d4 and d5, outside d0 (0: none). */
static void test_permute_rank6(void** state) {
  /* x [2][2][2] = 1 .. 8 (strides 4, 2, 1) reversed to [c][b][a]: d5 = c
   * (stride 1), d4 = b (stride 2), d3 = a (stride 4): 1 5 3 7 2 6 4 8 */
  const uint16_t rev[8] = {0x3C00, 0x4500, 0x4200, 0x4700, 0x4000, 0x4600, 0x4400, 0x4800};
  /* d4 alone, 0 as 1 for d5: [b][a] of c = 0 (d4 = b, d3 = a): 1 5 3 7 */
  mlip_permute_args* p;
  uint32_t i;
  (void)state;
  fresh(MLIP_LAYER_PERMUTE);
  for (i = 0; i < 8; ++i) seth(2u * i, (float)(i + 1u));
  p = cb_op_permute(&b, CB_MAIN, 0, layer0);
  p->src = 0;
  p->dst = 256;
  p->elem_bytes = 2;
  p->d5 = 2;
  p->s5 = 1;
  p->d4 = 2;
  p->s4 = 2;
  p->d0 = p->d1 = p->d2 = 1;
  p->d3 = 2;
  p->s3 = 4;
  p = cb_op_permute(&b, CB_MAIN, 0, layer0);
  p->src = 0;
  p->dst = 384;
  p->elem_bytes = 2;
  p->d4 = 2;
  p->s4 = 2;
  p->d0 = p->d1 = p->d2 = 1;
  p->d3 = 2;
  p->s3 = 4;
  assert_int_equal(run(), MLIP_OK);
  expect_halves(256, rev, 8);
  expect_halves(384, rev, 4);

  /* d5's steps count in the source extent: the last one read is past OCM */
  fresh(MLIP_LAYER_PERMUTE);
  p = cb_op_permute(&b, CB_MAIN, 0, layer0);
  p->src = 0;
  p->dst = 256;
  p->elem_bytes = 2;
  p->d5 = 2;
  p->s5 = (uint32_t)sizeof ocm;
  p->d0 = p->d1 = p->d2 = p->d3 = 1;
  assert_int_equal(run(), MLIP_ERR_BOUNDS);

  /* and in the destination: d4 writes 2 x 64 halves from 128, over the source at 256 */
  fresh(MLIP_LAYER_PERMUTE);
  p = cb_op_permute(&b, CB_MAIN, 0, layer0);
  p->src = 256;
  p->dst = 128;
  p->elem_bytes = 2;
  p->d4 = 2;
  p->s4 = 0;
  p->d0 = p->d1 = p->d2 = 1;
  p->d3 = 64;
  p->s3 = 0;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_permute_rank6),
    cmocka_unit_test(test_matmul),  cmocka_unit_test(test_matmul_rules), cmocka_unit_test(test_softmax),
    cmocka_unit_test(test_softmax_rules), cmocka_unit_test(test_norm), cmocka_unit_test(test_norm_rules),
    cmocka_unit_test(test_div_guard), cmocka_unit_test(test_gelu_erf), cmocka_unit_test(test_permute_reduce),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
