/* runtime.sim_q16: the 16x8 forms of CONV2D and FC (MLIP_DT_INT16: int16
   activations with zero point 0, int8 weights, int64 bias and sum,
   mlip_requantize64; docs/mlip-spec.md section 4a) on tiny hand-computed
   data: sums and biases beyond int32, the 64-bit path's ties (fixed-point
   and onnxruntime's), saturation at both ends of int16, a clamp; the 16x8 MAC rate of the cycle model; the
   validator's refusals (int16 where an opcode has no 16x8 form, in an fp16
   buffer, a zero point, a clamp outside int16) and the executor's refusal
   of a damaged record (output untouched); and CONV2D on random shapes
   against the spec's loop; MAXPOOL's 16x8 form (exact maxima of int16);
   AVGPOOL's (int64 sum, mlip_requantize64 with the table's entry for the
   count: ties in both arithmetics, saturation, a clamp, padding with both
   counts, a ceil window, a sum beyond int32);
   TABLE's (513 knots interpolated: segment ends, rounding ties both ways,
   both ends of int16, random knots against mlip_lut16; its validation);
   MATMUL's (int16 by int16 or by int8 weights, an int64 sum: ties in both
   arithmetics, a sum beyond int32, saturation, a clamp; its validation);
   GLOBAL_AVGPOOL's (int64 sum, mlip_requantize64; random sizes against the
   CPU kernel's loop), ADD's (mlip_qadd16_sum) and ELTWISE MUL's, each with
   saturation at both ends of int16, rounding ties and a clamp, and their
   validation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "mlip/cycle_model.h"
#include "mlip/lut16.h"
#include "mlip/region.h"
#include "sim_internal.h"
#include "sim_tile_fixture.h"

/* int16 element i of the tensor at off. */
static void set16(uint32_t off, uint32_t i, int32_t v) {
  const uint32_t u = (uint32_t)(v < 0 ? v + 65536 : v);
  ocm[off + 2u * i] = (uint8_t)(u & 0xFFu);
  ocm[off + 2u * i + 1u] = (uint8_t)(u >> 8);
}
static int32_t get16(uint32_t off, uint32_t i) {
  const int32_t u = (int32_t)ocm[off + 2u * i] | (int32_t)ocm[off + 2u * i + 1u] << 8;
  return u >= 32768 ? u - 65536 : u;
}
/* Record j at off: int64 bias (low word first), q, shift. */
static void set_record16(uint32_t off, uint32_t j, int64_t bias, int32_t q, int32_t shift) {
  const uint64_t u = (uint64_t)bias;
  const uint32_t w[4] = {(uint32_t)(u & 0xFFFFFFFFu), (uint32_t)(u >> 32), (uint32_t)q, (uint32_t)shift};
  memcpy(ocm + off + j * MLIP_REQUANT16_RECORD_BYTES, w, sizeof w);
}

/* A 16x8 FC: input at 0, weights at 512, records at 768, output at 1024. */
static mlip_decoded_cmd* fc16(uint32_t n, uint32_t k, uint32_t out_c) {
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
  c->u.fc.clamp_lo = -32768;
  c->u.fc.clamp_hi = 32767;
  c->u.fc.dtype = MLIP_DT_INT16;
  return c;
}

/* A 16x8 MAXPOOL over [h][w][c] int16 at 0, out at 1024: one row of
   windows of kh x kw, stride kw, no padding. */
static mlip_decoded_cmd* maxpool16(uint32_t h, uint32_t w, uint32_t ch, uint32_t kh, uint32_t kw, uint32_t sw) {
  mlip_decoded_cmd* c = cb_cmd(&b, CB_MAIN, MLIP_OP_MAXPOOL, 0, layer0);
  c->u.pool.in = 0;
  c->u.pool.in_h = h;
  c->u.pool.in_w = w;
  c->u.pool.c = ch;
  c->u.pool.out = 1024;
  c->u.pool.out_h = (h - kh) / kh + 1u;
  c->u.pool.out_w = (w - kw) / sw + 1u;
  c->u.pool.kh = kh;
  c->u.pool.kw = kw;
  c->u.pool.stride_h = kh;
  c->u.pool.stride_w = sw;
  c->u.pool.padded_bottom = (int32_t)h;
  c->u.pool.padded_right = (int32_t)w;
  c->u.pool.dtype = MLIP_DT_INT16;
  return c;
}

/* 16x8 MAXPOOL (exact): 1x2 windows, stride 1, over one row of two
   channels, channel 0 [-32768, -32767, 32767, 300] and channel 1
   [-1, -32768, -300, 299]: channel 0 -32767, 32767, 32767 (both ends of
   int16, no saturation: a maximum is an input), channel 1 -1, -300, 299
   (256 and 300 differ in their high byte: the two bytes are one value).
   With a padded column on the left (pad_left 1) the first window holds
   -32768 alone: padding is skipped, never a 0. */
static void test_maxpool(void** state) {
  mlip_decoded_cmd* c;
  static const int32_t x[8] = {-32768, -1, -32767, -32768, 32767, -300, 300, 299};
  static const int32_t want[6] = {-32767, -1, 32767, -300, 32767, 299};
  uint32_t i;
  (void)state;
  fresh(MLIP_LAYER_MAXPOOL);
  for (i = 0; i < 8u; ++i) set16(0, i, x[i]);
  c = maxpool16(1, 4, 2, 1, 2, 1);
  assert_int_equal(run(), MLIP_OK);
  for (i = 0; i < 6u; ++i) assert_int_equal(get16(1024, i), want[i]);
  c->u.pool.pad_left = 1;
  c->u.pool.padded_left = -1;
  c->u.pool.out_w = 4;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), -32768);
  assert_int_equal(get16(1024, 1), -1);
  assert_int_equal(get16(1024, 2), -32767);
  assert_int_equal(get16(1024, 7), 299);
  /* A 2x2 window, stride 2, on a 2x2 block: one output per channel. */
  fresh(MLIP_LAYER_MAXPOOL);
  for (i = 0; i < 8u; ++i) set16(0, i, x[i]);
  maxpool16(2, 2, 2, 2, 2, 2);
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 32767);
  assert_int_equal(get16(1024, 1), 299);
}

#define P30 ((int32_t)1 << 30) /* q of a power-of-two multiplier */
#define I64(e) ((int64_t)1 << (e))

/* A 16x8 AVGPOOL over one row [1][w][1] int16 at 0, out at 1024, its table
   of kw + 1 pairs at 2048: windows of 1 x kw, stride sw, pad_left pl. */
static mlip_decoded_cmd* avgpool16(uint32_t w, uint32_t kw, uint32_t sw, uint32_t pl, uint32_t out_w) {
  mlip_decoded_cmd* c = cb_cmd(&b, CB_MAIN, MLIP_OP_AVGPOOL, 0, layer0);
  c->u.pool.in = 0;
  c->u.pool.in_h = 1;
  c->u.pool.in_w = w;
  c->u.pool.c = 1;
  c->u.pool.out = 1024;
  c->u.pool.out_h = 1;
  c->u.pool.out_w = out_w;
  c->u.pool.kh = 1;
  c->u.pool.kw = kw;
  c->u.pool.stride_h = 1;
  c->u.pool.stride_w = sw;
  c->u.pool.pad_left = pl;
  c->u.pool.padded_left = -(int32_t)pl;
  c->u.pool.padded_bottom = 1;
  c->u.pool.padded_right = (int32_t)w;
  c->u.pool.table = 2048;
  c->u.pool.lo = -32768;
  c->u.pool.hi = 32767;
  c->u.pool.dtype = MLIP_DT_INT16;
  return c;
}
/* Table entry n at 2048: (q, shift). */
static void set_entry(uint32_t n, int32_t q, int32_t shift) {
  const int32_t w[2] = {q, shift};
  memcpy(ocm + 2048u + n * MLIP_POOL_TABLE_ENTRY_BYTES, w, sizeof w);
}
static void set_entry_f32(uint32_t n, float scale) {
  int32_t q;
  memcpy(&q, &scale, sizeof q);
  set_entry(n, q, MLIP_REQUANT_F32);
}

