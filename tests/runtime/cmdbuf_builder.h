/* A test helper that builds valid MLIP command buffers (include/mlip/cmdbuf.h)
 * from a list of bindings, layers, commands and weights: it lays out the
 * header and the sections, fills every layer's est_cycles from the cycle
 * model (mlip/cycle_model.h, the one the compiler and the simulator share;
 * test_cycle_model.c checks it against hand-computed figures), and
 * computes both CRCs. Commands are held typed (mlip_decoded_cmd: the head
 * and the operands as the fields of the opcode's table, mlip/cmd_table.h)
 * and encoded by the generated encoder when the buffer is built, so a test
 * names every operand it sets and never a word. It does not validate:
 * tests build bad buffers with it on purpose. C99, no heap: a builder is a
 * large struct, keep it static. */
#ifndef MLIP_TESTS_CMDBUF_BUILDER_H_
#define MLIP_TESTS_CMDBUF_BUILDER_H_

#include <stddef.h>
#include <stdint.h>

#include "mlip/cmdbuf.h"
#include "mlip/cycle_model.h"
#include "mlip/region.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CB_MAX_CMDS 512u
#define CB_MAX_LAYERS 64u
#define CB_MAX_BINDINGS 72u
#define CB_MAX_IO 70u
#define CB_MAX_WEIGHTS (256u * 1024u)
#define CB_MAX_STRINGS 4096u

enum { CB_INIT = 0, CB_MAIN = 1, CB_FINISH = 2 }; /* command lists */

typedef struct cb_builder {
  /* Header fields a test may change before cb_build: mcpu, num_tiles,
     ocm_size, ocm_pinned_offset, flags, the cycle-model constants, name.
     cb_build fills magic, version, sizes, sections and CRCs (and
     num_inputs/num_outputs from the I/O added, unless keep_io_counts). */
  mlip_header hdr;
  int keep_io_counts;
  int auto_est; /* 1 (default): est_cycles of every layer from the cycle model */

  mlip_binding bindings[CB_MAX_BINDINGS];
  uint32_t num_bindings;
  mlip_layer layers[CB_MAX_LAYERS];
  uint32_t num_layers;
  mlip_decoded_cmd cmds[3][CB_MAX_CMDS]; /* typed; cb_build encodes them (mlip_cmd_encode) */
  uint32_t num_cmds[3];
  mlip_io_desc in_io[CB_MAX_IO];
  uint32_t num_in;
  mlip_io_desc out_io[CB_MAX_IO];
  uint32_t num_out;
  uint8_t weights[CB_MAX_WEIGHTS];
  uint32_t weights_size;
  char strings[CB_MAX_STRINGS];
  uint32_t strings_size;
  uint32_t weights_binding; /* index of the WEIGHTS binding (0) */
} cb_builder;

/* Target defaults for mcpu (MLIP_MCPU_CN10KA or _CNF10KB): the constants of
   docs/mlip-spec.md section 5; no pinning (pinned offset = ocm_size). The
   WEIGHTS binding is binding 0. */
void cb_init(cb_builder* b, uint32_t mcpu, uint32_t num_tiles, uint32_t ocm_size);

uint32_t cb_string(cb_builder* b, const char* s);            /* offset in STRINGS */
uint32_t cb_layer(cb_builder* b, uint32_t kind, const char* name); /* layer index */
/* Region input/output k (in the order added): an fp32 NCHW IO descriptor of
   `size` bytes (shape {size / 4}) and its binding. Return the binding index. */
uint32_t cb_input(cb_builder* b, uint32_t size);
uint32_t cb_output(cb_builder* b, uint32_t size);
uint32_t cb_scratch(cb_builder* b, uint32_t size);
/* Appends bytes to WEIGHTS at the next multiple of 128; returns their offset. */
uint32_t cb_weights(cb_builder* b, const void* data, uint32_t bytes);

