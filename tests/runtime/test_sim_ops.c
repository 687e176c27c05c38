/* runtime.sim_ops: every opcode of docs/mlip-spec.md on tiny hand-computed
   data, the hardware-driver path, INIT running once, per-layer stats and
   the cycle model (stored estimates == simulator == a hand computation). */
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

/* A fake clock: every call advances it by 100 ns. */
static uint64_t fake_ns = 0;
uint64_t mlip_platform_time_ns(void) {
  fake_ns += 100u;
  return fake_ns;
}

#define TILE_OCM 4096u
static cb_builder b;
static uint8_t ocm[2u * TILE_OCM];
static uint8_t cmdbuf[64u * 1024u];
static uint32_t layer0;

static void fresh(uint32_t tiles, uint32_t kind) {
  cb_init(&b, MLIP_MCPU_CN10KA, tiles, TILE_OCM);
  layer0 = cb_layer(&b, kind, "layer");
  memset(ocm, 0, sizeof ocm);
}

static mlip_status run_ocm_only(void) {
  return cb_run(&b, ocm, sizeof ocm, NULL, 0, NULL, 0, NULL, 0, NULL, 0);
}

static void seth(uint32_t off, float v) {
  uint16_t h = cb_h(v);
  memcpy(ocm + off, &h, 2);
}
static void sethb(uint32_t off, uint16_t h) {
  memcpy(ocm + off, &h, 2);
}
static void setf(uint32_t off, float v) {
  memcpy(ocm + off, &v, 4);
}
static void setfb(uint32_t off, uint32_t u) {
  memcpy(ocm + off, &u, 4);
}
static uint16_t geth(uint32_t off) {
  uint16_t h;
  memcpy(&h, ocm + off, 2);
  return h;
}
static float gethf(uint32_t off) {
  return cb_f(geth(off));
}
static uint32_t getfb(uint32_t off) {
  uint32_t u;
  memcpy(&u, ocm + off, 4);
  return u;
}
static uint32_t fbits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* ---- DMA --------------------------------------------------------------------- */

static void test_dma_strides(void** state) {
  uint8_t in[64], out[32], scratch[16];
  void* ins[1];
  void* outs[1];
  uint32_t bi, bo, bs, i;
  (void)state;
  fresh(2, MLIP_LAYER_CONVERT_IN);
  for (i = 0; i < sizeof in; ++i) in[i] = (uint8_t)i;
  memset(out, 0xAA, sizeof out);
  memset(scratch, 0xBB, sizeof scratch);
  bi = cb_input(&b, sizeof in);
  bo = cb_output(&b, sizeof out);
  bs = cb_scratch(&b, sizeof scratch);
  /* 3 rows of 4 bytes from in[2 + 8r] into tile 1 at 128 + 6r. */
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_IN, 1, layer0, bi, 2, 128, 3, 4, 8, 6);
  /* 2 rows of 3 bytes from tile 1 at 128 + 6r to out[1 + 5r]. */
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_OUT, 1, layer0, bo, 1, 128, 2, 3, 5, 6);
  /* tile 1 OCM 128..131 to scratch[4..7], then back into tile 0 at 256. */
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_OUT, 1, layer0, bs, 4, 128, 1, 4, 0, 0);
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_IN, 0, layer0, bs, 3, 256, 1, 6, 0, 0);
  ins[0] = in;
  outs[0] = out;
  assert_int_equal(cb_run(&b, ocm, sizeof ocm, ins, 1, outs, 1, scratch, sizeof scratch, NULL, 0), MLIP_OK);
  {
    const uint8_t exp_ocm[] = {2, 3, 4, 5, 0, 0, 10, 11, 12, 13, 0, 0, 18, 19, 20, 21};
    assert_memory_equal(ocm + TILE_OCM + 128, exp_ocm, sizeof exp_ocm);
  }
  {
    const uint8_t exp_out[] = {0xAA, 2, 3, 4, 0xAA, 0xAA, 10, 11, 12, 0xAA};
    assert_memory_equal(out, exp_out, sizeof exp_out);
    for (i = sizeof exp_out; i < sizeof out; ++i) assert_int_equal(out[i], 0xAA);
  }
  {
    const uint8_t exp_s[] = {0xBB, 0xBB, 0xBB, 0xBB, 2, 3, 4, 5, 0xBB};
    assert_memory_equal(scratch, exp_s, sizeof exp_s);
    const uint8_t exp_t0[] = {0xBB, 2, 3, 4, 5, 0xBB};
    assert_memory_equal(ocm + 256, exp_t0, sizeof exp_t0);
  }
  /* tile 0 OCM 128.. untouched: tiles do not share OCM */
  assert_int_equal(ocm[128], 0);
}

/* A converting DMA: fp32 rows of DDR become halves in OCM (the conversion
   of CONVERT: rounding to nearest even, overflow to Inf, a NaN's sign,
   subnormals), and halves go back out as fp32 (exact). The DDR side is
   twice row_bytes: offsets and strides count DDR bytes. */
static void test_dma_converts(void** state) {
  const uint32_t in_bits[6] = {0x3F800000u /* 1 */, 0x45001000u /* 2049 */, 0x477FF000u /* 65520 */,
                               0x80000000u /* -0 */, 0xFFC00001u /* -NaN */, 0x33C00000u /* 3 * 2^-25 */};
  const uint16_t exp_h[6] = {0x3C00, 0x6800, 0x7C00, 0x8000, 0xFE00, 0x0002};
  const uint32_t exp_f[6] = {0x3F800000u, 0x45000000u, 0x7F800000u, 0x80000000u, 0xFFC00000u, 0x34000000u};
  uint32_t in[8], out[7];
  void* ins[1];
  void* outs[1];
  uint32_t bi, bo, i;
  (void)state;
  fresh(1, MLIP_LAYER_CONVERT_IN);
  /* two rows of three values, the second 16 bytes after the first */
  memset(in, 0xCC, sizeof in);
  for (i = 0; i < 6; ++i) in[(i / 3u) * 4u + i % 3u] = in_bits[i];
  memset(out, 0xAA, sizeof out);
  bi = cb_input(&b, sizeof in);
  bo = cb_output(&b, sizeof out);
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_IN, 0, layer0, bi, 0, 128, 2, 6, 16, 6)->convert = MLIP_CVT_F32_TO_F16;
  /* the six halves out as fp32 at out[1..6] (DDR offset 4) */
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_OUT, 0, layer0, bo, 4, 128, 1, 12, 0, 0)->convert = MLIP_CVT_F16_TO_F32;
  ins[0] = in;
  outs[0] = out;
  assert_int_equal(cb_run(&b, ocm, sizeof ocm, ins, 1, outs, 1, NULL, 0, NULL, 0), MLIP_OK);
  for (i = 0; i < 6; ++i) assert_int_equal(geth(128 + 2u * i), exp_h[i]);
  assert_int_equal(out[0], 0xAAAAAAAAu);
  for (i = 0; i < 6; ++i) assert_int_equal(out[1 + i], exp_f[i]);
}

/* Its rules: the direction of each opcode, whole halves, the doubled DDR
   row inside the binding. */
static void test_dma_convert_rules(void** state) {
  uint32_t in[8] = {0}, out[4] = {0};
  void* ins[1];
  void* outs[1];
  uint32_t bi, bo;
  (void)state;
  ins[0] = in;
  outs[0] = out;
  fresh(1, MLIP_LAYER_CONVERT_IN);
  bi = cb_input(&b, sizeof in);
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_IN, 0, layer0, bi, 0, 128, 1, 8, 0, 0)->convert = MLIP_CVT_F16_TO_F32;
  assert_int_equal(cb_run(&b, ocm, sizeof ocm, ins, 1, NULL, 0, NULL, 0, NULL, 0), MLIP_ERR_INVALID_ARG);
  fresh(1, MLIP_LAYER_CONVERT_IN);
  bi = cb_input(&b, sizeof in);
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_IN, 0, layer0, bi, 0, 128, 1, 7, 0, 0)->convert = MLIP_CVT_F32_TO_F16;
  assert_int_equal(cb_run(&b, ocm, sizeof ocm, ins, 1, NULL, 0, NULL, 0, NULL, 0), MLIP_ERR_INVALID_ARG);
  fresh(1, MLIP_LAYER_CONVERT_IN);
  bi = cb_input(&b, sizeof in); /* 32 bytes: 16 bytes of halves fit at 0, not at 4 (unconverted they would) */
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_IN, 0, layer0, bi, 0, 128, 1, 16, 0, 0)->convert = MLIP_CVT_F32_TO_F16;
  assert_int_equal(cb_run(&b, ocm, sizeof ocm, ins, 1, NULL, 0, NULL, 0, NULL, 0), MLIP_OK);
  fresh(1, MLIP_LAYER_CONVERT_IN);
  bi = cb_input(&b, sizeof in);
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_IN, 0, layer0, bi, 4, 128, 1, 16, 0, 0)->convert = MLIP_CVT_F32_TO_F16;
  assert_int_equal(cb_run(&b, ocm, sizeof ocm, ins, 1, NULL, 0, NULL, 0, NULL, 0), MLIP_ERR_BOUNDS);
  fresh(1, MLIP_LAYER_CONVERT_OUT);
  bo = cb_output(&b, sizeof out);
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_OUT, 0, layer0, bo, 0, 128, 1, 8, 0, 0)->convert = MLIP_CVT_F32_TO_F16;
  assert_int_equal(cb_run(&b, ocm, sizeof ocm, NULL, 0, outs, 1, NULL, 0, NULL, 0), MLIP_ERR_INVALID_ARG);
}

/* ---- CONVERT, LAYOUT ---------------------------------------------------------- */

static void test_convert(void** state) {
  const uint32_t in_bits[6] = {0x3F800000u /* 1 */, 0x45001000u /* 2049 */, 0x477FF000u /* 65520 */,
                               0x80000000u /* -0 */, 0xFFC00001u /* -NaN */, 0x33C00000u /* 3 * 2^-25 */};
  const uint16_t exp_h[6] = {0x3C00, 0x6800, 0x7C00, 0x8000, 0xFE00, 0x0002};
  uint32_t i;
  (void)state;
  fresh(1, MLIP_LAYER_CONVERT_IN);
  for (i = 0; i < 6; ++i) setfb(4u * i, in_bits[i]);
  (void)cb_convert(&b, CB_MAIN, 0, layer0, 0, 128, 6, MLIP_CVT_F32_TO_F16);
  (void)cb_convert(&b, CB_MAIN, 0, layer0, 128, 256, 6, MLIP_CVT_F16_TO_F32);
  assert_int_equal(run_ocm_only(), MLIP_OK);
  for (i = 0; i < 6; ++i) assert_int_equal(geth(128 + 2u * i), exp_h[i]);
  {
    const uint32_t exp_f[6] = {0x3F800000u, 0x45000000u, 0x7F800000u, 0x80000000u, 0xFFC00000u, 0x34000000u};
    for (i = 0; i < 6; ++i) assert_int_equal(getfb(256 + 4u * i), exp_f[i]);
  }
}

