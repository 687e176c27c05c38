/* runtime.sim_validate: a valid buffer passes (and runs), and every rule of
   docs/command-buffer.md, violated once, gives its documented status. Bad
   buffers are built with the builder; where the rule under test comes after
   the CRC checks, the CRCs are recomputed so that the rule itself is hit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cmdbuf_builder.h"
#include "mlip/region.h"
#include "sim_internal.h"

#define OCM 4096u
#define PINNED 3584u

static cb_builder b;
static uint8_t buf[64u * 1024u];
static size_t n;
static uint8_t ocm[2u * OCM];
static uint32_t bind_in, bind_out, bind_scratch;

/* MAIN commands of the base buffer, in order. */
enum {
  C_DMA_IN, C_CVT, C_LAYOUT, C_CONV, C_MAXPOOL, C_AVGPOOL, C_GAP, C_GMP, C_ADD, C_ACTV, C_ELT, C_FC, C_CVT2,
  C_OUT0, C_SCR_OUT, C_T1_IN, C_T1_OUT, C_BARRIER, C_COUNT
};

static void base(void) {
  uint8_t wts[288];
  mlip_decoded_cmd* c;
  uint32_t l_pin, l_in, l_conv, l_pool, l_add, l_fc, l_out, l_act, l_elt, i;
  cb_init(&b, MLIP_MCPU_CN10KA, 2, OCM);
  b.hdr.flags = MLIP_FLAG_WB_PIN_OCM;
  b.hdr.ocm_pinned_offset = PINNED;
  l_pin = cb_layer(&b, MLIP_LAYER_LOAD_WEIGHTS, "pin");
  l_in = cb_layer(&b, MLIP_LAYER_CONVERT_IN, "in");
  l_conv = cb_layer(&b, MLIP_LAYER_CONV2D, "conv");
  l_pool = cb_layer(&b, MLIP_LAYER_MAXPOOL, "pool");
  l_add = cb_layer(&b, MLIP_LAYER_ADD, "add");
  l_fc = cb_layer(&b, MLIP_LAYER_FC, "fc");
  l_out = cb_layer(&b, MLIP_LAYER_CONVERT_OUT, "out");
  l_act = cb_layer(&b, MLIP_LAYER_ACTIVATION, "act");
  l_elt = cb_layer(&b, MLIP_LAYER_ELTWISE, "elt");
  bind_in = cb_input(&b, 64);
  bind_out = cb_output(&b, 16);
  bind_scratch = cb_scratch(&b, 256);
  for (i = 0; i < sizeof wts; ++i) wts[i] = (uint8_t)(i % 2u ? 0x3C : 0x00); /* halves of about 1 */
  (void)cb_weights(&b, wts, sizeof wts);

  /* INIT: pin 288 bytes of weights at PINNED in tile 0. */
  cb_dma(&b, CB_INIT, MLIP_OP_DMA_IN, 0, l_pin, b.weights_binding, 0, PINNED, 1, 288, 0, 0);
  cb_barrier(&b, CB_INIT, 0, l_pin);

  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_IN, 0, l_in, bind_in, 0, 0, 1, 64, 0, 0);
  (void)cb_convert(&b, CB_MAIN, 0, l_in, 0, 128, 16, MLIP_CVT_F32_TO_F16);
  (void)cb_layout(&b, CB_MAIN, 0, l_in, 128, 256, 1, 4, 4, 2);
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_CONV2D, 0, l_conv); /* 4x4x1 -> 4x4x2, 3x3, pad 1 */
  c->u.conv2d.in = 256;
  c->u.conv2d.in_h = 4;
  c->u.conv2d.in_w = 4;
  c->u.conv2d.in_c = 1;
  c->u.conv2d.weights = PINNED;
  c->u.conv2d.bias = PINNED + 128u;
  c->u.conv2d.out = 384;
  c->u.conv2d.out_h = 4;
  c->u.conv2d.out_w = 4;
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
  c->u.conv2d.ic_per_group = 1;
  c->u.conv2d.oc_per_group = 2;
  c->u.conv2d.act = MLIP_ACT_RELU;
  for (i = 0; i < 2; ++i) {
    c = cb_cmd(&b, CB_MAIN, i == 0 ? MLIP_OP_MAXPOOL : MLIP_OP_AVGPOOL, 0, l_pool);
    c->u.pool.in = 384;
    c->u.pool.in_h = 4;
    c->u.pool.in_w = 4;
    c->u.pool.c = 2;
    c->u.pool.out = i == 0 ? 512 : 640;
    c->u.pool.out_h = 2;
    c->u.pool.out_w = 2;
    c->u.pool.kh = 2;
    c->u.pool.kw = 2;
    c->u.pool.stride_h = 2;
    c->u.pool.stride_w = 2;
    c->u.pool.count_include_pad = i;
    c->u.pool.padded_bottom = 4;
    c->u.pool.padded_right = 4;
  }
  for (i = 0; i < 2; ++i) {
    c = cb_cmd(&b, CB_MAIN, i == 0 ? MLIP_OP_GLOBAL_AVGPOOL : MLIP_OP_GLOBAL_MAXPOOL, 0, l_pool);
    c->u.global_pool.in = 384;
    c->u.global_pool.out = i == 0 ? 768 : 896;
    c->u.global_pool.hw = 16;
    c->u.global_pool.c = 2;
  }
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_ADD, 0, l_add);
  c->u.add.a = 512;
  c->u.add.b = 640;
  c->u.add.out = 1024;
  c->u.add.count = 8;
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_ACTIVATION, 0, l_act); /* sigmoid of the max pool's 8 halves */
  c->u.activation.in = 512;
  c->u.activation.out = 1536;
  c->u.activation.count = 8;
  c->u.activation.act = MLIP_ACT_SIGMOID;
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_ELTWISE, 0, l_elt); /* max pool * global average per channel, SiLU */
  c->u.eltwise.a = 512;
  c->u.eltwise.b = 768;
  c->u.eltwise.out = 1664;
  c->u.eltwise.count = 8;
  c->u.eltwise.b_len = 2;
  c->u.eltwise.b_base = 1;
  c->u.eltwise.func = MLIP_ELT_MUL;
  c->u.eltwise.act = MLIP_ACT_SILU;
  c = cb_cmd(&b, CB_MAIN, MLIP_OP_FC, 0, l_fc);
  c->u.fc.in = 1024;
  c->u.fc.weights = PINNED + 256u;
  c->u.fc.bias = MLIP_NO_OFFSET;
  c->u.fc.acc = 1152;
  c->u.fc.out = 1280;
  c->u.fc.n = 1;
  c->u.fc.k = 8;
  c->u.fc.out_c = 2;
  c->u.fc.first = 1;
  c->u.fc.last = 1;
  c->u.fc.act = MLIP_ACT_RELU;
  (void)cb_convert(&b, CB_MAIN, 0, l_out, 1280, 1408, 2, MLIP_CVT_F16_TO_F32);
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_OUT, 0, l_out, bind_out, 0, 1408, 1, 8, 0, 0);
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_OUT, 0, l_out, bind_scratch, 0, 1408, 1, 8, 0, 0);
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_IN, 1, l_out, bind_scratch, 0, 0, 1, 8, 0, 0);
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_OUT, 1, l_out, bind_out, 8, 0, 1, 8, 0, 0);
  cb_barrier(&b, CB_MAIN, 0, l_out);
  cb_barrier(&b, CB_FINISH, 0, l_out);
}