/* Appends a command of `opcode` with every operand 0 to list
   (CB_INIT/MAIN/FINISH); set its operands in ->u.<format> (mlip/cmd_args.h),
   e.g. cb_cmd(&b, CB_MAIN, MLIP_OP_CONV2D, 0, layer)->u.conv2d.kh = 3. Any
   opcode, a bad one too: an unknown opcode is built with no operand. */
mlip_decoded_cmd* cb_cmd(cb_builder* b, int list, uint32_t opcode, uint32_t tile, uint32_t layer);

/* The same for each opcode of MLIP_OPCODES, returning its typed operands:
   cb_op_conv2d(&b, CB_MAIN, 0, layer)->kh = 3 (generated from the table). */
#define CB_OP_BUILDER_(NAME, name, value, fmt, forms) \
  mlip_##fmt##_args* cb_op_##name(cb_builder* b, int list, uint32_t tile, uint32_t layer);
MLIP_OPCODES(CB_OP_BUILDER_)
#undef CB_OP_BUILDER_

/* Shorthands: a DMA (MLIP_OP_DMA_IN or _OUT) with all its operands, a
   barrier, CONVERT of count elements (mode MLIP_CVT_*), LAYOUT of outer
   blocks of [a][b] elements of elem bytes. */
mlip_dma_args* cb_dma(cb_builder* b, int list, uint32_t opcode, uint32_t tile, uint32_t layer, uint32_t binding,
                      uint32_t ddr_offset, uint32_t ocm_offset, uint32_t rows, uint32_t row_bytes,
                      uint32_t ddr_stride, uint32_t ocm_stride);
void cb_barrier(cb_builder* b, int list, uint32_t tile, uint32_t layer);
mlip_convert_args* cb_convert(cb_builder* b, int list, uint32_t tile, uint32_t layer, uint32_t src, uint32_t dst,
                              uint32_t count, uint32_t mode);
mlip_layout_args* cb_layout(cb_builder* b, int list, uint32_t tile, uint32_t layer, uint32_t src, uint32_t dst,
                            uint32_t outer, uint32_t a, uint32_t bdim, uint32_t elem);

/* Lays the buffer out in out[0, cap); returns its size, or 0 if cap is too
   small. */
size_t cb_build(const cb_builder* b, uint8_t* out, size_t cap);

/* The cycles the simulator must report for `layer`: the cycle model summed
   over every contiguous run of its commands in INIT, MAIN and FINISH. */
uint64_t cb_est_layer(const cb_builder* b, uint32_t layer);

/* Editing a built buffer: header in and out (memcpy), the byte offset of
   command i of a section (MLIP_SEC_INIT/MAIN/FINISH), both CRCs
   recomputed over [0, size) (payload CRC of [256, size)), a command in and
   out. */
void cb_get_header(const uint8_t* buf, mlip_header* h);
void cb_put_header(uint8_t* buf, const mlip_header* h);
size_t cb_cmd_offset(const uint8_t* buf, uint32_t section, uint32_t i);
void cb_fix_crcs(uint8_t* buf, size_t size);
/* Command i of a section of a built buffer, decoded; and written back from
   its typed form (encoded; the CRCs are the caller's: cb_fix_crcs). */
void cb_get_cmd(const uint8_t* buf, uint32_t section, uint32_t i, mlip_decoded_cmd* d);
void cb_put_cmd(uint8_t* buf, uint32_t section, uint32_t i, const mlip_decoded_cmd* d);

/* Builds b and runs it once as a fresh region (state zero) on the given
   memory. Stats may be NULL. */
mlip_status cb_run(const cb_builder* b, uint8_t* ocm, uint32_t ocm_capacity, void* const* inputs, uint32_t num_inputs,
                   void* const* outputs, uint32_t num_outputs, uint8_t* scratch, uint32_t scratch_size,
                   mlip_layer_stats* stats, uint32_t stats_capacity);

/* Half bits of small exact values, for test data. */
uint16_t cb_h(float f);
float cb_f(uint16_t h);

#ifdef __cplusplus
}
#endif

#endif /* MLIP_TESTS_CMDBUF_BUILDER_H_ */