static void test_layout(void** state) {
  uint32_t i;
  (void)state;
  fresh(1, MLIP_LAYER_CONVERT_IN);
  /* CHW with C = 2, HW = 3: [c][p] = 10 c + p */
  for (i = 0; i < 6; ++i) seth(2u * i, (float)(10u * (i / 3u) + i % 3u));
  (void)cb_layout(&b, CB_MAIN, 0, layer0, 0, 128, 1, 2, 3, 2);   /* CHW -> HWC */
  (void)cb_layout(&b, CB_MAIN, 0, layer0, 128, 256, 1, 3, 2, 2); /* HWC -> CHW */
  /* 4-byte elements, two batches: [2][2][3] -> [2][3][2] */
  for (i = 0; i < 12; ++i) setf(512 + 4u * i, (float)i);
  (void)cb_layout(&b, CB_MAIN, 0, layer0, 512, 640, 2, 2, 3, 4);
  assert_int_equal(run_ocm_only(), MLIP_OK);
  {
    const float hwc[6] = {0, 10, 1, 11, 2, 12};
    for (i = 0; i < 6; ++i) assert_true(gethf(128 + 2u * i) == hwc[i]);
  }
  assert_memory_equal(ocm + 256, ocm + 0, 12);
  {
    const float t[12] = {0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11};
    for (i = 0; i < 12; ++i) assert_int_equal(getfb(640 + 4u * i), fbits(t[i]));
  }
}

/* ---- CONV2D --------------------------------------------------------------------- */

static mlip_decoded_cmd* conv(uint32_t in_h, uint32_t in_w, uint32_t in_c, uint32_t out_h, uint32_t out_w, uint32_t out_c,
                              uint32_t kh, uint32_t kw) {
  mlip_decoded_cmd* c = cb_cmd(&b, CB_MAIN, MLIP_OP_CONV2D, 0, layer0);
  c->u.conv2d.in = 0;
  c->u.conv2d.in_h = in_h;
  c->u.conv2d.in_w = in_w;
  c->u.conv2d.in_c = in_c;
  c->u.conv2d.weights = 512;
  c->u.conv2d.bias = MLIP_NO_OFFSET;
  c->u.conv2d.out = 1024;
  c->u.conv2d.out_h = out_h;
  c->u.conv2d.out_w = out_w;
  c->u.conv2d.out_c = out_c;
  c->u.conv2d.kh = kh;
  c->u.conv2d.kw = kw;
  c->u.conv2d.stride_h = 1;
  c->u.conv2d.stride_w = 1;
  c->u.conv2d.dil_h = 1;
  c->u.conv2d.dil_w = 1;
  c->u.conv2d.groups = 1;
  c->u.conv2d.ic_per_group = in_c;
  c->u.conv2d.oc_per_group = out_c;
  return c;
}

static void test_conv_pad_stride_bias_relu(void** state) {
  mlip_decoded_cmd* c;
  uint32_t i;
  (void)state;
  fresh(1, MLIP_LAYER_CONV2D);
  for (i = 0; i < 9; ++i) seth(2u * i, (float)(i + 1u)); /* 3x3x1: 1..9 */
  for (i = 0; i < 9; ++i) seth(512 + 2u * i, 1.0f);      /* 3x3 ones */
  setf(768, -13.0f);
  c = conv(3, 3, 1, 2, 2, 1, 3, 3);
  c->u.conv2d.stride_h = 2;
  c->u.conv2d.stride_w = 2;
  c->u.conv2d.pad_top = 1;
  c->u.conv2d.pad_left = 1;
  c->u.conv2d.bias = 768;
  c->u.conv2d.act = MLIP_ACT_RELU;
  assert_int_equal(run_ocm_only(), MLIP_OK);
  /* windows: 1+2+4+5 = 12, 2+3+5+6 = 16, 4+5+7+8 = 24, 5+6+8+9 = 28; minus 13; relu */
  assert_true(gethf(1024) == 0.0f);
  assert_int_equal(geth(1024), 0x0000); /* +0, not -0 */
  assert_true(gethf(1026) == 3.0f);
  assert_true(gethf(1028) == 11.0f);
  assert_true(gethf(1030) == 15.0f);
}

static void test_conv_dilation_clip(void** state) {
  mlip_decoded_cmd* c;
  uint32_t i;
  (void)state;
  fresh(1, MLIP_LAYER_CONV2D);
  for (i = 0; i < 5; ++i) seth(2u * i, (float)(i + 1u)); /* 1x5x1: 1..5 */
  seth(512, 1.0f);
  seth(514, 10.0f);
  seth(516, 100.0f);
  c = conv(1, 5, 1, 1, 1, 1, 1, 3);
  c->u.conv2d.dil_w = 2; /* taps 0, 2, 4: 1 + 30 + 500 */
  assert_int_equal(run_ocm_only(), MLIP_OK);
  assert_true(gethf(1024) == 531.0f);

  /* CLIP [0, 6] (RELU6) on three output channels: -3, 4, 10 */
  fresh(1, MLIP_LAYER_CONV2D);
  seth(0, 1.0f);
  seth(512, -3.0f);
  seth(514, 4.0f);
  seth(516, 10.0f);
  c = conv(1, 1, 1, 1, 1, 3, 1, 1);
  c->u.conv2d.act = MLIP_ACT_CLIP;
  c->u.conv2d.act_lo = 0.0f;
  c->u.conv2d.act_hi = 6.0f;
  assert_int_equal(run_ocm_only(), MLIP_OK);
  assert_true(gethf(1024) == 0.0f);
  assert_true(gethf(1026) == 4.0f);
  assert_true(gethf(1028) == 6.0f);
}

static void test_conv_padding_skipped(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  /* 1x2 kernel [inf, 1], pad_left 1, input [2]: the padded tap has weight
     inf; skipped, it adds nothing (as a zero it would give 0 * inf = NaN). */
  fresh(1, MLIP_LAYER_CONV2D);
  seth(0, 2.0f);
  sethb(512, 0x7C00);
  seth(514, 1.0f);
  c = conv(1, 1, 1, 1, 1, 1, 1, 2);
  c->u.conv2d.pad_left = 1;
  assert_int_equal(run_ocm_only(), MLIP_OK);
  assert_true(gethf(1024) == 2.0f);
  /* All taps padding: acc stays +0 (never -0), then the bias. */
  fresh(1, MLIP_LAYER_CONV2D);
  seth(0, -1.0f);
  seth(512, 0.0f);
  c = conv(1, 1, 1, 1, 2, 1, 1, 1);
  c->u.conv2d.pad_left = 1; /* output column 0 reads column -1 */
  assert_int_equal(run_ocm_only(), MLIP_OK);
  assert_int_equal(geth(1024), 0x0000);
  assert_int_equal(geth(1026), 0x0000); /* -1 * 0 = -0, but acc = +0 + -0 = +0 */
}

static void test_conv_groups_depthwise(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  /* Depthwise (groups 4, 1 in and 1 out per group): this block is layer
     channels 2..3, its input block holds channels 2..3 (ic_base 2). */
  fresh(1, MLIP_LAYER_CONV2D);
  seth(0, 3.0f);
  seth(2, 5.0f);
  seth(512, 2.0f);
  seth(514, 7.0f);
  c = conv(1, 1, 2, 1, 1, 2, 1, 1);
  c->u.conv2d.groups = 4;
  c->u.conv2d.ic_per_group = 1;
  c->u.conv2d.oc_per_group = 1;
  c->u.conv2d.oc_base = 2;
  c->u.conv2d.ic_base = 2;
  assert_int_equal(run_ocm_only(), MLIP_OK);
  assert_true(gethf(1024) == 6.0f);
  assert_true(gethf(1026) == 35.0f);

  /* Grouped: groups 2, 2 in / 2 out per group; block = layer output
     channels 2..3 (group 1) over the whole 4-channel input (ic_base 0):
     group 1 reads input channels 2..3. */
  fresh(1, MLIP_LAYER_CONV2D);
  seth(0, 1.0f);
  seth(2, 2.0f);
  seth(4, 3.0f);
  seth(6, 4.0f);
  seth(512, 1.0f); /* j = 0: [1, 1] */
  seth(514, 1.0f);
  seth(516, 1.0f); /* j = 1: [1, -1] */
  seth(518, -1.0f);
  c = conv(1, 1, 4, 1, 1, 2, 1, 1);
  c->u.conv2d.groups = 2;
  c->u.conv2d.ic_per_group = 2;
  c->u.conv2d.oc_per_group = 2;
  c->u.conv2d.oc_base = 2;
  assert_int_equal(run_ocm_only(), MLIP_OK);
  assert_true(gethf(1024) == 7.0f);
  assert_true(gethf(1026) == -1.0f);

  /* Block with both groups (channels 0..3 of a groups-2 layer): j = 0,1
     read input 0..1, j = 2,3 read 2..3. 2x1 spatial, 1x1 kernel. */
  fresh(1, MLIP_LAYER_CONV2D);
  {
    const float x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const float w[8] = {1, 0, 0, 1, 1, 0, 0, 1};
    uint32_t i;
    for (i = 0; i < 8; ++i) seth(2u * i, x[i]);
    for (i = 0; i < 8; ++i) seth(512 + 2u * i, w[i]);
  }
  c = conv(2, 1, 4, 2, 1, 4, 1, 1);
  c->u.conv2d.groups = 2;
  c->u.conv2d.ic_per_group = 2;
  c->u.conv2d.oc_per_group = 2;
  assert_int_equal(run_ocm_only(), MLIP_OK);
  {
    const float y[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint32_t i;
    for (i = 0; i < 8; ++i) assert_true(gethf(1024 + 2u * i) == y[i]);
  }
}

/* ---- FC ------------------------------------------------------------------------- */

static uint32_t rng = 12345u;
static uint32_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}
/* A random half in about [-4, 4] with all mantissa bits used. */
static uint16_t rand_half(void) {
  uint32_t r = next_rand();
  return (uint16_t)((r & 0x83FFu) | ((10u + (r >> 16) % 7u) << 10));
}

static mlip_decoded_cmd* fc(uint32_t in, uint32_t w, uint32_t acc, uint32_t out, uint32_t n, uint32_t k, uint32_t oc,
                            uint32_t first, uint32_t last) {
  mlip_decoded_cmd* c = cb_cmd(&b, CB_MAIN, MLIP_OP_FC, 0, layer0);
  c->u.fc.in = in;
  c->u.fc.weights = w;
  c->u.fc.bias = MLIP_NO_OFFSET;
  c->u.fc.acc = acc;
  c->u.fc.out = out;
  c->u.fc.n = n;
  c->u.fc.k = k;
  c->u.fc.out_c = oc;
  c->u.fc.first = first;
  c->u.fc.last = last;
  return c;
}