static mlip_status build_validate(void) {
  n = cb_build(&b, buf, sizeof buf);
  assert_true(n > 0);
  return mlip_cmdbuf_validate(buf, n);
}

#define CMD(i) (&b.cmds[CB_MAIN][(i)])
/* One field of a MAIN command of the base buffer changed: `field` is the
   decoded command's member, u.<format>.<name>. */
#define EXPECT_FIELD(cmd, field, value, status)   \
  do {                                            \
    base();                                       \
    CMD(cmd)->field = (value);                    \
    assert_int_equal(build_validate(), (status)); \
  } while (0)

/* The header of the built base buffer, edited, with both CRCs recomputed. */
static mlip_header h;
static void edit_begin(void) {
  base();
  assert_int_equal(build_validate(), MLIP_OK);
  cb_get_header(buf, &h);
}
static mlip_status edit_end(void) {
  cb_put_header(buf, &h);
  cb_fix_crcs(buf, n);
  return mlip_cmdbuf_validate(buf, n);
}
#define EXPECT_HDR(stmt, status) \
  do {                           \
    edit_begin();                \
    stmt;                        \
    assert_int_equal(edit_end(), (status)); \
  } while (0)

/* ---- valid -------------------------------------------------------------------- */

static void test_valid_passes_and_runs(void** state) {
  float in[16];
  uint8_t out[16], scratch[256];
  void* ins[1];
  void* outs[1];
  mlip_layer_stats stats[9];
  uint32_t i;
  (void)state;
  base();
  assert_int_equal(build_validate(), MLIP_OK);
  for (i = 0; i < 16; ++i) in[i] = (float)i - 7.5f;
  ins[0] = in;
  outs[0] = out;
  memset(stats, 0, sizeof stats);
  assert_int_equal(cb_run(&b, ocm, sizeof ocm, ins, 1, outs, 1, scratch, sizeof scratch, stats, 9), MLIP_OK);
  assert_memory_equal(out, out + 8, 8); /* both tiles wrote the same two floats */
  for (i = 0; i < 9; ++i) assert_int_equal(stats[i].runs, 1);
  /* Also valid: mcpu cnf10kb; no pinning at all; an unaligned copy. */
  EXPECT_HDR(h.mcpu = MLIP_MCPU_CNF10KB, MLIP_OK);
  memmove(buf + 1, buf, n);
  assert_int_equal(mlip_cmdbuf_validate(buf + 1, n), MLIP_OK);
}

static void test_crc32c(void** state) {
  const char* s = "123456789";
  (void)state;
  assert_int_equal(mlip_crc32c(0, s, 9), 0xE3069283u); /* the CRC-32C check value */
  assert_int_equal(mlip_crc32c(mlip_crc32c(0, s, 4), s + 4, 5), 0xE3069283u);
  assert_int_equal(mlip_crc32c(0, s, 0), 0u);
}

