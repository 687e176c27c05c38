/* runtime.sim_int8: the 8-bit forms of CONV2D, FC, MATMUL, SOFTMAX, NORM (both modes), REDUCE, MAXPOOL, AVGPOOL, the global pools,
   ADD, ELTWISE MUL, TABLE and RESIZE (docs/mlip-spec.md section 4a) on tiny hand-computed data: negative
   ties of both roundings, saturation at both ends of int8 and uint8, the
   bias's int32 saturation, the extreme shift, output clamps; the int8 MAC
   rate of the cycle model; the validator's refusals of bad int8 fields and
   the executor's refusal of a damaged requantization record (output
   untouched); 4-bit weights (w4_block, mlip/kq4_format.h): the packing and
   unpacking by hand (int4 -8..7, odd counts, block exponents 0..4), CONV2D
   and FC reading them, bit-identical to the int8 command on the unpacked
   values, and the refusals (block past the row, int16, the packed size
   past OCM, an exponent above 4 in OCM). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "mlip/cycle_model.h"
#include "mlip/region.h"
#include "sim_internal.h"
#include "sim_tile_fixture.h"

static int32_t get_i8(uint32_t off) {
  return ocm[off] >= 128u ? (int32_t)ocm[off] - 256 : (int32_t)ocm[off];
}
static void set_record(uint32_t off, uint32_t j, int32_t bias, int32_t q, int32_t shift) {
  int32_t r[3];
  r[0] = bias;
  r[1] = q;
  r[2] = shift;
  memcpy(ocm + off + j * MLIP_REQUANT_RECORD_BYTES, r, sizeof r);
}

/* An int8 CONV2D: input at 0, weights at 512, records at 768, output at 1024. */
static mlip_decoded_cmd* conv8(uint32_t dt, uint32_t in_h, uint32_t in_w, uint32_t in_c, uint32_t out_h, uint32_t out_w,
                               uint32_t out_c, uint32_t kh, uint32_t kw) {
  mlip_decoded_cmd* c = cb_cmd(&b, CB_MAIN, MLIP_OP_CONV2D, 0, layer0);
  c->u.conv2d.in = 0;
  c->u.conv2d.in_h = in_h;
  c->u.conv2d.in_w = in_w;
  c->u.conv2d.in_c = in_c;
  c->u.conv2d.weights = 512;
  c->u.conv2d.bias = 768;
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
  c->u.conv2d.clamp_lo = dt == MLIP_DT_INT8 ? -128 : 0;
  c->u.conv2d.clamp_hi = dt == MLIP_DT_INT8 ? 127 : 255;
  c->u.conv2d.dtype = dt;
  return c;
}

/* 3x3x1 input 1..9 with zero point 1 (so 0..8), 3x3 kernel, pad 1, stride
   2: the four windows sum 8, 12, 20 and 24. Channel 0 (weights 1, bias 1,
   M = 0.5): 4.5, 6.5, 10.5, 12.5 round up (ties toward +infinity) to 5, 7,
   11, 13, plus y_zp -3. Channel 1 (weights -1, bias -3, M = 0.25 as q =
   2^30, shift -1): -11, -15, -23, -27 -> high multiply -5.5 -> -5, -7.5 ->
   -7, -11.5 -> -11, -13.5 -> -13 (toward +infinity), then the rounding
   shift -2.5 -> -3, -3.5 -> -4, -5.5 -> -6, -6.5 -> -7 (away from zero). */
static void test_conv_negative_ties(void** state) {
  mlip_decoded_cmd* c;
  uint32_t i;
  const int32_t expect[8] = {2, -6, 4, -7, 8, -9, 10, -10}; /* NHWC: (pos, ch) */
  (void)state;
  fresh(MLIP_LAYER_CONV2D);
  for (i = 0; i < 9; ++i) set8(i, (int32_t)i + 1);
  for (i = 0; i < 9; ++i) set8(512 + i, 1);
  for (i = 0; i < 9; ++i) set8(512 + 9 + i, -1);
  set_record(768, 0, 1, 1 << 30, 0);
  set_record(768, 1, -3, 1 << 30, -1);
  c = conv8(MLIP_DT_INT8, 3, 3, 1, 2, 2, 2, 3, 3);
  c->u.conv2d.stride_h = 2;
  c->u.conv2d.stride_w = 2;
  c->u.conv2d.pad_top = 1;
  c->u.conv2d.pad_left = 1;
  c->u.conv2d.x_zp = 1;
  c->u.conv2d.y_zp = -3;
  assert_int_equal(run(), MLIP_OK);
  for (i = 0; i < 8; ++i) assert_int_equal(get_i8(1024 + i), expect[i]);
}

/* The same convolution with requant MLIP_REQUANT_ORT (onnxruntime's
   arithmetic): records of float32 scales 0.5 and 0.25. Channel 0: 4.5,
   6.5, 10.5, 12.5 round half to even to 4, 6, 10, 12, plus -3. Channel 1
   (bias -2): -10, -14, -22, -26 times 0.25 are the ties -2.5, -3.5, -5.5,
   -6.5 -> -2, -4, -6, -6, plus -3. The fixed-point records are refused
   in an ORT command, and the float ones in a fixed-point command. */
static void test_conv_ort_ties(void** state) {
  mlip_decoded_cmd* c;
  uint32_t i;
  const int32_t expect[8] = {1, -5, 3, -7, 7, -9, 9, -9};
  const float half = 0.5f, quarter = 0.25f;
  int32_t qh, qq;
  (void)state;
  memcpy(&qh, &half, sizeof qh);
  memcpy(&qq, &quarter, sizeof qq);
  fresh(MLIP_LAYER_CONV2D);
  for (i = 0; i < 9; ++i) set8(i, (int32_t)i + 1);
  for (i = 0; i < 9; ++i) set8(512 + i, 1);
  for (i = 0; i < 9; ++i) set8(512 + 9 + i, -1);
  set_record(768, 0, 1, qh, MLIP_REQUANT_F32);
  set_record(768, 1, -2, qq, MLIP_REQUANT_F32);
  c = conv8(MLIP_DT_INT8, 3, 3, 1, 2, 2, 2, 3, 3);
  c->u.conv2d.stride_h = 2;
  c->u.conv2d.stride_w = 2;
  c->u.conv2d.pad_top = 1;
  c->u.conv2d.pad_left = 1;
  c->u.conv2d.x_zp = 1;
  c->u.conv2d.y_zp = -3;
  c->u.conv2d.requant = MLIP_REQUANT_ORT;
  assert_int_equal(run(), MLIP_OK);
  for (i = 0; i < 8; ++i) assert_int_equal(get_i8(1024 + i), expect[i]);
  c->u.conv2d.requant = MLIP_REQUANT_FIXED;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  c->u.conv2d.requant = 2u;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  c->u.conv2d.requant = MLIP_REQUANT_ORT;
  set_record(768, 1, -2, 1 << 30, -1);
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
}

/* 1x1x1 input 5 through a 1x1 conv of four channels. Channels 0 and 1 (M =
   512: q 2^30, shift 10): +-2560 saturate to 127 and -128, or to a clamp
   [-10, 20] (a fused Clip). Channel 2: bias INT32_MAX saturates the sum;
   shift -31 (the extreme): 2^31 - 1 -> 2^30 (tie up) -> 0.5 -> 1 (away
   from zero). Channel 3: multiplier 0 gives the zero point. */
static void test_conv_saturation(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  fresh(MLIP_LAYER_CONV2D);
  set8(0, 5);
  set8(512, 1);
  set8(513, -1);
  set8(514, 1);
  set8(515, 1);
  set_record(768, 0, 0, 1 << 30, 10);
  set_record(768, 1, 0, 1 << 30, 10);
  set_record(768, 2, INT32_MAX, 1 << 30, -31);
  set_record(768, 3, 1000, 0, 0);
  c = conv8(MLIP_DT_INT8, 1, 1, 1, 1, 1, 4, 1, 1);
  c->u.conv2d.y_zp = 2;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(1024), 127);
  assert_int_equal(get_i8(1025), -128);
  assert_int_equal(get_i8(1026), 1 + 2);
  assert_int_equal(get_i8(1027), 2);
  c->u.conv2d.clamp_lo = -10;
  c->u.conv2d.clamp_hi = 20;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(1024), 20);
  assert_int_equal(get_i8(1025), -10);
  assert_int_equal(get_i8(1026), 3);
  assert_int_equal(get_i8(1027), 2);
}

/* uint8 activations (zero point 128) with int8 weights; a depthwise pair
   of groups: channel 0 reads input channel 0, channel 1 input channel 1. */
static void test_conv_uint8_depthwise(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  fresh(MLIP_LAYER_CONV2D);
  ocm[0] = 130; /* 2 */
  ocm[1] = 0;   /* -128 */
  set8(512, 3);
  set8(513, 3);
  set_record(768, 0, 0, 1 << 30, 0);
  set_record(768, 1, 0, 1 << 30, 0);
  c = conv8(MLIP_DT_UINT8, 1, 1, 2, 1, 1, 2, 1, 1);
  c->u.conv2d.groups = 2;
  c->u.conv2d.ic_per_group = 1;
  c->u.conv2d.oc_per_group = 1;
  c->u.conv2d.x_zp = 128;
  c->u.conv2d.y_zp = 128;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(ocm[1024], 131); /* 2 * 3 * 0.5 + 128 */
  assert_int_equal(ocm[1025], 0);   /* -384 * 0.5 + 128 = -64: saturates to 0 */
}

/* An int8 FC: input at 0, weights at 512, records at 768, output at 1024. */
static mlip_decoded_cmd* fc8(uint32_t dt, uint32_t n, uint32_t k, uint32_t out_c) {
  mlip_decoded_cmd* c = cb_cmd(&b, CB_MAIN, MLIP_OP_FC, 0, layer0);
  c->u.fc.in = 0;
  c->u.fc.weights = 512;
  c->u.fc.bias = 768;
  c->u.fc.acc = MLIP_NO_OFFSET;
  c->u.fc.out = 1024;
  c->u.fc.n = n;
  c->u.fc.k = k;
  c->u.fc.out_c = out_c;
  c->u.fc.first = 1;
  c->u.fc.last = 1;
  c->u.fc.clamp_lo = dt == MLIP_DT_INT8 ? -128 : 0;
  c->u.fc.clamp_hi = dt == MLIP_DT_INT8 ? 127 : 255;
  c->u.fc.dtype = dt;
  return c;
}