/* 16x8 AVGPOOL, the values of unit.QLinearAveragePool.Int16HandValues:
   tie {1, 2 | -3, 0 | 2, 3}, 1x2 windows, stride 2, entry 2 = 1/2: 1.5,
   -1.5, 2.5 -> 2, -1, 3 (fixed point: the doubling high multiply's ties
   toward +infinity), 2, -2, 2 (requant ORT, half to even). sat {32767,
   32767 | -32768, -32768}, entry 2 = 1 (q 2^30, shift 1): 65534 and -65536
   saturate to 32767 and -32768; a clamp [0, 20000] takes them to 20000
   and 0. pad {100, 200, 300, 400, 501}, 1x3 windows, stride 2, one padded
   column on the left, three outputs (the third window's last tap lies past
   the padded end): sums 300, 900, 901 over counts 2, 3, 2
   (count_include_pad 0: 150, 300, 451) or 3, 3, 2 (1: 100, 300, 451). */
static void test_avgpool(void** state) {
  static const int32_t tie[6] = {1, 2, -3, 0, 2, 3}, sat[4] = {32767, 32767, -32768, -32768};
  static const int32_t pad[5] = {100, 200, 300, 400, 501};
  mlip_decoded_cmd* c;
  uint32_t i;
  (void)state;
  fresh(MLIP_LAYER_AVGPOOL);
  for (i = 0; i < 6u; ++i) set16(0, i, tie[i]);
  set_entry(1, P30, 1);
  set_entry(2, P30, 0);
  c = avgpool16(6, 2, 2, 0, 3);
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 2);
  assert_int_equal(get16(1024, 1), -1);
  assert_int_equal(get16(1024, 2), 3);
  c->u.pool.requant = MLIP_REQUANT_ORT;
  set_entry_f32(1, 1.0f);
  set_entry_f32(2, 0.5f);
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 2);
  assert_int_equal(get16(1024, 1), -2);
  assert_int_equal(get16(1024, 2), 2);
  /* saturation, then a clamp */
  fresh(MLIP_LAYER_AVGPOOL);
  for (i = 0; i < 4u; ++i) set16(0, i, sat[i]);
  set_entry(1, P30, 1);
  set_entry(2, P30, 1);
  c = avgpool16(4, 2, 2, 0, 2);
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 32767);
  assert_int_equal(get16(1024, 1), -32768);
  c->u.pool.lo = 0;
  c->u.pool.hi = 20000;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 20000);
  assert_int_equal(get16(1024, 1), 0);
  /* padding and the ceil window, both counts */
  fresh(MLIP_LAYER_AVGPOOL);
  for (i = 0; i < 5u; ++i) set16(0, i, pad[i]);
  set_entry(1, P30, 1);
  set_entry(2, P30, 0);
  set_entry(3, 1431655765, -1); /* 1/3: round(2/3 * 2^31) * 2^-32 */
  c = avgpool16(5, 3, 2, 1, 3);
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 150);
  assert_int_equal(get16(1024, 1), 300);
  assert_int_equal(get16(1024, 2), 451);
  c->u.pool.count_include_pad = 1;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 100);
  assert_int_equal(get16(1024, 1), 300);
  assert_int_equal(get16(1024, 2), 451);
}

/* One row x = {32767, -32768} (both ends of int16), six outputs; M = 2^-19
   (q 2^30, shift -18) unless said:
   0: w {1, 1}, bias 0, M = 1 (shift 1): 32767 - 32768 = -1.
   1: w {127, 0}, bias 2^33: acc 4161409 + 8589934592 = 8594096001, beyond
      int32; / 2^19 = 16392.12 -> 16392.
   2: w {0, 0}, bias 2^33 + 2^18: / 2^19 = 16384.5, a tie: the high
      multiply halves exactly, the rounding shift goes away from zero ->
      16385 (one rounding half to even would give 16384).
   3: bias -(2^33 + 2^18): -16384.5 -> -16385.
   4: w {0, -128}, bias 2^40: 2^21 + 8 -> saturates to 32767.
   5: w {127, 127}, bias -2^40: -127 - 2^40 -> saturates to -32768. */
static void test_fc(void** state) {
  mlip_decoded_cmd* c;
  static const int8_t w[12] = {1, 1, 127, 0, 0, 0, 0, 0, 0, -128, 127, 127};
  static const int32_t want[6] = {-1, 16392, 16385, -16385, 32767, -32768};
  uint32_t i;
  (void)state;
  fresh(MLIP_LAYER_FC);
  set16(0, 0, 32767);
  set16(0, 1, -32768);
  for (i = 0; i < 12u; ++i) set8(512u + i, w[i]);
  set_record16(768, 0, 0, P30, 1);
  set_record16(768, 1, I64(33), P30, -18);
  set_record16(768, 2, I64(33) + I64(18), P30, -18);
  set_record16(768, 3, -(I64(33) + I64(18)), P30, -18);
  set_record16(768, 4, I64(40), P30, -18);
  set_record16(768, 5, -I64(40), P30, -18);
  c = fc16(1, 2, 6);
  assert_int_equal(run(), MLIP_OK);
  for (i = 0; i < 6u; ++i) assert_int_equal(get16(1024, i), want[i]);
  /* A clamp (a fused Relu: [0, 32767]) takes the negatives to 0. */
  c->u.fc.clamp_lo = 0;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 0);
  assert_int_equal(get16(1024, 3), 0);
  assert_int_equal(get16(1024, 1), 16392);
  /* A bias beyond MLIP_INT16_MAX_BIAS is refused before anything is written. */
  set_record16(768, 2, I64(61) + 1, P30, -18);
  ocm[1024] = 0x5A;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  assert_int_equal(ocm[1024], 0x5A);
  set_record16(768, 2, I64(61), P30, -18);
  assert_int_equal(run(), MLIP_OK);
  /* and so is a damaged pair */
  set_record16(768, 2, 0, P30 / 2, -18);
  ocm[1024] = 0x5A;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  assert_int_equal(ocm[1024], 0x5A);
}

/* requant ORT (onnxruntime's arithmetic): the int64 sum converted to
   float32, times the record's float32 scale, rounded half to even. Output
   2 of test_fc's data (bias 2^33 + 2^18, exact in float32) at scale 2^-19:
   16384.5 -> 16384 (the fixed-point tie gave 16385); output 3: -16384;
   output 1: 8594096001 rounds to the float32 8594096128, / 2^19 =
   16392.12 -> 16392. */
static void test_fc_ort(void** state) {
  mlip_decoded_cmd* c;
  static const int8_t w[8] = {1, 1, 127, 0, 0, 0, 0, 0};
  const float scale = 1.0f / 524288.0f;
  int32_t qs;
  uint32_t i;
  (void)state;
  memcpy(&qs, &scale, sizeof qs);
  fresh(MLIP_LAYER_FC);
  set16(0, 0, 32767);
  set16(0, 1, -32768);
  for (i = 0; i < 8u; ++i) set8(512u + i, w[i]);
  set_record16(768, 0, 0, qs, MLIP_REQUANT_F32);
  set_record16(768, 1, I64(33), qs, MLIP_REQUANT_F32);
  set_record16(768, 2, I64(33) + I64(18), qs, MLIP_REQUANT_F32);
  set_record16(768, 3, -(I64(33) + I64(18)), qs, MLIP_REQUANT_F32);
  c = fc16(1, 2, 4);
  c->u.fc.requant = MLIP_REQUANT_ORT;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 0); /* -1 * 2^-19 -> -0 -> 0 */
  assert_int_equal(get16(1024, 1), 16392);
  assert_int_equal(get16(1024, 2), 16384);
  assert_int_equal(get16(1024, 3), -16384);
  /* fixed-point records in an ORT command are refused */
  set_record16(768, 0, 0, P30, 1);
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
}

/* A 16x8 CONV2D: input at 0, weights at 512, records at 768, output at 1024. */
static mlip_decoded_cmd* conv16(uint32_t in_h, uint32_t in_w, uint32_t in_c, uint32_t out_h, uint32_t out_w,
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
  c->u.conv2d.clamp_lo = -32768;
  c->u.conv2d.clamp_hi = 32767;
  c->u.conv2d.dtype = MLIP_DT_INT16;
  return c;
}

