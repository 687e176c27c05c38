/* runtime.sim_fuzz (and runtime.sim_fuzz_asan, the same file built with the
   runtime under AddressSanitizer + UBSan): a valid multi-layer buffer over
   two tiles (DMA_IN, CONVERT, LAYOUT, CONV2D, MAXPOOL, AVGPOOL,
   GLOBAL_AVGPOOL, ADD, FC in two K chunks with pinned weights, DMA_OUT) is
   run once for a reference output, then mutated thousands of times with a
   fixed-seed PRNG:
     (a) random bit flips, (b) random bytes, (c) truncation, (d) extension,
     (e) a 32-bit word set to an "interesting" value, (f) the same on the
     operand words of INIT and MAIN commands,
   first WITHOUT fixing the CRCs (the run must fail, or give exactly the
   reference output), then WITH the CRCs (and total_size) recomputed, so the
   semantic validator and the executor see the mutations (the run must
   return an error or complete; never crash or touch memory out of bounds).
   The command buffer of every iteration is its own heap block of exactly
   its size, and the OCM, scratch, input and output are exactly-sized
   arrays, so AddressSanitizer sees any access past them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cmdbuf_builder.h"
#include "mlip/region.h"

#define TILES 2u
#define OCM_SIZE 4096u
#define PINNED 3072u
#ifndef MLIP_FUZZ_ITERATIONS
#define MLIP_FUZZ_ITERATIONS 2000u /* per mutation kind and CRC mode; -D for a longer run */
#endif

/* Exactly-sized memories. */
static uint8_t ocm[TILES * OCM_SIZE];
static uint8_t scratch[1024];
static float input[2 * 8 * 8];
static float output[10];
static mlip_layer_stats stats[6];

