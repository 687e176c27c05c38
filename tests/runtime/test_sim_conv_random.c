/* runtime.sim_conv_random: the simulator's CONV2D and FC (fp16), which compute
   blocks of output channels and runs of positions side by side, against a
   plain loop written from docs/mlip-spec.md (one output at a time: the sum
   over kh, kw, ic in that order, padding taps skipped, then bias, activation
   and one rounding), bit for bit, on random shapes: groups, depthwise and
   channel multipliers, blocks that start inside a group (oc_base, ic_base),
   strides, dilations, padding, odd sizes, and operands that include zeros,
   subnormals, infinities and NaNs; FC with several rows, odd output counts,
   and partial sums carried in ACC between reduction passes. */
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

uint64_t mlip_platform_time_ns(void) {
  return 0;
}

#define TILE_OCM (512u * 1024u)
#define CASES 400u
static cb_builder b;
static uint8_t ocm[TILE_OCM];
static uint16_t want[64u * 1024u];

static uint32_t rng = 12345u;
static uint32_t next(void) {
  rng = rng * 1664525u + 1013904223u;
  return rng >> 8;
}
/* in [lo, hi] */
static uint32_t pick(uint32_t lo, uint32_t hi) {
  return lo + next() % (hi - lo + 1u);
}

/* Mostly values in [-2, 2]; one in 50 a zero of either sign, a subnormal,
   an infinity or a NaN. */
static uint16_t operand(void) {
  static const uint16_t special[] = {0x0000, 0x8000, 0x0001, 0x83FF, 0x7C00, 0xFC00, 0x7E00, 0x7BFF};
  if (next() % 50u == 0u) return special[next() % 8u];
  return cb_h(((float)(next() % 4001u) - 2000.0f) / 1000.0f);
}

static uint16_t ld(uint32_t off) {
  uint16_t h;
  memcpy(&h, ocm + off, 2);
  return h;
}

/* n operands (halves) at off, and n biases (fp32 in [-2, 2]) at off. */
static void fill_operands(uint32_t off, uint32_t n) {
  uint32_t i;
  for (i = 0; i < n; ++i) {
    const uint16_t h = operand();
    memcpy(ocm + off + 2u * i, &h, 2);
  }
}
static void fill_biases(uint32_t off, uint32_t n) {
  uint32_t i;
  for (i = 0; i < n; ++i) {
    const float f = ((float)(next() % 2001u) - 1000.0f) / 500.0f;
    memcpy(ocm + off + 4u * i, &f, 4);
  }
}