/* 3x3x1 input 1000 * (1 .. 9), 3x3 kernel, pad 1, stride 2: the four
   windows (padding taps skipped) sum 12000, 16000, 24000, 28000. Channel 0
   (weights 1, bias 0, M = 1): those. Channel 1 (weights 127, bias -2^32,
   M = 2^-17 as q 2^30, shift -16): 1524000 - 4294967296 = -4293443296 ->
   -32756.37 -> -32756; 2032000 - 2^32 -> -32752.50 (not a tie: .497) ->
   -32752; 3048000 - 2^32 -> -32744.6 -> -32745; 3556000 - 2^32 -> -32740.7
   -> -32741. */
static void test_conv(void** state) {
  mlip_decoded_cmd* c;
  uint32_t i;
  const int32_t want[8] = {12000, -32756, 16000, -32752, 24000, -32745, 28000, -32741}; /* NHWC: (pos, ch) */
  (void)state;
  fresh(MLIP_LAYER_CONV2D);
  for (i = 0; i < 9u; ++i) set16(0, i, 1000 * ((int32_t)i + 1));
  for (i = 0; i < 9u; ++i) set8(512u + i, 1);
  for (i = 0; i < 9u; ++i) set8(512u + 9u + i, 127);
  set_record16(768, 0, 0, P30, 1);
  set_record16(768, 1, -I64(32), P30, -16);
  c = conv16(3, 3, 1, 2, 2, 2, 3, 3);
  c->u.conv2d.stride_h = 2;
  c->u.conv2d.stride_w = 2;
  c->u.conv2d.pad_top = 1;
  c->u.conv2d.pad_left = 1;
  assert_int_equal(run(), MLIP_OK);
  for (i = 0; i < 8u; ++i) assert_int_equal(get16(1024, i), want[i]);
}

/* Depthwise (groups 2, one input channel per output channel) with the
   block's channels a slice of the layer's (oc_base 2, ic_base 2): input
   2x1x2 {(30000, -30000), (30000, -30000)}, kernel 2x1, weights 100 and 100
   (channel 2) and -1, 1 (channel 3). Channel 2: 6000000 at M = 2^-8 (q
   2^30, shift -7): 23437.5 -> 23438 (away from zero); channel 3: 30000 -
   30000 = 0. Then a saturation: M = 2^-7 gives 46875 -> 32767. */
static void test_conv_depthwise(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  fresh(MLIP_LAYER_CONV2D);
  set16(0, 0, 30000);
  set16(0, 1, -30000);
  set16(0, 2, 30000);
  set16(0, 3, -30000);
  set8(512, 100);
  set8(513, 100);
  set8(514, -1);
  set8(515, 1);
  set_record16(768, 0, 0, P30, -7);
  set_record16(768, 1, 0, P30, -7);
  c = conv16(2, 1, 2, 1, 1, 2, 2, 1);
  c->u.conv2d.groups = 4;
  c->u.conv2d.ic_per_group = 1;
  c->u.conv2d.oc_per_group = 1;
  c->u.conv2d.oc_base = 2;
  c->u.conv2d.ic_base = 2;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 23438);
  assert_int_equal(get16(1024, 1), 0);
  set_record16(768, 0, 0, P30, -6);
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 32767);
}

/* A 16x8 CONV2D or FC costs half the int8 compute cycles
   (MLIP_INT16X8_MAC_FACTOR 2 against MLIP_INT8_MAC_FACTOR 4): 147456 MACs at
   256 per cycle. */
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
  c.u.conv2d.dtype = MLIP_DT_INT16;
  r.macs_per_cycle = 256;
  r.dma_bytes_per_cycle = 32;
  r.eltwise_per_cycle = 64;
  r.cmd_overhead_cycles = 40;
  assert_int_equal(mlip_cmd_cycles(&r, &c, &compute, &dma), 1);
  assert_int_equal(compute, 288); /* 147456 / 512 */
  memset(&c, 0, sizeof c);
  c.opcode = MLIP_OP_FC;
  c.u.fc.n = 2;
  c.u.fc.k = 1000;
  c.u.fc.out_c = 512;
  c.u.fc.dtype = MLIP_DT_INT16;
  assert_int_equal(mlip_cmd_cycles(&r, &c, &compute, &dma), 1);
  assert_int_equal(compute, 2000); /* 1024000 / 512 */
  /* MATMUL: int16 by int8 at the 16x8 rate, int16 by int16 at a quarter
     of the int8 rate (MLIP_INT16X16_MAC_FACTOR: four 8x8 products each) */
  memset(&c, 0, sizeof c);
  c.opcode = MLIP_OP_MATMUL;
  c.u.matmul.batch = 2;
  c.u.matmul.m = 16;
  c.u.matmul.k = 64;
  c.u.matmul.n = 32;
  c.u.matmul.dtype = MLIP_DT_INT16;
  assert_int_equal(mlip_cmd_cycles(&r, &c, &compute, &dma), 1);
  assert_int_equal(compute, 128); /* 65536 / 512 */
  c.u.matmul.b_int16 = 1;
  assert_int_equal(mlip_cmd_cycles(&r, &c, &compute, &dma), 1);
  assert_int_equal(compute, 256); /* 65536 / 256 */
}

/* The status of a good 16x8 FC with one field changed. */
#define FC_WITH(field, value) (fresh(MLIP_LAYER_FC), fc16(1, 3, 2)->u.fc.field = (value), validate())

static void test_validate(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  assert_int_equal(FC_WITH(clamp_lo, -32768), MLIP_OK);
  assert_int_equal(FC_WITH(clamp_hi, 32767), MLIP_OK);
  assert_int_equal(FC_WITH(clamp_lo, -32769), MLIP_ERR_INVALID_ARG);
  assert_int_equal(FC_WITH(clamp_hi, 32768), MLIP_ERR_INVALID_ARG);
  assert_int_equal(FC_WITH(clamp_lo, 1), MLIP_OK);
  assert_int_equal(FC_WITH(x_zp, 1), MLIP_ERR_INVALID_ARG); /* symmetric: zero points 0 */
  assert_int_equal(FC_WITH(y_zp, -1), MLIP_ERR_INVALID_ARG);
  /* word 10 of a 16x8 FC is w4_block (the fp16 act's), and 16x8 reads 8-bit weights only */
  assert_int_equal(FC_WITH(w4_block, 1), MLIP_ERR_INVALID_ARG);
  assert_int_equal(FC_WITH(first, 0), MLIP_ERR_INVALID_ARG);
  assert_int_equal(FC_WITH(bias, MLIP_NO_OFFSET), MLIP_ERR_INVALID_ARG);
  assert_int_equal(FC_WITH(dtype, 4u), MLIP_ERR_INVALID_ARG); /* no such type */
  /* int16 rows are two bytes: a row of 600 from 0 ends at 1200, so an
     output at 1024 overlaps it (one-byte elements would end at 600); at
     1280 it does not. */
  fresh(MLIP_LAYER_FC);
  c = fc16(1, 600, 1);
  c->u.fc.weights = 2048;
  c->u.fc.bias = 2688;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.fc.out = 1280;
  assert_int_equal(validate(), MLIP_OK);
  /* 128 int8 weights at 3968 end at the OCM's end (two-byte ones would not fit). */
  fresh(MLIP_LAYER_FC);
  fc16(1, 128, 1)->u.fc.weights = 3968;
  assert_int_equal(validate(), MLIP_OK);
  /* In an fp16 buffer no int16 command is taken. */
  fresh(MLIP_LAYER_FC);
  b.hdr.quantize = MLIP_QUANT_FP16;
  fc16(1, 3, 2);
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  /* AVGPOOL (forms WIDE) takes int16 with zero points 0 and a clamp inside
     int16; MAXPOOL too (an opcode without a 16x8 form, GLOBAL_MAXPOOL,
     refuses it: test_validate_elementwise). */
  fresh(MLIP_LAYER_AVGPOOL);
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_AVGPOOL, 0, layer0);
  c->u.pool.in = 0;
  c->u.pool.in_h = 2;
  c->u.pool.in_w = 2;
  c->u.pool.c = 1;
  c->u.pool.out = 1024;
  c->u.pool.out_h = 1;
  c->u.pool.out_w = 1;
  c->u.pool.kh = 2;
  c->u.pool.kw = 2;
  c->u.pool.stride_h = 2;
  c->u.pool.stride_w = 2;
  c->u.pool.padded_bottom = 2;
  c->u.pool.padded_right = 2;
  c->u.pool.dtype = MLIP_DT_INT8;
  c->u.pool.table = 2048;
  assert_int_equal(validate(), MLIP_OK);
  c->u.pool.dtype = MLIP_DT_INT16;
  c->u.pool.hi = 127;
  assert_int_equal(validate(), MLIP_OK);
  c->u.pool.hi = 32768;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.pool.hi = 32767;
  c->u.pool.x_zp = 1;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.pool.x_zp = 0;
  /* Two-byte elements: a 2x64x1 input at 0 ends at 128 in int8 and at 256
     in int16, over an output at 128. */
  c->u.pool.in_w = 64;
  c->u.pool.padded_right = 64;
  c->u.pool.out_w = 32;
  c->u.pool.out = 128;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.pool.dtype = MLIP_DT_INT8;
  c->u.pool.hi = 127;
  assert_int_equal(validate(), MLIP_OK);
  fresh(MLIP_LAYER_MAXPOOL);
  maxpool16(2, 2, 1, 2, 2, 2);
  assert_int_equal(validate(), MLIP_OK);
  /* CONV2D: the same zero-point and clamp rules. */
  fresh(MLIP_LAYER_CONV2D);
  c = conv16(2, 2, 1, 1, 1, 1, 2, 2);
  assert_int_equal(validate(), MLIP_OK);
  c->u.conv2d.x_zp = 3;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.conv2d.x_zp = 0;
  c->u.conv2d.clamp_hi = 40000;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
}