/* ---- header ------------------------------------------------------------------- */

static void test_size_and_magic(void** state) {
  (void)state;
  base();
  assert_int_equal(build_validate(), MLIP_OK);
  assert_int_equal(mlip_cmdbuf_validate(NULL, n), MLIP_ERR_NULL);
  assert_int_equal(mlip_cmdbuf_validate(buf, 0), MLIP_ERR_TRUNCATED);
  assert_int_equal(mlip_cmdbuf_validate(buf, 255), MLIP_ERR_TRUNCATED);
  /* total_size larger / smaller than the size given */
  assert_int_equal(mlip_cmdbuf_validate(buf, n - 1), MLIP_ERR_TRUNCATED);
  assert_int_equal(mlip_cmdbuf_validate(buf, n + 16), MLIP_ERR_TRUNCATED);
  assert_int_equal(mlip_cmdbuf_validate(buf, 256), MLIP_ERR_TRUNCATED);
  EXPECT_HDR(h.total_size = (uint32_t)n + 16u, MLIP_ERR_TRUNCATED);
  EXPECT_HDR(h.total_size = (uint32_t)n - 16u, MLIP_ERR_TRUNCATED);
  /* magic: with and without the CRCs fixed */
  base();
  (void)build_validate();
  buf[0] = 'X';
  assert_int_equal(mlip_cmdbuf_validate(buf, n), MLIP_ERR_BAD_MAGIC);
  EXPECT_HDR(h.magic[3] = 'l', MLIP_ERR_BAD_MAGIC);
}

static void test_version_target(void** state) {
  (void)state;
  EXPECT_HDR(h.version = 2, MLIP_ERR_VERSION);
  EXPECT_HDR(h.version = 0, MLIP_ERR_VERSION);
  EXPECT_HDR(h.header_size = 128, MLIP_ERR_VERSION);
  EXPECT_HDR(h.target_arch = 127, MLIP_ERR_TARGET);
  EXPECT_HDR(h.mcpu = 0, MLIP_ERR_TARGET);
  EXPECT_HDR(h.mcpu = 3, MLIP_ERR_TARGET);
}

static void test_crcs(void** state) {
  mlip_header hh;
  (void)state;
  /* header CRC: a byte of the name after its NUL, the CRC word itself */
  base();
  (void)build_validate();
  buf[172 + 60] ^= 0x20u;
  assert_int_equal(mlip_cmdbuf_validate(buf, n), MLIP_ERR_CRC);
  base();
  (void)build_validate();
  buf[253] ^= 0x01u;
  assert_int_equal(mlip_cmdbuf_validate(buf, n), MLIP_ERR_CRC);
  /* payload CRC: a weights byte, a command byte, the last byte */
  base();
  (void)build_validate();
  cb_get_header(buf, &hh);
  buf[hh.sections[MLIP_SEC_WEIGHTS].offset + 5] ^= 0x80u;
  assert_int_equal(mlip_cmdbuf_validate(buf, n), MLIP_ERR_CRC);
  base();
  (void)build_validate();
  buf[cb_cmd_offset(buf, MLIP_SEC_MAIN, C_CONV) + 8] ^= 0x01u;
  assert_int_equal(mlip_cmdbuf_validate(buf, n), MLIP_ERR_CRC);
  base();
  (void)build_validate();
  buf[n - 1] ^= 0xFFu;
  assert_int_equal(mlip_cmdbuf_validate(buf, n), MLIP_ERR_CRC);
  /* the payload CRC field with a matching header CRC */
  edit_begin();
  h.payload_crc32c ^= 1u;
  cb_put_header(buf, &h);
  h.header_crc32c = mlip_crc32c(0, buf, 252);
  cb_put_header(buf, &h);
  assert_int_equal(mlip_cmdbuf_validate(buf, n), MLIP_ERR_CRC);
}

static void test_header_fields(void** state) {
  (void)state;
  EXPECT_HDR(h.num_tiles = 0, MLIP_ERR_TILE);
  EXPECT_HDR(h.num_tiles = 9, MLIP_ERR_TILE);
  EXPECT_HDR(h.ocm_size = OCM - 64u, MLIP_ERR_INVALID_ARG);          /* not a multiple of 128 */
  EXPECT_HDR(h.ocm_size = 2u * 1024u * 1024u, MLIP_ERR_BOUNDS);      /* above 1 MiB */
  EXPECT_HDR(h.ocm_pinned_offset = PINNED + 64u, MLIP_ERR_INVALID_ARG);
  EXPECT_HDR(h.ocm_pinned_offset = OCM + 128u, MLIP_ERR_BOUNDS);
  EXPECT_HDR(h.quantize = 2, MLIP_ERR_UNSUPPORTED); /* 0 fp16 and 1 int8 are the modes */
  EXPECT_HDR(h.quantize = 7, MLIP_ERR_UNSUPPORTED);
  EXPECT_HDR(h.flags = 4, MLIP_ERR_INVALID_ARG);
  EXPECT_HDR(h.flags = 0x80000001u, MLIP_ERR_INVALID_ARG);
  EXPECT_HDR(h.macs_per_cycle = 0, MLIP_ERR_INVALID_ARG);
  EXPECT_HDR(h.dma_bytes_per_cycle = 0, MLIP_ERR_INVALID_ARG);
  EXPECT_HDR(h.eltwise_per_cycle = 0, MLIP_ERR_INVALID_ARG);
  EXPECT_HDR(h.cmd_overhead_cycles = 0, MLIP_ERR_INVALID_ARG);
  EXPECT_HDR(h.clock_mhz = 0, MLIP_ERR_INVALID_ARG);
  EXPECT_HDR(memset(h.name, 'a', sizeof h.name), MLIP_ERR_INVALID_ARG); /* no NUL in 64 bytes */
  EXPECT_HDR(h.name[63] = 0; memset(h.name, 'a', 63), MLIP_OK);
}

