/* See cmdbuf_builder.h. */
#include "cmdbuf_builder.h"

#include <string.h>

static uint32_t align_up(uint32_t v, uint32_t a) {
  return (v + a - 1u) / a * a;
}

void cb_init(cb_builder* b, uint32_t mcpu, uint32_t num_tiles, uint32_t ocm_size) {
  static const char name[] = "test_region";
  memset(b, 0, sizeof *b);
  b->auto_est = 1;
  b->hdr.mcpu = mcpu;
  b->hdr.num_tiles = num_tiles;
  b->hdr.ocm_size = ocm_size;
  b->hdr.ocm_pinned_offset = ocm_size;
  b->hdr.quantize = MLIP_QUANT_FP16;
  if (mcpu == MLIP_MCPU_CNF10KB) {
    b->hdr.macs_per_cycle = 128;
    b->hdr.dma_bytes_per_cycle = 16;
    b->hdr.eltwise_per_cycle = 32;
    b->hdr.cmd_overhead_cycles = 40;
    b->hdr.clock_mhz = 800;
  } else {
    b->hdr.macs_per_cycle = 256;
    b->hdr.dma_bytes_per_cycle = 32;
    b->hdr.eltwise_per_cycle = 64;
    b->hdr.cmd_overhead_cycles = 40;
    b->hdr.clock_mhz = 1000;
  }
  memcpy(b->hdr.name, name, sizeof name);
  b->weights_binding = 0;
  b->bindings[0].kind = MLIP_BIND_WEIGHTS;
  b->num_bindings = 1;
}

uint32_t cb_string(cb_builder* b, const char* s) {
  uint32_t off = b->strings_size;
  size_t n = strlen(s) + 1u;
  if (off + n > CB_MAX_STRINGS) {
    return 0;
  }
  memcpy(b->strings + off, s, n);
  b->strings_size += (uint32_t)n;
  return off;
}

uint32_t cb_layer(cb_builder* b, uint32_t kind, const char* name) {
  uint32_t i = b->num_layers++;
  memset(&b->layers[i], 0, sizeof b->layers[i]);
  b->layers[i].kind = kind;
  b->layers[i].name = cb_string(b, name);
  return i;
}

static void io_desc(cb_builder* b, mlip_io_desc* d, const char* name, uint32_t size) {
  memset(d, 0, sizeof *d);
  d->name = cb_string(b, name);
  d->type = MLIP_IO_FP32;
  d->layout = MLIP_LAYOUT_NCHW;
  d->ndim = 1;
  d->shape[0] = size / 4u;
  d->size = size;
  d->qscale_bits = 0x3F800000u; /* 1.0f */
}

static uint32_t add_binding(cb_builder* b, uint32_t kind, uint32_t index, uint32_t size) {
  uint32_t i = b->num_bindings++;
  memset(&b->bindings[i], 0, sizeof b->bindings[i]);
  b->bindings[i].kind = kind;
  b->bindings[i].index = index;
  b->bindings[i].size = size;
  return i;
}

uint32_t cb_input(cb_builder* b, uint32_t size) {
  uint32_t k = b->num_in++;
  io_desc(b, &b->in_io[k], "input", size);
  return add_binding(b, MLIP_BIND_INPUT, k, size);
}

uint32_t cb_output(cb_builder* b, uint32_t size) {
  uint32_t k = b->num_out++;
  io_desc(b, &b->out_io[k], "output", size);
  return add_binding(b, MLIP_BIND_OUTPUT, k, size);
}

uint32_t cb_scratch(cb_builder* b, uint32_t size) {
  return add_binding(b, MLIP_BIND_SCRATCH, 0, size);
}

uint32_t cb_weights(cb_builder* b, const void* data, uint32_t bytes) {
  uint32_t off = align_up(b->weights_size, MLIP_OCM_ALIGN);
  if (off + bytes > CB_MAX_WEIGHTS) {
    return 0;
  }
  memset(b->weights + b->weights_size, 0, off - b->weights_size);
  memcpy(b->weights + off, data, bytes);
  b->weights_size = off + bytes;
  return off;
}

mlip_decoded_cmd* cb_cmd(cb_builder* b, int list, uint32_t opcode, uint32_t tile, uint32_t layer) {
  mlip_decoded_cmd* c = &b->cmds[list][b->num_cmds[list]++];
  memset(c, 0, sizeof *c);
  c->opcode = opcode;
  c->tile = tile;
  c->layer = layer;
  return c;
}

#define CB_OP_BUILDER_(NAME, name, value, fmt, forms)                                       \
  mlip_##fmt##_args* cb_op_##name(cb_builder* b, int list, uint32_t tile, uint32_t layer) { \
    return &cb_cmd(b, list, MLIP_OP_##NAME, tile, layer)->u.fmt;                            \
  }
MLIP_OPCODES(CB_OP_BUILDER_)
#undef CB_OP_BUILDER_