/* A 16x8 MATMUL: A at 0, B at 512, records at 768, output at 1024; B
   int16 [k][n] (b_int16) unless told. */
static mlip_decoded_cmd* matmul16(uint32_t batch, uint32_t m, uint32_t k, uint32_t n) {
  mlip_decoded_cmd* c = cb_cmd(&b, CB_MAIN, MLIP_OP_MATMUL, 0, layer0);
  c->u.matmul.a = 0;
  c->u.matmul.b = 512;
  c->u.matmul.bias = 768;
  c->u.matmul.out = 1024;
  c->u.matmul.batch = batch;
  c->u.matmul.m = m;
  c->u.matmul.k = k;
  c->u.matmul.n = n;
  c->u.matmul.b_shared = 1;
  c->u.matmul.b_int16 = 1;
  c->u.matmul.clamp_lo = -32768;
  c->u.matmul.clamp_hi = 32767;
  c->u.matmul.dtype = MLIP_DT_INT16;
  return c;
}

/* MATMUL int16 x int16 (attention's q k^T), A = {{32767, -32768},
   {-32768, -32768}}, B columns {1, 1}, {2, 0}, {32767, 32767},
   {-32768, -32768}; sums and records by column:
   0: -1, -65536 at multiplier 1 (P30, 1): -1, and -65536 saturates to -32768.
   1: 65534, -65536 at 1/4 (P30, -1): 16383.5 goes away from zero -> 16384
      (half to even gives 16384 too); -16384.
   2: -32767, -2147418112 at 2^-16: -0.49998 -> 0; -32767 exactly.
   3: 98304 and 2^31 (beyond int32: the 64-bit path) plus bias 2^16 at
      2^-17: 0.75 -> 1; 16384.5 -> 16385 (ties away from zero; onnxruntime's
      half to even gives 16384, test_matmul_ort). */
static void test_matmul(void** state) {
  mlip_decoded_cmd* c;
  static const int32_t av[4] = {32767, -32768, -32768, -32768};
  static const int32_t bv[8] = {1, 2, 32767, -32768, 1, 0, 32767, -32768};
  static const int32_t want[8] = {-1, 16384, 0, 1, -32768, -16384, -32767, 16385};
  uint32_t i;
  (void)state;
  fresh(MLIP_LAYER_MATMUL);
  for (i = 0; i < 4u; ++i) set16(0, i, av[i]);
  for (i = 0; i < 8u; ++i) set16(512, i, bv[i]);
  set_record16(768, 0, 0, P30, 1);
  set_record16(768, 1, 0, P30, -1);
  set_record16(768, 2, 0, P30, -15);
  set_record16(768, 3, I64(16), P30, -16);
  c = matmul16(1, 2, 2, 4);
  assert_int_equal(run(), MLIP_OK);
  for (i = 0; i < 8u; ++i) assert_int_equal(get16(1024, i), want[i]);
  /* a clamp (a Relu: [0, 32767]) takes the negatives to 0 */
  c->u.matmul.clamp_lo = 0;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 0);
  assert_int_equal(get16(1024, 4), 0);
  assert_int_equal(get16(1024, 7), 16385);
  c->u.matmul.clamp_lo = -32768;
  /* a damaged record is refused before anything is written */
  set_record16(768, 3, I64(61) + 1, P30, -16);
  ocm[1024] = 0x5A;
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
  assert_int_equal(ocm[1024], 0x5A);
  /* int16 by constant int8 (b_int16 0), one B per product stored [n][k]
     (trans_b): A {100, -200}, {32767, 32767}, B {-128, 127}, {-128, -128}:
     -38200 and -8388352 at 2^-8 (P30, -7): -149.2 -> -149, -32767. */
  fresh(MLIP_LAYER_MATMUL);
  set16(0, 0, 100);
  set16(0, 1, -200);
  set16(0, 2, 32767);
  set16(0, 3, 32767);
  set8(512, -128);
  set8(513, 127);
  set8(514, -128);
  set8(515, -128);
  set_record16(768, 0, 0, P30, -7);
  c = matmul16(2, 1, 2, 1);
  c->u.matmul.b_int16 = 0;
  c->u.matmul.b_shared = 0;
  c->u.matmul.trans_b = 1;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), -149);
  assert_int_equal(get16(1024, 1), -32767);
}

/* requant ORT: test_matmul's data at float32 scales 1, 1/4, 2^-16, 2^-17:
   the same outputs but the tie of column 3, row 1: 16384.5 -> 16384 (half
   to even; the fixed-point arithmetic gives 16385). */
static void test_matmul_ort(void** state) {
  static const int32_t av[4] = {32767, -32768, -32768, -32768};
  static const int32_t bv[8] = {1, 2, 32767, -32768, 1, 0, 32767, -32768};
  static const int32_t want[8] = {-1, 16384, 0, 1, -32768, -16384, -32767, 16384};
  const float scales[4] = {1.0f, 0.25f, 1.0f / 65536.0f, 1.0f / 131072.0f};
  mlip_decoded_cmd* c;
  uint32_t i;
  (void)state;
  fresh(MLIP_LAYER_MATMUL);
  for (i = 0; i < 4u; ++i) set16(0, i, av[i]);
  for (i = 0; i < 8u; ++i) set16(512, i, bv[i]);
  for (i = 0; i < 4u; ++i) {
    int32_t qs;
    memcpy(&qs, &scales[i], sizeof qs);
    set_record16(768, i, i == 3u ? I64(16) : 0, qs, MLIP_REQUANT_F32);
  }
  c = matmul16(1, 2, 2, 4);
  c->u.matmul.requant = MLIP_REQUANT_ORT;
  assert_int_equal(run(), MLIP_OK);
  for (i = 0; i < 8u; ++i) assert_int_equal(get16(1024, i), want[i]);
  /* fixed-point records in an ORT command are refused */
  set_record16(768, 0, 0, P30, 1);
  assert_int_equal(run(), MLIP_ERR_INVALID_ARG);
}

/* The status of a good 16x8 MATMUL (1 x 2 x 2 by 2 x 4, int16 B) with one
   field changed. */
#define MM_WITH(field, value) (fresh(MLIP_LAYER_MATMUL), matmul16(1, 1, 2, 4)->u.matmul.field = (value), validate())

