/* The command-buffer validator: every rule of docs/command-buffer.md. It
 * reads the buffer only through memcpy (any alignment), never past `size`,
 * and does every bound check in 64-bit arithmetic with saturating products,
 * so no operand word can make a check wrap. After it passes, every access the
 * executor makes is inside the buffer, the OCM of a tile, or a binding.
 *
 * Order (docs/command-buffer.md: "the header CRC first, then the sizes, then
 * the payload CRC, then every record"): size >= 256 bytes, magic, version and
 * header_size (a header of another version may not even have its CRC where
 * v1 has it), header CRC, target, header fields, total_size, section table,
 * payload CRC, then IO descriptors, bindings, layers and every command. */
#include "sim_internal.h"

/* ---- small helpers ------------------------------------------------------- */

static uint64_t sat_mul(uint64_t a, uint64_t b) {
  if (a != 0u && b > UINT64_MAX / a) {
    return UINT64_MAX;
  }
  return a * b;
}

static uint64_t sat_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t mul3(uint64_t a, uint64_t b, uint64_t c) {
  return sat_mul(sat_mul(a, b), c);
}

static uint64_t mul4(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  return sat_mul(mul3(a, b, c), d);
}

/* Byte size of one record of each section (WEIGHTS and STRINGS count bytes). */
static uint32_t record_size(uint32_t section) {
  switch (section) {
    case MLIP_SEC_BINDINGS: return (uint32_t)sizeof(mlip_binding);
    case MLIP_SEC_LAYERS: return (uint32_t)sizeof(mlip_layer);
    case MLIP_SEC_INIT:
    case MLIP_SEC_MAIN:
    case MLIP_SEC_FINISH: return (uint32_t)sizeof(mlip_cmd);
    case MLIP_SEC_IO: return (uint32_t)sizeof(mlip_io_desc);
    default: return 1u;
  }
}

static const uint8_t* record_ptr(const mlip_sim_view* v, uint32_t section, uint32_t i) {
  const mlip_section* s = &v->hdr.sections[section];
  return v->buf + (size_t)s->offset + (size_t)i * (size_t)record_size(section);
}

void mlip_sim_read_binding(const mlip_sim_view* v, uint32_t i, mlip_binding* out) {
  memcpy(out, record_ptr(v, MLIP_SEC_BINDINGS, i), sizeof *out);
}

void mlip_sim_read_layer(const mlip_sim_view* v, uint32_t i, mlip_layer* out) {
  memcpy(out, record_ptr(v, MLIP_SEC_LAYERS, i), sizeof *out);
}

void mlip_sim_read_cmd(const mlip_sim_view* v, uint32_t section, uint32_t i, mlip_cmd* out) {
  memcpy(out, record_ptr(v, section, i), sizeof *out);
}

static void read_io(const mlip_sim_view* v, uint32_t i, mlip_io_desc* out) {
  memcpy(out, record_ptr(v, MLIP_SEC_IO, i), sizeof *out);
}

/* ---- header and section table ------------------------------------------- */

static mlip_status check_header_fields(const mlip_header* h) {
  uint32_t i;
  int has_nul = 0;
  if (h->target_arch != MLIP_TARGET_ARCH || (h->mcpu != MLIP_MCPU_CN10KA && h->mcpu != MLIP_MCPU_CNF10KB)) {
    return MLIP_ERR_TARGET;
  }
  if (h->num_tiles < 1u || h->num_tiles > MLIP_MAX_TILES) {
    return MLIP_ERR_TILE;
  }
  if (h->ocm_size % MLIP_OCM_ALIGN != 0u || h->ocm_pinned_offset % MLIP_OCM_ALIGN != 0u) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (h->ocm_size > MLIP_MAX_OCM_SIZE || h->ocm_pinned_offset > h->ocm_size) {
    return MLIP_ERR_BOUNDS;
  }
  if (h->quantize != MLIP_QUANT_FP16) {
    return MLIP_ERR_UNSUPPORTED;
  }
  if ((h->flags & ~(uint32_t)(MLIP_FLAG_WB_PIN_OCM | MLIP_FLAG_HW)) != 0u) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (h->macs_per_cycle == 0u || h->dma_bytes_per_cycle == 0u || h->eltwise_per_cycle == 0u ||
      h->cmd_overhead_cycles == 0u || h->clock_mhz == 0u) {
    return MLIP_ERR_INVALID_ARG;
  }
  for (i = 0; i < (uint32_t)sizeof h->name; ++i) {
    if (h->name[i] == 0u) {
      has_nul = 1;
      break;
    }
  }
  if (!has_nul) {
    return MLIP_ERR_INVALID_ARG;
  }
  return MLIP_OK;
}