mlip_dma_args* cb_dma(cb_builder* b, int list, uint32_t opcode, uint32_t tile, uint32_t layer, uint32_t binding,
                      uint32_t ddr_offset, uint32_t ocm_offset, uint32_t rows, uint32_t row_bytes,
                      uint32_t ddr_stride, uint32_t ocm_stride) {
  mlip_dma_args* a = &cb_cmd(b, list, opcode, tile, layer)->u.dma;
  a->binding = binding;
  a->ddr_offset = ddr_offset;
  a->ocm_offset = ocm_offset;
  a->rows = rows;
  a->row_bytes = row_bytes;
  a->ddr_stride = ddr_stride;
  a->ocm_stride = ocm_stride;
  return a;
}

mlip_convert_args* cb_convert(cb_builder* b, int list, uint32_t tile, uint32_t layer, uint32_t src, uint32_t dst,
                              uint32_t count, uint32_t mode) {
  mlip_convert_args* a = cb_op_convert(b, list, tile, layer);
  a->src = src;
  a->dst = dst;
  a->count = count;
  a->mode = mode;
  return a;
}

mlip_layout_args* cb_layout(cb_builder* b, int list, uint32_t tile, uint32_t layer, uint32_t src, uint32_t dst,
                            uint32_t outer, uint32_t a, uint32_t bdim, uint32_t elem) {
  mlip_layout_args* l = cb_op_layout(b, list, tile, layer);
  l->src = src;
  l->dst = dst;
  l->outer = outer;
  l->a = a;
  l->b = bdim;
  l->elem_bytes = elem;
  return l;
}

void cb_barrier(cb_builder* b, int list, uint32_t tile, uint32_t layer) {
  (void)cb_op_barrier(b, list, tile, layer);
}

/* ---- estimated cycles: the runtime's cycle model ----------------------- */

uint64_t cb_est_layer(const cb_builder* b, uint32_t layer) {
  const mlip_cycle_rates rates = mlip_cycle_rates_of(&b->hdr);
  uint64_t total = 0;
  int list;
  for (list = 0; list < 3; ++list) {
    mlip_cycle_run run;
    int in_run = 0;
    uint32_t i;
    mlip_cycle_run_reset(&run);
    for (i = 0; i <= b->num_cmds[list]; ++i) {
      if (i < b->num_cmds[list] && b->cmds[list][i].layer == layer) {
        /* the command as the simulator will read it: encoded, then decoded */
        mlip_cmd c;
        mlip_decoded_cmd d;
        mlip_cmd_encode(&b->cmds[list][i], &c);
        (void)mlip_cmd_decode(&c, &d);
        mlip_cycle_run_add(&run, &rates, &d);
        in_run = 1;
      } else if (in_run) {
        total += mlip_cycle_run_total(&run, &rates);
        mlip_cycle_run_reset(&run);
        in_run = 0;
      }
    }
  }
  return total;
}

/* ---- layout -------------------------------------------------------------- */

size_t cb_build(const cb_builder* b, uint8_t* out, size_t cap) {
  mlip_header h = b->hdr;
  uint32_t pos = MLIP_HEADER_SIZE;
  uint32_t sec;
  uint32_t i;
  mlip_binding bindings[CB_MAX_BINDINGS];

  memcpy(h.magic, MLIP_MAGIC, 4);
  h.version = MLIP_FORMAT_VERSION;
  h.target_arch = MLIP_TARGET_ARCH;
  h.header_size = MLIP_HEADER_SIZE;
  if (!b->keep_io_counts) {
    h.num_inputs = b->num_in;
    h.num_outputs = b->num_out;
  }
  memcpy(bindings, b->bindings, sizeof bindings);
  bindings[b->weights_binding].size = b->weights_size;

  for (sec = 0; sec < MLIP_NUM_SECTIONS; ++sec) {
    uint32_t count = 0, rec = 1;
    pos = align_up(pos, 16u);
    switch (sec) {
      case MLIP_SEC_BINDINGS: count = b->num_bindings; rec = sizeof(mlip_binding); break;
      case MLIP_SEC_LAYERS: count = b->num_layers; rec = sizeof(mlip_layer); break;
      case MLIP_SEC_INIT: count = b->num_cmds[CB_INIT]; rec = sizeof(mlip_cmd); break;
      case MLIP_SEC_MAIN: count = b->num_cmds[CB_MAIN]; rec = sizeof(mlip_cmd); break;
      case MLIP_SEC_FINISH: count = b->num_cmds[CB_FINISH]; rec = sizeof(mlip_cmd); break;
      case MLIP_SEC_IO: count = b->num_in + b->num_out; rec = sizeof(mlip_io_desc); break;
      case MLIP_SEC_WEIGHTS: count = b->weights_size; break;
      default: count = b->strings_size; break;
    }
    h.sections[sec].offset = pos;
    h.sections[sec].count = count;
    h.sections[sec].size = count * rec;
    pos += count * rec;
  }
  h.total_size = pos;
  if (cap < pos) {
    return 0;
  }
  memset(out, 0, pos);

  memcpy(out + h.sections[MLIP_SEC_BINDINGS].offset, bindings, b->num_bindings * sizeof(mlip_binding));
  for (i = 0; i < b->num_layers; ++i) {
    mlip_layer l = b->layers[i];
    if (b->auto_est) {
      l.est_cycles = (uint32_t)cb_est_layer(b, i);
    }
    memcpy(out + h.sections[MLIP_SEC_LAYERS].offset + i * sizeof(mlip_layer), &l, sizeof l);
  }
  for (sec = MLIP_SEC_INIT; sec <= MLIP_SEC_FINISH; ++sec) {
    const int list = (int)(sec - MLIP_SEC_INIT); /* CB_INIT, CB_MAIN, CB_FINISH */
    for (i = 0; i < b->num_cmds[list]; ++i) {
      mlip_cmd c;
      mlip_cmd_encode(&b->cmds[list][i], &c);
      memcpy(out + h.sections[sec].offset + i * sizeof(mlip_cmd), &c, sizeof c);
    }
  }
  memcpy(out + h.sections[MLIP_SEC_IO].offset, b->in_io, b->num_in * sizeof(mlip_io_desc));
  memcpy(out + h.sections[MLIP_SEC_IO].offset + b->num_in * sizeof(mlip_io_desc), b->out_io,
         b->num_out * sizeof(mlip_io_desc));
  memcpy(out + h.sections[MLIP_SEC_WEIGHTS].offset, b->weights, b->weights_size);
  memcpy(out + h.sections[MLIP_SEC_STRINGS].offset, b->strings, b->strings_size);
  cb_put_header(out, &h);
  cb_fix_crcs(out, pos);
  return pos;
}

