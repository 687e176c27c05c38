/* runtime.sim_fp16: the binary16 conversions of docs/mlip-spec.md section 4
   on hand-computed cases, every half round-tripped, every rounding
   boundary between two halves, and the fixed fp32 accumulation order of
   CONV2D (kh, kw, ic) and FC (k). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cmdbuf_builder.h"
#include "mlip/region.h"

static float from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static uint32_t to_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* 2^e by repeated exact multiplication (no libm). */
static float pow2(int e) {
  float f = 1.0f;
  for (; e > 0; --e) f *= 2.0f;
  for (; e < 0; ++e) f *= 0.5f;
  return f;
}

#define H(f, expected) assert_int_equal(mlip_f32_to_f16(f), (expected))

static void test_exact_values(void** state) {
  (void)state;
  H(0.0f, 0x0000);
  H(-0.0f, 0x8000);
  H(1.0f, 0x3C00);
  H(-2.0f, 0xC000);
  H(0.5f, 0x3800);
  H(1.0f + pow2(-10), 0x3C01);
  H(0.333251953125f, 0x3555);
  H(2048.0f, 0x6800);
  H(2050.0f, 0x6801);
  H(65504.0f, 0x7BFF);
  H(-65504.0f, 0xFBFF);
  H(pow2(-14), 0x0400);              /* smallest normal */
  H(1023.0f * pow2(-24), 0x03FF);    /* largest subnormal */
  H(pow2(-24), 0x0001);              /* smallest subnormal */
  H(-pow2(-24), 0x8001);
}

static void test_ties_to_even(void** state) {
  (void)state;
  H(2049.0f, 0x6800); /* 2049 -> 2048 (tie, even) */
  H(2051.0f, 0x6802); /* 2051 -> 2052 (tie, even) */
  H(1.0f + pow2(-11), 0x3C00);        /* 1 + half ulp -> 1 */
  H(1.0f + 3.0f * pow2(-11), 0x3C02); /* 1 + 3 half ulps -> 1 + 2^-9 */
  H(1.0f + pow2(-11) + pow2(-23), 0x3C01); /* just above the tie */
  H(-(2049.0f), 0xE800);
  H(-(2051.0f), 0xE802);
}

static void test_overflow(void** state) {
  (void)state;
  H(65519.99f, 0x7BFF); /* below the rounding boundary */
  H(65520.0f, 0x7C00);  /* the boundary (a tie to the even "65536") -> inf */
  H(-65520.0f, 0xFC00);
  H(-65519.99f, 0xFBFF);
  H(65536.0f, 0x7C00);
  H(1e10f, 0x7C00);
  H(-1e10f, 0xFC00);
  H(from_bits(0x7F7FFFFFu), 0x7C00); /* FLT_MAX */
  H(from_bits(0xFF7FFFFFu), 0xFC00);
}

static void test_subnormals(void** state) {
  (void)state;
  H(pow2(-25), 0x0000);                     /* half of the smallest: tie -> 0 */
  H(-pow2(-25), 0x8000);
  H(pow2(-25) * (1.0f + pow2(-23)), 0x0001); /* just above the tie */
  H(3.0f * pow2(-25), 0x0002);              /* 1.5 units: tie -> 2 */
  H(5.0f * pow2(-25), 0x0002);              /* 2.5 units -> 2 */
  H(7.0f * pow2(-25), 0x0004);              /* 3.5 units -> 4 */
  H(pow2(-26), 0x0000);
  H(from_bits(0x00000001u), 0x0000);        /* fp32 subnormal */
  H(from_bits(0x80000001u), 0x8000);
  /* subnormal <-> normal boundary */
  H(1023.5f * pow2(-24), 0x0400);  /* tie between 0x3FF (odd) and 0x400 -> 0x400 */
  H(1023.25f * pow2(-24), 0x03FF);
  H(1022.5f * pow2(-24), 0x03FE);  /* tie, even */
  H(pow2(-14) + pow2(-25), 0x0400); /* half a unit above the smallest normal -> tie, even */
  H(pow2(-14) + 3.0f * pow2(-25), 0x0402);
}

static void test_inf_nan(void** state) {
  (void)state;
  H(from_bits(0x7F800000u), 0x7C00);
  H(from_bits(0xFF800000u), 0xFC00);
  H(from_bits(0x7FC00000u), 0x7E00);
  H(from_bits(0xFFC00000u), 0xFE00);
  H(from_bits(0x7F800001u), 0x7E00); /* signaling -> the quiet NaN */
  H(from_bits(0xFF812345u), 0xFE00);
  H(from_bits(0x7FFFFFFFu), 0x7E00);
}