static void one_case(uint32_t k) {
  const uint32_t groups = k % 5u == 0u ? pick(1, 40) : pick(1, 4), icpg = k % 5u == 0u ? 1u : pick(1, 40), ocpg = k % 5u == 0u ? pick(1, 2) : pick(1, 24);
  const uint32_t kh = pick(1, k % 7u == 0u ? 7 : 3), kw = pick(1, k % 7u == 0u ? 7 : 3);
  const uint32_t sh = pick(1, 3), sw = pick(1, 3), dh = pick(1, 2), dw = pick(1, 2);
  const uint32_t pt = pick(0, 2), pl = pick(0, 2), pb = pick(0, 2), pr = pick(0, 2);
  /* a block of the layer's output channels, possibly starting and ending
     inside a group; its input is the run of channels its groups read */
  const uint32_t layer_oc = groups * ocpg, oc_base = pick(0, layer_oc - 1u), out_c = pick(1, layer_oc - oc_base);
  const uint32_t g0 = oc_base / ocpg, g1 = (oc_base + out_c - 1u) / ocpg;
  const uint32_t ic_base = g0 * icpg, in_c = (g1 - g0 + 1u) * icpg;
  uint32_t in_h = pick(1, 9), in_w = pick(1, 13);
  uint32_t out_h, out_w, in_off = 0, w_off, b_off, out_off, i, j, oh, ow, y, x, ic;
  const int has_bias = (int)(next() % 2u);
  const uint32_t acts[] = {MLIP_ACT_NONE, MLIP_ACT_RELU, MLIP_ACT_CLIP};
  const uint32_t act = acts[next() % 3u];
  mlip_decoded_cmd* c;
  /* at least one output position */
  if (in_h + pt + pb < dh * (kh - 1u) + 1u) in_h = dh * (kh - 1u) + 1u;
  if (in_w + pl + pr < dw * (kw - 1u) + 1u) in_w = dw * (kw - 1u) + 1u;
  out_h = (in_h + pt + pb - dh * (kh - 1u) - 1u) / sh + 1u;
  out_w = (in_w + pl + pr - dw * (kw - 1u) - 1u) / sw + 1u;
  w_off = (in_off + in_h * in_w * in_c * 2u + 255u) & ~255u;
  b_off = (w_off + out_c * kh * kw * icpg * 2u + 255u) & ~255u;
  out_off = (b_off + out_c * 4u + 255u) & ~255u;
  assert_true(out_off + out_h * out_w * out_c * 2u <= TILE_OCM);
  assert_true(out_h * out_w * out_c <= sizeof want / sizeof want[0]);

  cb_init(&b, MLIP_MCPU_CN10KA, 1, TILE_OCM);
  cb_layer(&b, MLIP_LAYER_CONV2D, "conv");
  memset(ocm, 0, sizeof ocm);
  fill_operands(in_off, in_h * in_w * in_c);
  fill_operands(w_off, out_c * kh * kw * icpg);
  fill_biases(b_off, out_c);
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_CONV2D, 0, 0);
  c->u.conv2d.in = in_off;
  c->u.conv2d.in_h = in_h;
  c->u.conv2d.in_w = in_w;
  c->u.conv2d.in_c = in_c;
  c->u.conv2d.weights = w_off;
  c->u.conv2d.bias = has_bias ? b_off : MLIP_NO_OFFSET;
  c->u.conv2d.out = out_off;
  c->u.conv2d.out_h = out_h;
  c->u.conv2d.out_w = out_w;
  c->u.conv2d.out_c = out_c;
  c->u.conv2d.kh = kh;
  c->u.conv2d.kw = kw;
  c->u.conv2d.stride_h = sh;
  c->u.conv2d.stride_w = sw;
  c->u.conv2d.dil_h = dh;
  c->u.conv2d.dil_w = dw;
  c->u.conv2d.pad_top = pt;
  c->u.conv2d.pad_left = pl;
  c->u.conv2d.groups = groups;
  c->u.conv2d.ic_per_group = icpg;
  c->u.conv2d.oc_per_group = ocpg;
  c->u.conv2d.oc_base = oc_base;
  c->u.conv2d.ic_base = ic_base;
  c->u.conv2d.act = act;
  c->u.conv2d.act_lo = 0.0f;
  c->u.conv2d.act_hi = 6.0f;

  /* the spec's loop, one output at a time */
  for (oh = 0; oh < out_h; ++oh) {
    for (ow = 0; ow < out_w; ++ow) {
      for (j = 0; j < out_c; ++j) {
        const uint32_t cbase = ((oc_base + j) / ocpg) * icpg - ic_base;
        float acc = 0.0f;
        for (y = 0; y < kh; ++y) {
          const int64_t ih = (int64_t)oh * sh - pt + (int64_t)y * dh;
          if (ih < 0 || ih >= (int64_t)in_h) continue;
          for (x = 0; x < kw; ++x) {
            const int64_t iw = (int64_t)ow * sw - pl + (int64_t)x * dw;
            if (iw < 0 || iw >= (int64_t)in_w) continue;
            for (ic = 0; ic < icpg; ++ic) {
              const float xv = cb_f(ld(in_off + 2u * (uint32_t)(((uint32_t)ih * in_w + (uint32_t)iw) * in_c + cbase + ic)));
              const float wv = cb_f(ld(w_off + 2u * (((j * kh + y) * kw + x) * icpg + ic)));
              const float p = xv * wv;
              acc = acc + p;
            }
          }
        }
        if (has_bias) {
          float bv;
          memcpy(&bv, ocm + b_off + 4u * j, 4);
          acc = acc + bv;
        }
        acc = mlip_sim_apply_act(acc, act, 0.0f, 6.0f);
        want[(oh * out_w + ow) * out_c + j] = mlip_sim_round_result(acc);
      }
    }
  }
  assert_int_equal(cb_run(&b, ocm, sizeof ocm, NULL, 0, NULL, 0, NULL, 0, NULL, 0), MLIP_OK);
  for (i = 0; i < out_h * out_w * out_c; ++i) {
    if (ld(out_off + 2u * i) != want[i]) {
      print_error("case %u: output %u is 0x%04x, the spec's loop gives 0x%04x (groups %u icpg %u ocpg %u oc_base %u "
                  "out_c %u kernel %ux%u stride %ux%u dilation %ux%u)\n",
                  (unsigned)k, (unsigned)i, (unsigned)ld(out_off + 2u * i), (unsigned)want[i], (unsigned)groups,
                  (unsigned)icpg, (unsigned)ocpg, (unsigned)oc_base, (unsigned)out_c, (unsigned)kh, (unsigned)kw,
                  (unsigned)sh, (unsigned)sw, (unsigned)dh, (unsigned)dw);
      fail();
    }
  }
}