static void test_sections(void** state) {
  (void)state;
  /* out of bounds */
  EXPECT_HDR(h.sections[MLIP_SEC_STRINGS].offset = (uint32_t)n + 16u, MLIP_ERR_BOUNDS);
  EXPECT_HDR(h.sections[MLIP_SEC_STRINGS].offset = 0xFFFFFFF0u, MLIP_ERR_BOUNDS);
  EXPECT_HDR(h.sections[MLIP_SEC_WEIGHTS].size += 0x100000u; h.sections[MLIP_SEC_WEIGHTS].count += 0x100000u,
             MLIP_ERR_BOUNDS);
  EXPECT_HDR(h.sections[MLIP_SEC_BINDINGS].offset = 128, MLIP_ERR_BOUNDS); /* inside the header */
  /* misaligned */
  EXPECT_HDR(h.sections[MLIP_SEC_MAIN].offset += 8u, MLIP_ERR_BOUNDS);
  /* wrong size for the count */
  EXPECT_HDR(h.sections[MLIP_SEC_MAIN].size -= 16u, MLIP_ERR_BOUNDS);
  EXPECT_HDR(h.sections[MLIP_SEC_LAYERS].count += 1u, MLIP_ERR_BOUNDS);
  EXPECT_HDR(h.sections[MLIP_SEC_MAIN].count = 0x02000001u, MLIP_ERR_BOUNDS); /* count * 128 wraps in 32 bits */
  /* out of order / overlapping */
  EXPECT_HDR(h.sections[MLIP_SEC_IO].offset = h.sections[MLIP_SEC_MAIN].offset, MLIP_ERR_BOUNDS);
  EXPECT_HDR(h.sections[MLIP_SEC_LAYERS].offset = h.sections[MLIP_SEC_BINDINGS].offset + 16u, MLIP_ERR_BOUNDS);
}

/* ---- IO, bindings, layers -------------------------------------------------------- */

static void test_io_bindings_layers(void** state) {
  uint32_t i;
  (void)state;
  /* STRINGS must end with a NUL; names inside STRINGS */
  base();
  b.strings[b.strings_size - 1] = 'x';
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  base();
  b.layers[2].name = b.strings_size;
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  base();
  b.in_io[0].name = 0xFFFFFFFFu;
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  /* IO descriptors */
  base();
  b.in_io[0].ndim = 0;
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  base();
  b.out_io[0].ndim = 5;
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  base();
  b.out_io[0].type = 4; /* DPDK's uint16: no region has it (3, int16, is 16x8's) */
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  base();
  b.out_io[0].layout = 2;
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  /* num_inputs / num_outputs against IO and BINDINGS */
  base();
  b.keep_io_counts = 1;
  b.hdr.num_inputs = 2;
  b.hdr.num_outputs = 1;
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  base();
  b.keep_io_counts = 1;
  b.hdr.num_inputs = 1;
  b.hdr.num_outputs = 0;
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  /* bindings */
  base();
  b.bindings[bind_in].size = 60; /* differs from the IO descriptor */
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  base();
  b.bindings[bind_out].index = 1; /* no OUTPUT 1 */
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  base();
  b.bindings[bind_out].kind = MLIP_BIND_INPUT; /* INPUT 0 twice, no OUTPUT 0 */
  b.bindings[bind_out].size = 64;
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  base();
  b.bindings[bind_scratch].kind = 0;
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  base();
  b.bindings[bind_scratch].kind = 5;
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  base();
  (void)cb_scratch(&b, 16); /* two SCRATCH */
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  base();
  b.bindings[bind_scratch].index = 1;
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  base();
  b.bindings[bind_scratch].kind = MLIP_BIND_WEIGHTS; /* two WEIGHTS */
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  /* WEIGHTS size != section size */
  EXPECT_HDR(h.sections[MLIP_SEC_WEIGHTS].count -= 16u; h.sections[MLIP_SEC_WEIGHTS].size -= 16u, MLIP_ERR_INVALID_ARG);
  /* no WEIGHTS binding */
  base();
  b.bindings[0].kind = MLIP_BIND_SCRATCH;
  b.num_bindings--; /* the real SCRATCH was the last binding */
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  /* more inputs than the runtime resolves */
  base();
  for (i = 0; i < MLIP_REGION_MAX_IO; ++i) (void)cb_input(&b, 4);
  assert_int_equal(build_validate(), MLIP_ERR_UNSUPPORTED);
  /* layers */
  base();
  b.layers[3].kind = 0;
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  base();
  b.layers[3].kind = MLIP_LAYER_COUNT_;
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
}