static void test_validate_matmul(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  assert_int_equal(MM_WITH(b_int16, 0u), MLIP_OK);
  assert_int_equal(MM_WITH(b_int16, 2u), MLIP_ERR_INVALID_ARG); /* a flag */
  assert_int_equal(MM_WITH(a_zp, 1), MLIP_ERR_INVALID_ARG);     /* symmetric */
  assert_int_equal(MM_WITH(b_zp, -1), MLIP_ERR_INVALID_ARG);
  assert_int_equal(MM_WITH(y_zp, 1), MLIP_ERR_INVALID_ARG);
  assert_int_equal(MM_WITH(clamp_hi, 32768), MLIP_ERR_INVALID_ARG);
  assert_int_equal(MM_WITH(clamp_lo, -32769), MLIP_ERR_INVALID_ARG);
  assert_int_equal(MM_WITH(bias, MLIP_NO_OFFSET), MLIP_ERR_INVALID_ARG); /* the records are required */
  assert_int_equal(MM_WITH(k, MLIP_INT8_MAX_TAPS + 1u), MLIP_ERR_INVALID_ARG);
  assert_int_equal(MM_WITH(act, MLIP_ACT_RELU), MLIP_ERR_INVALID_ARG);
  assert_int_equal(MM_WITH(dtype, MLIP_DT_INT8), MLIP_ERR_INVALID_ARG); /* an 8-bit MATMUL has no int16 B */
  fresh(MLIP_LAYER_MATMUL);
  c = matmul16(1, 1, 2, 4);
  c->u.matmul.b_int16 = 0;
  c->u.matmul.dtype = MLIP_DT_INT8;
  c->u.matmul.clamp_lo = -128;
  c->u.matmul.clamp_hi = 127;
  assert_int_equal(validate(), MLIP_OK);
  /* Two-byte elements: A of 1 x 300 at 0 ends at 600, over an output at
     512 (one-byte elements would end at 300); B of 300 x 1 at 1536 ends
     at 2136 as int16, over an output at 2048, and at 1836 as int8. */
  fresh(MLIP_LAYER_MATMUL);
  c = matmul16(1, 1, 300, 1);
  c->u.matmul.b = 1536;
  c->u.matmul.bias = 2560;
  c->u.matmul.out = 512;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.matmul.out = 2048;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.matmul.b_int16 = 0;
  assert_int_equal(validate(), MLIP_OK);
  /* In an fp16 buffer no int16 command is taken. */
  fresh(MLIP_LAYER_MATMUL);
  b.hdr.quantize = MLIP_QUANT_FP16;
  matmul16(1, 1, 2, 4);
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
}

/* A 16x8 GLOBAL_AVGPOOL over [hw][c] int16 at 0, out at 1024. */
static mlip_decoded_cmd* gap16(uint32_t hw, uint32_t ch, int32_t q, int32_t shift) {
  mlip_decoded_cmd* c = cb_cmd(&b, CB_MAIN, MLIP_OP_GLOBAL_AVGPOOL, 0, layer0);
  c->u.global_pool.in = 0;
  c->u.global_pool.out = 1024;
  c->u.global_pool.hw = hw;
  c->u.global_pool.c = ch;
  c->u.global_pool.q = q;
  c->u.global_pool.shift = shift;
  c->u.global_pool.lo = -32768;
  c->u.global_pool.hi = 32767;
  c->u.global_pool.dtype = MLIP_DT_INT16;
  return c;
}

/* 16x8 GLOBAL_AVGPOOL: four positions of four channels, the int64 sum of
   each channel requantized by mlip_requantize64.
   M = 1/4 (q 2^30, shift -1): channel 0 {32767 x4} -> 32767, channel 1
   {-32768 x4} -> -32768 (both ends, exact means), channel 2 {1, 2, 3, 0}
   -> 1.5, a tie: the rounding shift goes away from zero -> 2, channel 3
   {-1, -2, -3, 0} -> -2. M = 1/2 (shift 0): channel 0's 65534 saturates
   to 32767, channel 1's -65536 to -32768, channel 2 sum 6 -> 3, channel 3
   -6 -> -3. A clamp [0, 32767] (a fused Relu) takes the negatives to 0. */
static void test_global_avgpool(void** state) {
  static const int32_t x[16] = {32767, -32768, 1, -1, 32767, -32768, 2, -2, 32767, -32768, 3, -3, 32767, -32768, 0, 0};
  mlip_decoded_cmd* c;
  uint32_t i;
  (void)state;
  fresh(MLIP_LAYER_GLOBAL_AVGPOOL);
  for (i = 0; i < 16u; ++i) set16(0, i, x[i]);
  c = gap16(4, 4, P30, -1);
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 32767);
  assert_int_equal(get16(1024, 1), -32768);
  assert_int_equal(get16(1024, 2), 2);
  assert_int_equal(get16(1024, 3), -2);
  c->u.global_pool.shift = 0;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 32767);
  assert_int_equal(get16(1024, 1), -32768);
  assert_int_equal(get16(1024, 2), 3);
  assert_int_equal(get16(1024, 3), -3);
  c->u.global_pool.lo = 0;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 1), 0);
  assert_int_equal(get16(1024, 3), 0);
  assert_int_equal(get16(1024, 0), 32767);
}

/* A 16x8 ADD of count int16 at 0 and 512, out at 1024. */
static mlip_decoded_cmd* add16(uint32_t count, int32_t sy) {
  mlip_decoded_cmd* c = cb_cmd(&b, CB_MAIN, MLIP_OP_ADD, 0, layer0);
  c->u.add.a = 0;
  c->u.add.b = 512;
  c->u.add.out = 1024;
  c->u.add.count = count;
  c->u.add.qa = P30; /* each operand by 1/2 to the common scale */
  c->u.add.qb = P30;
  c->u.add.qy = P30;
  c->u.add.sy = sy;
  c->u.add.lo = -32768;
  c->u.add.hi = 32767;
  c->u.add.dtype = MLIP_DT_INT16;
  return c;
}

/* 16x8 ADD (mlip_qadd16_sum: each operand scaled by 2^15, not 8 bits'
   2^20, which would overflow int32 at 32767): operands a, b each at 1/2,
   so s = (a + b) * 2^14. With (qy, sy) = (2^30, -13), M = 2^-14: a + b,
   {32767 + 32767, -32768 + -32768} saturate to 32767 and -32768, 1 + 2 =
   3, -300 + 299 = -1. With sy -14, M = 2^-15: (a + b) / 2, the ties 1.5
   and -1.5 away from zero -> 2 and -2 (the rounding shift). */
static void test_add(void** state) {
  static const int32_t a[4] = {32767, -32768, 1, -300}, bb[4] = {32767, -32768, 2, 299};
  mlip_decoded_cmd* c;
  uint32_t i;
  (void)state;
  fresh(MLIP_LAYER_ADD);
  for (i = 0; i < 4u; ++i) {
    set16(0, i, a[i]);
    set16(512, i, bb[i]);
  }
  c = add16(4, -13);
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 32767);
  assert_int_equal(get16(1024, 1), -32768);
  assert_int_equal(get16(1024, 2), 3);
  assert_int_equal(get16(1024, 3), -1);
  set16(0, 3, -1);
  set16(512, 3, -2);
  c->u.add.sy = -14;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 32767);
  assert_int_equal(get16(1024, 1), -32768);
  assert_int_equal(get16(1024, 2), 2);
  assert_int_equal(get16(1024, 3), -2);
  c->u.add.lo = 0; /* a fused Relu */
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 1), 0);
  assert_int_equal(get16(1024, 3), 0);
}

/* A 16x8 ELTWISE MUL of count int16 at 0 and b_len at 512, out at 1024. */
static mlip_decoded_cmd* mul16(uint32_t count, uint32_t b_len, int32_t shift) {
  mlip_decoded_cmd* c = cb_cmd(&b, CB_MAIN, MLIP_OP_ELTWISE, 0, layer0);
  c->u.eltwise.a = 0;
  c->u.eltwise.b = 512;
  c->u.eltwise.out = 1024;
  c->u.eltwise.count = count;
  c->u.eltwise.b_len = b_len;
  c->u.eltwise.func = MLIP_ELT_MUL;
  c->u.eltwise.q = P30;
  c->u.eltwise.shift = shift;
  c->u.eltwise.lo = -32768;
  c->u.eltwise.hi = 32767;
  c->u.eltwise.dtype = MLIP_DT_INT16;
  return c;
}