static cb_builder b;
static uint8_t ref_buf[16384];
static size_t ref_size;
static float ref_output[10];

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { /* splitmix64 */
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static uint32_t rnd_below(uint32_t n) {
  return n == 0u ? 0u : (uint32_t)(rnd() % n);
}

static uint16_t h16(float f) {
  return cb_h(f);
}

/* ---- the reference buffer ---------------------------------------------------- */

static void build_reference(void) {
  uint16_t conv_w[4 * 3 * 3 * 2];
  float conv_b[4];
  uint8_t blob[2][788];
  float fc_w[10][64];
  float fc_b[10];
  uint32_t w_conv, w_cbias, w_blob[2];
  uint32_t l_pin, l_in, l_conv, l_pool, l_fc, l_out;
  uint32_t bi, bo, bs, t, i, k;
  mlip_decoded_cmd* c;

  for (i = 0; i < 4 * 3 * 3 * 2; ++i) conv_w[i] = h16((float)((int)(i * 7u % 11u) - 5) * 0.125f);
  for (i = 0; i < 4; ++i) conv_b[i] = 0.25f * (float)i - 0.3f;
  for (i = 0; i < 10; ++i) {
    for (k = 0; k < 64; ++k) fc_w[i][k] = (float)((int)((i * 64u + k) * 13u % 17u) - 8) * 0.0625f;
    fc_b[i] = (float)i * 0.1f;
  }
  /* per tile: FC weights of 5 outputs, K chunk 0 [5][32] at 0, chunk 1 at 384, bias at 768 */
  memset(blob, 0, sizeof blob);
  for (t = 0; t < 2; ++t) {
    for (i = 0; i < 5; ++i) {
      for (k = 0; k < 64; ++k) {
        uint16_t hv = h16(fc_w[5 * t + i][k]);
        uint32_t off = (k < 32 ? 0u : 384u) + (i * 32u + k % 32u) * 2u;
        memcpy(&blob[t][off], &hv, 2);
      }
      memcpy(&blob[t][768 + 4 * i], &fc_b[5 * t + i], 4);
    }
  }

  cb_init(&b, MLIP_MCPU_CN10KA, TILES, OCM_SIZE);
  b.hdr.flags = MLIP_FLAG_WB_PIN_OCM;
  b.hdr.ocm_pinned_offset = PINNED;
  l_pin = cb_layer(&b, MLIP_LAYER_LOAD_WEIGHTS, "pin");
  l_in = cb_layer(&b, MLIP_LAYER_CONVERT_IN, "in");
  l_conv = cb_layer(&b, MLIP_LAYER_CONV2D, "conv");
  l_pool = cb_layer(&b, MLIP_LAYER_MAXPOOL, "pool");
  l_fc = cb_layer(&b, MLIP_LAYER_FC, "fc");
  l_out = cb_layer(&b, MLIP_LAYER_CONVERT_OUT, "out");
  bi = cb_input(&b, sizeof input);
  bo = cb_output(&b, sizeof output);
  bs = cb_scratch(&b, sizeof scratch);
  w_conv = cb_weights(&b, conv_w, sizeof conv_w);
  w_cbias = cb_weights(&b, conv_b, sizeof conv_b);
  w_blob[0] = cb_weights(&b, blob[0], sizeof blob[0]);
  w_blob[1] = cb_weights(&b, blob[1], sizeof blob[1]);

  /* INIT: pin each tile's FC weights and bias. */
  for (t = 0; t < TILES; ++t)
    cb_dma(&b, CB_INIT, MLIP_OP_DMA_IN, t, l_pin, b.weights_binding, w_blob[t], PINNED, 1, 788, 0, 0);
  cb_barrier(&b, CB_INIT, 0, l_pin);

  /* Layer in (tile 0): fp32 CHW [2][64] -> fp16 HWC [64][2] in scratch 0. */
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_IN, 0, l_in, bi, 0, 0, 1, 512, 0, 0);
  (void)cb_convert(&b, CB_MAIN, 0, l_in, 0, 512, 128, MLIP_CVT_F32_TO_F16);
  (void)cb_layout(&b, CB_MAIN, 0, l_in, 512, 768, 1, 2, 64, 2);
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_OUT, 0, l_in, bs, 0, 768, 1, 256, 0, 0);
  cb_barrier(&b, CB_MAIN, 0, l_in);

  /* Layer conv: 8x8x2 -> 8x8x4, 3x3 pad 1, split by output channels. */
  for (t = 0; t < TILES; ++t) {
    cb_dma(&b, CB_MAIN, MLIP_OP_DMA_IN, t, l_conv, bs, 0, 0, 1, 256, 0, 0);
    cb_dma(&b, CB_MAIN, MLIP_OP_DMA_IN, t, l_conv, b.weights_binding, w_conv + 72u * t, 256, 1, 72, 0, 0);
    cb_dma(&b, CB_MAIN, MLIP_OP_DMA_IN, t, l_conv, b.weights_binding, w_cbias + 8u * t, 384, 1, 8, 0, 0);
    c = cb_cmd(&b, CB_MAIN, MLIP_OP_CONV2D, t, l_conv);
    c->u.conv2d.in = 0;
    c->u.conv2d.in_h = 8;
    c->u.conv2d.in_w = 8;
    c->u.conv2d.in_c = 2;
    c->u.conv2d.weights = 256;
    c->u.conv2d.bias = 384;
    c->u.conv2d.out = 512;
    c->u.conv2d.out_h = 8;
    c->u.conv2d.out_w = 8;
    c->u.conv2d.out_c = 2;
    c->u.conv2d.kh = 3;
    c->u.conv2d.kw = 3;
    c->u.conv2d.stride_h = 1;
    c->u.conv2d.stride_w = 1;
    c->u.conv2d.dil_h = 1;
    c->u.conv2d.dil_w = 1;
    c->u.conv2d.pad_top = 1;
    c->u.conv2d.pad_left = 1;
    c->u.conv2d.groups = 1;
    c->u.conv2d.ic_per_group = 2;
    c->u.conv2d.oc_per_group = 4;
    c->u.conv2d.oc_base = 2u * t;
    c->u.conv2d.act = MLIP_ACT_RELU;
    /* 2 channels of each of the 64 positions into scratch [256 + 8p + 4t] */
    cb_dma(&b, CB_MAIN, MLIP_OP_DMA_OUT, t, l_conv, bs, 256u + 4u * t, 512, 64, 4, 8, 4);
  }
  cb_barrier(&b, CB_MAIN, 0, l_conv);

  /* Layer pool: 8x8x4 -> 4x4x4 max 2x2/2, split by rows; extra ops on tile 0. */
  for (t = 0; t < TILES; ++t) {
    cb_dma(&b, CB_MAIN, MLIP_OP_DMA_IN, t, l_pool, bs, 256u + 256u * t, 0, 4, 64, 64, 64);
    c = cb_cmd(&b, CB_MAIN, MLIP_OP_MAXPOOL, t, l_pool);
    c->u.pool.in = 0;
    c->u.pool.in_h = 4;
    c->u.pool.in_w = 8;
    c->u.pool.c = 4;
    c->u.pool.out = 256;
    c->u.pool.out_h = 2;
    c->u.pool.out_w = 4;
    c->u.pool.kh = 2;
    c->u.pool.kw = 2;
    c->u.pool.stride_h = 2;
    c->u.pool.stride_w = 2;
    cb_dma(&b, CB_MAIN, MLIP_OP_DMA_OUT, t, l_pool, bs, 768u + 64u * t, 256, 1, 64, 0, 0);
  }
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_AVGPOOL, 0, l_pool); /* 3x3/2 pad 1 (ONNX-style padded bounds) */
  c->u.pool.in = 0;
  c->u.pool.in_h = 4;
  c->u.pool.in_w = 8;
  c->u.pool.c = 4;
  c->u.pool.out = 384;
  c->u.pool.out_h = 2;
  c->u.pool.out_w = 4;
  c->u.pool.kh = 3;
  c->u.pool.kw = 3;
  c->u.pool.stride_h = 2;
  c->u.pool.stride_w = 2;
  c->u.pool.pad_top = 1;
  c->u.pool.pad_left = 1;
  c->u.pool.count_include_pad = 1;
  c->u.pool.padded_top = -1;
  c->u.pool.padded_bottom = 5;
  c->u.pool.padded_left = -1;
  c->u.pool.padded_right = 9;
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_GLOBAL_AVGPOOL, 0, l_pool);
  c->u.global_pool.in = 0;
  c->u.global_pool.out = 512;
  c->u.global_pool.hw = 32;
  c->u.global_pool.c = 4;
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_ADD, 0, l_pool);
  c->u.add.a = 256;
  c->u.add.b = 384;
  c->u.add.out = 640;
  c->u.add.count = 32;
  c->u.add.act = MLIP_ACT_CLIP;
  c->u.add.act_lo = 0.0f;
  c->u.add.act_hi = 6.0f;
  cb_barrier(&b, CB_MAIN, 0, l_pool);

  /* Layer fc: 64 -> 10, split by outputs, two K chunks, pinned weights. */
  for (t = 0; t < TILES; ++t) {
    /* the two K chunks of the input into 128-aligned OCM buffers */
    cb_dma(&b, CB_MAIN, MLIP_OP_DMA_IN, t, l_fc, bs, 768, 0, 2, 64, 64, 128);
    c = cb_cmd(&b, CB_MAIN, MLIP_OP_FC, t, l_fc);
    c->u.fc.in = 0;
    c->u.fc.weights = PINNED;
    c->u.fc.bias = MLIP_NO_OFFSET;
    c->u.fc.acc = 256;
    c->u.fc.n = 1;
    c->u.fc.k = 32;
    c->u.fc.out_c = 5;
    c->u.fc.first = 1;
    c = cb_cmd(&b, CB_MAIN, MLIP_OP_FC, t, l_fc);
    c->u.fc.in = 128;
    c->u.fc.weights = PINNED + 384u;
    c->u.fc.bias = PINNED + 768u;
    c->u.fc.acc = 256;
    c->u.fc.out = 384;
    c->u.fc.n = 1;
    c->u.fc.k = 32;
    c->u.fc.out_c = 5;
    c->u.fc.last = 1;
    cb_dma(&b, CB_MAIN, MLIP_OP_DMA_OUT, t, l_fc, bs, 896u + 10u * t, 384, 1, 10, 0, 0);
  }
  cb_barrier(&b, CB_MAIN, 0, l_fc);

  /* Layer out (tile 0): fp16 [10] -> fp32 output. */
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_IN, 0, l_out, bs, 896, 0, 1, 20, 0, 0);
  (void)cb_convert(&b, CB_MAIN, 0, l_out, 0, 128, 10, MLIP_CVT_F16_TO_F32);
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_OUT, 0, l_out, bo, 0, 128, 1, 40, 0, 0);
  cb_barrier(&b, CB_MAIN, 0, l_out);

  ref_size = cb_build(&b, ref_buf, sizeof ref_buf);
}