/* ---- commands ------------------------------------------------------------------- */

static void test_command_head(void** state) {
  (void)state;
  base();
  CMD(C_ADD)->opcode = 0;
  assert_int_equal(build_validate(), MLIP_ERR_OPCODE);
  base();
  CMD(C_ADD)->opcode = MLIP_OP_COUNT_;
  assert_int_equal(build_validate(), MLIP_ERR_OPCODE);
  base();
  CMD(C_ADD)->opcode = 255;
  assert_int_equal(build_validate(), MLIP_ERR_OPCODE);
  base();
  b.cmds[CB_FINISH][0].opcode = 77;
  assert_int_equal(build_validate(), MLIP_ERR_OPCODE);
  base();
  CMD(C_CONV)->tile = 2; /* num_tiles is 2 */
  assert_int_equal(build_validate(), MLIP_ERR_TILE);
  base();
  CMD(C_BARRIER)->tile = 200;
  assert_int_equal(build_validate(), MLIP_ERR_TILE);
  base();
  CMD(C_FC)->layer = 9; /* 9 layers */
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  base();
  b.cmds[CB_INIT][1].layer = 0xFFFF;
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
}

static void test_dma_rules(void** state) {
  (void)state;
  EXPECT_FIELD(C_DMA_IN, u.dma.binding, 4, MLIP_ERR_INVALID_ARG); /* 4 bindings */
  EXPECT_FIELD(C_DMA_IN, u.dma.binding, 0xFFFFFFFFu, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_DMA_IN, u.dma.rows, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_DMA_IN, u.dma.row_bytes, 0, MLIP_ERR_INVALID_ARG);
  /* DMA out of its binding: one byte past the input, offsets and strides that would wrap */
  EXPECT_FIELD(C_DMA_IN, u.dma.ddr_offset, 1, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_DMA_IN, u.dma.row_bytes, 65, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_DMA_IN, u.dma.ddr_offset, 0xFFFFFFC0u, MLIP_ERR_BOUNDS);
  base();
  CMD(C_DMA_IN)->u.dma.rows = 0xFFFFFFFFu;
  CMD(C_DMA_IN)->u.dma.row_bytes = 1;
  CMD(C_DMA_IN)->u.dma.ocm_stride = 1;
  CMD(C_DMA_IN)->u.dma.ddr_stride = 0x80000000u;
  assert_int_equal(build_validate(), MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_OUT0, u.dma.ddr_offset, 9, MLIP_ERR_BOUNDS);   /* output is 16 bytes */
  EXPECT_FIELD(C_SCR_OUT, u.dma.ddr_offset, 249, MLIP_ERR_BOUNDS); /* scratch is 256 bytes */
  base();
  CMD(C_T1_IN)->u.dma.rows = 2;
  CMD(C_T1_IN)->u.dma.ddr_stride = 249;
  CMD(C_T1_IN)->u.dma.ocm_stride = 128;
  assert_int_equal(build_validate(), MLIP_ERR_BOUNDS);
  /* DMA OCM out of range, misaligned, rows overlapping in OCM */
  EXPECT_FIELD(C_T1_IN, u.dma.ocm_offset, OCM, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_T1_OUT, u.dma.ocm_offset, 0xFFFFFF80u, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_DMA_IN, u.dma.ocm_offset, 64, MLIP_ERR_INVALID_ARG);
  base();
  CMD(C_T1_IN)->u.dma.rows = 2;
  CMD(C_T1_IN)->u.dma.row_bytes = 4;
  CMD(C_T1_IN)->u.dma.ocm_stride = (OCM - 4u);
  b.hdr.ocm_pinned_offset = OCM; /* (no pinning, so that only the OCM size bounds tile 1) */
  b.num_cmds[CB_INIT] = 0;
  assert_int_equal(build_validate(), MLIP_OK);
  CMD(C_T1_IN)->u.dma.ocm_stride = (OCM - 3u);
  assert_int_equal(build_validate(), MLIP_ERR_BOUNDS);
  CMD(C_T1_IN)->u.dma.ocm_stride = 3; /* < row_bytes */
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  /* DMA_OUT only into OUTPUT or SCRATCH */
  EXPECT_FIELD(C_OUT0, u.dma.binding, bind_in, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_OUT0, u.dma.binding, b.weights_binding, MLIP_ERR_INVALID_ARG);
  /* DMA_IN may read any binding (here: the output, the weights) */
  base();
  CMD(C_T1_IN)->u.dma.binding = bind_out;
  assert_int_equal(build_validate(), MLIP_OK);
}

