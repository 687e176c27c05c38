/* runtime.sim_region_sizes: mlip_region_run() checks the command buffer's
   bindings against the sizes of the caller's arrays on every run, so
   neither a caller passing a smaller array nor a buffer changed after it
   was validated can make the simulator read or write outside them. The
   arrays are heap blocks of exactly the stated size, so under the
   sanitizer build an access one byte past them aborts the test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cmdbuf_builder.h"
#include "mlip/region.h"
#include "sim_internal.h"

#define TILE_OCM 4096u
#define IO_BYTES 256u
static cb_builder b;
static uint8_t ocm[TILE_OCM];
static uint8_t cmdbuf[64u * 1024u];
static size_t cmdbuf_size;

/* One layer: DMA the whole input into OCM, DMA it back out to the output. */
static void build_copy(void) {
  uint32_t layer, bi, bo;
  cb_init(&b, MLIP_MCPU_CN10KA, 1, TILE_OCM);
  layer = cb_layer(&b, MLIP_LAYER_CONVERT_IN, "copy");
  bi = cb_input(&b, IO_BYTES);
  bo = cb_output(&b, IO_BYTES);
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_IN, 0, layer, bi, 0, 0, 1, IO_BYTES, 0, 0);
  cb_dma(&b, CB_MAIN, MLIP_OP_DMA_OUT, 0, layer, bo, 0, 0, 1, IO_BYTES, 0, 0);
  cmdbuf_size = cb_build(&b, cmdbuf, sizeof cmdbuf);
  assert_true(cmdbuf_size > 0);
}

static void region_for(mlip_region* r, mlip_region_state* st) {
  memset(st, 0, sizeof *st);
  r->name = "sizes";
  r->cmdbuf = cmdbuf;
  r->cmdbuf_size = (uint32_t)cmdbuf_size;
  r->ocm = ocm;
  r->ocm_capacity = sizeof ocm;
  r->stats = NULL;
  r->stats_capacity = 0;
  r->state = st;
}

/* The byte offset of binding i in the built buffer. */
static size_t binding_offset(uint32_t i) {
  mlip_header h;
  cb_get_header(cmdbuf, &h);
  return h.sections[MLIP_SEC_BINDINGS].offset + (size_t)i * sizeof(mlip_binding);
}

static uint32_t binding_of(uint32_t kind) {
  uint32_t i;
  mlip_header h;
  cb_get_header(cmdbuf, &h);
  for (i = 0; i < h.sections[MLIP_SEC_BINDINGS].count; ++i) {
    mlip_binding bd;
    memcpy(&bd, cmdbuf + binding_offset(i), sizeof bd);
    if (bd.kind == kind) {
      return i;
    }
  }
  fail_msg("no binding of kind %u", (unsigned)kind);
  return 0;
}

/* The first MAIN command (a DMA of the input) made to move row_bytes bytes. */
static void grow_first_dma(uint32_t row_bytes) {
  mlip_decoded_cmd d;
  cb_get_cmd(cmdbuf, MLIP_SEC_MAIN, 0, &d);
  assert_int_equal(d.opcode, MLIP_OP_DMA_IN);
  d.u.dma.row_bytes = row_bytes;
  cb_put_cmd(cmdbuf, MLIP_SEC_MAIN, 0, &d);
}

static void test_exact_arrays_run(void** state) {
  uint8_t* in = (uint8_t*)malloc(IO_BYTES);
  uint8_t* out = (uint8_t*)malloc(IO_BYTES);
  void* ins[1];
  void* outs[1];
  const uint32_t sizes[1] = {IO_BYTES};
  mlip_region r;
  mlip_region_state st;
  uint32_t i;
  (void)state;
  assert_non_null(in);
  assert_non_null(out);
  for (i = 0; i < IO_BYTES; ++i) in[i] = (uint8_t)(i * 3u + 1u);
  memset(out, 0, IO_BYTES);
  ins[0] = in;
  outs[0] = out;
  build_copy();
  region_for(&r, &st);
  assert_int_equal(mlip_region_run(&r, ins, sizes, 1, outs, sizes, 1, NULL, 0), MLIP_OK);
  assert_memory_equal(out, in, IO_BYTES);
  free(in);
  free(out);
}