/* Two rows of three inputs (x_zp 1: rows 2, -2, 3 and -129, 126, -1; the
   second at both ends of int8) times outputs 1, 2, 3 and -1, 0, 127.
   Output 0 (bias 0, M = 0.5): 7 -> 3.5 -> 4 (tie toward +infinity), 120 ->
   60. Output 1 (bias -1, M = 0.25 as q 2^30, shift -1): 378 -> 189 -> 94.5
   -> 95 (away from zero); 1 -> 0.5 -> 1 (high multiply tie up) -> 0.5 -> 1.
   Plus y_zp -2; then a clamp [-128, 80] (a fused Clip) takes 93 to 80. */
static void test_fc(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  fresh(MLIP_LAYER_FC);
  set8(0, 3);
  set8(1, -1);
  set8(2, 4);
  set8(3, -128);
  set8(4, 127);
  set8(5, 0);
  set8(512, 1);
  set8(513, 2);
  set8(514, 3);
  set8(515, -1);
  set8(516, 0);
  set8(517, 127);
  set_record(768, 0, 0, 1 << 30, 0);
  set_record(768, 1, -1, 1 << 30, -1);
  c = fc8(MLIP_DT_INT8, 2, 3, 2);
  c->u.fc.x_zp = 1;
  c->u.fc.y_zp = -2;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(1024), 2);
  assert_int_equal(get_i8(1025), 93);
  assert_int_equal(get_i8(1026), 58);
  assert_int_equal(get_i8(1027), -1);
  c->u.fc.clamp_hi = 80;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(1025), 80);
  /* A damaged record is refused before anything is written. */
  set_record(768, 1, 0, 1 << 29, 0);
  ocm[1024] = 0x5A;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  assert_int_equal(ocm[1024], 0x5A);
}

/* uint8 rows (zero point 128) with int8 weights. */
static void test_fc_uint8(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  fresh(MLIP_LAYER_FC);
  ocm[0] = 255; /* 127 */
  ocm[1] = 0;   /* -128 */
  set8(512, 2);
  set8(513, 1);
  set_record(768, 0, 0, 1 << 30, 0);
  c = fc8(MLIP_DT_UINT8, 1, 2, 1);
  c->u.fc.x_zp = 128;
  c->u.fc.y_zp = 100;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(ocm[1024], 163); /* (254 - 128) * 0.5 + 100 */
}

/* An int8 MATMUL: A at 0, B at 512, records at 768, output at 1024. */
static mlip_decoded_cmd* matmul8(uint32_t dt, uint32_t batch, uint32_t m, uint32_t k, uint32_t n) {
  mlip_decoded_cmd* c = cb_cmd(&b, CB_MAIN, MLIP_OP_MATMUL, 0, layer0);
  c->u.matmul.a = 0;
  c->u.matmul.b = 512;
  c->u.matmul.bias = 768;
  c->u.matmul.out = 1024;
  c->u.matmul.batch = batch;
  c->u.matmul.m = m;
  c->u.matmul.k = k;
  c->u.matmul.n = n;
  c->u.matmul.clamp_lo = dt == MLIP_DT_INT8 ? -128 : 0;
  c->u.matmul.clamp_hi = dt == MLIP_DT_INT8 ? 127 : 255;
  c->u.matmul.dtype = dt;
  return c;
}

/* Two products of two computed operands, both less their zero points
   (a_zp 1, b_zp -1). Product 0: A rows 2, -2, 3 and -129, 126, -1 (A at
   both ends of int8), B columns 2, 3, 4 and 0, 1, 128: sums 10, 382 and
   116, -2. Column 0 (bias 0, M = 0.5): 5, 58. Column 1 (bias -1, M = 0.25
   as q 2^30, shift -1): 381 -> 190.5 -> 191 (high multiply, tie toward
   +infinity) -> 95.5 -> 96 (shift, away from zero); -3 -> -1.5 -> -1 ->
   -0.5 -> -1. Product 1: A rows -1, -1, -1 and 0, 0, 0, B all 1: sums -3,
   -3 and 0, 0: -1.5 -> -1; -4 -> -1; 0; -1 -> -0.5 -> 0 -> 0. Plus y_zp
   -2. The same product 0 with B stored [n][k] (trans_b), and a clamp. */
static void test_matmul(void** state) {
  static const int32_t a0[6] = {3, -1, 4, -128, 127, 0}, b0[6] = {1, -1, 2, 0, 3, 127};
  static const int32_t expect[8] = {3, 94, 56, -3, -3, -3, -2, -2};
  mlip_decoded_cmd* c;
  uint32_t i;
  (void)state;
  fresh(MLIP_LAYER_MATMUL);
  for (i = 0; i < 6; ++i) {
    set8(i, a0[i]);
    set8(6 + i, i < 3 ? 0 : 1);
    set8(512 + i, b0[i]);
    set8(512 + 6 + i, 0);
  }
  set_record(768, 0, 0, 1 << 30, 0);
  set_record(768, 1, -1, 1 << 30, -1);
  c = matmul8(MLIP_DT_INT8, 2, 2, 3, 2);
  c->u.matmul.a_zp = 1;
  c->u.matmul.b_zp = -1;
  c->u.matmul.y_zp = -2;
  assert_int_equal(run(), MLIP_OK);
  for (i = 0; i < 8; ++i) assert_int_equal(get_i8(1024 + i), expect[i]);
  /* B transposed: [n][k] */
  for (i = 0; i < 6; ++i) set8(512 + (i % 2) * 3 + i / 2, b0[i]);
  c->u.matmul.batch = 1;
  c->u.matmul.trans_b = 1;
  c->u.matmul.clamp_hi = 90;
  memset(ocm + 1024, 0, 8);
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(1024), 3);
  assert_int_equal(get_i8(1025), 90);
  assert_int_equal(get_i8(1026), 56);
  assert_int_equal(get_i8(1027), -3);
  /* A damaged record is refused before anything is written. */
  set_record(768, 1, 0, 1 << 29, 0);
  ocm[1024] = 0x5A;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  assert_int_equal(ocm[1024], 0x5A);
}

/* uint8 operands: the row [255, 0] less a_zp 128 times the column [2, 1]
   less b_zp 0: 127 * 2 - 128 = 126, M = 0.5: 63, plus y_zp 100. */
static void test_matmul_uint8(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  fresh(MLIP_LAYER_MATMUL);
  ocm[0] = 255;
  ocm[1] = 0;
  ocm[512] = 2;
  ocm[513] = 1;
  set_record(768, 0, 0, 1 << 30, 0);
  c = matmul8(MLIP_DT_UINT8, 1, 1, 2, 1);
  c->u.matmul.a_zp = 128;
  c->u.matmul.y_zp = 100;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(ocm[1024], 163);
}

/* The status of a good int8 MATMUL with one field changed. */
#define MATMUL_WITH(field, value) \
  (fresh(MLIP_LAYER_MATMUL), matmul8(MLIP_DT_INT8, 1, 2, 3, 2)->u.matmul.field = (value), validate())

/* The validator on one bad field at a time of a good int8 MATMUL, and the
   bound of 33025 products per output. */
static void test_validate_matmul(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  assert_int_equal(MATMUL_WITH(a_zp, -128), MLIP_OK);
  assert_int_equal(MATMUL_WITH(a_zp, 128), MLIP_ERR_INVALID_ARG);
  assert_int_equal(MATMUL_WITH(b_zp, -129), MLIP_ERR_INVALID_ARG);
  assert_int_equal(MATMUL_WITH(y_zp, 128), MLIP_ERR_INVALID_ARG);
  assert_int_equal(MATMUL_WITH(clamp_lo, 128), MLIP_ERR_INVALID_ARG);
  assert_int_equal(MATMUL_WITH(bias, MLIP_NO_OFFSET), MLIP_ERR_INVALID_ARG);
  assert_int_equal(MATMUL_WITH(act, MLIP_ACT_RELU), MLIP_ERR_INVALID_ARG);
  assert_int_equal(MATMUL_WITH(out, 0), MLIP_ERR_INVALID_ARG); /* output over A */
  assert_int_equal(MATMUL_WITH(requant, 7), MLIP_ERR_INVALID_ARG);
  assert_int_equal(MATMUL_WITH(dtype, MLIP_DT_FP16), MLIP_ERR_INVALID_ARG);
  fresh(MLIP_LAYER_MATMUL);
  c = matmul8(MLIP_DT_INT8, 1, 2, 3, 2);
  c->u.matmul.clamp_lo = 10;
  c->u.matmul.clamp_hi = 5; /* an empty clamp */
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  fresh(MLIP_LAYER_MATMUL);
  b.hdr.ocm_size = 1024u * 1024u;
  b.hdr.ocm_pinned_offset = b.hdr.ocm_size;
  c = matmul8(MLIP_DT_INT8, 1, 1, 33025, 1);
  c->u.matmul.b = 33792;
  c->u.matmul.bias = 67584;
  c->u.matmul.out = 67712;
  assert_int_equal(validate(), MLIP_OK);
  c->u.matmul.k = 33026;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
}

/* An int8 SOFTMAX of `rows` rows of `len` at 0, in place. */
static mlip_decoded_cmd* softmax8(uint32_t dt, uint32_t rows, uint32_t len) {
  mlip_decoded_cmd* c = cb_cmd(&b, CB_MAIN, MLIP_OP_SOFTMAX, 0, layer0);
  c->u.softmax.in = 0;
  c->u.softmax.out = 0;
  c->u.softmax.rows = rows;
  c->u.softmax.len = len;
  c->u.softmax.x_scale = 1.0f;
  c->u.softmax.y_scale = 1.0f / 256.0f;
  c->u.softmax.y_zp = dt == MLIP_DT_INT8 ? -128 : 0;
  c->u.softmax.dtype = dt;
  return c;
}