static void test_f16_to_f32(void** state) {
  (void)state;
  assert_int_equal(to_bits(mlip_f16_to_f32(0x0000)), 0x00000000u);
  assert_int_equal(to_bits(mlip_f16_to_f32(0x8000)), 0x80000000u);
  assert_true(mlip_f16_to_f32(0x0001) == pow2(-24));
  assert_true(mlip_f16_to_f32(0x03FF) == 1023.0f * pow2(-24));
  assert_true(mlip_f16_to_f32(0x0400) == pow2(-14));
  assert_true(mlip_f16_to_f32(0x3C00) == 1.0f);
  assert_true(mlip_f16_to_f32(0x3555) == 0.333251953125f);
  assert_true(mlip_f16_to_f32(0x7BFF) == 65504.0f);
  assert_true(mlip_f16_to_f32(0xFBFF) == -65504.0f);
  assert_int_equal(to_bits(mlip_f16_to_f32(0x7C00)), 0x7F800000u);
  assert_int_equal(to_bits(mlip_f16_to_f32(0xFC00)), 0xFF800000u);
  assert_int_equal(to_bits(mlip_f16_to_f32(0x7E00)), 0x7FC00000u);
  assert_int_equal(to_bits(mlip_f16_to_f32(0xFE00)), 0xFFC00000u);
  assert_int_equal(to_bits(mlip_f16_to_f32(0x7C01)), 0x7F802000u); /* payload kept */
}

/* The value of a half computed arithmetically, independently of the bits. */
static float half_value(uint16_t h) {
  int e = (h >> 10) & 0x1F;
  float m = (float)(h & 0x3FF);
  float v = e == 0 ? m * pow2(-24) : (1024.0f + m) * pow2(e - 25);
  return (h & 0x8000) ? -v : v;
}

static void test_round_trip_all(void** state) {
  uint32_t u;
  (void)state;
  for (u = 0; u < 0x10000u; ++u) {
    uint16_t h = (uint16_t)u;
    int is_nan = (h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0;
    int is_inf = (h & 0x7FFF) == 0x7C00;
    float f = mlip_f16_to_f32(h);
    uint16_t back = mlip_f32_to_f16(f);
    if (is_nan) {
      assert_true(f != f);
      assert_int_equal(back, (h & 0x8000) | 0x7E00);
    } else {
      assert_int_equal(back, h);
      if (!is_inf) {
        assert_true(f == half_value(h));
        assert_int_equal(to_bits(f) >> 31, h >> 15); /* sign, also of zero */
      }
    }
  }
}

/* Every boundary between two consecutive finite halves: the midpoint (exact
   in fp32) rounds to the even one, the floats around it to the nearer one.
   Above 65504 the next "half" is 65536 (the boundary 65520 -> inf). */
static void test_all_rounding_boundaries(void** state) {
  uint32_t u;
  (void)state;
  for (u = 0; u < 0x7C00u; ++u) {
    int s;
    for (s = 0; s < 2; ++s) {
      uint16_t lo_h = (uint16_t)(u | (s ? 0x8000u : 0u));
      uint16_t hi_h = (uint16_t)(lo_h + 1u);
      float lo = half_value(lo_h);
      float hi = u + 1u == 0x7C00u ? (s ? -65536.0f : 65536.0f) : half_value(hi_h);
      float mid = (lo + hi) * 0.5f;
      uint32_t mb = to_bits(mid);
      uint16_t even = (lo_h & 1u) ? hi_h : lo_h;
      assert_true((lo + hi) * 0.5f - lo == hi - (lo + hi) * 0.5f); /* mid is exact */
      assert_int_equal(mlip_f32_to_f16(mid), even);
      assert_int_equal(mlip_f32_to_f16(from_bits(mb - 1u)), lo_h); /* towards lo in magnitude */
      assert_int_equal(mlip_f32_to_f16(from_bits(mb + 1u)), hi_h);
    }
  }
}

/* ---- accumulation order, through the simulator ---------------------------- */

static cb_builder b;
static uint8_t ocm[4096];

static void put_halves(uint32_t off, const float* v, uint32_t n) {
  uint32_t i;
  for (i = 0; i < n; ++i) {
    uint16_t h = cb_h(v[i]);
    memcpy(ocm + off + 2u * i, &h, 2);
  }
}

static float get_half(uint32_t off) {
  uint16_t h;
  memcpy(&h, ocm + off, 2);
  return cb_f(h);
}

/* FC over k = 4: 4096*4096 + 1*1 + 1*1 + 4096*(-4096). In k order the two
   ones vanish into 2^24 (ties to even) and the result is 0; reversed it
   would be 2, pairwise 1. */
static void test_fc_order(void** state) {
  const float x[4] = {4096.0f, 1.0f, 1.0f, 4096.0f};
  const float w[4] = {4096.0f, 1.0f, 1.0f, -4096.0f};
  mlip_decoded_cmd* c;
  uint32_t layer;
  (void)state;
  cb_init(&b, MLIP_MCPU_CN10KA, 1, 4096);
  layer = cb_layer(&b, MLIP_LAYER_FC, "fc");
  memset(ocm, 0, sizeof ocm);
  put_halves(0, x, 4);
  put_halves(128, w, 4);
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_FC, 0, layer);
  c->u.fc.in = 0;
  c->u.fc.weights = 128;
  c->u.fc.bias = MLIP_NO_OFFSET;
  c->u.fc.acc = 256;
  c->u.fc.out = 384;
  c->u.fc.n = 1;
  c->u.fc.k = 4;
  c->u.fc.out_c = 1;
  c->u.fc.first = 1;
  c->u.fc.last = 1;
  assert_int_equal(cb_run(&b, ocm, sizeof ocm, NULL, 0, NULL, 0, NULL, 0, NULL, 0), MLIP_OK);
  assert_true(get_half(384) == 0.0f);
}