static mlip_status check_sections(const mlip_header* h) {
  uint64_t prev_end = MLIP_HEADER_SIZE;
  uint32_t i;
  for (i = 0; i < MLIP_NUM_SECTIONS; ++i) {
    const mlip_section* s = &h->sections[i];
    uint64_t end = (uint64_t)s->offset + (uint64_t)s->size;
    if (s->offset % MLIP_SECTION_ALIGN != 0u || (uint64_t)s->offset < prev_end ||
        (uint64_t)s->count * (uint64_t)record_size(i) != (uint64_t)s->size || end > (uint64_t)h->total_size) {
      return MLIP_ERR_BOUNDS;
    }
    prev_end = end;
  }
  return MLIP_OK;
}

mlip_status mlip_sim_open(const uint8_t* buf, size_t size, int check_crc, mlip_sim_view* view) {
  mlip_header* h = &view->hdr;
  mlip_status st;
  view->buf = buf;
  view->size = size;
  if (buf == NULL) {
    return MLIP_ERR_NULL;
  }
  if (!mlip_sim_host_little_endian()) {
    return MLIP_ERR_UNSUPPORTED;
  }
  if (size < MLIP_HEADER_SIZE) {
    return MLIP_ERR_TRUNCATED;
  }
  memcpy(h, buf, sizeof *h);
  if (memcmp(h->magic, MLIP_MAGIC, 4) != 0) {
    return MLIP_ERR_BAD_MAGIC;
  }
  if (h->version != MLIP_FORMAT_VERSION || h->header_size != MLIP_HEADER_SIZE) {
    return MLIP_ERR_VERSION;
  }
  if (check_crc && mlip_crc32c(0u, buf, MLIP_HEADER_CRC_BYTES) != h->header_crc32c) {
    return MLIP_ERR_CRC;
  }
  st = check_header_fields(h);
  if (st != MLIP_OK) {
    return st;
  }
  /* Nothing past the header is read before total_size matches the caller's size. */
  if ((uint64_t)h->total_size != (uint64_t)size) {
    return MLIP_ERR_TRUNCATED;
  }
  st = check_sections(h);
  if (st != MLIP_OK) {
    return st;
  }
  if (check_crc &&
      mlip_crc32c(0u, buf + MLIP_HEADER_SIZE, (size_t)h->total_size - MLIP_HEADER_SIZE) != h->payload_crc32c) {
    return MLIP_ERR_CRC;
  }
  return MLIP_OK;
}

/* ---- IO, bindings, layers ----------------------------------------------- */

/* A name is an offset into STRINGS; STRINGS ends with a NUL (checked once),
 * so any offset inside it names a terminated string. */
static int name_ok(const mlip_sim_view* v, uint32_t name) {
  return name < v->hdr.sections[MLIP_SEC_STRINGS].count;
}

static mlip_status check_strings(const mlip_sim_view* v) {
  const mlip_section* s = &v->hdr.sections[MLIP_SEC_STRINGS];
  if (s->size > 0u && v->buf[(size_t)s->offset + (size_t)s->size - 1u] != 0u) {
    return MLIP_ERR_INVALID_ARG;
  }
  return MLIP_OK;
}

static mlip_status check_io(const mlip_sim_view* v) {
  const mlip_header* h = &v->hdr;
  uint32_t i;
  if ((uint64_t)h->num_inputs + (uint64_t)h->num_outputs > (uint64_t)MLIP_REGION_MAX_IO) {
    return MLIP_ERR_UNSUPPORTED;
  }
  if (h->sections[MLIP_SEC_IO].count != h->num_inputs + h->num_outputs) {
    return MLIP_ERR_INVALID_ARG;
  }
  for (i = 0; i < h->sections[MLIP_SEC_IO].count; ++i) {
    mlip_io_desc d;
    read_io(v, i, &d);
    if (d.ndim < 1u || d.ndim > 4u || !name_ok(v, d.name) ||
        (d.type != MLIP_IO_INT8 && d.type != MLIP_IO_UINT8 && d.type != MLIP_IO_FP16 && d.type != MLIP_IO_FP32) ||
        (d.layout != MLIP_LAYOUT_NCHW && d.layout != MLIP_LAYOUT_NHWC)) {
      return MLIP_ERR_INVALID_ARG;
    }
  }
  return MLIP_OK;
}