/* Row 0: four equal values (any zero point): each exp(0) = 1, sum 4, 0.25
   / (1/256) = 64, plus -128: -64. Row 1: 127 and three -128 at scale 1:
   exp(0) = 1 and exp(-255) = 0 in fp32 (underflow), so 1 -> 256 - 128 =
   128, saturated to 127, and 0 -> -128. Row 2: one element: 1 -> 127.
   Row 3: 3 and 1 less x_zp 1 at scale 0.5: 1 and 0, exp(0) = 1 and exp(-1),
   0.7310586 and 0.2689414 of 256: 187.15 -> 187, 68.85 -> 69, less 128.
   uint8 (y_zp 0): row 0 gives 64, row 1 saturates at 255. Validation: an
   8-bit LogSoftmax and a scale that is not positive are refused. */
static void test_softmax(void** state) {
  static const int32_t row0[4] = {-5, -5, -5, -5}, row1[4] = {127, -128, -128, -128};
  mlip_decoded_cmd* c;
  uint32_t i;
  (void)state;
  fresh(MLIP_LAYER_SOFTMAX);
  for (i = 0; i < 4; ++i) {
    set8(i, row0[i]);
    set8(4 + i, row1[i]);
  }
  c = softmax8(MLIP_DT_INT8, 2, 4);
  c->u.softmax.x_zp = 7;
  assert_int_equal(run(), MLIP_OK);
  for (i = 0; i < 4; ++i) assert_int_equal(get_i8(i), -64);
  assert_int_equal(get_i8(4), 127);
  for (i = 1; i < 4; ++i) assert_int_equal(get_i8(4 + i), -128);
  fresh(MLIP_LAYER_SOFTMAX);
  set8(0, 42);
  softmax8(MLIP_DT_INT8, 1, 1);
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(0), 127);
  fresh(MLIP_LAYER_SOFTMAX);
  set8(0, 3);
  set8(1, 1);
  c = softmax8(MLIP_DT_INT8, 1, 2);
  c->u.softmax.x_scale = 0.5f;
  c->u.softmax.x_zp = 1;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(0), 187 - 128);
  assert_int_equal(get_i8(1), 69 - 128);
  fresh(MLIP_LAYER_SOFTMAX);
  for (i = 0; i < 4; ++i) {
    ocm[i] = 200;
    ocm[4 + i] = i == 0 ? 255 : 0;
  }
  c = softmax8(MLIP_DT_UINT8, 2, 4);
  c->u.softmax.x_zp = 128;
  assert_int_equal(run(), MLIP_OK);
  for (i = 0; i < 4; ++i) assert_int_equal(ocm[i], 64);
  assert_int_equal(ocm[4], 255);
  assert_int_equal(ocm[5], 0);
  fresh(MLIP_LAYER_SOFTMAX);
  softmax8(MLIP_DT_INT8, 1, 4)->u.softmax.log = 1;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  fresh(MLIP_LAYER_SOFTMAX);
  softmax8(MLIP_DT_INT8, 1, 4)->u.softmax.y_scale = 0.0f;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  fresh(MLIP_LAYER_SOFTMAX);
  softmax8(MLIP_DT_INT8, 1, 4)->u.softmax.x_zp = 128;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  fresh(MLIP_LAYER_SOFTMAX);
  softmax8(MLIP_DT_INT8, 1, 4);
  assert_int_equal(validate(), MLIP_OK);
}

/* An int8 NORM of `rows` rows of `len` (at most 32) at 0, in place,
   epsilon 0, the scale (ones) at 256 and the shift (zeros) at 512: the
   8-bit form requires both (PIN_OPT). */
static void set_f32s(uint32_t off, const float* v, uint32_t n) { memcpy(ocm + off, v, n * sizeof *v); }

static mlip_decoded_cmd* norm8(uint32_t dt, uint32_t rows, uint32_t len) {
  static const float one = 1.0f, zero = 0.0f;
  mlip_decoded_cmd* c = cb_cmd(&b, CB_MAIN, MLIP_OP_NORM, 0, layer0);
  uint32_t i;
  for (i = 0; i < len; ++i) {
    set_f32s(256 + i * 4u, &one, 1);
    set_f32s(512 + i * 4u, &zero, 1);
  }
  c->u.norm.in = 0;
  c->u.norm.out = 0;
  c->u.norm.gamma = 256;
  c->u.norm.beta = 512;
  c->u.norm.rows = rows;
  c->u.norm.len = len;
  c->u.norm.x_scale = 1.0f;
  c->u.norm.y_scale = 1.0f;
  c->u.norm.dtype = dt;
  return c;
}

/* A constant row (10 less x_zp 2, at 0.5: every x 4): mean 4, variance 0,
   epsilon 1e-5 keeps inv finite (1 / sqrt(1e-5)), every d 0, so y is the
   shift alone: beta {1, -1, 0.5, 100} at y_scale 0.25, y_zp 3 gives 4 + 3,
   -4 + 3, 2 + 3 and 400 + 3 saturated to 127. The same row with epsilon 0:
   inv = 1 / 0 = inf, 0 * inf = NaN, which QuantizeLinear's kernel maps to
   the zero point: 3. A row {3, 1} less x_zp 1: {2, 0}, mean 1, d {1, -1},
   variance 1, inv 1 (epsilon 0); gamma {0.25, 0.75}: {0.25, -0.75}; at
   y_scale 0.5: 0.5 and -1.5, ties to even: 0 and -2. uint8 {200, 56} less
   128: {72, -72}, variance 5184, inv 1/72, y about +-1 at y_scale 1/64:
   +-64 plus y_zp 128: 192 and 64. Two rows in one command are normalized
   apart. Validation: a scale that is not positive, a zero point out of the
   type, an 8-bit command without its shift. */
static void test_norm(void** state) {
  static const float beta[4] = {1.0f, -1.0f, 0.5f, 100.0f}, gamma[2] = {0.25f, 0.75f};
  mlip_decoded_cmd* c;
  uint32_t i;
  (void)state;
  fresh(MLIP_LAYER_LAYERNORM);
  for (i = 0; i < 4; ++i) set8(i, 10);
  c = norm8(MLIP_DT_INT8, 1, 4);
  set_f32s(512, beta, 4);
  c->u.norm.x_zp = 2;
  c->u.norm.x_scale = 0.5f;
  c->u.norm.eps = 1e-5f;
  c->u.norm.y_scale = 0.25f;
  c->u.norm.y_zp = 3;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(0), 7);
  assert_int_equal(get_i8(1), -1);
  assert_int_equal(get_i8(2), 5);
  assert_int_equal(get_i8(3), 127);
  fresh(MLIP_LAYER_LAYERNORM);
  for (i = 0; i < 4; ++i) set8(i, 10);
  c = norm8(MLIP_DT_INT8, 1, 4);
  c->u.norm.y_zp = 3;
  assert_int_equal(run(), MLIP_OK);
  for (i = 0; i < 4; ++i) assert_int_equal(get_i8(i), 3);
  fresh(MLIP_LAYER_LAYERNORM);
  set8(0, 3);
  set8(1, 1);
  set8(2, 10);
  set8(3, 10);
  c = norm8(MLIP_DT_INT8, 2, 2);
  set_f32s(256, gamma, 2);
  c->u.norm.x_zp = 1;
  c->u.norm.y_scale = 0.5f;
  c->u.norm.y_zp = -7;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(0), 0 - 7);
  assert_int_equal(get_i8(1), -2 - 7);
  assert_int_equal(get_i8(2), -7); /* the second row is constant: NaN */
  assert_int_equal(get_i8(3), -7);
  fresh(MLIP_LAYER_LAYERNORM);
  ocm[0] = 200;
  ocm[1] = 56;
  c = norm8(MLIP_DT_UINT8, 1, 2);
  c->u.norm.x_zp = 128;
  c->u.norm.y_scale = 1.0f / 64.0f;
  c->u.norm.y_zp = 128;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(ocm[0], 192);
  assert_int_equal(ocm[1], 64);
  fresh(MLIP_LAYER_LAYERNORM);
  norm8(MLIP_DT_INT8, 1, 4)->u.norm.x_scale = 0.0f;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  fresh(MLIP_LAYER_LAYERNORM);
  norm8(MLIP_DT_INT8, 1, 4)->u.norm.y_scale = -0.5f;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  fresh(MLIP_LAYER_LAYERNORM);
  norm8(MLIP_DT_INT8, 1, 4)->u.norm.y_zp = 128;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  fresh(MLIP_LAYER_LAYERNORM);
  norm8(MLIP_DT_INT8, 1, 4)->u.norm.beta = MLIP_NO_OFFSET;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  fresh(MLIP_LAYER_LAYERNORM);
  norm8(MLIP_DT_INT8, 1, 4);
  assert_int_equal(validate(), MLIP_OK);
}

/* NORM's mode 1 (the opset-13 decomposition with a quantized variance):
   int8 {3, 1, 3, 1} less x_zp 1: {2, 0, 2, 0}, mean 1, d {1, -1, 1, -1},
   Pow 2 gives 1 each, variance 1; at v_scale 0.5, v_zp 0 it quantizes to
   2, whose divisor is table entry 2 + 128 (2.0; every other entry 100):
   d / 2 = +-0.5, at y_scale 0.25 +-2. A constant row {5, 5, 5, 5}:
   variance 0, quantized to v_zp 3, divisor entry 131 (0.5): 0 / 0.5 = 0,
   the zero point. Validation: mode 1 with a shift, without its divisors,
   or with a variance scale that is not positive. */
static mlip_decoded_cmd* norm8_decomposed(uint32_t len, float v_scale, int32_t v_zp) {
  mlip_decoded_cmd* c = norm8(MLIP_DT_INT8, 1, len);
  uint32_t i;
  for (i = 0; i < 256; ++i) {
    const float den = i == 130 ? 2.0f : (i == 131 ? 0.5f : 100.0f);
    set_f32s(2048 + i * 4u, &den, 1);
  }
  c->u.norm.gamma = 2048;
  c->u.norm.beta = MLIP_NO_OFFSET;
  c->u.norm.mode = 1;
  c->u.norm.v_scale = v_scale;
  c->u.norm.v_zp = v_zp;
  return c;
}