static void test_fc_hand(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  fresh(1, MLIP_LAYER_FC);
  /* x = [[1, 2], [3, -4]], w = [[1, 1], [0.5, -1], [2, 0]], bias [0.25, 0, -100] */
  seth(0, 1.0f);
  seth(2, 2.0f);
  seth(4, 3.0f);
  seth(6, -4.0f);
  seth(128, 1.0f);
  seth(130, 1.0f);
  seth(132, 0.5f);
  seth(134, -1.0f);
  seth(136, 2.0f);
  seth(138, 0.0f);
  setf(256, 0.25f);
  setf(260, 0.0f);
  setf(264, -100.0f);
  c = fc(0, 128, 384, 512, 2, 2, 3, 1, 1);
  c->u.fc.bias = 256;
  c->u.fc.act = MLIP_ACT_RELU;
  assert_int_equal(run_ocm_only(), MLIP_OK);
  {
    const float y[6] = {3.25f, 0.0f, 0.0f, 0.0f, 5.5f, 0.0f}; /* [3.25, -1.5, -98], [-0.75, 5.5, -94] */
    const float acc[6] = {3.0f, -1.5f, 2.0f, -1.0f, 5.5f, 6.0f};
    uint32_t i;
    for (i = 0; i < 6; ++i) assert_true(gethf(512 + 2u * i) == y[i]);
    for (i = 0; i < 6; ++i) assert_int_equal(getfb(384 + 4u * i), fbits(acc[i]));
  }
}

static void test_fc_two_chunks_equal_one(void** state) {
  enum { N = 2, K = 24, OC = 5, K1 = 11 };
  uint16_t x[N][K], w[OC][K];
  uint16_t one[N * OC];
  uint32_t n, k, o;
  mlip_decoded_cmd* c;
  (void)state;
  for (n = 0; n < N; ++n)
    for (k = 0; k < K; ++k) x[n][k] = rand_half();
  for (o = 0; o < OC; ++o)
    for (k = 0; k < K; ++k) w[o][k] = rand_half();

  /* One chunk: x at 0, w at 128, bias at 512, acc at 640, out at 768. */
  fresh(1, MLIP_LAYER_FC);
  for (n = 0; n < N; ++n)
    for (k = 0; k < K; ++k) sethb(2u * (n * K + k), x[n][k]);
  for (o = 0; o < OC; ++o)
    for (k = 0; k < K; ++k) sethb(128 + 2u * (o * K + k), w[o][k]);
  for (o = 0; o < OC; ++o) setf(512 + 4u * o, 0.1f * (float)o - 0.2f);
  c = fc(0, 128, 640, 768, N, K, OC, 1, 1);
  c->u.fc.bias = 512;
  c->u.fc.act = MLIP_ACT_CLIP;
  c->u.fc.act_lo = -3.0f;
  c->u.fc.act_hi = 3.0f;
  assert_int_equal(run_ocm_only(), MLIP_OK);
  memcpy(one, ocm + 768, sizeof one);

  /* Two chunks: k < K1 then k >= K1, on the same accumulator. */
  fresh(1, MLIP_LAYER_FC);
  for (n = 0; n < N; ++n)
    for (k = 0; k < K1; ++k) sethb(2u * (n * K1 + k), x[n][k]);
  for (o = 0; o < OC; ++o)
    for (k = 0; k < K1; ++k) sethb(128 + 2u * (o * K1 + k), w[o][k]);
  for (n = 0; n < N; ++n)
    for (k = K1; k < K; ++k) sethb(1024 + 2u * (n * (K - K1) + k - K1), x[n][k]);
  for (o = 0; o < OC; ++o)
    for (k = K1; k < K; ++k) sethb(1152 + 2u * (o * (K - K1) + k - K1), w[o][k]);
  for (o = 0; o < OC; ++o) setf(512 + 4u * o, 0.1f * (float)o - 0.2f);
  memset(ocm + 640, 0x7F, 64); /* FIRST must not read the old accumulator */
  c = fc(0, 128, 640, 768, N, K1, OC, 1, 0);
  c->u.fc.out = 0; /* unused without LAST */
  c = fc(1024, 1152, 640, 768, N, K - K1, OC, 0, 1);
  c->u.fc.bias = 512;
  c->u.fc.act = MLIP_ACT_CLIP;
  c->u.fc.act_lo = -3.0f;
  c->u.fc.act_hi = 3.0f;
  assert_int_equal(run_ocm_only(), MLIP_OK);
  assert_memory_equal(ocm + 768, one, sizeof one);
}

/* ---- pools -------------------------------------------------------------------- */

static mlip_decoded_cmd* pool(uint32_t op, uint32_t include_pad, int32_t ptop, int32_t pbottom) {
  mlip_decoded_cmd* c = cb_cmd(&b, CB_MAIN, op, 0, layer0);
  c->u.pool.in = 0;
  c->u.pool.in_h = 3;
  c->u.pool.in_w = 3;
  c->u.pool.c = 1;
  c->u.pool.out = 512;
  c->u.pool.out_h = 2;
  c->u.pool.out_w = 2;
  c->u.pool.kh = 2;
  c->u.pool.kw = 2;
  c->u.pool.stride_h = 2;
  c->u.pool.stride_w = 2;
  c->u.pool.pad_top = 1;
  c->u.pool.pad_left = 1;
  c->u.pool.count_include_pad = include_pad;
  c->u.pool.padded_top = ptop;
  c->u.pool.padded_bottom = pbottom;
  c->u.pool.padded_left = ptop;
  c->u.pool.padded_right = pbottom;
  return c;
}

static void pool_case(uint32_t op, uint32_t include_pad, int32_t ptop, int32_t pbottom, const float* expect) {
  uint32_t i;
  fresh(1, op == MLIP_OP_MAXPOOL ? MLIP_LAYER_MAXPOOL : MLIP_LAYER_AVGPOOL);
  for (i = 0; i < 9; ++i) seth(2u * i, (float)(i + 1u)); /* 3x3: 1..9 */
  (void)pool(op, include_pad, ptop, pbottom);
  assert_int_equal(run_ocm_only(), MLIP_OK);
  for (i = 0; i < 4; ++i) assert_true(gethf(512 + 2u * i) == expect[i]);
}

static void test_pools(void** state) {
  /* 2x2 windows, stride 2, pad 1 (top/left) over 1..9: inside positions
     {1}, {2, 3}, {4, 7}, {5, 6, 8, 9}. */
  const float max[4] = {1, 3, 7, 9};
  const float avg_excl[4] = {1, 2.5f, 5.5f, 7};
  const float avg_incl[4] = {0.25f, 1.25f, 2.75f, 7}; /* padded bounds [-1, 4): every window counts 4 */
  const float avg_incl_ceil[4] = {1, 2.5f, 5.5f, 7};  /* padded bounds [0, 3) == the block */
  (void)state;
  pool_case(MLIP_OP_MAXPOOL, 0, 0, 0, max);
  pool_case(MLIP_OP_AVGPOOL, 0, -1, 4, avg_excl);
  pool_case(MLIP_OP_AVGPOOL, 1, -1, 4, avg_incl);
  pool_case(MLIP_OP_AVGPOOL, 1, 0, 3, avg_incl_ceil);
}

/* Dilation 2 (gap 1) over a 5x5 block of 1..25 (x[r][q] = 5r + q + 1), a 2x2 window:
 * its taps are (b, b + 2) each way. Stride 1, no padding: 3x3 outputs, the maximum
 * x[r+2][q+2], the average x[r][q] + (0 + 2 + 10 + 12) / 4 = x[r][q] + 6. Stride 2,
 * pad 1 top and left and 1 bottom and right (padded bounds [-1, 6)): windows at
 * -1, 1, 3 take the taps {-1, 1}, {1, 3}, {3, 5}, of which -1 and 5 are padding; so
 * (0, 0) has x[1][1] = 7 alone, (1, 1) 7, 9, 17, 19, (2, 2) x[3][3] = 19 alone, and
 * count_include_pad counts 4 everywhere (every tap inside the padded bounds). A gap
 * above MLIP_POOL_MAX_GAP is refused. */
static void dilated_case(uint32_t op, uint32_t stride, uint32_t pad, uint32_t include_pad, uint32_t gap_h,
                         const float* expect) {
  mlip_decoded_cmd* c;
  uint32_t i;
  fresh(1, op == MLIP_OP_MAXPOOL ? MLIP_LAYER_MAXPOOL : MLIP_LAYER_AVGPOOL);
  for (i = 0; i < 25; ++i) seth(2u * i, (float)(i + 1u));
  c = cb_cmd(&b, CB_MAIN, op, 0, layer0);
  c->u.pool.in = 0;
  c->u.pool.in_h = 5;
  c->u.pool.in_w = 5;
  c->u.pool.c = 1;
  c->u.pool.out = 512;
  c->u.pool.out_h = 3;
  c->u.pool.out_w = 3;
  c->u.pool.kh = 2;
  c->u.pool.kw = 2;
  c->u.pool.stride_h = stride;
  c->u.pool.stride_w = stride;
  c->u.pool.pad_top = pad;
  c->u.pool.pad_left = pad;
  c->u.pool.count_include_pad = include_pad;
  c->u.pool.padded_top = -(int32_t)pad;
  c->u.pool.padded_bottom = 5 + (int32_t)pad;
  c->u.pool.padded_left = -(int32_t)pad;
  c->u.pool.padded_right = 5 + (int32_t)pad;
  c->u.pool.gap_h = gap_h;
  c->u.pool.gap_w = 1;
  if (expect == NULL) {
    assert_int_equal(run_ocm_only(), MLIP_ERR_INVALID_ARG);
    return;
  }
  assert_int_equal(run_ocm_only(), MLIP_OK);
  for (i = 0; i < 9; ++i) {
    if (gethf(512 + 2u * i) != expect[i]) print_error("output %u: %g\n", i, (double)gethf(512 + 2u * i));
    assert_true(gethf(512 + 2u * i) == expect[i]);
  }
}

static void test_pool_dilation(void** state) {
  const float max[9] = {13, 14, 15, 18, 19, 20, 23, 24, 25};
  const float avg[9] = {7, 8, 9, 12, 13, 14, 17, 18, 19};
  /* stride 2, pad 1: rows/columns {-1, 1}, {1, 3}, {3, 5} */
  const float max_pad[9] = {7, 9, 9, 17, 19, 19, 17, 19, 19};
  const float avg_excl[9] = {7, 8, 9, 12, 13, 14, 17, 18, 19};
  const float avg_incl[9] = {1.75f, 4, 2.25f, 6, 13, 7, 4.25f, 9, 4.75f};
  (void)state;
  dilated_case(MLIP_OP_MAXPOOL, 1, 0, 0, 1, max);
  dilated_case(MLIP_OP_AVGPOOL, 1, 0, 0, 1, avg);
  dilated_case(MLIP_OP_AVGPOOL, 1, 0, 1, 1, avg);
  dilated_case(MLIP_OP_MAXPOOL, 2, 1, 0, 1, max_pad);
  dilated_case(MLIP_OP_AVGPOOL, 2, 1, 0, 1, avg_excl);
  dilated_case(MLIP_OP_AVGPOOL, 2, 1, 1, 1, avg_incl);
  dilated_case(MLIP_OP_MAXPOOL, 1, 0, 0, MLIP_POOL_MAX_GAP + 1u, NULL);
}