/* Runs buf[0, size) as a fresh region (copied into its own exactly-sized heap
   block). `twice`: after a successful run, run again (validated and loaded). */
static mlip_status run_buffer(const uint8_t* buf, size_t size, int twice) {
  void* ins[1];
  void* outs[1];
  mlip_region_state st = {0, 0};
  mlip_region r;
  mlip_status s;
  const uint32_t in_size[1] = {sizeof input};
  const uint32_t out_size[1] = {sizeof output};
  uint8_t* copy = (uint8_t*)malloc(size == 0 ? 1 : size);
  assert_non_null(copy);
  memcpy(copy, buf, size);
  ins[0] = input;
  outs[0] = output;
  r.name = "fuzz";
  r.cmdbuf = copy;
  r.cmdbuf_size = (uint32_t)size;
  r.ocm = ocm;
  r.ocm_capacity = sizeof ocm;
  r.stats = stats;
  r.stats_capacity = 6;
  r.state = &st;
  memset(output, 0, sizeof output);
  s = mlip_region_run(&r, ins, in_size, 1, outs, out_size, 1, scratch, sizeof scratch);
  if (s == MLIP_OK && twice) {
    s = mlip_region_run(&r, ins, in_size, 1, outs, out_size, 1, scratch, sizeof scratch);
  }
  free(copy);
  return s;
}