static void test_norm_decomposed(void** state) {
  mlip_decoded_cmd* c;
  uint32_t i;
  (void)state;
  fresh(MLIP_LAYER_LAYERNORM);
  set8(0, 3);
  set8(1, 1);
  set8(2, 3);
  set8(3, 1);
  c = norm8_decomposed(4, 0.5f, 0);
  c->u.norm.x_zp = 1;
  c->u.norm.y_scale = 0.25f;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(0), 2);
  assert_int_equal(get_i8(1), -2);
  assert_int_equal(get_i8(2), 2);
  assert_int_equal(get_i8(3), -2);
  fresh(MLIP_LAYER_LAYERNORM);
  for (i = 0; i < 4; ++i) set8(i, 5);
  c = norm8_decomposed(4, 0.5f, 3);
  c->u.norm.y_zp = -9;
  assert_int_equal(run(), MLIP_OK);
  for (i = 0; i < 4; ++i) assert_int_equal(get_i8(i), -9);
  fresh(MLIP_LAYER_LAYERNORM);
  norm8_decomposed(4, 0.5f, 0)->u.norm.beta = 512;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  fresh(MLIP_LAYER_LAYERNORM);
  norm8_decomposed(4, 0.5f, 0)->u.norm.gamma = MLIP_NO_OFFSET;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  fresh(MLIP_LAYER_LAYERNORM);
  norm8_decomposed(4, 0.0f, 0);
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  fresh(MLIP_LAYER_LAYERNORM);
  norm8_decomposed(4, 0.5f, 0);
  assert_int_equal(validate(), MLIP_OK);
}

/* REDUCE's 8-bit form: [1][3][2] int8 {10, -4, 20, 6, 30, 1} at x_scale
   0.5: columns {5, 10, 15} and {-2, 3, 0.5}; their means 10 and 0.5, at
   y_scale 0.25, y_zp -3: 37 and -1; their sums 30 and 1.5: 117 and 3.
   Validation: a scale that is not positive. */
static mlip_decoded_cmd* reduce8(uint32_t mean) {
  mlip_decoded_cmd* c = cb_cmd(&b, CB_MAIN, MLIP_OP_REDUCE, 0, layer0);
  c->u.reduce.in = 0;
  c->u.reduce.out = 256;
  c->u.reduce.outer = 1;
  c->u.reduce.len = 3;
  c->u.reduce.inner = 2;
  c->u.reduce.mean = mean;
  c->u.reduce.x_scale = 0.5f;
  c->u.reduce.y_scale = 0.25f;
  c->u.reduce.y_zp = -3;
  c->u.reduce.dtype = MLIP_DT_INT8;
  return c;
}

static void test_reduce(void** state) {
  static const int32_t x[6] = {10, -4, 20, 6, 30, 1};
  uint32_t i, mean;
  (void)state;
  for (mean = 0; mean < 2; ++mean) {
    fresh(MLIP_LAYER_REDUCE);
    for (i = 0; i < 6; ++i) set8(i, x[i]);
    reduce8(mean);
    assert_int_equal(run(), MLIP_OK);
    assert_int_equal(get_i8(256), mean ? 37 : 117);
    assert_int_equal(get_i8(257), mean ? -1 : 3);
  }
  fresh(MLIP_LAYER_REDUCE);
  reduce8(1)->u.reduce.x_scale = -1.0f;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
}

/* A damaged record (multiplier below 2^30, or shift 31) is refused when the
   command runs, before anything is written. */
static void test_conv_bad_record(void** state) {
  (void)state;
  fresh(MLIP_LAYER_CONV2D);
  set8(0, 5);
  set8(512, 1);
  set_record(768, 0, 0, (1 << 30) - 1, 0);
  conv8(MLIP_DT_INT8, 1, 1, 1, 1, 1, 1, 1, 1);
  ocm[1024] = 0x5A;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  assert_int_equal(ocm[1024], 0x5A);
  set_record(768, 0, 0, 1 << 30, 31);
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  assert_int_equal(ocm[1024], 0x5A);
  set_record(768, 0, 0, 1 << 30, -32);
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  set_record(768, 0, 0, 1 << 30, 0);
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(1024), 3); /* 2.5 -> 3 */
}

/* MAXPOOL 1x2 windows over [-5, 7, -128] with a padded column on each
   side: padding is skipped (never a 0), so -5 and -128 survive. */
static void test_maxpool(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  fresh(MLIP_LAYER_MAXPOOL);
  set8(0, -5);
  set8(1, 7);
  set8(2, -128);
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_MAXPOOL, 0, layer0);
  c->u.pool.in = 0;
  c->u.pool.in_h = 1;
  c->u.pool.in_w = 3;
  c->u.pool.c = 1;
  c->u.pool.out = 128;
  c->u.pool.out_h = 1;
  c->u.pool.out_w = 4;
  c->u.pool.kh = 1;
  c->u.pool.kw = 2;
  c->u.pool.stride_h = 1;
  c->u.pool.stride_w = 1;
  c->u.pool.pad_left = 1;
  c->u.pool.dtype = MLIP_DT_INT8;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(128), -5);
  assert_int_equal(get_i8(129), 7);
  assert_int_equal(get_i8(130), 7);
  assert_int_equal(get_i8(131), -128);
}

/* GLOBAL_AVGPOOL of [1, 2, 3, 4] and [-1, -2, -3, -4] (hw 4, two channels,
   M = 1/4: q 2^30, shift -1): 10 -> 5 -> 2.5 -> 3 and -10 -> -5 -> -2.5 ->
   -3 (the mean's tie away from zero); GLOBAL_MAXPOOL of the same. */
static void test_global_pools(void** state) {
  mlip_decoded_cmd* c;
  uint32_t p;
  (void)state;
  fresh(MLIP_LAYER_GLOBAL_AVGPOOL);
  for (p = 0; p < 4; ++p) {
    set8(2 * p, (int32_t)p + 1);
    set8(2 * p + 1, -(int32_t)p - 1);
  }
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_GLOBAL_AVGPOOL, 0, layer0);
  c->u.global_pool.in = 0;
  c->u.global_pool.out = 128;
  c->u.global_pool.hw = 4;
  c->u.global_pool.c = 2;
  c->u.global_pool.q = 1 << 30;
  c->u.global_pool.shift = -1;
  c->u.global_pool.lo = -128;
  c->u.global_pool.hi = 127;
  c->u.global_pool.dtype = MLIP_DT_INT8;
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_GLOBAL_MAXPOOL, 0, layer0);
  c->u.global_pool.in = 0;
  c->u.global_pool.out = 256;
  c->u.global_pool.hw = 4;
  c->u.global_pool.c = 2;
  c->u.global_pool.dtype = MLIP_DT_INT8;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(128), 3);
  assert_int_equal(get_i8(129), -3);
  assert_int_equal(get_i8(256), 4);
  assert_int_equal(get_i8(257), -1);
}

/* ADD with operand multipliers 1/4 (mlip_qadd_sum: (a + b) * 2^18) and an
   output multiplier 2^-18 (q 2^30, shift -17): a + b exactly, plus y_zp 1,
   saturated at both ends. */
static void test_add(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  fresh(MLIP_LAYER_ADD);
  set8(0, 100);
  set8(1, -100);
  set8(2, 3);
  set8(128, 100);
  set8(129, -100);
  set8(130, -5);
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_ADD, 0, layer0);
  c->u.add.a = 0;
  c->u.add.b = 128;
  c->u.add.out = 256;
  c->u.add.count = 3;
  c->u.add.y_zp = 1;
  c->u.add.qa = 1 << 30;
  c->u.add.sa = -1;
  c->u.add.qb = 1 << 30;
  c->u.add.sb = -1;
  c->u.add.qy = 1 << 30;
  c->u.add.sy = -17;
  c->u.add.lo = -128;
  c->u.add.hi = 127;
  c->u.add.dtype = MLIP_DT_INT8;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(256), 127);
  assert_int_equal(get_i8(257), -128);
  assert_int_equal(get_i8(258), -1);
}

/* An int8 AVGPOOL: a row of three (x_zp -1: -4, -7, 4) through a 1x2 window,
   stride 1, pad left 1, four outputs (the last window past the input and
   its padded bounds, as ceil_mode makes it). Table (at 256): count 1 M = 1
   (q 2^30, shift 1), count 2 M = 0.5, count 0 unused (0, 0); y_zp 2.
   count_include_pad 0: -4 -> -2; -11 * 0.5 = -5.5 -> -5 (tie toward
   +infinity) -> -3; -1.5 -> -1 -> 1; 4 -> 6. count_include_pad 1: the
   first window counts its padding (2): -2 -> 0; the last window's second
   tap lies past the padded bounds, so its count stays 1. */
static mlip_decoded_cmd* avgpool8(void) {
  mlip_decoded_cmd* c = cb_cmd(&b, CB_MAIN, MLIP_OP_AVGPOOL, 0, layer0);
  int32_t table[6] = {0, 0, 1 << 30, 1, 1 << 30, 0};
  memcpy(ocm + 256, table, sizeof table);
  c->u.pool.in = 0;
  c->u.pool.in_h = 1;
  c->u.pool.in_w = 3;
  c->u.pool.c = 1;
  c->u.pool.out = 128;
  c->u.pool.out_h = 1;
  c->u.pool.out_w = 4;
  c->u.pool.kh = 1;
  c->u.pool.kw = 2;
  c->u.pool.stride_h = 1;
  c->u.pool.stride_w = 1;
  c->u.pool.pad_left = 1;
  c->u.pool.padded_top = 0;
  c->u.pool.padded_bottom = 1;
  c->u.pool.padded_left = -1;
  c->u.pool.padded_right = 3;
  c->u.pool.x_zp = -1;
  c->u.pool.y_zp = 2;
  c->u.pool.table = 256;
  c->u.pool.lo = -128;
  c->u.pool.hi = 127;
  c->u.pool.dtype = MLIP_DT_INT8;
  return c;
}