void cb_get_header(const uint8_t* buf, mlip_header* h) {
  memcpy(h, buf, sizeof *h);
}

void cb_put_header(uint8_t* buf, const mlip_header* h) {
  memcpy(buf, h, sizeof *h);
}

size_t cb_cmd_offset(const uint8_t* buf, uint32_t section, uint32_t i) {
  mlip_header h;
  cb_get_header(buf, &h);
  return (size_t)h.sections[section].offset + (size_t)i * sizeof(mlip_cmd);
}

void cb_get_cmd(const uint8_t* buf, uint32_t section, uint32_t i, mlip_decoded_cmd* d) {
  mlip_cmd c;
  memcpy(&c, buf + cb_cmd_offset(buf, section, i), sizeof c);
  (void)mlip_cmd_decode(&c, d);
}

void cb_put_cmd(uint8_t* buf, uint32_t section, uint32_t i, const mlip_decoded_cmd* d) {
  mlip_cmd c;
  mlip_cmd_encode(d, &c);
  memcpy(buf + cb_cmd_offset(buf, section, i), &c, sizeof c);
}

void cb_fix_crcs(uint8_t* buf, size_t size) {
  mlip_header h;
  if (size < MLIP_HEADER_SIZE) {
    return;
  }
  cb_get_header(buf, &h);
  h.payload_crc32c = mlip_crc32c(0, buf + MLIP_HEADER_SIZE, size - MLIP_HEADER_SIZE);
  cb_put_header(buf, &h);
  h.header_crc32c = mlip_crc32c(0, buf, 252u);
  cb_put_header(buf, &h);
}

mlip_status cb_run(const cb_builder* b, uint8_t* ocm, uint32_t ocm_capacity, void* const* inputs, uint32_t num_inputs,
                   void* const* outputs, uint32_t num_outputs, uint8_t* scratch, uint32_t scratch_size,
                   mlip_layer_stats* stats, uint32_t stats_capacity) {
  static uint8_t buf[512u * 1024u];
  mlip_region_state state = {0, 0};
  mlip_region r;
  uint32_t in_sizes[CB_MAX_IO], out_sizes[CB_MAX_IO], i;
  size_t n = cb_build(b, buf, sizeof buf);
  if (n == 0) {
    return MLIP_ERR_INTERNAL;
  }
  r.name = "test";
  r.cmdbuf = buf;
  r.cmdbuf_size = (uint32_t)n;
  r.ocm = ocm;
  r.ocm_capacity = ocm_capacity;
  r.stats = stats;
  r.stats_capacity = stats_capacity;
  r.state = &state;
  /* The caller's arrays are the bindings' sizes (tests size them so). */
  for (i = 0; i < b->num_bindings; ++i) {
    const mlip_binding* bd = &b->bindings[i];
    if (bd->kind == MLIP_BIND_INPUT && bd->index < CB_MAX_IO) in_sizes[bd->index] = bd->size;
    if (bd->kind == MLIP_BIND_OUTPUT && bd->index < CB_MAX_IO) out_sizes[bd->index] = bd->size;
  }
  return mlip_region_run(&r, inputs, in_sizes, num_inputs, outputs, out_sizes, num_outputs, scratch, scratch_size);
}

uint16_t cb_h(float f) {
  return mlip_f32_to_f16(f);
}

float cb_f(uint16_t h) {
  return mlip_f16_to_f32(h);
}