static void test_compute_rules(void** state) {
  (void)state;
  /* operands out of OCM, including sizes that overflow 32 (and 64) bits */
  EXPECT_FIELD(C_T1_OUT, u.dma.ocm_offset, OCM - 4u * 128u, MLIP_OK); /* reading the end of OCM */
  EXPECT_FIELD(C_T1_OUT, u.dma.ocm_offset, OCM, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_CONV, u.conv2d.in_h, 0x40000000u, MLIP_ERR_BOUNDS);
  base();
  CMD(C_CONV)->u.conv2d.kh = 0x80000000u;
  CMD(C_CONV)->u.conv2d.kw = 0x80000000u;
  CMD(C_CONV)->u.conv2d.ic_per_group = 0x80000000u;
  CMD(C_CONV)->u.conv2d.out_c = 0x80000000u;
  CMD(C_CONV)->u.conv2d.oc_per_group = 0x80000000u;
  assert_int_equal(build_validate(), MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_CONV, u.conv2d.bias, OCM - 4u * 128u + 0u, MLIP_OK);
  EXPECT_FIELD(C_FC, u.fc.acc, OCM, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_FC, u.fc.k, 0xFFFFFFFFu, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_MAXPOOL, u.pool.in, 0xFFFFFF80u, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_GAP, u.global_pool.hw, 0xFFFFFFFFu, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_ADD, u.add.count, 0x80000000u, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_CVT, u.convert.count, 0x40000000u, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_LAYOUT, u.layout.outer, 0xFFFFFFFFu, MLIP_ERR_BOUNDS);
  /* misaligned operands */
  EXPECT_FIELD(C_CONV, u.conv2d.in, 258, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_CONV, u.conv2d.bias, PINNED + 132u, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_FC, u.fc.out, 1290, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_ADD, u.add.b, 641, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_GMP, u.global_pool.out, 900, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_CVT2, u.convert.src, 1300, MLIP_ERR_INVALID_ARG);
  /* overlapping in / out */
  EXPECT_FIELD(C_CONV, u.conv2d.out, 256, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_CONV, u.conv2d.in, 384, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_ADD, u.add.out, 640, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_ADD, u.add.out, 512, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_FC, u.fc.acc, 1024, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_FC, u.fc.out, 1152, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_MAXPOOL, u.pool.out, 384, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_GAP, u.global_pool.out, 384, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_CVT, u.convert.dst, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_LAYOUT, u.layout.dst, 128, MLIP_ERR_INVALID_ARG);
  /* ADD's two inputs may be the same */
  EXPECT_FIELD(C_ADD, u.add.b, 512, MLIP_OK);
  /* zero dimensions, strides, dilations */
  EXPECT_FIELD(C_CONV, u.conv2d.in_c, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_CONV, u.conv2d.out_w, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_CONV, u.conv2d.kh, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_CONV, u.conv2d.stride_w, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_CONV, u.conv2d.dil_h, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_CONV, u.conv2d.groups, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_CONV, u.conv2d.oc_per_group, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_FC, u.fc.n, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_FC, u.fc.k, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_AVGPOOL, u.pool.kw, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_MAXPOOL, u.pool.stride_h, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_GMP, u.global_pool.c, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_ADD, u.add.count, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_CVT, u.convert.count, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_LAYOUT, u.layout.a, 0, MLIP_ERR_INVALID_ARG);
  /* modes, element sizes, activations, flags */
  EXPECT_FIELD(C_CVT, u.convert.mode, 3, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_CVT, u.convert.mode, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_LAYOUT, u.layout.elem_bytes, 3, MLIP_ERR_INVALID_ARG); /* 1 (int8) is valid */
  EXPECT_FIELD(C_CONV, u.conv2d.dtype, MLIP_DT_INT8, MLIP_ERR_INVALID_ARG); /* int8 in an fp16 buffer */
  EXPECT_FIELD(C_DMA_IN, u.dma.dtype, 1, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_LAYOUT, u.layout.elem_bytes, 8, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_CONV, u.conv2d.act, MLIP_ACT_COUNT_, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_FC, u.fc.act, 0xFFFFFFFFu, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_ADD, u.add.act, MLIP_ACT_COUNT_, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_FC, u.fc.first, 2, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_FC, u.fc.last, 2, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_AVGPOOL, u.pool.count_include_pad, 2, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_MAXPOOL, u.pool.gap_h, MLIP_POOL_MAX_GAP + 1u, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_AVGPOOL, u.pool.gap_w, 0xFFFFFFFFu, MLIP_ERR_INVALID_ARG);
  /* without LAST, FC's output and bias fields are not operands */
  base();
  CMD(C_FC)->u.fc.last = 0;
  CMD(C_FC)->u.fc.out = 0xFFFFFFFFu;
  CMD(C_FC)->u.fc.bias = 3;
  assert_int_equal(build_validate(), MLIP_OK);
}

/* ACTIVATION and ELTWISE, and the activation fields of the pools: each
   rule broken once. */