static void test_smaller_caller_arrays_are_refused(void** state) {
  /* Half-sized blocks: the buffer's bindings say IO_BYTES. */
  uint8_t* in = (uint8_t*)malloc(IO_BYTES / 2u);
  uint8_t* out = (uint8_t*)malloc(IO_BYTES / 2u);
  void* ins[1];
  void* outs[1];
  const uint32_t half[1] = {IO_BYTES / 2u};
  const uint32_t full[1] = {IO_BYTES};
  mlip_region r;
  mlip_region_state st;
  (void)state;
  assert_non_null(in);
  assert_non_null(out);
  memset(in, 7, IO_BYTES / 2u);
  memset(out, 9, IO_BYTES / 2u);
  ins[0] = in;
  outs[0] = out;
  build_copy();
  region_for(&r, &st);
  assert_int_equal(mlip_region_run(&r, ins, half, 1, outs, full, 1, NULL, 0), MLIP_ERR_BOUNDS);
  assert_int_equal(mlip_region_run(&r, ins, full, 1, outs, half, 1, NULL, 0), MLIP_ERR_BOUNDS);
  assert_int_equal(mlip_region_run(&r, ins, half, 1, outs, half, 1, NULL, 0), MLIP_ERR_BOUNDS);
  assert_int_equal(out[0], 9); /* nothing ran */
  /* Sizes are required with the arrays. */
  assert_int_equal(mlip_region_run(&r, ins, NULL, 1, outs, half, 1, NULL, 0), MLIP_ERR_NULL);
  assert_int_equal(mlip_region_run(&r, ins, half, 1, outs, NULL, 1, NULL, 0), MLIP_ERR_NULL);
  free(in);
  free(out);
}

static void test_buffer_changed_after_validation(void** state) {
  uint8_t* in = (uint8_t*)malloc(IO_BYTES);
  uint8_t* out = (uint8_t*)malloc(IO_BYTES);
  void* ins[1];
  void* outs[1];
  const uint32_t sizes[1] = {IO_BYTES};
  mlip_region r;
  mlip_region_state st;
  mlip_binding bd;
  size_t off;
  uint32_t big = 4u * IO_BYTES;
  (void)state;
  assert_non_null(in);
  assert_non_null(out);
  memset(in, 1, IO_BYTES);
  ins[0] = in;
  outs[0] = out;
  build_copy();
  region_for(&r, &st);
  assert_int_equal(mlip_region_run(&r, ins, sizes, 1, outs, sizes, 1, NULL, 0), MLIP_OK);
  assert_int_equal(st.validated, MLIP_STATE_DONE);

  /* Grow the input binding and its DMA to 4x (CRCs fixed too, although a
     validated buffer's CRC is not checked again): the binding no longer
     fits the caller's array. */
  off = binding_offset(binding_of(MLIP_BIND_INPUT));
  memcpy(&bd, cmdbuf + off, sizeof bd);
  bd.size = big;
  memcpy(cmdbuf + off, &bd, sizeof bd);
  grow_first_dma(big);
  cb_fix_crcs(cmdbuf, cmdbuf_size);
  assert_int_equal(mlip_region_run(&r, ins, sizes, 1, outs, sizes, 1, NULL, 0), MLIP_ERR_BOUNDS);

  /* The same for the output binding. */
  build_copy();
  region_for(&r, &st);
  assert_int_equal(mlip_region_run(&r, ins, sizes, 1, outs, sizes, 1, NULL, 0), MLIP_OK);
  off = binding_offset(binding_of(MLIP_BIND_OUTPUT));
  memcpy(&bd, cmdbuf + off, sizeof bd);
  bd.size = big;
  memcpy(cmdbuf + off, &bd, sizeof bd);
  assert_int_equal(mlip_region_run(&r, ins, sizes, 1, outs, sizes, 1, NULL, 0), MLIP_ERR_BOUNDS);

  /* A binding moved to an input the caller does not have. */
  build_copy();
  region_for(&r, &st);
  assert_int_equal(mlip_region_run(&r, ins, sizes, 1, outs, sizes, 1, NULL, 0), MLIP_OK);
  off = binding_offset(binding_of(MLIP_BIND_INPUT));
  memcpy(&bd, cmdbuf + off, sizeof bd);
  bd.index = 1;
  memcpy(cmdbuf + off, &bd, sizeof bd);
  assert_int_not_equal(mlip_region_run(&r, ins, sizes, 1, outs, sizes, 1, NULL, 0), MLIP_OK);

  /* A DMA grown past its (unchanged) binding: the executor's re-check stops it. */
  build_copy();
  region_for(&r, &st);
  assert_int_equal(mlip_region_run(&r, ins, sizes, 1, outs, sizes, 1, NULL, 0), MLIP_OK);
  grow_first_dma(big);
  assert_int_not_equal(mlip_region_run(&r, ins, sizes, 1, outs, sizes, 1, NULL, 0), MLIP_OK);
  free(in);
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_exact_arrays_run),
    cmocka_unit_test(test_smaller_caller_arrays_are_refused),
    cmocka_unit_test(test_buffer_changed_after_validation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