static void one_fc_case(uint32_t k) {
  const uint32_t n_n = pick(1, 8), k_n = pick(1, 300), oc = pick(1, 70), first = k % 3u != 1u, last = k % 3u != 2u;
  const uint32_t in_off = 0, w_off = (n_n * k_n * 2u + 255u) & ~255u, b_off = (w_off + oc * k_n * 2u + 255u) & ~255u;
  const uint32_t acc_off = (b_off + oc * 4u + 255u) & ~255u, out_off = (acc_off + n_n * oc * 4u + 255u) & ~255u;
  const int has_bias = (int)(next() % 2u);
  uint32_t i, n, o, kk;
  float acc_in[8u * 70u];
  mlip_decoded_cmd* c;
  cb_init(&b, MLIP_MCPU_CN10KA, 1, TILE_OCM);
  cb_layer(&b, MLIP_LAYER_FC, "fc");
  memset(ocm, 0, sizeof ocm);
  fill_operands(in_off, n_n * k_n);
  fill_operands(w_off, oc * k_n);
  fill_biases(b_off, oc);
  for (i = 0; i < n_n * oc; ++i) {
    acc_in[i] = ((float)(next() % 2001u) - 1000.0f) / 100.0f;
    memcpy(ocm + acc_off + 4u * i, &acc_in[i], 4);
  }
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_FC, 0, 0);
  c->u.fc.in = in_off;
  c->u.fc.weights = w_off;
  c->u.fc.bias = has_bias ? b_off : MLIP_NO_OFFSET;
  c->u.fc.acc = acc_off;
  c->u.fc.out = out_off;
  c->u.fc.n = n_n;
  c->u.fc.k = k_n;
  c->u.fc.out_c = oc;
  c->u.fc.first = first;
  c->u.fc.last = last;
  c->u.fc.act = MLIP_ACT_RELU;
  assert_int_equal(cb_run(&b, ocm, sizeof ocm, NULL, 0, NULL, 0, NULL, 0, NULL, 0), MLIP_OK);
  for (n = 0; n < n_n; ++n) {
    for (o = 0; o < oc; ++o) {
      float acc = first ? 0.0f : acc_in[n * oc + o], got;
      for (kk = 0; kk < k_n; ++kk) {
        const float p = cb_f(ld(in_off + 2u * (n * k_n + kk))) * cb_f(ld(w_off + 2u * (o * k_n + kk)));
        acc = acc + p;
      }
      memcpy(&got, ocm + acc_off + 4u * (n * oc + o), 4);
      if (acc != acc) {
        const uint32_t quiet = 0x7FC00000u; /* a NaN accumulator is stored as the quiet NaN */
        assert_memory_equal(&got, &quiet, 4);
      } else {
        assert_memory_equal(&got, &acc, 4);
      }
      if (last) {
        float r = acc;
        if (has_bias) {
          float bv;
          memcpy(&bv, ocm + b_off + 4u * o, 4);
          r = r + bv;
        }
        r = mlip_sim_apply_act(r, MLIP_ACT_RELU, 0.0f, 0.0f);
        assert_int_equal(ld(out_off + 2u * (n * oc + o)), mlip_sim_round_result(r));
      }
    }
  }
}

static void test_fc_equals_the_spec_loop(void** state) {
  uint32_t k;
  (void)state;
  for (k = 0; k < 200u; ++k) one_fc_case(k);
}

static void test_conv_equals_the_spec_loop(void** state) {
  uint32_t k;
  (void)state;
  for (k = 0; k < CASES; ++k) one_case(k);
}

#ifdef MLIP_TEST_NEEDS_F16C
#include <cpuid.h>
/* CPUID leaf 1: AVX (ECX bit 28) and F16C (bit 29), and the OS saving the
   YMM registers (OSXSAVE, bit 27, then XCR0 bits 1 and 2). Asked directly:
   clang's __builtin_cpu_supports does not know "f16c". */
static int cpu_has_avx_f16c(void) {
  unsigned a, b, c, d, lo, hi;
  if (!__get_cpuid(1u, &a, &b, &c, &d)) {
    return 0;
  }
  if ((c & (1u << 27)) == 0u || (c & (1u << 28)) == 0u || (c & (1u << 29)) == 0u) {
    return 0;
  }
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0u));
  (void)hi;
  return (lo & 6u) == 6u;
}
#endif

int main(void) {
#ifdef MLIP_TEST_NEEDS_F16C
  /* the build with -mavx -mf16c (the simulator's F16C conversions); the
     test of this build means nothing on a CPU that lacks them */
  if (!cpu_has_avx_f16c()) {
    return 77;
  }
#endif
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv_equals_the_spec_loop),
      cmocka_unit_test(test_fc_equals_the_spec_loop),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