static void test_pool_edges(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  /* A NaN wins over any number, whatever its place in the window (docs/
     runtime.md, "NaN"); every NaN result is stored as 0x7E00. */
  fresh(1, MLIP_LAYER_MAXPOOL);
  sethb(0, 0x7E00); /* 1x3: NaN, 1, NaN */
  seth(2, 1.0f);
  sethb(4, 0xFE00);
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_MAXPOOL, 0, layer0);
  c->u.pool.in = 0;
  c->u.pool.in_h = 1;
  c->u.pool.in_w = 3;
  c->u.pool.c = 1;
  c->u.pool.out = 512;
  c->u.pool.out_h = 1;
  c->u.pool.out_w = 4;
  c->u.pool.kh = 1;
  c->u.pool.kw = 2;
  c->u.pool.stride_h = 1;
  c->u.pool.stride_w = 1;
  c->u.pool.pad_left = 1;
  /* windows: {-1, 0} -> NaN only, {0, 1}: NaN first, {1, 2}: NaN last, {2, 3} -> -NaN only */
  assert_int_equal(run_ocm_only(), MLIP_OK);
  assert_int_equal(geth(512), 0x7E00);
  assert_int_equal(geth(514), 0x7E00);
  assert_int_equal(geth(516), 0x7E00);
  assert_int_equal(geth(518), 0x7E00);

  /* A window with no position inside the block: MAXPOOL gives -inf. */
  fresh(1, MLIP_LAYER_MAXPOOL);
  seth(0, 4.0f);
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_MAXPOOL, 0, layer0);
  c->u.pool.in = 0;
  c->u.pool.in_h = 1;
  c->u.pool.in_w = 1;
  c->u.pool.c = 1;
  c->u.pool.out = 512;
  c->u.pool.out_h = 1;
  c->u.pool.out_w = 2;
  c->u.pool.kh = 1;
  c->u.pool.kw = 1;
  c->u.pool.stride_h = 1;
  c->u.pool.stride_w = 1;
  c->u.pool.pad_left = 1;
  assert_int_equal(run_ocm_only(), MLIP_OK);
  assert_int_equal(geth(512), 0xFC00);
  assert_true(gethf(514) == 4.0f);

  /* AVGPOOL over a window with no position at all: count 0 -> quiet NaN. */
  fresh(1, MLIP_LAYER_AVGPOOL);
  seth(0, 4.0f);
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_AVGPOOL, 0, layer0);
  c->u.pool.in = 0;
  c->u.pool.in_h = 1;
  c->u.pool.in_w = 1;
  c->u.pool.c = 1;
  c->u.pool.out = 512;
  c->u.pool.out_h = 1;
  c->u.pool.out_w = 2;
  c->u.pool.kh = 1;
  c->u.pool.kw = 1;
  c->u.pool.stride_h = 1;
  c->u.pool.stride_w = 1;
  c->u.pool.pad_left = 1;
  assert_int_equal(run_ocm_only(), MLIP_OK);
  assert_int_equal(geth(512), 0x7E00);
  assert_true(gethf(514) == 4.0f);
}

static void test_global_pools(void** state) {
  mlip_decoded_cmd* c;
  const float x[6] = {1, -1, 2, -5, 4, -3}; /* [hw = 3][c = 2] */
  uint32_t i;
  (void)state;
  fresh(1, MLIP_LAYER_GLOBAL_AVGPOOL);
  for (i = 0; i < 6; ++i) seth(2u * i, x[i]);
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_GLOBAL_AVGPOOL, 0, layer0);
  c->u.global_pool.in = 0;
  c->u.global_pool.out = 128;
  c->u.global_pool.hw = 3;
  c->u.global_pool.c = 2;
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_GLOBAL_MAXPOOL, 0, layer0);
  c->u.global_pool.in = 0;
  c->u.global_pool.out = 256;
  c->u.global_pool.hw = 3;
  c->u.global_pool.c = 2;
  assert_int_equal(run_ocm_only(), MLIP_OK);
  /* 7 / 3 = 2.33333325 in fp32 -> 0x40AB (2.333984375) in fp16 */
  assert_int_equal(geth(128), 0x40AB);
  assert_true(gethf(130) == -3.0f);
  assert_true(gethf(256) == 4.0f);
  assert_true(gethf(258) == -1.0f);
  /* GLOBAL_MAXPOOL: a NaN anywhere in a channel gives NaN (0x7E00). */
  fresh(1, MLIP_LAYER_GLOBAL_MAXPOOL);
  for (i = 0; i < 6; ++i) seth(2u * i, x[i]);
  sethb(6, 0xFE00); /* channel 1, position 1 */
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_GLOBAL_MAXPOOL, 0, layer0);
  c->u.global_pool.in = 0;
  c->u.global_pool.out = 256;
  c->u.global_pool.hw = 3;
  c->u.global_pool.c = 2;
  assert_int_equal(run_ocm_only(), MLIP_OK);
  assert_true(gethf(256) == 4.0f);
  assert_int_equal(geth(258), 0x7E00);
}

/* ---- ADD ------------------------------------------------------------------------- */

static void add_case(uint32_t act, float lo, float hi, const uint16_t* expect) {
  const float a[4] = {1.0f, -2.0f, 65504.0f, -0.0f};
  const float bb[4] = {2.0f, 1.0f, 65504.0f, -0.0f};
  mlip_decoded_cmd* c;
  uint32_t i;
  fresh(1, MLIP_LAYER_ADD);
  for (i = 0; i < 4; ++i) {
    seth(2u * i, a[i]);
    seth(128 + 2u * i, bb[i]);
  }
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_ADD, 0, layer0);
  c->u.add.a = 0;
  c->u.add.b = 128;
  c->u.add.out = 256;
  c->u.add.count = 4;
  c->u.add.act = act;
  c->u.add.act_lo = lo;
  c->u.add.act_hi = hi;
  assert_int_equal(run_ocm_only(), MLIP_OK);
  for (i = 0; i < 4; ++i) assert_int_equal(geth(256 + 2u * i), expect[i]);
}

static void test_add(void** state) {
  const uint16_t none[4] = {0x4200 /* 3 */, 0xBC00 /* -1 */, 0x7C00 /* 131008 -> inf */, 0x8000 /* -0 */};
  const uint16_t relu[4] = {0x4200, 0x0000, 0x7C00, 0x0000 /* -0 -> +0 */};
  const uint16_t clip[4] = {0x4000 /* 2 */, 0xB800 /* -0.5 */, 0x4000, 0x8000};
  (void)state;
  add_case(MLIP_ACT_NONE, 0, 0, none);
  add_case(MLIP_ACT_RELU, 0, 0, relu);
  add_case(MLIP_ACT_CLIP, -0.5f, 2.0f, clip);
}

/* ---- activations (docs/mlip-spec.md section 4) ------------------------------------ *
 * Expected halves computed independently: the exact function in double
 * precision (Python's math), rounded to fp32 where the spec rounds (the
 * sigmoid before SiLU's product, HardSigmoid's product and sum), then to
 * fp16. Saturation, tiny (subnormal) and huge inputs, infinities and NaN. */

static void act_case(uint32_t act, float lo, float hi, const uint16_t* in, const uint16_t* expect, uint32_t count) {
  mlip_decoded_cmd* c;
  uint32_t i;
  fresh(1, MLIP_LAYER_ACTIVATION);
  for (i = 0; i < count; ++i) sethb(2u * i, in[i]);
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_ACTIVATION, 0, layer0);
  c->u.activation.in = 0;
  c->u.activation.out = 128;
  c->u.activation.count = count;
  c->u.activation.act = act;
  c->u.activation.act_lo = lo;
  c->u.activation.act_hi = hi;
  assert_int_equal(run_ocm_only(), MLIP_OK);
  for (i = 0; i < count; ++i) {
    if (geth(128 + 2u * i) != expect[i]) print_error("act %u element %u: in 0x%04X\n", act, i, in[i]);
    assert_int_equal(geth(128 + 2u * i), expect[i]);
  }
}

static void test_activation_sigmoid_tanh(void** state) {
  /* 0, 1, -1, 10 (saturates to 1), -10 (subnormal result), -20 (underflows to 0), 65504, -inf, inf, NaN, 2^-24 */
  const uint16_t sin_[11] = {0x0000, 0x3C00, 0xBC00, 0x4900, 0xC900, 0xCD00, 0x7BFF, 0xFC00, 0x7C00, 0x7E00, 0x0001};
  const uint16_t sout[11] = {0x3800, 0x39D9, 0x344E, 0x3C00, 0x02FA, 0x0000, 0x3C00, 0x0000, 0x3C00, 0x7E00, 0x3800};
  /* 0.5, -0, 3, 10, -inf, NaN, 2^-24 */
  const uint16_t tin[7] = {0x3800, 0x8000, 0x4200, 0x4900, 0xFC00, 0x7E00, 0x0001};
  const uint16_t tout[7] = {0x3765, 0x8000, 0x3BF6, 0x3C00, 0xBC00, 0x7E00, 0x0001};
  (void)state;
  act_case(MLIP_ACT_SIGMOID, 0, 0, sin_, sout, 11);
  act_case(MLIP_ACT_TANH, 0, 0, tin, tout, 7);
}

static void test_activation_silu_hard(void** state) {
  /* SiLU: 1, -1, 20, -20 (a product below half the smallest subnormal rounds up to it), inf, -inf (-inf * 0), 65504, NaN */
  const uint16_t siin[8] = {0x3C00, 0xBC00, 0x4D00, 0xCD00, 0x7C00, 0xFC00, 0x7BFF, 0x7E00};
  const uint16_t siout[8] = {0x39D9, 0xB44E, 0x4D00, 0x8001, 0x7C00, 0x7E00, 0x7BFF, 0x7E00};
  /* HardSigmoid alpha 0.2, beta 0.5: 1, 3 (saturates), -3, inf, -inf, NaN */
  const uint16_t hsin[6] = {0x3C00, 0x4200, 0xC200, 0x7C00, 0xFC00, 0x7E00};
  const uint16_t hsout[6] = {0x399A, 0x3C00, 0x0000, 0x3C00, 0x0000, 0x7E00};
  /* HardSwish alpha 1/6, beta 0.5: 1, 3, -3 (-3 * +0 = -0), -2, inf, -inf (-inf * 0), NaN */
  const uint16_t hwin[7] = {0x3C00, 0x4200, 0xC200, 0xC000, 0x7C00, 0xFC00, 0x7E00};
  const uint16_t hwout[7] = {0x3955, 0x4200, 0x8000, 0xB555, 0x7C00, 0x7E00, 0x7E00};
  (void)state;
  act_case(MLIP_ACT_SILU, 0, 0, siin, siout, 8);
  act_case(MLIP_ACT_HARDSIGMOID, 0.2f, 0.5f, hsin, hsout, 6);
  act_case(MLIP_ACT_HARDSWISH, 1.0f / 6.0f, 0.5f, hwin, hwout, 7);
}