static void test_avgpool(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  fresh(MLIP_LAYER_AVGPOOL);
  set8(0, -5);
  set8(1, -8);
  set8(2, 3);
  c = avgpool8();
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(128), -2);
  assert_int_equal(get_i8(129), -3);
  assert_int_equal(get_i8(130), 1);
  assert_int_equal(get_i8(131), 6);
  c->u.pool.count_include_pad = 1;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(128), 0);
  assert_int_equal(get_i8(129), -3);
  assert_int_equal(get_i8(131), 6);
  c->u.pool.lo = -1; /* a clamp */
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(129), -1);
  /* A damaged table entry is refused before anything is written. */
  ocm[256 + 8] = 1; /* count 1's multiplier becomes 1: neither 0 nor in [2^30, 2^31) */
  memset(ocm + 256 + 9, 0, 3);
  ocm[128] = 0x5A;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  assert_int_equal(ocm[128], 0x5A);
}

/* The status of the good int8 AVGPOOL below with one field changed. */
#define AVGPOOL_WITH(field, value) (fresh(MLIP_LAYER_AVGPOOL), avgpool8()->u.pool.field = (value), validate())

/* The validator on one bad field at a time of a good int8 AVGPOOL. */
static void test_validate_avgpool(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  assert_int_equal(AVGPOOL_WITH(x_zp, 5), MLIP_OK);
  assert_int_equal(AVGPOOL_WITH(x_zp, 128), MLIP_ERR_INVALID_ARG);
  assert_int_equal(AVGPOOL_WITH(y_zp, -129), MLIP_ERR_INVALID_ARG);
  assert_int_equal(AVGPOOL_WITH(hi, -129), MLIP_ERR_INVALID_ARG);
  assert_int_equal(AVGPOOL_WITH(act, MLIP_ACT_RELU), MLIP_ERR_INVALID_ARG);
  assert_int_equal(AVGPOOL_WITH(count_include_pad, 2), MLIP_ERR_INVALID_ARG);
  assert_int_equal(AVGPOOL_WITH(table, 200), MLIP_ERR_INVALID_ARG);   /* unaligned */
  assert_int_equal(AVGPOOL_WITH(table, 4096), MLIP_ERR_BOUNDS);      /* past OCM */
  assert_int_equal(AVGPOOL_WITH(table, 128), MLIP_ERR_INVALID_ARG);  /* under the output */
  assert_int_equal(AVGPOOL_WITH(kw, 0x10000u), MLIP_ERR_BOUNDS); /* 65536 taps: the table past OCM */
  assert_int_equal(AVGPOOL_WITH(dtype, MLIP_DT_FP16), MLIP_ERR_INVALID_ARG);
  assert_int_equal(AVGPOOL_WITH(dtype, 3), MLIP_ERR_INVALID_ARG);
  fresh(MLIP_LAYER_AVGPOOL);
  c = avgpool8();
  c->u.pool.kh = 3000u;
  c->u.pool.kw = 3000u;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG); /* 9000000 taps: above 8421504, a sum could overflow */
}

/* An int8 ELTWISE MUL (QLinearMul): a = -5, 6, 0, 127 (a_zp 1: -6, 5, -1,
   126) times b cycled per channel from b_base 1 over b = {-127, 1} (b_zp
   -2: 3, -125, 3, -125 for elements 0..3), M = 0.5 (q 2^30, shift 0),
   y_zp 3. Products -18, -625, -3, -15750 -> -9, -312.5 -> -312 (tie toward
   +infinity), -1.5 -> -1, -7875 -> plus 3 and saturated: -6, -128, 2,
   -128. A clamp [-5, 127] then takes -6 to -5. */
static void test_eltwise_mul(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  fresh(MLIP_LAYER_ELTWISE);
  set8(0, -5);
  set8(1, 6);
  set8(2, 0);
  set8(3, 127);
  set8(128, -127);
  set8(129, 1);
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_ELTWISE, 0, layer0);
  c->u.eltwise.a = 0;
  c->u.eltwise.b = 128;
  c->u.eltwise.out = 256;
  c->u.eltwise.count = 4;
  c->u.eltwise.b_len = 2;
  c->u.eltwise.b_base = 1;
  c->u.eltwise.func = MLIP_ELT_MUL;
  c->u.eltwise.a_zp = 1;
  c->u.eltwise.b_zp = -2;
  c->u.eltwise.y_zp = 3;
  c->u.eltwise.q = 1 << 30;
  c->u.eltwise.shift = 0;
  c->u.eltwise.lo = -128;
  c->u.eltwise.hi = 127;
  c->u.eltwise.dtype = MLIP_DT_INT8;
  assert_int_equal(validate(), MLIP_OK);
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(256), -6);
  assert_int_equal(get_i8(257), -128);
  assert_int_equal(get_i8(258), 2);
  assert_int_equal(get_i8(259), -128);
  c->u.eltwise.lo = -5;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(256), -5);
  /* The validator: one bad field at a time. */
  c->u.eltwise.func = MLIP_ELT_ADD; /* only MUL has an 8-bit form */
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.eltwise.func = MLIP_ELT_MUL;
  c->u.eltwise.act = MLIP_ACT_RELU;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.eltwise.act = MLIP_ACT_NONE;
  c->u.eltwise.b_zp = 200;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.eltwise.b_zp = 0;
  c->u.eltwise.shift = 31;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.eltwise.shift = 0;
  c->u.eltwise.q = 7;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.eltwise.q = 1 << 30;
  c->u.eltwise.hi = -6; /* below lo */
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.eltwise.hi = 127;
  c->u.eltwise.out = 0; /* over a */
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.eltwise.out = 256;
  c->u.eltwise.b_len = 0xFFFFFFFFu; /* b past OCM, no wrap */
  assert_int_equal(validate(), MLIP_ERR_BOUNDS);
  c->u.eltwise.b_len = 2;
  assert_int_equal(validate(), MLIP_OK);
}

/* TABLE: int8 -128, -1, 0, 127 index entries 0, 127, 128, 255 of a table
   whose entry k is 255 - k (as bytes: -128 -> 127 ...); in place; uint8
   takes the byte itself as the index. */
static void test_table(void** state) {
  mlip_decoded_cmd* c;
  uint32_t k;
  (void)state;
  fresh(MLIP_LAYER_ACTIVATION);
  for (k = 0; k < 256u; ++k) ocm[512 + k] = (uint8_t)(255u - k);
  set8(0, -128);
  set8(1, -1);
  set8(2, 0);
  set8(3, 127);
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_TABLE, 0, layer0);
  c->u.table.in = 0;
  c->u.table.out = 0;
  c->u.table.count = 4;
  c->u.table.table = 512;
  c->u.table.dtype = MLIP_DT_INT8;
  assert_int_equal(validate(), MLIP_OK);
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(ocm[0], 255u);
  assert_int_equal(ocm[1], 128u);
  assert_int_equal(ocm[2], 127u);
  assert_int_equal(ocm[3], 0u);
  c->u.table.dtype = MLIP_DT_UINT8;
  ocm[0] = 0;
  ocm[1] = 200;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(ocm[0], 255u);
  assert_int_equal(ocm[1], 55u);
  /* The validator. */
  c->u.table.dtype = MLIP_DT_FP16; /* no fp16 form */
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.table.dtype = MLIP_DT_INT8;
  c->u.table.count = 0;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.table.count = 4;
  c->u.table.out = 512; /* over the table */
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.table.out = 128;
  assert_int_equal(validate(), MLIP_OK); /* out of place */
  c->u.table.table = 4096 - 128; /* the table past OCM */
  assert_int_equal(validate(), MLIP_ERR_BOUNDS);
  c->u.table.table = 520; /* unaligned */
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.table.table = 512;
  c->u.table.count = 0xFFFFFFFFu; /* no wrap */
  assert_int_equal(validate(), MLIP_ERR_BOUNDS);
  /* In an fp16 buffer TABLE has no form at all. */
  fresh(MLIP_LAYER_ACTIVATION);
  b.hdr.quantize = MLIP_QUANT_FP16;
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_TABLE, 0, layer0);
  c->u.table.out = 0;
  c->u.table.count = 4;
  c->u.table.table = 512;
  c->u.table.dtype = MLIP_DT_INT8;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
}

/* RESIZE of one-byte elements (nearest: a copy): a 2x3 block of 2 channels
   (int8 -128 .. 127 and uint8 bytes alike) resampled to 3x2 through row
   entries 11, 10, 11 (row base 10) and column entries 2, 0; every byte is
   its source's. Then the validator: two taps (bilinear) have no 8-bit
   form, the operands are one byte per element (an output 12 bytes long
   fits where 24 would not), and a table index outside the block leaves the
   output untouched. */
static mlip_decoded_cmd* resize8(uint32_t dt) {
  mlip_decoded_cmd* c = cb_cmd(&b, CB_MAIN, MLIP_OP_RESIZE, 0, layer0);
  uint32_t t[4];
  c->u.resize.in = 0;
  c->u.resize.in_h = 2;
  c->u.resize.in_w = 3;
  c->u.resize.c = 2;
  c->u.resize.out = 128;
  c->u.resize.out_h = 3;
  c->u.resize.out_w = 2;
  c->u.resize.row_table = 256;
  c->u.resize.col_table = 384;
  c->u.resize.row_taps = 1;
  c->u.resize.col_taps = 1;
  c->u.resize.row_base = 10;
  c->u.resize.dtype = dt;
  /* tap entries: uint32 index, float32 weight (unread for one tap) */
  memset(ocm + 256, 0, 256);
  t[0] = 11;
  t[1] = 10;
  t[2] = 11;
  memcpy(ocm + 256, &t[0], 4);
  memcpy(ocm + 264, &t[1], 4);
  memcpy(ocm + 272, &t[2], 4);
  t[3] = 2;
  memcpy(ocm + 384, &t[3], 4);
  t[3] = 0;
  memcpy(ocm + 392, &t[3], 4);
  return c;
}