static void test_activation_eltwise_rules(void** state) {
  (void)state;
  EXPECT_FIELD(C_ACTV, u.activation.count, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_ACTV, u.activation.act, MLIP_ACT_NONE, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_ACTV, u.activation.act, MLIP_ACT_COUNT_, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_ACTV, u.activation.in, 513, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_ACTV, u.activation.out, 4096, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_ACTV, u.activation.count, 0x80000000u, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_ACTV, u.activation.out, PINNED, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_ACTV, u.activation.out, 512, MLIP_OK); /* in place */
  base();
  CMD(C_ACTV)->u.activation.count = 128; /* 256 bytes from 512: [640, 896) overlaps them */
  CMD(C_ACTV)->u.activation.out = 640;
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_ELT, u.eltwise.count, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_ELT, u.eltwise.b_len, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_ELT, u.eltwise.b_base, 2, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_ELT, u.eltwise.func, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_ELT, u.eltwise.func, MLIP_ELT_COUNT_, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_ELT, u.eltwise.act, MLIP_ACT_COUNT_, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_ELT, u.eltwise.out, 512, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_ELT, u.eltwise.out, 768, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_ELT, u.eltwise.b, 4096, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_ELT, u.eltwise.b_len, 0x40000000u, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_ELT, u.eltwise.out, PINNED, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_ELT, u.eltwise.b_len, 8, MLIP_OK); /* equal shapes */
  EXPECT_FIELD(C_MAXPOOL, u.pool.act, MLIP_ACT_COUNT_, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_GAP, u.global_pool.act, MLIP_ACT_COUNT_, MLIP_ERR_INVALID_ARG);
  EXPECT_FIELD(C_GAP, u.global_pool.act, MLIP_ACT_ELU, MLIP_OK);
}

static void test_conv_channels(void** state) {
  (void)state;
  /* The base conv: groups 1, 2 out per group: oc_base 1 would be group 1 */
  EXPECT_FIELD(C_CONV, u.conv2d.oc_base, 1, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_CONV, u.conv2d.ic_base, 1, MLIP_ERR_BOUNDS);     /* channel -1 */
  EXPECT_FIELD(C_CONV, u.conv2d.ic_per_group, 2, MLIP_ERR_BOUNDS); /* in_c 1; also a larger weights extent */
  base();
  CMD(C_CONV)->u.conv2d.groups = 2;
  CMD(C_CONV)->u.conv2d.oc_per_group = 1; /* j = 1 is group 1: channel 1 of a 1-channel block */
  assert_int_equal(build_validate(), MLIP_ERR_BOUNDS);
  CMD(C_CONV)->u.conv2d.ic_base = 1;      /* now j = 0 reads channel -1 */
  assert_int_equal(build_validate(), MLIP_ERR_BOUNDS);
  CMD(C_CONV)->u.conv2d.oc_base = 1;      /* groups 1..2 of a 2-group layer */
  assert_int_equal(build_validate(), MLIP_ERR_BOUNDS);
  CMD(C_CONV)->u.conv2d.groups = 3;       /* a valid depthwise block: channels 1..2, block holds 1 */
  CMD(C_CONV)->u.conv2d.out_c = 1;
  assert_int_equal(build_validate(), MLIP_OK);
  base();
  CMD(C_CONV)->u.conv2d.oc_base = 0xFFFFFFFFu; /* huge bases stay in 64 bits */
  CMD(C_CONV)->u.conv2d.oc_per_group = 1;
  CMD(C_CONV)->u.conv2d.groups = 0xFFFFFFFFu;
  CMD(C_CONV)->u.conv2d.ic_base = 0xFFFFFFFFu;
  assert_int_equal(build_validate(), MLIP_ERR_BOUNDS);
}