static void test_activation_relu_family(void** state) {
  /* LeakyRelu alpha 0.1: -1, 2, -0 (stays -0), -65504, -inf, NaN */
  const uint16_t lin[6] = {0xBC00, 0x4000, 0x8000, 0xFBFF, 0xFC00, 0x7E00};
  const uint16_t lout[6] = {0xAE66, 0x4000, 0x8000, 0xEE66, 0xFC00, 0x7E00};
  /* Elu alpha 1: -1, 1, -20 (saturates to -1), -inf, -2^-24, NaN */
  const uint16_t ein[6] = {0xBC00, 0x3C00, 0xCD00, 0xFC00, 0x8001, 0x7E00};
  const uint16_t eout[6] = {0xB90F, 0x3C00, 0xBC00, 0xBC00, 0x8001, 0x7E00};
  /* Clip with lo 2 > hi 1: every number gives hi, as ONNX; NaN stays NaN. Clip [-inf, inf] is the identity. */
  const uint16_t cin[4] = {0xBC00, 0x4200, 0x7C00, 0x7E00};
  const uint16_t cout_[4] = {0x3C00, 0x3C00, 0x3C00, 0x7E00};
  const uint16_t cid[4] = {0xBC00, 0x4200, 0x7C00, 0x7E00};
  (void)state;
  act_case(MLIP_ACT_LEAKYRELU, 0.1f, 0, lin, lout, 6);
  act_case(MLIP_ACT_ELU, 1.0f, 0, ein, eout, 6);
  act_case(MLIP_ACT_CLIP, 2.0f, 1.0f, cin, cout_, 4);
  act_case(MLIP_ACT_CLIP, -INFINITY, INFINITY, cin, cid, 4);
}

/* The cells the cases above leave out, so that every activation sees saturation, tiny
 * (2^-24, the smallest subnormal half) and huge (+-65504) inputs, both infinities and
 * NaN. Hand-computed as above; the tiny products land on or below half the smallest
 * subnormal and round (ties to even) to a signed zero. */
static void elt_case(uint32_t fn, uint32_t count, uint32_t b_len, uint32_t b_base, const uint16_t* a,
                     const uint16_t* bv, const uint16_t* expect);

static void test_activation_edges(void** state) {
  /* Sigmoid: -65504 (0 below -105), -2^-24 (0.5 - 2^-26 rounds to 0.5 in fp32) */
  const uint16_t sin_[2] = {0xFBFF, 0x8001};
  const uint16_t sout[2] = {0x0000, 0x3800};
  /* Tanh: 65504, inf, -10, -65504 (saturate to +-1), -2^-24 (odd: itself), -1, 0.25 */
  const uint16_t tin[7] = {0x7BFF, 0x7C00, 0xC900, 0xFBFF, 0x8001, 0xBC00, 0x3400};
  const uint16_t tout[7] = {0x3C00, 0x3C00, 0xBC00, 0xBC00, 0x8001, 0xBA18 /* -0.761594 */, 0x33D6 /* 0.244919 */};
  /* SiLU: 2^-24 and -2^-24 (2^-25 * sign: a tie, to +-0), 3, -3, -65504 (-65504 * +0 = -0) */
  const uint16_t siin[5] = {0x0001, 0x8001, 0x4200, 0xC200, 0xFBFF};
  const uint16_t siout[5] = {0x0000, 0x8000, 0x41B7 /* 2.857722 */, 0xB08E /* -0.142278 */, 0x8000};
  /* HardSigmoid 0.2, 0.5: 2^-24 (0.5 + 1.2e-8 rounds to 0.5), 65504, -65504, -0 */
  const uint16_t hsin[4] = {0x0001, 0x7BFF, 0xFBFF, 0x8000};
  const uint16_t hsout[4] = {0x3800, 0x3C00, 0x0000, 0x3800};
  /* HardSwish 1/6, 0.5: 2^-24 and -2^-24 (times 0.5: ties to +-0), 65504, -65504 (-65504 * +0), 0.5 */
  const uint16_t hwin[5] = {0x0001, 0x8001, 0x7BFF, 0xFBFF, 0x3800};
  const uint16_t hwout[5] = {0x0000, 0x8000, 0x7BFF, 0x8000, 0x34AB /* 0.5 * 0.583333 = 0.291667 */};
  /* LeakyRelu 0.1: inf, 65504, 2^-24 (unchanged), -2^-24 (-6e-9, below half a subnormal: -0) */
  const uint16_t lin[4] = {0x7C00, 0x7BFF, 0x0001, 0x8001};
  const uint16_t lout[4] = {0x7C00, 0x7BFF, 0x0001, 0x8000};
  /* Elu alpha 2: -1 (2 * -0.632121), -inf (-alpha), inf, 65504, -2^-24 (2 * expm1: -2^-23), -0 (not < 0), NaN */
  const uint16_t ein[7] = {0xBC00, 0xFC00, 0x7C00, 0x7BFF, 0x8001, 0x8000, 0x7E00};
  const uint16_t eout[7] = {0xBD0F, 0xC000, 0x7C00, 0x7BFF, 0x8002, 0x8000, 0x7E00};
  /* Clip [-1, 1]: 2^-24, 65504, -65504, -inf, inf, -0, NaN */
  const uint16_t cin[7] = {0x0001, 0x7BFF, 0xFBFF, 0xFC00, 0x7C00, 0x8000, 0x7E00};
  const uint16_t cout_[7] = {0x0001, 0x3C00, 0xBC00, 0xBC00, 0x3C00, 0x8000, 0x7E00};
  /* PRelu (ELTWISE, slope per element): -inf * 0.25, inf, -2^-24 * 0.25 (-0), -65504 * 2 (overflows to
     -inf), -inf * 0 (NaN), 2^-24 (unchanged) */
  const uint16_t pa[6] = {0xFC00, 0x7C00, 0x8001, 0xFBFF, 0xFC00, 0x0001};
  const uint16_t pb[6] = {0x3400, 0x3400, 0x3400, 0x4000, 0x0000, 0x3400};
  const uint16_t pout[6] = {0xFC00, 0x7C00, 0x8000, 0xFC00, 0x7E00, 0x0001};
  (void)state;
  act_case(MLIP_ACT_SIGMOID, 0, 0, sin_, sout, 2);
  act_case(MLIP_ACT_TANH, 0, 0, tin, tout, 7);
  act_case(MLIP_ACT_SILU, 0, 0, siin, siout, 5);
  act_case(MLIP_ACT_HARDSIGMOID, 0.2f, 0.5f, hsin, hsout, 4);
  act_case(MLIP_ACT_HARDSWISH, 1.0f / 6.0f, 0.5f, hwin, hwout, 5);
  act_case(MLIP_ACT_LEAKYRELU, 0.1f, 0, lin, lout, 4);
  act_case(MLIP_ACT_ELU, 2.0f, 0, ein, eout, 7);
  act_case(MLIP_ACT_CLIP, -1.0f, 1.0f, cin, cout_, 7);
  elt_case(MLIP_ELT_PRELU, 6, 6, 0, pa, pb, pout);
}

/* Fused activations ride on the pools too: a max pool of [-1, 3] with SIGMOID, a global average with SILU. */
static void test_activation_fused_pools(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  fresh(1, MLIP_LAYER_MAXPOOL);
  sethb(0, 0xBC00);
  sethb(2, 0x4200);
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_MAXPOOL, 0, layer0);
  c->u.pool.in = 0;
  c->u.pool.in_h = 1;
  c->u.pool.in_w = 2;
  c->u.pool.c = 1;
  c->u.pool.out = 128;
  c->u.pool.out_h = 1;
  c->u.pool.out_w = 1;
  c->u.pool.kh = 1;
  c->u.pool.kw = 2;
  c->u.pool.stride_h = 1;
  c->u.pool.stride_w = 1;
  c->u.pool.padded_bottom = 1;
  c->u.pool.padded_right = 2;
  c->u.pool.act = MLIP_ACT_SIGMOID;
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_GLOBAL_AVGPOOL, 0, layer0);
  c->u.global_pool.in = 0;
  c->u.global_pool.out = 256;
  c->u.global_pool.hw = 2;
  c->u.global_pool.c = 1;
  c->u.global_pool.act = MLIP_ACT_SILU;
  assert_int_equal(run_ocm_only(), MLIP_OK);
  assert_int_equal(geth(128), 0x3B9F); /* sigmoid(3) = 0.952574 */
  assert_int_equal(geth(256), 0x39D9); /* silu(1) = 0.731059 */
}

/* ---- ELTWISE ---------------------------------------------------------------------- */

static void elt_case(uint32_t fn, uint32_t count, uint32_t b_len, uint32_t b_base, const uint16_t* a,
                     const uint16_t* bv, const uint16_t* expect) {
  mlip_decoded_cmd* c;
  uint32_t i;
  fresh(1, MLIP_LAYER_ELTWISE);
  for (i = 0; i < count; ++i) sethb(2u * i, a[i]);
  for (i = 0; i < b_len; ++i) sethb(128 + 2u * i, bv[i]);
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_ELTWISE, 0, layer0);
  c->u.eltwise.a = 0;
  c->u.eltwise.b = 128;
  c->u.eltwise.out = 256;
  c->u.eltwise.count = count;
  c->u.eltwise.b_len = b_len;
  c->u.eltwise.b_base = b_base;
  c->u.eltwise.func = fn;
  assert_int_equal(run_ocm_only(), MLIP_OK);
  for (i = 0; i < count; ++i) assert_int_equal(geth(256 + 2u * i), expect[i]);
}