static const uint32_t interesting[] = {
  0u, 1u, 2u, 3u, 4u, 7u, 8u, 13u, 16u, 64u, 127u, 128u, 129u, 255u, 256u, 1024u,
  PINNED - 128u, PINNED, OCM_SIZE - 256u, OCM_SIZE - 128u, OCM_SIZE, OCM_SIZE + 128u, 2u * OCM_SIZE,
  0x7FFFu, 0x8000u, 0xFFFFu, 0x10000u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFF80u, 0xFFFFFFFEu, 0xFFFFFFFFu,
};

enum { M_BITS, M_BYTES, M_TRUNCATE, M_EXTEND, M_WORD, M_CMD_WORD, M_KINDS };
static const char* const kind_names[M_KINDS] = {"bit flips", "random bytes", "truncate", "extend", "word",
                                                "command operand"};

static uint32_t mutate_value(uint32_t v) {
  switch (rnd_below(4)) {
    case 0: return interesting[rnd_below(sizeof interesting / sizeof interesting[0])];
    case 1: return (uint32_t)rnd();
    case 2: return v + (uint32_t)rnd_below(5) - 2u;
    default: return v ^ (1u << rnd_below(32));
  }
}

/* Mutates work (a copy of the reference) and returns its new length. */
static size_t mutate(uint8_t* work, size_t cap, int kind) {
  size_t len = ref_size;
  uint32_t i, count;
  switch (kind) {
    case M_BITS:
      count = 1u + rnd_below(8);
      for (i = 0; i < count; ++i) {
        size_t pos = rnd_below((uint32_t)len);
        work[pos] ^= (uint8_t)(1u << rnd_below(8));
      }
      break;
    case M_BYTES:
      count = 1u + rnd_below(4);
      for (i = 0; i < count; ++i) work[rnd_below((uint32_t)len)] = (uint8_t)rnd();
      break;
    case M_TRUNCATE:
      len = rnd_below((uint32_t)len);
      break;
    case M_EXTEND:
      count = 1u + rnd_below(200);
      if (len + count > cap) count = (uint32_t)(cap - len);
      for (i = 0; i < count; ++i) work[len + i] = (uint8_t)rnd();
      len += count;
      break;
    case M_WORD: { /* any 32-bit word */
      uint32_t v;
      size_t pos = (size_t)rnd_below((uint32_t)(len / 4u)) * 4u;
      memcpy(&v, work + pos, 4);
      v = mutate_value(v);
      memcpy(work + pos, &v, 4);
      break;
    }
    default: { /* 1..3 operand words (or the head) of INIT/MAIN commands */
      mlip_header h;
      cb_get_header(work, &h);
      count = 1u + rnd_below(3);
      for (i = 0; i < count; ++i) {
        uint32_t sec = rnd_below(8) == 0 ? MLIP_SEC_INIT : MLIP_SEC_MAIN;
        size_t cmd = (size_t)h.sections[sec].offset + (size_t)rnd_below(h.sections[sec].count) * 128u;
        uint32_t word, tries;
        size_t pos;
        uint32_t v;
        /* 0: the head (opcode, tile, layer); k >= 1: w[k - 1]. Prefer the
           words the command uses (non-zero). */
        for (tries = 0;; ++tries) {
          word = rnd_below(27);
          pos = cmd + (word == 0 ? 0u : 4u + 4u * word);
          memcpy(&v, work + pos, 4);
          if (v != 0u || tries == 8u) break;
        }
        v = word == 0 ? v ^ (1u << rnd_below(32)) : mutate_value(v);
        memcpy(work + pos, &v, 4);
      }
      break;
    }
  }
  return len;
}