static void test_resize(void** state) {
  /* x[r][q][ch] at (r * 3 + q) * 2 + ch */
  static const int32_t x[12] = {-128, 127, -1, 0, 5, -6, 1, 2, 100, -100, 3, -4};
  /* out[oh][ow] = x[row oh][col ow]: rows 1, 0, 1; columns 2, 0 */
  static const uint32_t src[6] = {5, 3, 2, 0, 5, 3};
  mlip_decoded_cmd* c;
  uint32_t i, k;
  (void)state;
  for (k = 0; k < 2; ++k) {
    const uint32_t dt = k == 0 ? MLIP_DT_INT8 : MLIP_DT_UINT8;
    fresh(MLIP_LAYER_RESIZE);
    for (i = 0; i < 12; ++i) set8(i, x[i]);
    (void)resize8(dt);
    assert_int_equal(validate(), MLIP_OK);
    assert_int_equal(run(), MLIP_OK);
    for (i = 0; i < 6; ++i) {
      assert_int_equal(ocm[128 + 2 * i], ocm[2 * src[i]]);
      assert_int_equal(ocm[128 + 2 * i + 1], ocm[2 * src[i] + 1]);
    }
    assert_int_equal(get_i8(128), 3);   /* out[0][0][0] = x[1][2][0] */
    assert_int_equal(get_i8(135), 127); /* out[1][1][1] = x[0][0][1] */
    assert_int_equal(ocm[140], 0u);     /* past the 12 output bytes: untouched */
  }
  /* The validator. */
  fresh(MLIP_LAYER_RESIZE);
  c = resize8(MLIP_DT_INT8);
  c->u.resize.col_taps = 2; /* bilinear: no 8-bit form */
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.resize.col_taps = 1;
  c->u.resize.row_taps = 2;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.resize.row_taps = 1;
  c->u.resize.out = 4096 - 128; /* 12 bytes fit before the end of OCM ... */
  assert_int_equal(validate(), MLIP_OK);
  c->u.resize.out_w = 22; /* ... 132 do not */
  assert_int_equal(validate(), MLIP_ERR_BOUNDS);
  c->u.resize.out_w = 2;
  c->u.resize.out = 0; /* over the input */
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.resize.out = 128;
  c->u.resize.dtype = MLIP_DT_FP16; /* fp16 in an int8 buffer */
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.resize.dtype = 3; /* int16: RESIZE has no 16x8 form */
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  /* An 8-bit RESIZE in an fp16 buffer. */
  fresh(MLIP_LAYER_RESIZE);
  b.hdr.quantize = MLIP_QUANT_FP16;
  (void)resize8(MLIP_DT_UINT8);
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  /* A row entry outside the block: refused when it runs, nothing written. */
  fresh(MLIP_LAYER_RESIZE);
  (void)resize8(MLIP_DT_INT8);
  {
    const uint32_t bad = 12; /* block rows 10 and 11 only */
    memcpy(ocm + 264, &bad, 4);
  }
  ocm[128] = 0x5A;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  assert_int_equal(ocm[128], 0x5Au);
}

/* An int8 CONV2D costs a quarter of the fp16 compute cycles
   (MLIP_INT8_MAC_FACTOR): 8x8x16 outputs of 3x3x16 taps = 147456 MACs;
   FC and MATMUL likewise. */
static void test_cycles(void** state) {
  mlip_decoded_cmd c;
  mlip_cycle_rates r;
  uint64_t compute, dma;
  (void)state;
  memset(&c, 0, sizeof c);
  c.opcode = MLIP_OP_CONV2D;
  c.u.conv2d.out_h = 8;
  c.u.conv2d.out_w = 8;
  c.u.conv2d.out_c = 16;
  c.u.conv2d.kh = 3;
  c.u.conv2d.kw = 3;
  c.u.conv2d.ic_per_group = 16;
  r.macs_per_cycle = 256;
  r.dma_bytes_per_cycle = 32;
  r.eltwise_per_cycle = 64;
  r.cmd_overhead_cycles = 40;
  assert_int_equal(mlip_cmd_cycles(&r, &c, &compute, &dma), 1);
  assert_int_equal(compute, 576); /* 147456 / 256 */
  c.u.conv2d.dtype = MLIP_DT_INT8;
  assert_int_equal(mlip_cmd_cycles(&r, &c, &compute, &dma), 1);
  assert_int_equal(compute, 144); /* 147456 / 1024 */
  /* An int8 FC too: 2 rows x 1000 inputs x 512 outputs = 1024000 MACs. */
  memset(&c, 0, sizeof c);
  c.opcode = MLIP_OP_FC;
  c.u.fc.n = 2;
  c.u.fc.k = 1000;
  c.u.fc.out_c = 512;
  assert_int_equal(mlip_cmd_cycles(&r, &c, &compute, &dma), 1);
  assert_int_equal(compute, 4000);
  c.u.fc.dtype = MLIP_DT_UINT8;
  assert_int_equal(mlip_cmd_cycles(&r, &c, &compute, &dma), 1);
  assert_int_equal(compute, 1000);
  /* And an int8 MATMUL: 2 products of 1 x 1000 by 1000 x 512, 1024000 MACs. */
  memset(&c, 0, sizeof c);
  c.opcode = MLIP_OP_MATMUL;
  c.u.matmul.batch = 2;
  c.u.matmul.m = 1;
  c.u.matmul.k = 1000;
  c.u.matmul.n = 512;
  assert_int_equal(mlip_cmd_cycles(&r, &c, &compute, &dma), 1);
  assert_int_equal(compute, 4000);
  c.u.matmul.dtype = MLIP_DT_INT8;
  assert_int_equal(mlip_cmd_cycles(&r, &c, &compute, &dma), 1);
  assert_int_equal(compute, 1000);
}

/* The status of a good int8 FC with one field changed. */
#define FC_WITH(field, value) (fresh(MLIP_LAYER_FC), fc8(MLIP_DT_INT8, 1, 3, 2)->u.fc.field = (value), validate())

/* The validator on one bad field at a time of a good int8 FC. */
static void test_validate_fc(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  assert_int_equal(FC_WITH(x_zp, -128), MLIP_OK);
  assert_int_equal(FC_WITH(x_zp, 128), MLIP_ERR_INVALID_ARG);
  assert_int_equal(FC_WITH(y_zp, -129), MLIP_ERR_INVALID_ARG);
  assert_int_equal(FC_WITH(clamp_lo, 128), MLIP_ERR_INVALID_ARG);
  assert_int_equal(FC_WITH(clamp_hi, -129), MLIP_ERR_INVALID_ARG);
  assert_int_equal(FC_WITH(first, 0), MLIP_ERR_INVALID_ARG);  /* the whole reduction in one command */
  assert_int_equal(FC_WITH(last, 0), MLIP_ERR_INVALID_ARG);
  assert_int_equal(FC_WITH(acc, 1536), MLIP_ERR_INVALID_ARG); /* no accumulator */
  assert_int_equal(FC_WITH(bias, MLIP_NO_OFFSET), MLIP_ERR_INVALID_ARG);
  assert_int_equal(FC_WITH(bias, 4000), MLIP_ERR_INVALID_ARG); /* unaligned */
  assert_int_equal(FC_WITH(bias, 4096), MLIP_ERR_BOUNDS);
  /* word 10 of an 8-bit FC is w4_block (the fp16 act's): 4-bit weights, not an activation */
  assert_int_equal(FC_WITH(w4_block, 4), MLIP_ERR_INVALID_ARG);  /* a block past k = 3 */
  assert_int_equal(FC_WITH(n, 0), MLIP_ERR_INVALID_ARG);
  assert_int_equal(FC_WITH(out, 0), MLIP_ERR_INVALID_ARG);      /* output over the input */
  assert_int_equal(FC_WITH(out, 768), MLIP_ERR_INVALID_ARG);    /* output over the records */
  assert_int_equal(FC_WITH(out_c, 0xFFFFFFFFu), MLIP_ERR_BOUNDS); /* no wrap */
  assert_int_equal(FC_WITH(dtype, MLIP_DT_FP16), MLIP_ERR_INVALID_ARG);
  /* 33025 products per output is the bound. */
  fresh(MLIP_LAYER_FC);
  b.hdr.ocm_size = 1024u * 1024u;
  b.hdr.ocm_pinned_offset = b.hdr.ocm_size;
  c = fc8(MLIP_DT_INT8, 1, 33025, 1);
  c->u.fc.weights = 33792;
  c->u.fc.bias = 67584;
  c->u.fc.out = 67712;
  assert_int_equal(validate(), MLIP_OK);
  c->u.fc.k = 33026;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
}

/* The validator: one bad field at a time on a good int8 CONV2D, ADD and
   GLOBAL_AVGPOOL, and the element type against the buffer's mode. */
#define CONV_WITH(field, value) \
  (fresh(MLIP_LAYER_CONV2D), conv8(MLIP_DT_INT8, 3, 3, 1, 1, 1, 1, 3, 3)->u.conv2d.field = (value), validate())