static void test_eltwise(void** state) {
  /* a: 6 elements of an NHWC block with 3 channels starting at channel 1; b: one value per channel */
  const uint16_t a[6] = {0x3C00 /* 1 */, 0x4000 /* 2 */, 0xC200 /* -3 */, 0x4400 /* 4 */, 0x7E00 /* NaN */, 0x8000 /* -0 */};
  const uint16_t bv[3] = {0x3800 /* 0.5 */, 0x4000 /* 2 */, 0xBC00 /* -1 */};
  /* b index of element i: (1 + i) % 3 = 1, 2, 0, 1, 2, 0 */
  const uint16_t mul[6] = {0x4000, 0xC000, 0xBE00, 0x4800, 0x7E00, 0x8000};
  const uint16_t sub[6] = {0xBC00, 0x4200, 0xC300, 0x4000, 0x7E00, 0xB800};
  const uint16_t rsub[6] = {0x3C00, 0xC200, 0x4300, 0xC000, 0x7E00, 0x3800};
  const uint16_t add[6] = {0x4200, 0x3C00, 0xC100, 0x4600, 0x7E00, 0x3800};
  const uint16_t mx[6] = {0x4000, 0x4000, 0x3800, 0x4400, 0x7E00, 0x3800};
  const uint16_t mn[6] = {0x3C00, 0xBC00, 0xC200, 0x4000, 0x7E00, 0x8000};
  const uint16_t prelu[6] = {0x3C00, 0x4000, 0xBE00, 0x4400, 0x7E00, 0x8000};
  const uint16_t eq[6] = {0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00};
  const uint16_t sq[6] = {0x3C00, 0x4000, 0xC200, 0x4400, 0x7E00, 0x8000};
  (void)state;
  elt_case(MLIP_ELT_MUL, 6, 3, 1, a, bv, mul);
  elt_case(MLIP_ELT_SUB, 6, 3, 1, a, bv, sub);
  elt_case(MLIP_ELT_RSUB, 6, 3, 1, a, bv, rsub);
  elt_case(MLIP_ELT_ADD, 6, 3, 1, a, bv, add);
  elt_case(MLIP_ELT_MAX, 6, 3, 1, a, bv, mx);
  elt_case(MLIP_ELT_MIN, 6, 3, 1, a, bv, mn);
  elt_case(MLIP_ELT_PRELU, 6, 3, 1, a, bv, prelu);
  /* equal shapes (b_len == count), and a scalar (b_len 1) */
  elt_case(MLIP_ELT_MUL, 6, 6, 0, a, eq, sq);
  elt_case(MLIP_ELT_MUL, 6, 1, 0, a, eq, sq);
}

/* ---- RESIZE ------------------------------------------------------------------------ */

static void set_tap(uint32_t off, uint32_t index, float weight) {
  setfb(off, index);
  setf(off + 4u, weight);
}

static mlip_decoded_cmd* resize_cmd(uint32_t in_h, uint32_t in_w, uint32_t ch, uint32_t out_h, uint32_t out_w, uint32_t rt,
                                    uint32_t ct, uint32_t row_base) {
  mlip_decoded_cmd* c = cb_cmd(&b, CB_MAIN, MLIP_OP_RESIZE, 0, layer0);
  c->u.resize.in = 0;
  c->u.resize.in_h = in_h;
  c->u.resize.in_w = in_w;
  c->u.resize.c = ch;
  c->u.resize.out = 256;
  c->u.resize.out_h = out_h;
  c->u.resize.out_w = out_w;
  c->u.resize.row_table = 512;
  c->u.resize.col_table = 640;
  c->u.resize.row_taps = rt;
  c->u.resize.col_taps = ct;
  c->u.resize.row_base = row_base;
  return c;
}

static void test_resize(void** state) {
  (void)state;
  /* bilinear, one channel: x = [[1, 2], [3, 4]]; one output row from rows
     0 and 1 (0.25, 0.75); column 0 from columns 0 and 1 (0.5, 0.5), column 1
     from 1 and 0 (1, 0). Row lines: 0 + 0.5 * 1 + 0.5 * 2 = 1.5 and 3.5;
     0 + 0.25 * 1.5 + 0.75 * 3.5 = 3. Column 1: 0.25 * 2 + 0.75 * 4 = 3.5. */
  fresh(1, MLIP_LAYER_RESIZE);
  seth(0, 1.0f);
  seth(2, 2.0f);
  seth(4, 3.0f);
  seth(6, 4.0f);
  set_tap(512, 10, 0.25f); /* row base 10: block rows 0 and 1 */
  set_tap(520, 11, 0.75f);
  set_tap(640, 0, 0.5f);
  set_tap(648, 1, 0.5f);
  set_tap(656, 1, 1.0f);
  set_tap(664, 0, 0.0f);
  (void)resize_cmd(2, 2, 1, 1, 2, 2, 2, 10);
  assert_int_equal(run_ocm_only(), MLIP_OK);
  assert_int_equal(geth(256), 0x4200);
  assert_int_equal(geth(258), 0x4300);
  /* one tap along the rows, two along the columns: s is the line itself;
     -0 stays -0 only where no sum touches it: 0 + 1 * -0 = +0 */
  fresh(1, MLIP_LAYER_RESIZE);
  sethb(0, 0x8000);
  sethb(2, 0x8000);
  set_tap(512, 0, 0.0f); /* the weight of a single tap is not read */
  set_tap(640, 0, 1.0f);
  set_tap(648, 1, 0.0f);
  (void)resize_cmd(1, 2, 1, 1, 1, 1, 2, 0);
  assert_int_equal(run_ocm_only(), MLIP_OK);
  assert_int_equal(geth(256), 0x0000);
  /* nearest, two channels: a copy of every bit (a signalling NaN, -0);
     output [2][2] from x[1][1], x[1][0] / x[0][1], x[0][0] */
  fresh(1, MLIP_LAYER_RESIZE);
  sethb(0, 0x3C00);
  sethb(2, 0x8000);
  sethb(4, 0x7D01);
  sethb(6, 0x4000);
  sethb(8, 0xC000);
  sethb(10, 0x4200);
  sethb(12, 0x4400);
  sethb(14, 0x4500);
  set_tap(512, 1, 0.0f);
  set_tap(520, 0, 0.0f);
  set_tap(640, 1, 0.0f);
  set_tap(648, 0, 0.0f);
  (void)resize_cmd(2, 2, 2, 2, 2, 1, 1, 0);
  assert_int_equal(run_ocm_only(), MLIP_OK);
  {
    const uint16_t want[8] = {0x4400, 0x4500, 0xC000, 0x4200, 0x7D01, 0x4000, 0x3C00, 0x8000};
    uint32_t i;
    for (i = 0; i < 8; ++i) assert_int_equal(geth(256 + 2u * i), want[i]);
  }
  /* a table index outside the block (row 2 of 2, a column below the row
     base): MLIP_ERR_INVALID_ARG, nothing written */
  fresh(1, MLIP_LAYER_RESIZE);
  sethb(256, 0x1234);
  set_tap(512, 2, 0.0f);
  set_tap(640, 0, 0.0f);
  (void)resize_cmd(2, 1, 1, 1, 1, 1, 1, 0);
  assert_int_equal(run_ocm_only(), MLIP_ERR_INVALID_ARG);
  assert_int_equal(geth(256), 0x1234);
  fresh(1, MLIP_LAYER_RESIZE);
  set_tap(512, 4, 0.0f);
  set_tap(640, 0, 0.0f);
  (void)resize_cmd(2, 1, 1, 1, 1, 1, 1, 5);
  assert_int_equal(run_ocm_only(), MLIP_ERR_INVALID_ARG);
}

/* NaNs computed by arithmetic have a host-dependent sign; every NaN result
   of a compute command is the positive quiet NaN 0x7E00 on every host. */
static void test_nan_results(void** state) {
  const uint16_t a[4] = {0x7C00 /* inf */, 0xFE00 /* -NaN */, 0x3C00, 0xFC01 /* -sNaN */};
  const uint16_t bb[4] = {0xFC00 /* -inf */, 0x3C00, 0xFE00, 0x3C00};
  mlip_decoded_cmd* c;
  uint32_t i;
  (void)state;
  fresh(1, MLIP_LAYER_ADD);
  for (i = 0; i < 4; ++i) {
    sethb(2u * i, a[i]);
    sethb(128 + 2u * i, bb[i]);
  }
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_ADD, 0, layer0);
  c->u.add.a = 0;
  c->u.add.b = 128;
  c->u.add.out = 256;
  c->u.add.count = 4;
  /* CONV2D: 0 * -inf = NaN; FC: -NaN input */
  sethb(384, 0x0000);
  sethb(512, 0xFC00);
  c = conv(1, 1, 1, 1, 1, 1, 1, 1);
  c->u.conv2d.in = 384;
  c->u.conv2d.weights = 512;
  c->u.conv2d.out = 640;
  sethb(768, 0xFE00);
  sethb(896, 0x3C00);
  c = fc(768, 896, 1024, 1152, 1, 1, 1, 1, 1);
  assert_int_equal(run_ocm_only(), MLIP_OK);
  for (i = 0; i < 4; ++i) assert_int_equal(geth(256 + 2u * i), 0x7E00);
  assert_int_equal(geth(640), 0x7E00);
  assert_int_equal(geth(1152), 0x7E00);
  /* RELU of a NaN is a NaN (docs/runtime.md, "NaN"; it was +0) */
  fresh(1, MLIP_LAYER_ADD);
  sethb(0, 0xFE00);
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_ADD, 0, layer0);
  c->u.add.a = 0;
  c->u.add.b = 0;
  c->u.add.out = 128;
  c->u.add.count = 1;
  c->u.add.act = MLIP_ACT_RELU;
  assert_int_equal(run_ocm_only(), MLIP_OK);
  assert_int_equal(geth(128), 0x7E00);
}

/* ---- the hardware path ---------------------------------------------------------- */

static int drv_loads, drv_submits, drv_waits;
static void* drv_ptrs[8];
static uint32_t drv_sizes[8];
static uint32_t drv_n;
static const uint8_t* drv_buf;
static int drv_ctx_tag;

static mlip_status drv_load(void* ctx, const uint8_t* buf, uint32_t size) {
  assert_ptr_equal(ctx, &drv_ctx_tag);
  assert_int_equal(mlip_cmdbuf_validate(buf, size), MLIP_OK);
  ++drv_loads;
  return MLIP_OK;
}

static mlip_status drv_submit(void* ctx, const uint8_t* buf, uint32_t size, void* const* bindings,
                              const uint32_t* sizes, uint32_t n) {
  uint32_t i;
  (void)size;
  assert_ptr_equal(ctx, &drv_ctx_tag);
  assert_true(n <= 8u);
  drv_buf = buf;
  drv_n = n;
  for (i = 0; i < n; ++i) {
    drv_ptrs[i] = bindings[i];
    drv_sizes[i] = sizes[i];
  }
  ++drv_submits;
  return MLIP_OK;
}

static mlip_status drv_wait(void* ctx, uint64_t* cycles) {
  assert_ptr_equal(ctx, &drv_ctx_tag);
  *cycles = 1234;
  ++drv_waits;
  return MLIP_OK;
}