/* Makes a mutated buffer self-consistent again: total_size = its length, both CRCs. */
static void fix_crcs(uint8_t* work, size_t len) {
  mlip_header h;
  if (len < sizeof h) return;
  cb_get_header(work, &h);
  h.total_size = (uint32_t)len;
  cb_put_header(work, &h);
  cb_fix_crcs(work, len);
}

static void test_reference(void** state) {
  uint32_t i;
  (void)state;
  build_reference();
  assert_true(ref_size > 0);
  assert_int_equal(mlip_cmdbuf_validate(ref_buf, ref_size), MLIP_OK);
  for (i = 0; i < 128; ++i) input[i] = (float)((int)(i * 37u % 29u) - 14) * 0.25f;
  memset(ocm, 0, sizeof ocm);
  assert_int_equal(run_buffer(ref_buf, ref_size, 1), MLIP_OK);
  memcpy(ref_output, output, sizeof output);
  /* not trivially zero, and deterministic */
  {
    int nonzero = 0;
    for (i = 0; i < 10; ++i) nonzero |= ref_output[i] != 0.0f;
    assert_true(nonzero);
  }
  memset(ocm, 0xEE, sizeof ocm); /* a fresh region reloads its pinned weights */
  memset(stats, 0, sizeof stats);
  assert_int_equal(run_buffer(ref_buf, ref_size, 0), MLIP_OK);
  assert_memory_equal(output, ref_output, sizeof output);
  /* The stored estimates agree with the simulator's accumulation. */
  {
    mlip_header h;
    cb_get_header(ref_buf, &h);
    for (i = 0; i < 6; ++i) {
      mlip_layer l;
      memcpy(&l, ref_buf + h.sections[MLIP_SEC_LAYERS].offset + i * sizeof l, sizeof l);
      assert_int_equal(stats[i].cycles, l.est_cycles);
      assert_true(l.est_cycles > 0);
    }
  }
}

static void fuzz(int fix) {
  static uint8_t work[sizeof ref_buf + 256];
  int kind;
  for (kind = 0; kind < M_KINDS; ++kind) {
    uint32_t it, ok = 0, fail = 0;
    for (it = 0; it < MLIP_FUZZ_ITERATIONS; ++it) {
      size_t len;
      mlip_status s;
      memcpy(work, ref_buf, ref_size);
      len = mutate(work, sizeof work, kind);
      if (fix) fix_crcs(work, len);
      s = run_buffer(work, len, (it & 7u) == 0u);
      if (s == MLIP_OK) {
        ++ok;
        if (!fix) assert_memory_equal(output, ref_output, sizeof output);
      } else {
        ++fail;
        assert_true(s > 0 && s <= MLIP_ERR_INTERNAL);
        assert_true(s != MLIP_ERR_INTERNAL); /* the executor's re-check never fires after validation */
      }
    }
    print_message("%s, CRCs %s: %u ran, %u rejected\n", kind_names[kind], fix ? "fixed" : "kept", ok, fail);
    if (fix && kind != M_TRUNCATE) assert_true(ok > 0); /* the semantic validator and executor were reached */
  }
}

static void test_mutations_keep_crc(void** state) {
  (void)state;
  fuzz(0);
}

static void test_mutations_fix_crc(void** state) {
  (void)state;
  fuzz(1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_reference),
    cmocka_unit_test(test_mutations_keep_crc),
    cmocka_unit_test(test_mutations_fix_crc),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