static void test_validate_conv(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  assert_int_equal(CONV_WITH(x_zp, 0), MLIP_OK);
  assert_int_equal(CONV_WITH(x_zp, 128), MLIP_ERR_INVALID_ARG);      /* outside int8 */
  assert_int_equal(CONV_WITH(y_zp, -129), MLIP_ERR_INVALID_ARG);
  assert_int_equal(CONV_WITH(clamp_lo, 127), MLIP_OK); /* [127, 127]: one value */
  fresh(MLIP_LAYER_CONV2D);
  c = conv8(MLIP_DT_INT8, 3, 3, 1, 1, 1, 1, 3, 3);
  c->u.conv2d.clamp_lo = 5;
  c->u.conv2d.clamp_hi = 4;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG); /* lo > hi */
  assert_int_equal(CONV_WITH(clamp_hi, -129), MLIP_ERR_INVALID_ARG);
  assert_int_equal(CONV_WITH(bias, MLIP_NO_OFFSET), MLIP_ERR_INVALID_ARG); /* records required */
  /* word 23 of an 8-bit CONV2D is w4_block (the fp16 act's): clamps, not activations */
  assert_int_equal(CONV_WITH(w4_block, 10), MLIP_ERR_INVALID_ARG);         /* a block past K = 9 */
  assert_int_equal(CONV_WITH(dtype, MLIP_DT_FP16), MLIP_ERR_INVALID_ARG);       /* fp16 in an int8 buffer */
  assert_int_equal(CONV_WITH(dtype, 4), MLIP_ERR_INVALID_ARG);             /* no such type (3 is int16) */
  assert_int_equal(CONV_WITH(bias, 4000), MLIP_ERR_INVALID_ARG);           /* records unaligned */
  assert_int_equal(CONV_WITH(bias, 4096), MLIP_ERR_BOUNDS);                /* records past OCM */
  /* 33025 products per output is the bound; one more channel is refused. */
  fresh(MLIP_LAYER_CONV2D);
  c = conv8(MLIP_DT_INT8, 1, 1, 1, 1, 1, 1, 1, 1);
  c->u.conv2d.in = 0;
  c->u.conv2d.in_c = 33025;
  c->u.conv2d.ic_per_group = 33025;
  b.hdr.ocm_size = 1024u * 1024u;
  b.hdr.ocm_pinned_offset = b.hdr.ocm_size;
  c->u.conv2d.weights = 33792;
  c->u.conv2d.bias = 67584;
  c->u.conv2d.out = 67712;
  assert_int_equal(validate(), MLIP_OK);
  c->u.conv2d.in_c = 33026;
  c->u.conv2d.ic_per_group = 33026;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  /* An int8 command in an fp16 buffer. */
  fresh(MLIP_LAYER_CONV2D);
  b.hdr.quantize = MLIP_QUANT_FP16;
  conv8(MLIP_DT_INT8, 3, 3, 1, 1, 1, 1, 3, 3);
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  /* CONVERT has no int8 form; LAYOUT has no element type (its dtype 0). */
  fresh(MLIP_LAYER_CONVERT_IN);
  cb_convert(&b, CB_MAIN, 0, layer0, 0, 1024, 4, MLIP_CVT_F32_TO_F16);
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  fresh(MLIP_LAYER_CONVERT_IN);
  cb_layout(&b, CB_MAIN, 0, layer0, 0, 1024, 1, 2, 3, 1);
  assert_int_equal(validate(), MLIP_OK); /* 1-byte LAYOUT */
  cb_layout(&b, CB_MAIN, 0, layer0, 0, 1024, 1, 2, 3, 1)->dtype = MLIP_DT_INT8;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
}

/* A good uint8 ADD. */
static mlip_decoded_cmd* add8(void) {
  mlip_decoded_cmd* c;
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_ADD, 0, layer0);
  c->u.add.a = 0;
  c->u.add.b = 128;
  c->u.add.out = 256;
  c->u.add.count = 3;
  c->u.add.qa = 1 << 30;
  c->u.add.sa = -1;
  c->u.add.qb = 1 << 30;
  c->u.add.sb = -1;
  c->u.add.qy = 1 << 30;
  c->u.add.sy = -17;
  c->u.add.lo = 0;
  c->u.add.hi = 255;
  c->u.add.dtype = MLIP_DT_UINT8;
  return c;
}
#define ADD_WITH(field, value) (fresh(MLIP_LAYER_ADD), add8()->u.add.field = (value), validate())

static void test_validate_add_gpool(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  assert_int_equal(ADD_WITH(y_zp, 255), MLIP_OK);
  assert_int_equal(ADD_WITH(y_zp, -1), MLIP_ERR_INVALID_ARG); /* outside uint8 */
  assert_int_equal(ADD_WITH(sa, 1), MLIP_ERR_INVALID_ARG);        /* operand multiplier >= 1 */
  assert_int_equal(ADD_WITH(qb, 5), MLIP_ERR_INVALID_ARG);        /* not 0, not >= 2^30 */
  assert_int_equal(ADD_WITH(qy, INT32_MIN), MLIP_ERR_INVALID_ARG);
  assert_int_equal(ADD_WITH(sy, 31), MLIP_ERR_INVALID_ARG);
  assert_int_equal(ADD_WITH(lo, 256), MLIP_ERR_INVALID_ARG);
  assert_int_equal(ADD_WITH(act, MLIP_ACT_CLIP), MLIP_ERR_INVALID_ARG);
  fresh(MLIP_LAYER_GLOBAL_AVGPOOL);
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_GLOBAL_AVGPOOL, 0, layer0);
  c->u.global_pool.in = 0;
  c->u.global_pool.out = 128;
  c->u.global_pool.hw = 4;
  c->u.global_pool.c = 2;
  c->u.global_pool.q = 1 << 30;
  c->u.global_pool.lo = -128;
  c->u.global_pool.hi = 127;
  c->u.global_pool.dtype = MLIP_DT_INT8;
  assert_int_equal(validate(), MLIP_OK);
  c->u.global_pool.hw = MLIP_INT8_MAX_POOL_HW + 1u;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.global_pool.hw = 4;
  c->u.global_pool.shift = 31;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  /* RESIZE has no int8 form. */
  c->u.global_pool.shift = 0;
  c->opcode = MLIP_OP_RESIZE;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
}

/* ---- 4-bit weights ------------------------------------------------------- */

/* Three rows of K = 3 in blocks of 2 (two blocks a row, the second of one
   value): q and e by hand, the weight q * 2^e.
     row 0: q -8, 7 | -5   e 0 | 2  -> -8, 7, -20
     row 1: q 3, -5 | 5    e 1 | 4  -> 6, -10, 80
     row 2: q 7, 0 | -8    e 3 | 0  -> 56, 0, -8
   (each e the smallest that holds its block, as the packer chooses: -10
   needs 2^1, -20 2^2, 80 2^4, 56 2^3). Each row is a record of its own
   (M = 1): ceil(3 / 2) = 2 bytes of nibbles, the low one first (an odd
   count leaves the high nibble 0), then ceil(2 / 2) = 1 byte of
   exponents. -8 is 0x8, -5 0xB. */
static const int8_t kW4Values[9] = {-8, 7, -20, 6, -10, 80, 56, 0, -8};
static const uint8_t kW4Rows[9] = {0x78, 0x0B, 0x20, 0xB3, 0x05, 0x41, 0x07, 0x08, 0x03};

static void test_w4_format(void** state) {
  uint8_t row[3];
  int32_t m, k, bad = -1;
  (void)state;
  assert_int_equal(mlip_kq4_bytes(1, 3, 2), 3);
  assert_int_equal(mlip_kq4_bytes(3, 3, 2), 5 + 3); /* one record of three rows: 9 nibbles, 6 exponents */
  for (m = 0; m < 3; ++m) {
    assert_int_equal(mlip_kq4_pack(kW4Values + 3 * m, 1, 3, 2, row, NULL), 0);
    assert_memory_equal(row, kW4Rows + 3 * m, 3);
    for (k = 0; k < 3; ++k) {
      assert_int_equal(mlip_kq4_weight(kW4Rows + 3 * m, 1, 3, 2, 0, k), kW4Values[3 * m + k]);
    }
  }
  /* Every int4 nibble sign-extends: 0x8 .. 0xF are -8 .. -1. */
  for (k = 0; k < 16; ++k) {
    const uint8_t r[2] = {(uint8_t)k, 0x00};
    assert_int_equal(mlip_kq4_weight(r, 1, 1, 1, 0, 0), k < 8 ? k : k - 16);
  }
  /* The extremes of e = 4: -8 * 16 = -128 and 7 * 16 = 112. */
  {
    const int8_t v[2] = {-128, 112};
    assert_int_equal(mlip_kq4_exponent(v, 2), 4);
  }
  /* 9 (odd, above 7) is no int4 times 2^0..2^4: refused, its block named. */
  {
    const int8_t v[4] = {1, 2, 9, 0};
    uint8_t out[4];
    assert_int_equal(mlip_kq4_exponent(v + 2, 1), -1);
    assert_int_equal(mlip_kq4_pack(v, 1, 4, 2, out, &bad), -1);
    assert_int_equal(bad, 1);
  }
  {
    const uint8_t e5[3] = {0x11, 0x01, 0x50};
    for (m = 0; m < 3; ++m) {
      assert_int_equal(mlip_kq4_exponents_ok(kW4Rows + 3 * m, 1, 3, 2), 1);
    }
    assert_int_equal(mlip_kq4_exponents_ok(e5, 1, 3, 2), 0);
  }
}

/* A 1x1 CONV2D of one position, 3 input channels (K = 3, odd) and 3 output
   channels (odd) with the rows above at 1536, blocks of 2: inputs 1, 2, 3
   (x_zp 0) give -8 + 14 - 60 = -54, 6 - 20 + 240 = 226, 56 + 0 - 24 = 32,
   times M = 0.5: -27, 113, 16. The same command with the int8 values at 512
   (w4_block 0) gives the same bytes. */
static void test_conv_w4(void** state) {
  mlip_decoded_cmd* c;
  uint8_t want[3];
  int i;
  (void)state;
  fresh(MLIP_LAYER_CONV2D);
  for (i = 0; i < 3; ++i) {
    set8((uint32_t)i, i + 1);
    set_record(768, (uint32_t)i, 0, 1 << 30, 0);
  }
  for (i = 0; i < 9; ++i) {
    set8(512u + (uint32_t)i, kW4Values[i]);
    ocm[1536 + i] = kW4Rows[i];
  }
  c = conv8(MLIP_DT_INT8, 1, 1, 3, 1, 1, 3, 1, 1);
  assert_int_equal(run(), MLIP_OK);
  memcpy(want, ocm + 1024, 3);
  assert_int_equal(get_i8(1024), -27);
  assert_int_equal(get_i8(1025), 113);
  assert_int_equal(get_i8(1026), 16);
  memset(ocm + 1024, 0, 3);
  c->u.conv2d.weights = 1536;
  c->u.conv2d.w4_block = 2;
  assert_int_equal(run(), MLIP_OK);
  assert_memory_equal(ocm + 1024, want, 3);
  /* An exponent of 5 in OCM is refused when the command runs, before it writes. */
  ocm[1536 + 5] = 0x51;
  ocm[1024] = 0x5A;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  assert_int_equal(ocm[1024], 0x5A);
}