static void test_hw_driver(void** state) {
  float in0[4], in1[2], out0[3];
  uint8_t scratch[32];
  void* ins[2];
  void* outs[1];
  const uint32_t in_sizes[2] = {sizeof in1, sizeof in0};
  const uint32_t out_sizes[1] = {sizeof out0};
  mlip_region_state st = {0, 0};
  mlip_region r;
  mlip_hw_driver drv;
  mlip_layer_stats stats[2]; /* the layer, then the region */
  size_t n;
  const uint16_t wdata[2] = {1, 2};
  mlip_header h;
  (void)state;
  fresh(1, MLIP_LAYER_CONV2D);
  (void)cb_weights(&b, wdata, sizeof wdata);
  (void)cb_output(&b, sizeof out0);     /* binding 1: OUTPUT 0 */
  (void)cb_input(&b, sizeof in1);       /* binding 2: INPUT 0 (2 floats) */
  (void)cb_scratch(&b, sizeof scratch); /* binding 3 */
  (void)cb_input(&b, sizeof in0);       /* binding 4: INPUT 1 */
  b.hdr.flags = MLIP_FLAG_HW;
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_IN, 0, layer0, 2, 0, 0, 1, 8, 0, 0);
  n = cb_build(&b, cmdbuf, sizeof cmdbuf);
  assert_true(n > 0);
  ins[0] = in1;
  ins[1] = in0;
  outs[0] = out0;
  r.name = "hw";
  r.cmdbuf = cmdbuf;
  r.cmdbuf_size = (uint32_t)n;
  r.ocm = NULL; /* no OCM for hardware */
  r.ocm_capacity = 0;
  r.stats = stats;
  r.stats_capacity = 2;
  r.state = &st;

  mlip_hw_register(NULL);
  assert_int_equal(mlip_region_run(&r, ins, in_sizes, 2, outs, out_sizes, 1, scratch, sizeof scratch), MLIP_ERR_NO_DEVICE);

  drv.ctx = &drv_ctx_tag;
  drv.load = drv_load;
  drv.submit = drv_submit;
  drv.wait = drv_wait;
  mlip_hw_register(&drv);
  memset(&drv, 0, sizeof drv); /* the runtime keeps a copy */
  assert_int_equal(mlip_region_run(&r, ins, in_sizes, 2, outs, out_sizes, 1, scratch, sizeof scratch), MLIP_OK);
  assert_int_equal(mlip_region_run(&r, ins, in_sizes, 2, outs, out_sizes, 1, scratch, sizeof scratch), MLIP_OK);
  assert_int_equal(drv_loads, 1);
  assert_int_equal(drv_submits, 2);
  assert_int_equal(drv_waits, 2);
  /* The device's cycles reach the region's entry; the layer's stays the
     simulator's (a device reports whole jobs). */
  assert_int_equal(stats[1].cycles, 2u * 1234u);
  assert_int_equal(stats[1].runs, 2);
  assert_int_equal(stats[0].cycles, 0u);
  assert_int_equal(stats[0].runs, 0);
  assert_ptr_equal(drv_buf, cmdbuf);
  assert_int_equal(drv_n, 5);
  cb_get_header(cmdbuf, &h);
  assert_ptr_equal(drv_ptrs[0], cmdbuf + h.sections[MLIP_SEC_WEIGHTS].offset);
  assert_int_equal(drv_sizes[0], h.sections[MLIP_SEC_WEIGHTS].size);
  assert_ptr_equal(drv_ptrs[1], out0);
  assert_int_equal(drv_sizes[1], sizeof out0);
  assert_ptr_equal(drv_ptrs[2], in1);
  assert_int_equal(drv_sizes[2], sizeof in1);
  assert_ptr_equal(drv_ptrs[3], scratch);
  assert_int_equal(drv_sizes[3], sizeof scratch);
  assert_ptr_equal(drv_ptrs[4], in0);
  assert_int_equal(drv_sizes[4], sizeof in0);
  /* The caller's checks apply on the hardware path too. */
  assert_int_equal(mlip_region_run(&r, ins, in_sizes, 1, outs, out_sizes, 1, scratch, sizeof scratch), MLIP_ERR_COUNT);
  assert_int_equal(mlip_region_run(&r, ins, in_sizes, 2, outs, out_sizes, 1, scratch, 31), MLIP_ERR_BOUNDS);
  assert_int_equal(drv_submits, 2);
  mlip_hw_register(NULL);
  assert_int_equal(mlip_region_run(&r, ins, in_sizes, 2, outs, out_sizes, 1, scratch, sizeof scratch), MLIP_ERR_NO_DEVICE);
}

/* ---- INIT once, stats, cycles ---------------------------------------------------- */

/* A region of two layers: INIT pins 256 bytes of weights (128 into each
   tile's pinned range), MAIN copies them out. */
static uint32_t pin_lw, pin_lo;
static void pin_region(mlip_region* r, mlip_region_state* st, mlip_layer_stats* stats, uint8_t* wdata,
                       uint32_t wsize) {
  uint32_t bo, woff, i;
  size_t n;
  cb_init(&b, MLIP_MCPU_CN10KA, 2, TILE_OCM);
  pin_lw = cb_layer(&b, MLIP_LAYER_LOAD_WEIGHTS, "pin");
  pin_lo = cb_layer(&b, MLIP_LAYER_CONVERT_OUT, "out");
  b.hdr.flags = MLIP_FLAG_WB_PIN_OCM;
  b.hdr.ocm_pinned_offset = TILE_OCM - 256u;
  for (i = 0; i < wsize; ++i) wdata[i] = (uint8_t)(i * 7u + 1u);
  woff = cb_weights(&b, wdata, wsize);
  bo = cb_output(&b, 256u);
  cb_dma(&b, CB_INIT, MLIP_OP_DMA_IN, 0, pin_lw, b.weights_binding, woff, TILE_OCM - 256u, 1, 128, 0, 0);
  cb_dma(&b, CB_INIT, MLIP_OP_DMA_IN, 1, pin_lw, b.weights_binding, woff + 128u, TILE_OCM - 128u, 1, 128, 0, 0);
  cb_barrier(&b, CB_INIT, 0, pin_lw);
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_OUT, 0, pin_lo, bo, 0, TILE_OCM - 256u, 1, 128, 0, 0);
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_OUT, 1, pin_lo, bo, 128, TILE_OCM - 128u, 1, 128, 0, 0);
  cb_barrier(&b, CB_MAIN, 0, pin_lo);
  n = cb_build(&b, cmdbuf, sizeof cmdbuf);
  assert_true(n > 0);
  r->name = "pin";
  r->cmdbuf = cmdbuf;
  r->cmdbuf_size = (uint32_t)n;
  r->ocm = ocm;
  r->ocm_capacity = sizeof ocm;
  r->stats = stats;
  r->stats_capacity = 2;
  r->state = st;
}

static void test_init_runs_once(void** state) {
  uint8_t wdata[256], out[256];
  void* outs[1];
  const uint32_t out_sizes[1] = {sizeof out};
  mlip_region_state st = {0, 0};
  mlip_region r;
  mlip_layer_stats stats[3]; /* the two layers, then the region */
  uint32_t i;
  size_t n;
  (void)state;
  pin_region(&r, &st, stats, wdata, sizeof wdata);
  r.stats_capacity = 3;
  n = r.cmdbuf_size;
  memset(ocm, 0, sizeof ocm);
  memset(stats, 0, sizeof stats);
  outs[0] = out;
  assert_int_equal(mlip_region_run(&r, NULL, NULL, 0, outs, out_sizes, 1, NULL, 0), MLIP_OK);
  assert_int_equal(st.validated, MLIP_STATE_DONE);
  assert_int_equal(st.loaded, MLIP_STATE_DONE);
  assert_memory_equal(out, wdata, sizeof out);
  /* Clobber the pinned range: a second INIT would restore it, MAIN alone does not. */
  memset(ocm + TILE_OCM - 256u, 0x55, 256);
  memset(ocm + 2u * TILE_OCM - 256u, 0x66, 256);
  assert_int_equal(mlip_region_run(&r, NULL, NULL, 0, outs, out_sizes, 1, NULL, 0), MLIP_OK);
  for (i = 0; i < 128; ++i) assert_int_equal(out[i], 0x55);
  for (i = 128; i < 256; ++i) assert_int_equal(out[i], 0x66);
  assert_int_equal(stats[pin_lw].runs, 1);
  assert_int_equal(stats[pin_lo].runs, 2);
  /* INIT: each tile one 128-byte DMA (4 cycles) + 40; the barrier is free: 44 */
  {
    mlip_layer l;
    uint64_t cyc;
    assert_int_equal(stats[pin_lw].cycles, 44u);
    assert_int_equal(cb_est_layer(&b, pin_lw), 44u);
    assert_int_equal(mlip_sim_layer_cycles(cmdbuf, n, pin_lw, &cyc), MLIP_OK);
    assert_int_equal(cyc, 44u);
    mlip_header h;
    cb_get_header(cmdbuf, &h);
    memcpy(&l, cmdbuf + h.sections[MLIP_SEC_LAYERS].offset + pin_lw * sizeof l, sizeof l);
    assert_int_equal(l.est_cycles, 44u);
    assert_int_equal(stats[pin_lo].cycles, 2u * 44u);
    /* The region's entry: both runs' cycles (INIT once, MAIN twice). */
    assert_int_equal(stats[2].cycles, 44u + 2u * 44u);
    assert_int_equal(stats[2].runs, 2);
  }
}

/* The state never depends on what the memory held (an image whose .bss is
   not zeroed): any word other than 0, MLIP_STATE_NOT_YET and
   MLIP_STATE_DONE, or INIT marked done on an unvalidated buffer, is
   refused before anything runs, and the counters start from zero. Before
   the state had these values, {1, 1} here skipped validation and INIT and
   returned MLIP_OK with the unpinned OCM's bytes as the output. */
static void test_state_never_trusts_memory(void** state) {
  uint8_t wdata[256], out[256];
  void* outs[1];
  const uint32_t out_sizes[1] = {sizeof out};
  const mlip_region_state bad[] = {{1u, 1u}, {0xA5A5A5A5u, 0xA5A5A5A5u}, {MLIP_STATE_DONE, 7u},
                                   {MLIP_STATE_NOT_YET, MLIP_STATE_DONE}, {0u, MLIP_STATE_DONE}};
  const mlip_region_state fresh = MLIP_REGION_STATE_INIT;
  mlip_region_state st;
  mlip_region r;
  mlip_layer_stats stats[2];
  size_t k;
  (void)state;
  pin_region(&r, &st, stats, wdata, sizeof wdata);
  outs[0] = out;
  for (k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    st = bad[k];
    memset(ocm, 0, sizeof ocm);
    memset(out, 0x33, sizeof out);
    assert_int_equal(mlip_region_run(&r, NULL, NULL, 0, outs, out_sizes, 1, NULL, 0), MLIP_ERR_STATE);
    assert_int_equal(out[0], 0x33);
    assert_int_equal(st.validated, bad[k].validated);
  }
  /* The generated code's initializer: validated, INIT run, counters from 0. */
  st = fresh;
  memset(ocm, 0xA5, sizeof ocm);
  memset(stats, 0xA5, sizeof stats);
  assert_int_equal(mlip_region_run(&r, NULL, NULL, 0, outs, out_sizes, 1, NULL, 0), MLIP_OK);
  assert_memory_equal(out, wdata, sizeof out);
  assert_int_equal(st.validated, MLIP_STATE_DONE);
  assert_int_equal(st.loaded, MLIP_STATE_DONE);
  assert_int_equal(stats[pin_lw].runs, 1);
  assert_int_equal(stats[pin_lo].runs, 1);
  assert_int_equal(stats[pin_lw].cycles, 44u);
}