static void test_pinned_and_sections(void** state) {
  mlip_decoded_cmd* c;
  (void)state;
  /* MAIN writing the pinned range (reading it is fine: conv and FC weights) */
  EXPECT_FIELD(C_DMA_IN, u.dma.ocm_offset, PINNED, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_DMA_IN, u.dma.ocm_offset, PINNED - 128u, MLIP_OK);
  base();
  CMD(C_DMA_IN)->u.dma.ocm_offset = PINNED - 128u;
  CMD(C_DMA_IN)->u.dma.rows = 2;
  CMD(C_DMA_IN)->u.dma.row_bytes = 32;
  CMD(C_DMA_IN)->u.dma.ocm_stride = 97; /* last row ends at PINNED + 1 */
  assert_int_equal(build_validate(), MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_CONV, u.conv2d.out, PINNED + 256u, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_FC, u.fc.acc, PINNED - 128u + 0u, MLIP_OK);
  EXPECT_FIELD(C_FC, u.fc.acc, OCM - 128u, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_ADD, u.add.out, PINNED + 384u, MLIP_ERR_BOUNDS);
  EXPECT_FIELD(C_CVT2, u.convert.dst, PINNED - 128u + 0u, MLIP_OK);
  EXPECT_FIELD(C_CVT2, u.convert.dst, OCM - 128u, MLIP_ERR_BOUNDS);
  /* FINISH writing the pinned range */
  base();
  b.cmds[CB_FINISH][0] = *CMD(C_T1_IN);
  b.cmds[CB_FINISH][0].u.dma.ocm_offset = PINNED;
  assert_int_equal(build_validate(), MLIP_ERR_BOUNDS);
  /* INIT with a compute command, a DMA_OUT, a DMA below the pinned range, a DMA from an input */
  base();
  b.cmds[CB_INIT][1] = *CMD(C_ADD);
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  base();
  b.cmds[CB_INIT][1] = *CMD(C_OUT0);
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  base();
  b.cmds[CB_INIT][0].u.dma.ocm_offset = PINNED - 128u;
  assert_int_equal(build_validate(), MLIP_ERR_BOUNDS);
  base();
  b.cmds[CB_INIT][0].u.dma.ocm_offset = OCM - 128u; /* 288 bytes past the end */
  assert_int_equal(build_validate(), MLIP_ERR_BOUNDS);
  base();
  b.cmds[CB_INIT][0].u.dma.binding = bind_in;
  b.cmds[CB_INIT][0].u.dma.row_bytes = 64;
  assert_int_equal(build_validate(), MLIP_ERR_INVALID_ARG);
  /* a buffer without pinning: INIT may hold no DMA, MAIN may use the whole OCM */
  base();
  b.hdr.ocm_pinned_offset = OCM;
  assert_int_equal(build_validate(), MLIP_ERR_BOUNDS); /* INIT's DMA is now below the pinned range */
  b.num_cmds[CB_INIT] = 0;
  CMD(C_CONV)->u.conv2d.out = OCM - 128u;
  assert_int_equal(build_validate(), MLIP_OK);
  /* an empty MAIN is valid; a second FINISH command too */
  base();
  b.num_cmds[CB_MAIN] = 0;
  c = cb_cmd(&b, CB_FINISH, MLIP_OP_GLOBAL_MAXPOOL, 1, 0);
  c->u.global_pool.in = 0;
  c->u.global_pool.out = 128;
  c->u.global_pool.hw = 1;
  c->u.global_pool.c = 1;
  assert_int_equal(build_validate(), MLIP_OK);
}

/* RESIZE: a buffer of its own (in at 0, out at 256, row table at 512, column
   table at 640; 2x2x2 -> 3x4x2, two taps each way), each rule broken once. */
static mlip_resize_args* resize_base(void) {
  mlip_resize_args* c;
  uint32_t l;
  cb_init(&b, MLIP_MCPU_CN10KA, 1, OCM);
  l = cb_layer(&b, MLIP_LAYER_RESIZE, "resize");
  c = cb_op_resize(&b, CB_MAIN, 0, l);
  c->in = 0;
  c->in_h = 2;
  c->in_w = 2;
  c->c = 2;
  c->out = 256;
  c->out_h = 3;
  c->out_w = 4;
  c->row_table = 512;
  c->col_table = 640;
  c->row_taps = 2;
  c->col_taps = 2;
  cb_barrier(&b, CB_MAIN, 0, l);
  return c;
}
/* One field of that RESIZE changed. */
#define EXPECT_RESIZE(field, value, status)       \
  do {                                            \
    resize_base()->field = (value);               \
    assert_int_equal(build_validate(), (status)); \
  } while (0)

static void test_resize_rules(void** state) {
  (void)state;
  EXPECT_RESIZE(row_base, 0, MLIP_OK);
  EXPECT_RESIZE(row_base, 7, MLIP_OK); /* the tables' contents are checked when it runs */
  EXPECT_RESIZE(in_h, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_RESIZE(in_w, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_RESIZE(c, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_RESIZE(out_h, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_RESIZE(out_w, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_RESIZE(row_taps, 0, MLIP_ERR_INVALID_ARG);
  EXPECT_RESIZE(col_taps, 3, MLIP_ERR_INVALID_ARG);
  EXPECT_RESIZE(in, 1, MLIP_ERR_INVALID_ARG);          /* not a multiple of 128 */
  EXPECT_RESIZE(out, 0, MLIP_ERR_INVALID_ARG);         /* over the input */
  EXPECT_RESIZE(out, 512, MLIP_ERR_INVALID_ARG);       /* over the row table */
  EXPECT_RESIZE(col_table, 256, MLIP_ERR_INVALID_ARG); /* under the output */
  EXPECT_RESIZE(row_table, OCM - 128u, MLIP_OK);       /* 48 bytes: fits */
  EXPECT_RESIZE(out_h, 0x20000000u, MLIP_ERR_BOUNDS);
  EXPECT_RESIZE(col_table, OCM, MLIP_ERR_BOUNDS);
  EXPECT_RESIZE(in_w, 0x40000000u, MLIP_ERR_BOUNDS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_valid_passes_and_runs),
    cmocka_unit_test(test_crc32c),
    cmocka_unit_test(test_size_and_magic),
    cmocka_unit_test(test_version_target),
    cmocka_unit_test(test_crcs),
    cmocka_unit_test(test_header_fields),
    cmocka_unit_test(test_sections),
    cmocka_unit_test(test_io_bindings_layers),
    cmocka_unit_test(test_command_head),
    cmocka_unit_test(test_dma_rules),
    cmocka_unit_test(test_compute_rules),
    cmocka_unit_test(test_activation_eltwise_rules),
    cmocka_unit_test(test_conv_channels),
    cmocka_unit_test(test_pinned_and_sections),
    cmocka_unit_test(test_resize_rules),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