/* A 3x3 CONV2D, pad 1, stride 1, over a 4x4x3 int8 input (x_zp 3), 5
   output channels (K = 27 in blocks of 4: the last of 3) with weights q *
   2^e from a fixed sequence: the 4-bit command's 80 outputs are the int8
   command's. */
static void test_conv_w4_matches_int8(void** state) {
  uint8_t want[80];
  int8_t w[5 * 27];
  uint32_t seed = 12345u;
  int i, j;
  mlip_decoded_cmd* c;
  (void)state;
  fresh(MLIP_LAYER_CONV2D);
  for (i = 0; i < 48; ++i) {
    seed = seed * 1103515245u + 12345u;
    set8((uint32_t)i, (int32_t)((seed >> 16) % 256u) - 128);
  }
  for (j = 0; j < 5; ++j) {
    for (i = 0; i < 27; ++i) {
      int32_t q, e;
      seed = seed * 1103515245u + 12345u;
      q = (int32_t)((seed >> 16) % 16u) - 8;
      e = (j + i / 4) % 5; /* one exponent per block of 4 */
      w[j * 27 + i] = (int8_t)(q * (1 << e));
      set8(512u + (uint32_t)(j * 27 + i), w[j * 27 + i]);
    }
    set_record(768, (uint32_t)j, j * 100 - 200, 1 << 30, -(j % 3));
    assert_int_equal(mlip_kq4_pack(w + j * 27, 1, 27, 4, ocm + 1536 + j * mlip_kq4_bytes(1, 27, 4), NULL), 0);
  }
  c = conv8(MLIP_DT_INT8, 4, 4, 3, 4, 4, 5, 3, 3);
  c->u.conv2d.pad_top = 1;
  c->u.conv2d.pad_left = 1;
  c->u.conv2d.x_zp = 3;
  assert_int_equal(run(), MLIP_OK);
  memcpy(want, ocm + 1024, sizeof want);
  memset(ocm + 1024, 0, sizeof want);
  c->u.conv2d.weights = 1536;
  c->u.conv2d.w4_block = 4;
  assert_int_equal(run(), MLIP_OK);
  assert_memory_equal(ocm + 1024, want, sizeof want);
}

/* FC with the rows above: two input rows, 1, 2, 3 and -1, 0, 1 (x_zp 0):
   -27, 113, 16 as the CONV2D, then (8 - 20) / 2 = -6, (-6 + 80) / 2 = 37,
   (-56 - 8) / 2 = -32; bit-identical to the int8 FC. */
static void test_fc_w4(void** state) {
  mlip_decoded_cmd* c;
  uint8_t want[6];
  int i;
  (void)state;
  fresh(MLIP_LAYER_FC);
  for (i = 0; i < 3; ++i) {
    set8((uint32_t)i, i + 1);
    set8(3u + (uint32_t)i, i - 1);
    set_record(768, (uint32_t)i, 0, 1 << 30, 0);
  }
  for (i = 0; i < 9; ++i) {
    set8(512u + (uint32_t)i, kW4Values[i]);
    ocm[1536 + i] = kW4Rows[i];
  }
  c = fc8(MLIP_DT_INT8, 2, 3, 3);
  assert_int_equal(run(), MLIP_OK);
  memcpy(want, ocm + 1024, 6);
  memset(ocm + 1024, 0, 6);
  c->u.fc.weights = 1536;
  c->u.fc.w4_block = 2;
  assert_int_equal(run(), MLIP_OK);
  assert_memory_equal(ocm + 1024, want, 6);
  assert_int_equal(get_i8(1024), -27);
  assert_int_equal(get_i8(1025), 113);
  assert_int_equal(get_i8(1026), 16);
  assert_int_equal(get_i8(1027), -6);
  assert_int_equal(get_i8(1028), 37);
  assert_int_equal(get_i8(1029), -32);
  ocm[1536 + 2] = 0x60; /* row 0's second block at e = 6 */
  ocm[1024] = 0x5A;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  assert_int_equal(ocm[1024], 0x5A);
}

/* Rows longer than the executors' local buffer (MLIP_SIM_W4_ROW): a 1x1
   CONV2D of 2049 input channels (each weight unpacked on read) and an FC
   of k = 2500 in blocks of 100 (unpacked in two pieces); each output is
   the requantized sum of the weights mlip_kq4_weight gives. */
static void test_w4_long_rows(void** state) {
  const uint32_t kc = 2049u, kf = 2500u;
  int8_t w[2500];
  int32_t acc = 0;
  uint32_t i;
  mlip_decoded_cmd* c;
  (void)state;
  fresh(MLIP_LAYER_CONV2D);
  for (i = 0; i < kc; ++i) {
    set8(i, (int32_t)(i % 7u) - 3);
    w[i] = (int8_t)(((int32_t)(i % 15u) - 7) * 8); /* one block at e = 3 */
  }
  assert_true(MLIP_SIM_W4_ROW < kc);
  assert_int_equal(mlip_kq4_pack(w, 1, (int32_t)kc, (int32_t)kc, ocm + 2176, NULL), 0);
  for (i = 0; i < kc; ++i) {
    acc += ((int32_t)(i % 7u) - 3) * mlip_kq4_weight(ocm + 2176, 1, (int32_t)kc, (int32_t)kc, 0, (int32_t)i);
  }
  set_record(3328, 0, 5, 1 << 30, -12);
  c = conv8(MLIP_DT_INT8, 1, 1, kc, 1, 1, 1, 1, 1);
  c->u.conv2d.weights = 2176;
  c->u.conv2d.bias = 3328;
  c->u.conv2d.out = 3456;
  c->u.conv2d.w4_block = kc;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(3456), mlip_requantize(acc + 5, 1 << 30, -12, 0, -128, 127));
  fresh(MLIP_LAYER_FC);
  acc = 0;
  for (i = 0; i < kf; ++i) {
    set8(i, (int32_t)(i % 5u) - 2);
    w[i] = (int8_t)(((int32_t)(i % 16u) - 8) * (1 << (i / 100u % 5u))); /* block b at e = b % 5 */
  }
  assert_int_equal(mlip_kq4_pack(w, 1, (int32_t)kf, 100, ocm + 2560, NULL), 0);
  for (i = 0; i < kf; ++i) {
    acc += ((int32_t)(i % 5u) - 2) * w[i];
  }
  set_record(3840, 0, -7, 1 << 30, -10);
  c = fc8(MLIP_DT_INT8, 1, kf, 1);
  c->u.fc.weights = 2560;
  c->u.fc.bias = 3840;
  c->u.fc.out = 3968;
  c->u.fc.w4_block = 100;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get_i8(3968), mlip_requantize(acc - 7, 1 << 30, -10, 0, -128, 127));
}

/* The validator on w4_block: a block past the row, 16x8 (8-bit weights
   only), and the packed rows' size inside OCM. */
static void test_validate_w4(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  assert_int_equal(CONV_WITH(w4_block, 9), MLIP_OK);                  /* K = 9: one block */
  assert_int_equal(CONV_WITH(w4_block, 10), MLIP_ERR_INVALID_ARG);    /* past the row */
  assert_int_equal(CONV_WITH(w4_block, 33026), MLIP_ERR_INVALID_ARG); /* the field's own rule */
  assert_int_equal(FC_WITH(w4_block, 3), MLIP_OK);
  assert_int_equal(FC_WITH(w4_block, 4), MLIP_ERR_INVALID_ARG);
  /* FC of k = 1000 with its weights 512 bytes before the end of OCM: 1000
     int8 bytes do not fit, a 4-bit row in one block (500 + 1) does, in
     blocks of 1 (500 + 500) it does not. */
  fresh(MLIP_LAYER_FC);
  c = fc8(MLIP_DT_INT8, 1, 1000, 1);
  c->u.fc.weights = TILE_OCM - 512u;
  c->u.fc.out = 1536;
  assert_int_equal(validate(), MLIP_ERR_BOUNDS);
  c->u.fc.w4_block = 1000;
  assert_int_equal(validate(), MLIP_OK);
  c->u.fc.w4_block = 1;
  assert_int_equal(validate(), MLIP_ERR_BOUNDS);
  /* 16x8 reads 8-bit weights only. */
  fresh(MLIP_LAYER_FC);
  c = fc8(MLIP_DT_INT16, 1, 3, 1);
  c->u.fc.clamp_lo = -32768;
  c->u.fc.clamp_hi = 32767;
  assert_int_equal(validate(), MLIP_OK);
  c->u.fc.w4_block = 3;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_conv_negative_ties),
    cmocka_unit_test(test_conv_ort_ties),
    cmocka_unit_test(test_conv_saturation),
    cmocka_unit_test(test_conv_uint8_depthwise),
    cmocka_unit_test(test_conv_bad_record),
    cmocka_unit_test(test_fc),
    cmocka_unit_test(test_fc_uint8),
    cmocka_unit_test(test_matmul),
    cmocka_unit_test(test_matmul_uint8),
    cmocka_unit_test(test_validate_matmul),
    cmocka_unit_test(test_softmax),
    cmocka_unit_test(test_norm),
    cmocka_unit_test(test_maxpool),
    cmocka_unit_test(test_avgpool),
    cmocka_unit_test(test_validate_avgpool),
    cmocka_unit_test(test_norm_decomposed),
    cmocka_unit_test(test_reduce),
    cmocka_unit_test(test_eltwise_mul),
    cmocka_unit_test(test_table),
    cmocka_unit_test(test_resize),
    cmocka_unit_test(test_global_pools),
    cmocka_unit_test(test_add),
    cmocka_unit_test(test_cycles),
    cmocka_unit_test(test_validate_conv),
    cmocka_unit_test(test_validate_fc),
    cmocka_unit_test(test_validate_add_gpool),
    cmocka_unit_test(test_w4_format),
    cmocka_unit_test(test_conv_w4),
    cmocka_unit_test(test_conv_w4_matches_int8),
    cmocka_unit_test(test_fc_w4),
    cmocka_unit_test(test_w4_long_rows),
    cmocka_unit_test(test_validate_w4),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