static void test_stats_and_cycles(void** state) {
  /* One layer over two tiles, hand-computed with the cn10ka constants
     (256 MACs, 32 DMA bytes, 64 elements per cycle, 40 per command):
     tile 0: DMA_IN 2 rows x 100 B = 2 x 128 B bursts = 8 cycles; CONV2D
             3x3 -> 9 MACs = 1 cycle; BARRIER (free). max(1, 8) + 2 x 40 = 88.
     tile 1: FC 1 x 300 x 2 = 600 MACs = 3 cycles; ADD of 130 = 3 cycles;
             max(6, 0) + 2 x 40 = 86.
     The layer: 128. A second layer of 3 tiles' work follows. */
  uint8_t in[256];
  void* ins[1];
  const uint32_t in_sizes[1] = {sizeof in};
  mlip_layer_stats stats[3];
  mlip_region_state st = {0, 0};
  mlip_region r;
  mlip_decoded_cmd* c;
  uint32_t l1, l2, l3, bi, i;
  size_t n;
  uint64_t cyc;
  (void)state;
  memset(in, 0, sizeof in);
  cb_init(&b, MLIP_MCPU_CN10KA, 2, TILE_OCM);
  l1 = cb_layer(&b, MLIP_LAYER_CONV2D, "conv");
  l2 = cb_layer(&b, MLIP_LAYER_ADD, "add");
  l3 = cb_layer(&b, MLIP_LAYER_FC, "never");
  bi = cb_input(&b, sizeof in);
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_IN, 0, l1, bi, 0, 0, 2, 100, 100, 128);
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_CONV2D, 0, l1);
  c->u.conv2d.in = 0;
  c->u.conv2d.in_h = 3;
  c->u.conv2d.in_w = 3;
  c->u.conv2d.in_c = 1;
  c->u.conv2d.weights = 256;
  c->u.conv2d.bias = MLIP_NO_OFFSET;
  c->u.conv2d.out = 384;
  c->u.conv2d.out_h = 1;
  c->u.conv2d.out_w = 1;
  c->u.conv2d.out_c = 1;
  c->u.conv2d.kh = 3;
  c->u.conv2d.kw = 3;
  c->u.conv2d.stride_h = 1;
  c->u.conv2d.stride_w = 1;
  c->u.conv2d.dil_h = 1;
  c->u.conv2d.dil_w = 1;
  c->u.conv2d.groups = 1;
  c->u.conv2d.ic_per_group = 1;
  c->u.conv2d.oc_per_group = 1;
  c = fc(0, 640, 2048, 2176, 1, 300, 2, 1, 1);
  c->tile = 1;
  c->layer = (uint16_t)l1;
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_ADD, 1, l1);
  c->u.add.a = 0;
  c->u.add.b = 384;
  c->u.add.out = 2304;
  c->u.add.count = 130;
  cb_barrier(&b, CB_MAIN, 0, l1);
  /* layer 2: tile 0 ADD 1000 elements = 16 cycles + 40 = 56 */
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_ADD, 0, l2);
  c->u.add.a = 0;
  c->u.add.b = 0;
  c->u.add.out = 2048;
  c->u.add.count = 1000;
  n = cb_build(&b, cmdbuf, sizeof cmdbuf);
  assert_true(n > 0);

  assert_int_equal(cb_est_layer(&b, l1), 88u);
  assert_int_equal(mlip_sim_layer_cycles(cmdbuf, n, l1, &cyc), MLIP_OK);
  assert_int_equal(cyc, 88u);
  assert_int_equal(cb_est_layer(&b, l2), 56u);
  assert_int_equal(mlip_sim_layer_cycles(cmdbuf, n, l2, &cyc), MLIP_OK);
  assert_int_equal(cyc, 56u);
  assert_int_equal(mlip_sim_layer_cycles(cmdbuf, n, 3, &cyc), MLIP_ERR_INVALID_ARG);

  memset(stats, 0, sizeof stats);
  ins[0] = in;
  r.name = "stats";
  r.cmdbuf = cmdbuf;
  r.cmdbuf_size = (uint32_t)n;
  r.ocm = ocm;
  r.ocm_capacity = sizeof ocm;
  r.stats = stats;
  r.stats_capacity = 3;
  r.state = &st;
  memset(ocm, 0, sizeof ocm);
  for (i = 0; i < 3; ++i) {
    assert_int_equal(mlip_region_run(&r, ins, in_sizes, 1, NULL, NULL, 0, NULL, 0), MLIP_OK);
  }
  assert_int_equal(stats[l1].runs, 3);
  assert_int_equal(stats[l2].runs, 3);
  assert_int_equal(stats[l3].runs, 0);
  assert_int_equal(stats[l1].cycles, 3u * 88u);
  assert_int_equal(stats[l2].cycles, 3u * 56u);
  assert_int_equal(stats[l3].cycles, 0u);
  /* The fake clock advances 100 per call, two calls per layer and run. */
  assert_int_equal(stats[l1].host_ns, 300u);
  assert_int_equal(stats[l2].host_ns, 300u);
  /* Every layer's stored estimate agrees with the recomputation. */
  for (i = 0; i < 3; ++i) {
    mlip_layer l;
    mlip_header h;
    cb_get_header(cmdbuf, &h);
    memcpy(&l, cmdbuf + h.sections[MLIP_SEC_LAYERS].offset + i * sizeof l, sizeof l);
    assert_int_equal(mlip_sim_layer_cycles(cmdbuf, n, i, &cyc), MLIP_OK);
    assert_int_equal(l.est_cycles, cyc);
    assert_int_equal(stats[i].cycles, 3u * cyc);
  }

  /* The caller's memory is checked on every run. */
  r.stats_capacity = 2;
  assert_int_equal(mlip_region_run(&r, ins, in_sizes, 1, NULL, NULL, 0, NULL, 0), MLIP_ERR_BOUNDS);
  r.stats_capacity = 3;
  r.ocm_capacity = 2u * TILE_OCM - 1u;
  assert_int_equal(mlip_region_run(&r, ins, in_sizes, 1, NULL, NULL, 0, NULL, 0), MLIP_ERR_BOUNDS);
  r.ocm_capacity = sizeof ocm;
  assert_int_equal(mlip_region_run(&r, NULL, in_sizes, 1, NULL, NULL, 0, NULL, 0), MLIP_ERR_NULL);
  ins[0] = NULL;
  assert_int_equal(mlip_region_run(&r, ins, in_sizes, 1, NULL, NULL, 0, NULL, 0), MLIP_ERR_NULL);
  ins[0] = in;
  assert_int_equal(mlip_region_run(&r, ins, in_sizes, 0, NULL, NULL, 0, NULL, 0), MLIP_ERR_COUNT);
  assert_int_equal(mlip_region_run(&r, ins, in_sizes, 1, ins, in_sizes, 1, NULL, 0), MLIP_ERR_COUNT);
  r.ocm = NULL;
  assert_int_equal(mlip_region_run(&r, ins, in_sizes, 1, NULL, NULL, 0, NULL, 0), MLIP_ERR_NULL);
  r.ocm = ocm;
  r.state = NULL;
  assert_int_equal(mlip_region_run(&r, ins, in_sizes, 1, NULL, NULL, 0, NULL, 0), MLIP_ERR_NULL);
  r.state = &st;
  /* Stats are optional. */
  r.stats = NULL;
  assert_int_equal(mlip_region_run(&r, ins, in_sizes, 1, NULL, NULL, 0, NULL, 0), MLIP_OK);
  assert_int_equal(stats[l1].runs, 3);
}

static void test_validation_failure_runs_nothing(void** state) {
  uint8_t out[4] = {9, 9, 9, 9};
  void* outs[1];
  const uint32_t out_sizes[1] = {sizeof out};
  mlip_region_state st = {0, 0};
  mlip_region r;
  size_t n;
  uint32_t bo;
  (void)state;
  fresh(1, MLIP_LAYER_CONVERT_OUT);
  bo = cb_output(&b, sizeof out);
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_OUT, 0, layer0, bo, 0, 0, 1, 4, 0, 0);
  n = cb_build(&b, cmdbuf, sizeof cmdbuf);
  cmdbuf[n - 1] ^= 1u; /* payload CRC */
  outs[0] = out;
  r.name = "bad";
  r.cmdbuf = cmdbuf;
  r.cmdbuf_size = (uint32_t)n;
  r.ocm = ocm;
  r.ocm_capacity = sizeof ocm;
  r.stats = NULL;
  r.stats_capacity = 0;
  r.state = &st;
  assert_int_equal(mlip_region_run(&r, NULL, NULL, 0, outs, out_sizes, 1, NULL, 0), MLIP_ERR_CRC);
  assert_int_equal(st.validated, 0);
  assert_int_equal(st.loaded, 0);
  assert_int_equal(out[0], 9);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dma_strides),
    cmocka_unit_test(test_dma_converts),
    cmocka_unit_test(test_dma_convert_rules),
    cmocka_unit_test(test_convert),
    cmocka_unit_test(test_layout),
    cmocka_unit_test(test_conv_pad_stride_bias_relu),
    cmocka_unit_test(test_conv_dilation_clip),
    cmocka_unit_test(test_conv_padding_skipped),
    cmocka_unit_test(test_conv_groups_depthwise),
    cmocka_unit_test(test_fc_hand),
    cmocka_unit_test(test_fc_two_chunks_equal_one),
    cmocka_unit_test(test_pools),
    cmocka_unit_test(test_pool_edges),
    cmocka_unit_test(test_pool_dilation),
    cmocka_unit_test(test_global_pools),
    cmocka_unit_test(test_add),
    cmocka_unit_test(test_nan_results),
    cmocka_unit_test(test_activation_sigmoid_tanh),
    cmocka_unit_test(test_activation_silu_hard),
    cmocka_unit_test(test_activation_relu_family),
    cmocka_unit_test(test_activation_edges),
    cmocka_unit_test(test_activation_fused_pools),
    cmocka_unit_test(test_eltwise),
    cmocka_unit_test(test_resize),
    cmocka_unit_test(test_hw_driver),
    cmocka_unit_test(test_init_runs_once),
    cmocka_unit_test(test_state_never_trusts_memory),
    cmocka_unit_test(test_stats_and_cycles),
    cmocka_unit_test(test_validation_failure_runs_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