/* 16x8 ELTWISE MUL: p = a * b exact in int32, requantized.
   M = 2^-15 (shift -14): 32767 * 32767 / 2^15 = 32766.00003 -> 32766;
   -32768 * -32768 = 2^30 -> 32768 saturates to 32767; -32768 * 32767 ->
   -32767; 3 * -1 -> -0.00009 -> 0. M = 1/2 (shift 0): 3 * 1 -> 1.5 -> 2
   (the high multiply's tie toward +infinity), 3 * -1 -> -1.5 -> -1.
   b cycled (b_len 2: one value per channel of two) at two bytes a value:
   {1, 2, 3, 4} * {10, -10} at M = 1 (shift 1) -> 10, -20, 30, -40. And
   the product by 1 a lone 16x8 Clip lowers to. */
static void test_mul(void** state) {
  static const int32_t a[4] = {32767, -32768, -32768, 3}, bb[4] = {32767, -32768, 32767, -1};
  mlip_decoded_cmd* c;
  uint32_t i;
  (void)state;
  fresh(MLIP_LAYER_ELTWISE);
  for (i = 0; i < 4u; ++i) {
    set16(0, i, a[i]);
    set16(512, i, bb[i]);
  }
  c = mul16(4, 4, -14);
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 32766);
  assert_int_equal(get16(1024, 1), 32767);
  assert_int_equal(get16(1024, 2), -32767);
  assert_int_equal(get16(1024, 3), 0);
  set16(0, 2, 3);
  set16(512, 2, 1);
  c->u.eltwise.shift = 0;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 2), 2);
  assert_int_equal(get16(1024, 3), -1);
  fresh(MLIP_LAYER_ELTWISE);
  for (i = 0; i < 4u; ++i) set16(0, i, (int32_t)i + 1);
  set16(512, 0, 10);
  set16(512, 1, -10);
  mul16(4, 2, 1);
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 10);
  assert_int_equal(get16(1024, 1), -20);
  assert_int_equal(get16(1024, 2), 30);
  assert_int_equal(get16(1024, 3), -40);
  /* A Clip's layer (codegen: lower_clamp16): times a scalar 1 at M = 1
     (q 2^30, shift 1) is exact at both ends of int16; the clamp [-5, 7]
     gives the Clip. */
  fresh(MLIP_LAYER_ELTWISE);
  set16(0, 0, 32767);
  set16(0, 1, -32768);
  set16(0, 2, 6);
  set16(0, 3, -5);
  set16(512, 0, 1);
  c = mul16(4, 1, 1);
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 32767);
  assert_int_equal(get16(1024, 1), -32768);
  assert_int_equal(get16(1024, 2), 6);
  assert_int_equal(get16(1024, 3), -5);
  c->u.eltwise.lo = -5;
  c->u.eltwise.hi = 7;
  assert_int_equal(run(), MLIP_OK);
  assert_int_equal(get16(1024, 0), 7);
  assert_int_equal(get16(1024, 1), -5);
  assert_int_equal(get16(1024, 2), 6);
}

/* The validator on the three: two-byte extents, zero points 0, GLOBAL_MAXPOOL
   (forms BOTH) without a 16x8 form. */
static void test_validate_elementwise(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  /* 300 int16 at 0 end at 600, so b at 512 overlaps nothing but out at 512 would; out
     at 1024 after 600 is fine, an output at 256 overlaps a's two-byte extent. */
  fresh(MLIP_LAYER_ADD);
  c = add16(300, -13);
  c->u.add.b = 2048;
  assert_int_equal(validate(), MLIP_OK);
  c->u.add.out = 512;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.add.out = 1024;
  c->u.add.a_zp = 1;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  fresh(MLIP_LAYER_ELTWISE);
  c = mul16(300, 300, -14);
  c->u.eltwise.b = 2048;
  assert_int_equal(validate(), MLIP_OK);
  c->u.eltwise.out = 512;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.eltwise.out = 1024;
  c->u.eltwise.hi = 40000;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  fresh(MLIP_LAYER_GLOBAL_AVGPOOL);
  c = gap16(300, 1, P30, -8);
  assert_int_equal(validate(), MLIP_OK);
  c->u.global_pool.out = 512; /* inside the input's 600 bytes */
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.global_pool.out = 1024;
  c->u.global_pool.y_zp = 2;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  fresh(MLIP_LAYER_GLOBAL_MAXPOOL);
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_GLOBAL_MAXPOOL, 0, layer0);
  c->u.global_pool.in = 0;
  c->u.global_pool.out = 1024;
  c->u.global_pool.hw = 4;
  c->u.global_pool.c = 1;
  c->u.global_pool.dtype = MLIP_DT_INT8;
  assert_int_equal(validate(), MLIP_OK);
  c->u.global_pool.dtype = MLIP_DT_INT16;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
}

/* ---- random shapes ----------------------------------------------------------- */

#define BIG_OCM (1024u * 1024u) /* MLIP_MAX_OCM_SIZE: room for a 65600-entry AVGPOOL table */
static uint8_t big[BIG_OCM];
static int32_t want_big[32u * 1024u];
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next(void) { /* splitmix64 */
  uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (uint32_t)(z ^ (z >> 31));
}
static uint32_t pick(uint32_t lo, uint32_t hi) {
  return lo + next() % (hi - lo + 1u);
}
/* An int16 operand: often an end of the type or zero. */
static int32_t operand16(void) {
  switch (next() % 8u) {
    case 0: return 32767;
    case 1: return -32768;
    case 2: return 0;
    default: return (int32_t)(next() % 65536u) - 32768;
  }
}

/* The simulator's 16x8 CONV2D against the spec's loop (section 4a: the
   int64 sum over the taps inside the block, the record's int64 bias,
   mlip_requantize64 into the clamp), on random shapes as runtime.sim_conv_random
   draws them (groups, depthwise, blocks starting inside a group, strides,
   dilations, padding), random int16 inputs with both ends of the type,
   int8 weights with -128, biases up to 2^40 in magnitude, multipliers from
   2^-31 to 2^3 and random clamps. */