/* CONV2D terms t(kh, kw, ic) = x * w. Each case puts 2^24, -2^24, 1, 1 on
   the positions so that the (kh, kw, ic) order gives 2 and the order that
   swaps the two named loops gives 1 (2^24 + 1 rounds back to 2^24). */
static float conv_case(uint32_t kh, uint32_t kw, uint32_t ic, const float* terms) {
  /* A 1-pixel output; input block kh x kw x ic; the input holds the first
     factor, the weights the second. */
  float xin[8], wt[8];
  uint32_t i, n = kh * kw * ic;
  mlip_decoded_cmd* c;
  uint32_t layer;
  for (i = 0; i < n; ++i) {
    if (terms[i] == 1.0f) {
      xin[i] = 1.0f;
      wt[i] = 1.0f;
    } else {
      xin[i] = 4096.0f;
      wt[i] = terms[i] > 0 ? 4096.0f : -4096.0f;
    }
  }
  cb_init(&b, MLIP_MCPU_CN10KA, 1, 4096);
  layer = cb_layer(&b, MLIP_LAYER_CONV2D, "conv");
  memset(ocm, 0, sizeof ocm);
  put_halves(0, xin, n);   /* [kh][kw][ic] == the NHWC input block */
  put_halves(128, wt, n);  /* [1][kh][kw][ic] == OHWI */
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_CONV2D, 0, layer);
  c->u.conv2d.in = 0;
  c->u.conv2d.in_h = kh;
  c->u.conv2d.in_w = kw;
  c->u.conv2d.in_c = ic;
  c->u.conv2d.weights = 128;
  c->u.conv2d.bias = MLIP_NO_OFFSET;
  c->u.conv2d.out = 256;
  c->u.conv2d.out_h = 1;
  c->u.conv2d.out_w = 1;
  c->u.conv2d.out_c = 1;
  c->u.conv2d.kh = kh;
  c->u.conv2d.kw = kw;
  c->u.conv2d.stride_h = 1;
  c->u.conv2d.stride_w = 1;
  c->u.conv2d.dil_h = 1;
  c->u.conv2d.dil_w = 1;
  c->u.conv2d.groups = 1;
  c->u.conv2d.ic_per_group = ic;
  c->u.conv2d.oc_per_group = 1;
  assert_int_equal(cb_run(&b, ocm, sizeof ocm, NULL, 0, NULL, 0, NULL, 0, NULL, 0), MLIP_OK);
  return get_half(256);
}

static void test_conv_order(void** state) {
  const float big = 16777216.0f;
  /* kh before kw: terms [kh][kw] = {big, -big}, {1, 1}: kh-major 2, kw-major 1. */
  const float t_hw[4] = {big, -big, 1.0f, 1.0f};
  /* kw before ic: [kw][ic] = {big, -big}, {1, 1}. */
  const float t_wc[4] = {big, -big, 1.0f, 1.0f};
  /* kh before ic: [kh][ic] = {big, -big}, {1, 1}. */
  const float t_hc[4] = {big, -big, 1.0f, 1.0f};
  /* ic innermost in order: [ic] = big, 1, 1, -big gives 0 (2 if reversed). */
  const float t_c[4] = {big, 1.0f, 1.0f, -big};
  (void)state;
  assert_true(conv_case(2, 2, 1, t_hw) == 2.0f);
  assert_true(conv_case(1, 2, 2, t_wc) == 2.0f);
  assert_true(conv_case(2, 1, 2, t_hc) == 2.0f);
  assert_true(conv_case(1, 1, 4, t_c) == 0.0f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_exact_values),
    cmocka_unit_test(test_ties_to_even),
    cmocka_unit_test(test_overflow),
    cmocka_unit_test(test_subnormals),
    cmocka_unit_test(test_inf_nan),
    cmocka_unit_test(test_f16_to_f32),
    cmocka_unit_test(test_round_trip_all),
    cmocka_unit_test(test_all_rounding_boundaries),
    cmocka_unit_test(test_fc_order),
    cmocka_unit_test(test_conv_order),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