static mlip_status check_bindings(const mlip_sim_view* v) {
  const mlip_header* h = &v->hdr;
  uint8_t seen_in[MLIP_REGION_MAX_IO];
  uint8_t seen_out[MLIP_REGION_MAX_IO];
  uint32_t n_in = 0, n_out = 0, n_scratch = 0, n_weights = 0;
  uint32_t i;
  memset(seen_in, 0, sizeof seen_in);
  memset(seen_out, 0, sizeof seen_out);
  /* check_io ran first: num_inputs + num_outputs <= MLIP_REGION_MAX_IO, and
     the IO section holds exactly that many descriptors. */
  for (i = 0; i < h->sections[MLIP_SEC_BINDINGS].count; ++i) {
    mlip_binding b;
    mlip_io_desc d;
    mlip_sim_read_binding(v, i, &b);
    switch (b.kind) {
      case MLIP_BIND_INPUT:
        if (b.index >= h->num_inputs || seen_in[b.index]) {
          return MLIP_ERR_INVALID_ARG;
        }
        read_io(v, b.index, &d);
        if (d.size != b.size) {
          return MLIP_ERR_INVALID_ARG;
        }
        seen_in[b.index] = 1u;
        ++n_in;
        break;
      case MLIP_BIND_OUTPUT:
        if (b.index >= h->num_outputs || seen_out[b.index]) {
          return MLIP_ERR_INVALID_ARG;
        }
        read_io(v, h->num_inputs + b.index, &d);
        if (d.size != b.size) {
          return MLIP_ERR_INVALID_ARG;
        }
        seen_out[b.index] = 1u;
        ++n_out;
        break;
      case MLIP_BIND_SCRATCH:
        if (b.index != 0u || n_scratch != 0u) {
          return MLIP_ERR_INVALID_ARG;
        }
        ++n_scratch;
        break;
      case MLIP_BIND_WEIGHTS:
        if (b.index != 0u || n_weights != 0u || b.size != h->sections[MLIP_SEC_WEIGHTS].size) {
          return MLIP_ERR_INVALID_ARG;
        }
        ++n_weights;
        break;
      default:
        return MLIP_ERR_INVALID_ARG;
    }
  }
  if (n_in != h->num_inputs || n_out != h->num_outputs || n_weights != 1u) {
    return MLIP_ERR_INVALID_ARG;
  }
  return MLIP_OK;
}

static mlip_status check_layers(const mlip_sim_view* v) {
  uint32_t i;
  for (i = 0; i < v->hdr.sections[MLIP_SEC_LAYERS].count; ++i) {
    mlip_layer l;
    mlip_sim_read_layer(v, i, &l);
    if (l.kind < MLIP_LAYER_CONVERT_IN || l.kind > MLIP_LAYER_LOAD_WEIGHTS || !name_ok(v, l.name)) {
      return MLIP_ERR_INVALID_ARG;
    }
  }
  return MLIP_OK;
}

/* ---- commands ------------------------------------------------------------ */

/* An OCM operand [off, off + bytes) of the command's tile. */
static mlip_status check_ocm(const mlip_sim_view* v, uint32_t off, uint64_t bytes) {
  if (off % MLIP_OCM_ALIGN != 0u) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (sat_add(off, bytes) > (uint64_t)v->hdr.ocm_size) {
    return MLIP_ERR_BOUNDS;
  }
  return MLIP_OK;
}

/* Two in-bounds OCM ranges (both end below 1 MiB, so no sum wraps). */
static int overlaps(uint32_t a, uint64_t a_len, uint32_t b, uint64_t b_len) {
  return (uint64_t)a < (uint64_t)b + b_len && (uint64_t)b < (uint64_t)a + a_len;
}

/* MAIN and FINISH write nothing at or above ocm_pinned_offset. */
static mlip_status check_write(const mlip_sim_view* v, uint32_t section, uint32_t off, uint64_t bytes) {
  if (section != MLIP_SEC_INIT && (uint64_t)off + bytes > (uint64_t)v->hdr.ocm_pinned_offset) {
    return MLIP_ERR_BOUNDS;
  }
  return MLIP_OK;
}