static void test_conv_random(void** state) {
  uint32_t k;
  (void)state;
  for (k = 0; k < 300u; ++k) {
    const uint32_t groups = k % 5u == 0u ? pick(1, 24) : pick(1, 3), icpg = k % 5u == 0u ? 1u : pick(1, 24);
    const uint32_t ocpg = k % 5u == 0u ? pick(1, 2) : pick(1, 12);
    const uint32_t kh = pick(1, 3), kw = pick(1, k % 7u == 0u ? 5 : 3);
    const uint32_t sh = pick(1, 2), sw = pick(1, 3), dh = pick(1, 2), dw = pick(1, 2);
    const uint32_t pt = pick(0, 2), pl = pick(0, 2), pb = pick(0, 2), pr = pick(0, 2);
    const uint32_t layer_oc = groups * ocpg, oc_base = pick(0, layer_oc - 1u), out_c = pick(1, layer_oc - oc_base);
    const uint32_t g0 = oc_base / ocpg, g1 = (oc_base + out_c - 1u) / ocpg;
    const uint32_t ic_base = g0 * icpg, in_c = (g1 - g0 + 1u) * icpg;
    const int32_t lo = next() % 3u == 0u ? 0 : -32768, hi = next() % 4u == 0u ? 20000 : 32767;
    uint32_t in_h = pick(1, 7), in_w = pick(1, 9), out_h, out_w, w_off, b_off, out_off, i, j, oh, ow, y, x, ic;
    mlip_decoded_cmd* c;
    if (in_h + pt + pb < dh * (kh - 1u) + 1u) in_h = dh * (kh - 1u) + 1u;
    if (in_w + pl + pr < dw * (kw - 1u) + 1u) in_w = dw * (kw - 1u) + 1u;
    out_h = (in_h + pt + pb - dh * (kh - 1u) - 1u) / sh + 1u;
    out_w = (in_w + pl + pr - dw * (kw - 1u) - 1u) / sw + 1u;
    w_off = (in_h * in_w * in_c * 2u + 127u) & ~127u;
    b_off = (w_off + out_c * kh * kw * icpg + 127u) & ~127u;
    out_off = (b_off + out_c * MLIP_REQUANT16_RECORD_BYTES + 127u) & ~127u;
    assert_true(out_off + out_h * out_w * out_c * 2u <= BIG_OCM);
    assert_true(out_h * out_w * out_c <= sizeof want_big / sizeof want_big[0]);
    memset(big, 0, sizeof big);
    for (i = 0; i < in_h * in_w * in_c; ++i) {
      const int32_t v = operand16();
      const uint32_t u = (uint32_t)(v < 0 ? v + 65536 : v);
      big[2u * i] = (uint8_t)(u & 0xFFu);
      big[2u * i + 1u] = (uint8_t)(u >> 8);
    }
    for (i = 0; i < out_c * kh * kw * icpg; ++i) big[w_off + i] = (uint8_t)(next() % 256u);
    for (j = 0; j < out_c; ++j) {
      /* a multiplier q * 2^(shift - 31): q in [2^30, 2^31), shift in [-30, 3] */
      const int32_t q = (int32_t)(((uint32_t)1 << 30) + next() % ((uint32_t)1 << 30)), sft = (int32_t)pick(0, 33) - 30;
      const int64_t bias = (int64_t)(((uint64_t)next() << 32 | next()) % ((uint64_t)1 << 41)) - ((int64_t)1 << 40);
      uint32_t w[4];
      w[0] = (uint32_t)((uint64_t)bias & 0xFFFFFFFFu);
      w[1] = (uint32_t)((uint64_t)bias >> 32);
      w[2] = (uint32_t)q;
      w[3] = (uint32_t)sft;
      memcpy(big + b_off + j * MLIP_REQUANT16_RECORD_BYTES, w, sizeof w);
    }
    cb_init(&b, MLIP_MCPU_CN10KA, 1, BIG_OCM);
    b.hdr.quantize = MLIP_QUANT_INT8;
    cb_layer(&b, MLIP_LAYER_CONV2D, "conv");
    c = cb_cmd(&b, CB_MAIN, MLIP_OP_CONV2D, 0, 0);
    c->u.conv2d.in = 0;
    c->u.conv2d.in_h = in_h;
    c->u.conv2d.in_w = in_w;
    c->u.conv2d.in_c = in_c;
    c->u.conv2d.weights = w_off;
    c->u.conv2d.bias = b_off;
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
    c->u.conv2d.clamp_lo = lo;
    c->u.conv2d.clamp_hi = hi;
    c->u.conv2d.dtype = MLIP_DT_INT16;
    /* the spec's loop, one output at a time */
    for (oh = 0; oh < out_h; ++oh) {
      for (ow = 0; ow < out_w; ++ow) {
        for (j = 0; j < out_c; ++j) {
          const uint32_t cbase = ((oc_base + j) / ocpg) * icpg - ic_base;
          const uint8_t* r = big + b_off + j * MLIP_REQUANT16_RECORD_BYTES;
          uint32_t w[4];
          int64_t acc = 0;
          for (y = 0; y < kh; ++y) {
            const int64_t ih = (int64_t)oh * sh - pt + (int64_t)y * dh;
            if (ih < 0 || ih >= (int64_t)in_h) continue;
            for (x = 0; x < kw; ++x) {
              const int64_t iw = (int64_t)ow * sw - pl + (int64_t)x * dw;
              if (iw < 0 || iw >= (int64_t)in_w) continue;
              for (ic = 0; ic < icpg; ++ic) {
                const uint32_t at = 2u * (((uint32_t)ih * in_w + (uint32_t)iw) * in_c + cbase + ic);
                const int32_t u = (int32_t)big[at] | (int32_t)big[at + 1u] << 8;
                const int32_t wb = big[w_off + ((j * kh + y) * kw + x) * icpg + ic];
                acc += (int64_t)(u >= 32768 ? u - 65536 : u) * (wb >= 128 ? wb - 256 : wb);
              }
            }
          }
          memcpy(w, r, sizeof w);
          acc += (int64_t)((uint64_t)w[0] | (uint64_t)w[1] << 32);
          want_big[(oh * out_w + ow) * out_c + j] = mlip_requantize64(acc, (int32_t)w[2], (int32_t)w[3], 0, lo, hi);
        }
      }
    }
    assert_int_equal(cb_run(&b, big, sizeof big, NULL, 0, NULL, 0, NULL, 0, NULL, 0), MLIP_OK);
    for (i = 0; i < out_h * out_w * out_c; ++i) {
      const int32_t u = (int32_t)big[out_off + 2u * i] | (int32_t)big[out_off + 2u * i + 1u] << 8;
      if ((u >= 32768 ? u - 65536 : u) != want_big[i]) {
        print_error("case %u: output %u is %d, the spec gives %d\n", k, i, u >= 32768 ? u - 65536 : u, want_big[i]);
        fail();
      }
    }
  }
}

/* The simulator's 16x8 GLOBAL_AVGPOOL against the CPU kernel's loop
   (templates/kernels/qlinear_global_avgpool16.c: the int64 sum, then
   mlip_requantize64 into [lo, hi]) on random sizes, int16 inputs with both
   ends of the type, random multipliers and clamps; and one channel of
   70000 positions of 32767 (a sum of 2293690000, beyond int32) at M =
   2^-17: 17499.3 -> 17499. */
static void test_global_avgpool_random(void** state) {
  uint32_t k, i, p, cc;
  (void)state;
  for (k = 0; k < 200u; ++k) {
    const uint32_t ch = k == 0u ? 1u : pick(1, 40), hw = k == 0u ? 70000u : pick(1, 600);
    const int32_t q = k == 0u ? P30 : (int32_t)(((uint32_t)1 << 30) + next() % ((uint32_t)1 << 30));
    const int32_t sft = k == 0u ? -16 : (int32_t)pick(0, 20) - 20;
    const int32_t lo = k != 0u && next() % 3u == 0u ? 0 : -32768, hi = k != 0u && next() % 4u == 0u ? 20000 : 32767;
    const uint32_t out_off = (hw * ch * 2u + 127u) & ~127u;
    mlip_decoded_cmd* c;
    assert_true(out_off + ch * 2u <= BIG_OCM);
    memset(big, 0, sizeof big);
    for (i = 0; i < hw * ch; ++i) {
      const int32_t v = k == 0u ? 32767 : operand16();
      const uint32_t u = (uint32_t)(v < 0 ? v + 65536 : v);
      big[2u * i] = (uint8_t)(u & 0xFFu);
      big[2u * i + 1u] = (uint8_t)(u >> 8);
    }
    for (cc = 0; cc < ch; ++cc) {
      int64_t acc = 0;
      for (p = 0; p < hw; ++p) {
        const uint32_t at = 2u * (p * ch + cc);
        const int32_t u = (int32_t)big[at] | (int32_t)big[at + 1u] << 8;
        acc += u >= 32768 ? u - 65536 : u;
      }
      want_big[cc] = mlip_requantize64(acc, q, sft, 0, lo, hi);
    }
    if (k == 0u) assert_int_equal(want_big[0], 17499);
    cb_init(&b, MLIP_MCPU_CN10KA, 1, BIG_OCM);
    b.hdr.quantize = MLIP_QUANT_INT8;
    cb_layer(&b, MLIP_LAYER_GLOBAL_AVGPOOL, "gap");
    c = cb_cmd(&b, CB_MAIN, MLIP_OP_GLOBAL_AVGPOOL, 0, 0);
    c->u.global_pool.in = 0;
    c->u.global_pool.out = out_off;
    c->u.global_pool.hw = hw;
    c->u.global_pool.c = ch;
    c->u.global_pool.q = q;
    c->u.global_pool.shift = sft;
    c->u.global_pool.lo = lo;
    c->u.global_pool.hi = hi;
    c->u.global_pool.dtype = MLIP_DT_INT16;
    assert_int_equal(cb_run(&b, big, sizeof big, NULL, 0, NULL, 0, NULL, 0, NULL, 0), MLIP_OK);
    for (cc = 0; cc < ch; ++cc) {
      const int32_t u = (int32_t)big[out_off + 2u * cc] | (int32_t)big[out_off + 2u * cc + 1u] << 8;
      if ((u >= 32768 ? u - 65536 : u) != want_big[cc]) {
        print_error("case %u: channel %u is %d, the kernel's loop gives %d\n", k, cc, u >= 32768 ? u - 65536 : u,
                    want_big[cc]);
        fail();
      }
    }
  }
}

/* 16x8 AVGPOOL of one window of 65600 taps of 32767: the sum, 2149515200,
   passes int32 (an int32 sum wraps negative); entry 65600 is 1/65600, so
   the mean 32767 comes back exactly; every other entry (unread) 1/2. */
/* A 16x8 TABLE of count int16 elements at 0 into out, knots at 2048. */
static mlip_decoded_cmd* table16(uint32_t count, uint32_t out) {
  mlip_decoded_cmd* c = cb_cmd(&b, CB_MAIN, MLIP_OP_TABLE, 0, layer0);
  c->u.table.in = 0;
  c->u.table.out = out;
  c->u.table.count = count;
  c->u.table.table = 2048;
  c->u.table.dtype = MLIP_DT_INT16;
  return c;
}

/* TABLE int16: 513 knots 128 input steps apart, y = t[k] + floor((t[k+1]
   - t[k]) * o + 64) / 128) (mlip/lut16.h). Knots 0 but: t0 -32768, t1
   -32568; t100 0, t101 1; t200 0, t201 -1; t300 -32768, t301 32767; t511
   and t512 32767. By hand:
   -32768 (k 0, o 0): -32768, the bottom of int16;
   -32641 (k 0, o 127, a segment's end): (25400 + 64) / 128 = 198.9 -> -32570;
   -32640 (k 1, o 0, the next segment's start): t1 = -32568;
   -19904 (k 100, o 64): (64 + 64) / 128 = 1, a tie rounds up;
   -19905 (k 100, o 63): 127 / 128 -> 0;
   -7104 (k 200, o 64): (-64 + 64) / 128 = 0;
   -7103 (k 200, o 65): floor(-1 / 128) = -1;
   5759 (k 300, o 127): -32768 + floor((65535 * 127 + 64) / 128) = 32255;
   32767 (k 511, o 127): 32767, the top (knot 512 only for the slope);
   5632 (k 300, o 0): -32768. */
static void test_table(void** state) {
  static const int32_t x[10] = {-32768, -32641, -32640, -19904, -19905, -7104, -7103, 5759, 32767, 5632};
  static const int32_t want[10] = {-32768, -32570, -32568, 1, 0, 0, -1, 32255, 32767, -32768};
  static int16_t knots[MLIP_LUT16_ENTRIES];
  uint32_t i;
  (void)state;
  fresh(MLIP_LAYER_ACTIVATION);
  set16(2048, 0, -32768);
  set16(2048, 1, -32568);
  set16(2048, 101, 1);
  set16(2048, 201, -1);
  set16(2048, 300, -32768);
  set16(2048, 301, 32767);
  set16(2048, 511, 32767);
  set16(2048, 512, 32767);
  for (i = 0; i < 10u; ++i) set16(0, i, x[i]);
  table16(10, 1024);
  assert_int_equal(run(), MLIP_OK);
  for (i = 0; i < 10u; ++i) assert_int_equal(get16(1024, i), want[i]);
  /* Random knots and inputs, in place: the CPU kernels' function
     (mlip_lut16 on an int16 array) gives the same values. */
  fresh(MLIP_LAYER_ACTIVATION);
  for (i = 0; i < MLIP_LUT16_ENTRIES; ++i) {
    knots[i] = (int16_t)((int32_t)(next() & 0xFFFFu) - 32768);
    set16(2048, i, knots[i]);
  }
  for (i = 0; i < 900u; ++i) set16(0, i, (int32_t)(next() & 0xFFFFu) - 32768);
  for (i = 0; i < 900u; ++i) want_big[i] = mlip_lut16(get16(0, i), knots);
  table16(900, 0);
  assert_int_equal(run(), MLIP_OK);
  for (i = 0; i < 900u; ++i) assert_int_equal(get16(0, i), want_big[i]);
}

static void test_validate_table(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  fresh(MLIP_LAYER_ACTIVATION);
  c = table16(600, 0);
  assert_int_equal(validate(), MLIP_OK); /* in place */
  /* two-byte elements: 600 from 0 end at 1200, over an output at 1024 */
  c->u.table.out = 1024;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  c->u.table.dtype = MLIP_DT_INT8;
  assert_int_equal(validate(), MLIP_OK);
  /* the knots are 1026 bytes: at 3072 they pass the OCM's end (4096,
     MLIP_ERR_BOUNDS), 256 bytes of an 8-bit table do not */
  c->u.table.out = 0;
  c->u.table.table = 3072;
  assert_int_equal(validate(), MLIP_OK);
  c->u.table.dtype = MLIP_DT_INT16;
  assert_int_equal(validate(), MLIP_ERR_BOUNDS);
  /* an output over the knots */
  c->u.table.table = 2048;
  c->u.table.in = 2560;
  c->u.table.out = 2560;
  c->u.table.count = 100;
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
  /* no fp16 form: an fp16 buffer takes no TABLE */
  fresh(MLIP_LAYER_ACTIVATION);
  b.hdr.quantize = MLIP_QUANT_FP16;
  table16(10, 1024);
  assert_int_equal(validate(), MLIP_ERR_INVALID_ARG);
}

static void test_avgpool_wide_sum(void** state) {
  const uint32_t taps = 65600u, table = 2u * taps + 128u,
                 out = (table + (taps + 1u) * MLIP_POOL_TABLE_ENTRY_BYTES + 127u) & ~127u;
  mlip_decoded_cmd* c;
  int32_t q, shift;
  uint32_t i;
  (void)state;
  assert_true(out + 128u <= BIG_OCM);
  memset(big, 0, sizeof big);
  for (i = 0; i < taps; ++i) {
    big[2u * i] = 0xFF;
    big[2u * i + 1u] = 0x7F;
  }
  assert_int_equal(mlip_quantize_multiplier(1.0 / taps, &q, &shift), 0);
  for (i = 0; i <= taps; ++i) {
    const int32_t w[2] = {i == taps ? q : P30, i == taps ? shift : 0};
    memcpy(big + table + i * MLIP_POOL_TABLE_ENTRY_BYTES, w, sizeof w);
  }
  cb_init(&b, MLIP_MCPU_CN10KA, 1, BIG_OCM);
  b.hdr.quantize = MLIP_QUANT_INT8;
  cb_layer(&b, MLIP_LAYER_AVGPOOL, "avg");
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_AVGPOOL, 0, 0);
  c->u.pool.in = 0;
  c->u.pool.in_h = 1;
  c->u.pool.in_w = taps;
  c->u.pool.c = 1;
  c->u.pool.out = out;
  c->u.pool.out_h = 1;
  c->u.pool.out_w = 1;
  c->u.pool.kh = 1;
  c->u.pool.kw = taps;
  c->u.pool.stride_h = 1;
  c->u.pool.stride_w = 1;
  c->u.pool.padded_bottom = 1;
  c->u.pool.padded_right = (int32_t)taps;
  c->u.pool.table = table;
  c->u.pool.lo = -32768;
  c->u.pool.hi = 32767;
  c->u.pool.dtype = MLIP_DT_INT16;
  assert_int_equal(cb_run(&b, big, sizeof big, NULL, 0, NULL, 0, NULL, 0, NULL, 0), MLIP_OK);
  assert_int_equal((int32_t)big[out] | (int32_t)big[out + 1u] << 8, 32767);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_fc),
    cmocka_unit_test(test_fc_ort),
    cmocka_unit_test(test_matmul),
    cmocka_unit_test(test_matmul_ort),
    cmocka_unit_test(test_validate_matmul),
    cmocka_unit_test(test_table),
    cmocka_unit_test(test_validate_table),
    cmocka_unit_test(test_conv),
    cmocka_unit_test(test_conv_depthwise),
    cmocka_unit_test(test_conv_random),
    cmocka_unit_test(test_maxpool),
    cmocka_unit_test(test_avgpool),
    cmocka_unit_test(test_avgpool_wide_sum),
    cmocka_unit_test(test_global_avgpool),
    cmocka_unit_test(test_global_avgpool_random),
    cmocka_unit_test(test_add),
    cmocka_unit_test(test_mul),
    cmocka_unit_test(test_validate_elementwise),
    cmocka_unit_test(test_cycles),
    cmocka_unit_test(test_validate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