static int act_ok(uint32_t act) {
  return act == MLIP_ACT_NONE || act == MLIP_ACT_RELU || act == MLIP_ACT_CLIP;
}

static mlip_status check_dma(const mlip_sim_view* v, uint32_t section, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  mlip_binding b;
  uint64_t rows = w[MLIP_DMA_ROWS];
  uint64_t row_bytes = w[MLIP_DMA_ROW_BYTES];
  uint64_t ddr_end, ocm_end;
  if (w[MLIP_DMA_BINDING] >= v->hdr.sections[MLIP_SEC_BINDINGS].count) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (rows < 1u || row_bytes < 1u) {
    return MLIP_ERR_INVALID_ARG;
  }
  /* Rows do not overlap in OCM, so a DMA moves at most ocm_size bytes. */
  if (rows > 1u && (uint64_t)w[MLIP_DMA_OCM_STRIDE] < row_bytes) {
    return MLIP_ERR_INVALID_ARG;
  }
  mlip_sim_read_binding(v, w[MLIP_DMA_BINDING], &b);
  if (c->opcode == MLIP_OP_DMA_OUT && b.kind != MLIP_BIND_OUTPUT && b.kind != MLIP_BIND_SCRATCH) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (section == MLIP_SEC_INIT && b.kind != MLIP_BIND_WEIGHTS) {
    return MLIP_ERR_INVALID_ARG; /* loading runs without the run-time bindings */
  }
  ddr_end = sat_add(sat_add(w[MLIP_DMA_DDR_OFFSET], sat_mul(rows - 1u, w[MLIP_DMA_DDR_STRIDE])), row_bytes);
  if (ddr_end > (uint64_t)b.size) {
    return MLIP_ERR_BOUNDS;
  }
  ocm_end = sat_add(sat_mul(rows - 1u, w[MLIP_DMA_OCM_STRIDE]), row_bytes); /* extent from ocm_offset */
  MLIP_TRY(check_ocm(v, w[MLIP_DMA_OCM_OFFSET], ocm_end));
  if (c->opcode == MLIP_OP_DMA_IN) {
    if (section == MLIP_SEC_INIT) {
      if (w[MLIP_DMA_OCM_OFFSET] < v->hdr.ocm_pinned_offset) {
        return MLIP_ERR_BOUNDS; /* INIT fills only the pinned range */
      }
    } else {
      MLIP_TRY(check_write(v, section, w[MLIP_DMA_OCM_OFFSET], ocm_end));
    }
  }
  return MLIP_OK;
}

static mlip_status check_convert(const mlip_sim_view* v, uint32_t section, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  uint64_t n = w[MLIP_CVT_COUNT];
  uint64_t src_len, dst_len;
  if (w[MLIP_CVT_MODE] == MLIP_CVT_F32_TO_F16) {
    src_len = sat_mul(n, 4u);
    dst_len = sat_mul(n, 2u);
  } else if (w[MLIP_CVT_MODE] == MLIP_CVT_F16_TO_F32) {
    src_len = sat_mul(n, 2u);
    dst_len = sat_mul(n, 4u);
  } else {
    return MLIP_ERR_INVALID_ARG;
  }
  if (n < 1u) {
    return MLIP_ERR_INVALID_ARG;
  }
  MLIP_TRY(check_ocm(v, w[MLIP_CVT_SRC], src_len));
  MLIP_TRY(check_ocm(v, w[MLIP_CVT_DST], dst_len));
  if (overlaps(w[MLIP_CVT_SRC], src_len, w[MLIP_CVT_DST], dst_len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return check_write(v, section, w[MLIP_CVT_DST], dst_len);
}

static mlip_status check_layout(const mlip_sim_view* v, uint32_t section, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  uint64_t len;
  if (w[MLIP_LAY_ELEM] != 2u && w[MLIP_LAY_ELEM] != 4u) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (w[MLIP_LAY_OUTER] < 1u || w[MLIP_LAY_A] < 1u || w[MLIP_LAY_B] < 1u) {
    return MLIP_ERR_INVALID_ARG;
  }
  len = mul4(w[MLIP_LAY_OUTER], w[MLIP_LAY_A], w[MLIP_LAY_B], w[MLIP_LAY_ELEM]);
  MLIP_TRY(check_ocm(v, w[MLIP_LAY_SRC], len));
  MLIP_TRY(check_ocm(v, w[MLIP_LAY_DST], len));
  if (overlaps(w[MLIP_LAY_SRC], len, w[MLIP_LAY_DST], len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return check_write(v, section, w[MLIP_LAY_DST], len);
}

static mlip_status check_conv(const mlip_sim_view* v, uint32_t section, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  static const uint8_t nonzero[] = {
    MLIP_CONV_IN_H, MLIP_CONV_IN_W, MLIP_CONV_IN_C, MLIP_CONV_OUT_H, MLIP_CONV_OUT_W, MLIP_CONV_OUT_C,
    MLIP_CONV_KH, MLIP_CONV_KW, MLIP_CONV_STRIDE_H, MLIP_CONV_STRIDE_W, MLIP_CONV_DIL_H, MLIP_CONV_DIL_W,
    MLIP_CONV_GROUPS, MLIP_CONV_IC_PER_GROUP, MLIP_CONV_OC_PER_GROUP,
  };
  uint64_t in_len, w_len, b_len, out_len;
  uint64_t icpg, g_lo, g_hi;
  int has_bias = w[MLIP_CONV_BIAS] != MLIP_NO_OFFSET;
  size_t i;
  for (i = 0; i < sizeof nonzero; ++i) {
    if (w[nonzero[i]] == 0u) {
      return MLIP_ERR_INVALID_ARG;
    }
  }
  if (!act_ok(w[MLIP_CONV_ACT])) {
    return MLIP_ERR_INVALID_ARG;
  }
  in_len = mul4(w[MLIP_CONV_IN_H], w[MLIP_CONV_IN_W], w[MLIP_CONV_IN_C], 2u);
  w_len = sat_mul(mul4(w[MLIP_CONV_OUT_C], w[MLIP_CONV_KH], w[MLIP_CONV_KW], w[MLIP_CONV_IC_PER_GROUP]), 2u);
  b_len = (uint64_t)w[MLIP_CONV_OUT_C] * 4u;
  out_len = mul4(w[MLIP_CONV_OUT_H], w[MLIP_CONV_OUT_W], w[MLIP_CONV_OUT_C], 2u);
  MLIP_TRY(check_ocm(v, w[MLIP_CONV_IN], in_len));
  MLIP_TRY(check_ocm(v, w[MLIP_CONV_WEIGHTS], w_len));
  if (has_bias) {
    MLIP_TRY(check_ocm(v, w[MLIP_CONV_BIAS], b_len));
  }
  MLIP_TRY(check_ocm(v, w[MLIP_CONV_OUT], out_len));
  if (overlaps(w[MLIP_CONV_OUT], out_len, w[MLIP_CONV_IN], in_len) ||
      overlaps(w[MLIP_CONV_OUT], out_len, w[MLIP_CONV_WEIGHTS], w_len) ||
      (has_bias && overlaps(w[MLIP_CONV_OUT], out_len, w[MLIP_CONV_BIAS], b_len))) {
    return MLIP_ERR_INVALID_ARG;
  }
  /* Block channel j is layer channel oc_base + j, of group
     (oc_base + j) / oc_per_group, which reads block input channels
     [group * ic_per_group - ic_base, + ic_per_group). The groups grow with j,
     so the first and last channel bound them all. */
  icpg = w[MLIP_CONV_IC_PER_GROUP];
  g_lo = (uint64_t)w[MLIP_CONV_OC_BASE] / w[MLIP_CONV_OC_PER_GROUP];
  g_hi = ((uint64_t)w[MLIP_CONV_OC_BASE] + w[MLIP_CONV_OUT_C] - 1u) / w[MLIP_CONV_OC_PER_GROUP];
  if (g_hi >= (uint64_t)w[MLIP_CONV_GROUPS] || g_lo * icpg < (uint64_t)w[MLIP_CONV_IC_BASE] ||
      g_hi * icpg + icpg - (uint64_t)w[MLIP_CONV_IC_BASE] > (uint64_t)w[MLIP_CONV_IN_C]) {
    return MLIP_ERR_BOUNDS;
  }
  return check_write(v, section, w[MLIP_CONV_OUT], out_len);
}

static mlip_status check_fc(const mlip_sim_view* v, uint32_t section, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  uint64_t n = w[MLIP_FC_N], k = w[MLIP_FC_K], oc = w[MLIP_FC_OUT_C];
  uint64_t in_len, w_len, acc_len, b_len, out_len;
  int last = w[MLIP_FC_LAST] != 0u;
  int has_bias = last && w[MLIP_FC_BIAS] != MLIP_NO_OFFSET;
  if (n < 1u || k < 1u || oc < 1u || w[MLIP_FC_FIRST] > 1u || w[MLIP_FC_LAST] > 1u || !act_ok(w[MLIP_FC_ACT])) {
    return MLIP_ERR_INVALID_ARG;
  }
  in_len = mul3(n, k, 2u);
  w_len = mul3(oc, k, 2u);
  acc_len = mul3(n, oc, 4u);
  b_len = oc * 4u;
  out_len = mul3(n, oc, 2u);
  MLIP_TRY(check_ocm(v, w[MLIP_FC_IN], in_len));
  MLIP_TRY(check_ocm(v, w[MLIP_FC_WEIGHTS], w_len));
  MLIP_TRY(check_ocm(v, w[MLIP_FC_ACC], acc_len));
  if (has_bias) {
    MLIP_TRY(check_ocm(v, w[MLIP_FC_BIAS], b_len));
  }
  if (last) {
    MLIP_TRY(check_ocm(v, w[MLIP_FC_OUT], out_len));
  }
  /* The accumulator is written, and so is the output when LAST. */
  if (overlaps(w[MLIP_FC_ACC], acc_len, w[MLIP_FC_IN], in_len) ||
      overlaps(w[MLIP_FC_ACC], acc_len, w[MLIP_FC_WEIGHTS], w_len) ||
      (has_bias && overlaps(w[MLIP_FC_ACC], acc_len, w[MLIP_FC_BIAS], b_len))) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (last && (overlaps(w[MLIP_FC_OUT], out_len, w[MLIP_FC_IN], in_len) ||
               overlaps(w[MLIP_FC_OUT], out_len, w[MLIP_FC_WEIGHTS], w_len) ||
               overlaps(w[MLIP_FC_OUT], out_len, w[MLIP_FC_ACC], acc_len) ||
               (has_bias && overlaps(w[MLIP_FC_OUT], out_len, w[MLIP_FC_BIAS], b_len)))) {
    return MLIP_ERR_INVALID_ARG;
  }
  MLIP_TRY(check_write(v, section, w[MLIP_FC_ACC], acc_len));
  if (last) {
    MLIP_TRY(check_write(v, section, w[MLIP_FC_OUT], out_len));
  }
  return MLIP_OK;
}

static mlip_status check_pool(const mlip_sim_view* v, uint32_t section, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  static const uint8_t nonzero[] = {
    MLIP_POOL_IN_H, MLIP_POOL_IN_W, MLIP_POOL_C, MLIP_POOL_OUT_H, MLIP_POOL_OUT_W,
    MLIP_POOL_KH, MLIP_POOL_KW, MLIP_POOL_STRIDE_H, MLIP_POOL_STRIDE_W,
  };
  uint64_t in_len, out_len;
  size_t i;
  for (i = 0; i < sizeof nonzero; ++i) {
    if (w[nonzero[i]] == 0u) {
      return MLIP_ERR_INVALID_ARG;
    }
  }
  if (c->opcode == MLIP_OP_AVGPOOL && w[MLIP_POOL_COUNT_INCLUDE_PAD] > 1u) {
    return MLIP_ERR_INVALID_ARG;
  }
  in_len = mul4(w[MLIP_POOL_IN_H], w[MLIP_POOL_IN_W], w[MLIP_POOL_C], 2u);
  out_len = mul4(w[MLIP_POOL_OUT_H], w[MLIP_POOL_OUT_W], w[MLIP_POOL_C], 2u);
  MLIP_TRY(check_ocm(v, w[MLIP_POOL_IN], in_len));
  MLIP_TRY(check_ocm(v, w[MLIP_POOL_OUT], out_len));
  if (overlaps(w[MLIP_POOL_OUT], out_len, w[MLIP_POOL_IN], in_len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return check_write(v, section, w[MLIP_POOL_OUT], out_len);
}

static mlip_status check_gpool(const mlip_sim_view* v, uint32_t section, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  uint64_t in_len, out_len;
  if (w[MLIP_GPOOL_HW] < 1u || w[MLIP_GPOOL_C] < 1u) {
    return MLIP_ERR_INVALID_ARG;
  }
  in_len = mul3(w[MLIP_GPOOL_HW], w[MLIP_GPOOL_C], 2u);
  out_len = (uint64_t)w[MLIP_GPOOL_C] * 2u;
  MLIP_TRY(check_ocm(v, w[MLIP_GPOOL_IN], in_len));
  MLIP_TRY(check_ocm(v, w[MLIP_GPOOL_OUT], out_len));
  if (overlaps(w[MLIP_GPOOL_OUT], out_len, w[MLIP_GPOOL_IN], in_len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return check_write(v, section, w[MLIP_GPOOL_OUT], out_len);
}

static mlip_status check_add(const mlip_sim_view* v, uint32_t section, const mlip_cmd* c) {
  const uint32_t* w = c->w;
  uint64_t len = (uint64_t)w[MLIP_ADD_COUNT] * 2u;
  if (w[MLIP_ADD_COUNT] < 1u || !act_ok(w[MLIP_ADD_ACT])) {
    return MLIP_ERR_INVALID_ARG;
  }
  MLIP_TRY(check_ocm(v, w[MLIP_ADD_A], len));
  MLIP_TRY(check_ocm(v, w[MLIP_ADD_B], len));
  MLIP_TRY(check_ocm(v, w[MLIP_ADD_OUT], len));
  if (overlaps(w[MLIP_ADD_OUT], len, w[MLIP_ADD_A], len) || overlaps(w[MLIP_ADD_OUT], len, w[MLIP_ADD_B], len)) {
    return MLIP_ERR_INVALID_ARG;
  }
  return check_write(v, section, w[MLIP_ADD_OUT], len);
}

mlip_status mlip_sim_check_cmd(const mlip_sim_view* v, uint32_t section, const mlip_cmd* c) {
  if (c->opcode < MLIP_OP_DMA_IN || c->opcode >= MLIP_OP_COUNT_) {
    return MLIP_ERR_OPCODE;
  }
  if ((uint32_t)c->tile >= v->hdr.num_tiles) {
    return MLIP_ERR_TILE;
  }
  if ((uint32_t)c->layer >= v->hdr.sections[MLIP_SEC_LAYERS].count) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (section == MLIP_SEC_INIT && c->opcode != MLIP_OP_DMA_IN && c->opcode != MLIP_OP_BARRIER) {
    return MLIP_ERR_INVALID_ARG; /* INIT only loads the pinned weights */
  }
  switch (c->opcode) {
    case MLIP_OP_DMA_IN:
    case MLIP_OP_DMA_OUT: return check_dma(v, section, c);
    case MLIP_OP_CONVERT: return check_convert(v, section, c);
    case MLIP_OP_LAYOUT: return check_layout(v, section, c);
    case MLIP_OP_CONV2D: return check_conv(v, section, c);
    case MLIP_OP_FC: return check_fc(v, section, c);
    case MLIP_OP_MAXPOOL:
    case MLIP_OP_AVGPOOL: return check_pool(v, section, c);
    case MLIP_OP_GLOBAL_AVGPOOL:
    case MLIP_OP_GLOBAL_MAXPOOL: return check_gpool(v, section, c);
    case MLIP_OP_ADD: return check_add(v, section, c);
    default: return MLIP_OK; /* BARRIER */
  }
}

/* ---- the whole buffer ---------------------------------------------------- */

mlip_status mlip_cmdbuf_validate(const uint8_t* buf, size_t size) {
  mlip_sim_view v;
  uint32_t sec, i;
  MLIP_TRY(mlip_sim_open(buf, size, 1, &v));
  MLIP_TRY(check_strings(&v));
  MLIP_TRY(check_io(&v));
  MLIP_TRY(check_bindings(&v));
  MLIP_TRY(check_layers(&v));
  for (sec = MLIP_SEC_INIT; sec <= MLIP_SEC_FINISH; ++sec) {
    for (i = 0; i < v.hdr.sections[sec].count; ++i) {
      mlip_cmd c;
      mlip_sim_read_cmd(&v, sec, i, &c);
      MLIP_TRY(mlip_sim_check_cmd(&v, sec, &c));
    }
  }
  return MLIP_OK;
}
