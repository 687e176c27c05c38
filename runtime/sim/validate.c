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
 * payload CRC, then IO descriptors, bindings, layers and every command: the
 * rules all commands share and the per-field rules of the operand tables
 * (mlip/cmd_table.h) here, each opcode's own in its op_<format>.c. */
#include "sim_internal.h"

/* ---- reading records ----------------------------------------------------- */

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

void mlip_sim_read_cmd(const mlip_sim_view* v, uint32_t section, uint32_t i, mlip_decoded_cmd* out) {
  mlip_cmd c;
  memcpy(&c, record_ptr(v, section, i), sizeof c);
  (void)mlip_cmd_decode(&c, out);
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
  if (h->quantize != MLIP_QUANT_FP16 && h->quantize != MLIP_QUANT_INT8) {
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
        (d.type != MLIP_IO_INT8 && d.type != MLIP_IO_UINT8 && d.type != MLIP_IO_INT16 && d.type != MLIP_IO_FP16 &&
         d.type != MLIP_IO_FP32) ||
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
    if (l.kind < MLIP_LAYER_CONVERT_IN || l.kind >= MLIP_LAYER_COUNT_ || !name_ok(v, l.name)) {
      return MLIP_ERR_INVALID_ARG;
    }
  }
  return MLIP_OK;
}

/* ---- commands ------------------------------------------------------------ */

mlip_status mlip_sim_check_ocm(const mlip_sim_view* v, uint32_t off, uint64_t bytes) {
  if (off % MLIP_OCM_ALIGN != 0u) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (mlip_sim_sat_add(off, bytes) > (uint64_t)v->hdr.ocm_size) {
    return MLIP_ERR_BOUNDS;
  }
  return MLIP_OK;
}

mlip_status mlip_sim_check_write(const mlip_sim_view* v, uint32_t section, uint32_t off, uint64_t bytes) {
  if (section != MLIP_SEC_INIT && (uint64_t)off + bytes > (uint64_t)v->hdr.ocm_pinned_offset) {
    return MLIP_ERR_BOUNDS;
  }
  return MLIP_OK;
}

/* ---- the operand tables' per-field rules ------------------------------------ */

int mlip_sim_rule_ok(uint32_t rule, uint32_t v, uint32_t dt, uint32_t requant) {
  const int q8 = dt != MLIP_DT_FP16;
  const int ort = requant == MLIP_REQUANT_ORT;
  const int32_t s = mlip_sim_as_i32(v);
  switch (rule) {
    case MLIP_RULE_PIN_OPT: return !q8 || v != MLIP_NO_OFFSET;
    case MLIP_RULE_ACC: return !q8 || v == MLIP_NO_OFFSET;
    case MLIP_RULE_NZ: return v != 0u;
    case MLIP_RULE_BOOL: return v <= 1u;
    case MLIP_RULE_FLAG: return q8 ? v == 1u : v <= 1u;
    case MLIP_RULE_ACT: return q8 ? v == MLIP_ACT_NONE : v < (uint32_t)MLIP_ACT_COUNT_;
    case MLIP_RULE_ACT1: return v != MLIP_ACT_NONE && v < (uint32_t)MLIP_ACT_COUNT_;
    case MLIP_RULE_FUNC: return q8 ? v == MLIP_ELT_MUL : v >= (uint32_t)MLIP_ELT_ADD && v < (uint32_t)MLIP_ELT_COUNT_;
    case MLIP_RULE_CVT: return v == MLIP_CVT_F32_TO_F16 || v == MLIP_CVT_F16_TO_F32;
    case MLIP_RULE_ELEM: return v == 1u || v == 2u || v == 4u;
    case MLIP_RULE_TAPS: return v >= 1u && v <= (q8 ? 1u : 2u);
    case MLIP_RULE_GAP: return v <= MLIP_POOL_MAX_GAP;
    case MLIP_RULE_ZP: return dt == MLIP_DT_INT16 ? s == 0 : s >= mlip_sim_q8_lo(dt) && s <= mlip_sim_q8_hi(dt);
    case MLIP_RULE_CLAMP: return s >= mlip_sim_q8_lo(dt) && s <= mlip_sim_q8_hi(dt);
    case MLIP_RULE_Q: return ort ? (v & 0x7F800000u) != 0x7F800000u : v == 0u || (v >= 0x40000000u && v <= 0x7FFFFFFFu);
    case MLIP_RULE_SHIFT: return ort ? s == MLIP_REQUANT_F32 : s >= MLIP_REQUANT_MIN_SHIFT && s <= MLIP_REQUANT_MAX_SHIFT;
    case MLIP_RULE_SHIFT0: return ort ? s == MLIP_REQUANT_F32 : s >= MLIP_REQUANT_MIN_SHIFT && s <= 0;
    case MLIP_RULE_RQ: return v == MLIP_REQUANT_FIXED || v == MLIP_REQUANT_ORT;
    case MLIP_RULE_CELL: return v == MLIP_RNN_LSTM || v == MLIP_RNN_GRU;
    case MLIP_RULE_W4B: return dt == MLIP_DT_INT16 ? v == 0u : v <= MLIP_INT8_MAX_TAPS;
    default: return 1; /* the markers: the opcode's own check, the pinning, the docs */
  }
}

/* The checked rows of every operand table, generated: {the field's word in
 * its struct (mlip_<format>_args), rule | when << 5}, ending with 0xFF.
 * A row expands through its rule's CHECK_ROW_<rule>_: nothing for a marker
 * (a rule whose MLIP_RULES `checked` is 0; tests/runtime/test_cmd_table.c
 * checks the two agree), the row otherwise. */
typedef struct field_check {
  uint8_t at;  /* struct word: 0 dtype, 1 + word for a W field */
  uint8_t how; /* MLIP_RULE_* | MLIP_WHEN_* << 5 */
} field_check;
#define CHECK_ROW_(x, name, when, rule) \
  {(uint8_t)(offsetof(mlip_##x##_args, name) / 4u), (uint8_t)(MLIP_RULE_##rule | MLIP_WHEN_##when << 5)},
#define CHECK_ROW_ANY_(x, name, when)
#define CHECK_ROW_BIND_(x, name, when)
#define CHECK_ROW_DCVT_(x, name, when)
#define CHECK_ROW_OCM_(x, name, when)
#define CHECK_ROW_PIN_(x, name, when)
#define CHECK_ROW_PIN_ANY_(x, name, when)
#define CHECK_ROW_F32_(x, name, when)
#define CHECK_ROW_PIN_OPT_(x, name, when) CHECK_ROW_(x, name, when, PIN_OPT)
#define CHECK_ROW_ACC_(x, name, when) CHECK_ROW_(x, name, when, ACC)
#define CHECK_ROW_NZ_(x, name, when) CHECK_ROW_(x, name, when, NZ)
#define CHECK_ROW_BOOL_(x, name, when) CHECK_ROW_(x, name, when, BOOL)
#define CHECK_ROW_FLAG_(x, name, when) CHECK_ROW_(x, name, when, FLAG)
#define CHECK_ROW_ACT_(x, name, when) CHECK_ROW_(x, name, when, ACT)
#define CHECK_ROW_ACT1_(x, name, when) CHECK_ROW_(x, name, when, ACT1)
#define CHECK_ROW_FUNC_(x, name, when) CHECK_ROW_(x, name, when, FUNC)
#define CHECK_ROW_CVT_(x, name, when) CHECK_ROW_(x, name, when, CVT)
#define CHECK_ROW_ELEM_(x, name, when) CHECK_ROW_(x, name, when, ELEM)
#define CHECK_ROW_TAPS_(x, name, when) CHECK_ROW_(x, name, when, TAPS)
#define CHECK_ROW_GAP_(x, name, when) CHECK_ROW_(x, name, when, GAP)
#define CHECK_ROW_ZP_(x, name, when) CHECK_ROW_(x, name, when, ZP)
#define CHECK_ROW_CLAMP_(x, name, when) CHECK_ROW_(x, name, when, CLAMP)
#define CHECK_ROW_Q_(x, name, when) CHECK_ROW_(x, name, when, Q)
#define CHECK_ROW_SHIFT_(x, name, when) CHECK_ROW_(x, name, when, SHIFT)
#define CHECK_ROW_SHIFT0_(x, name, when) CHECK_ROW_(x, name, when, SHIFT0)
#define CHECK_ROW_RQ_(x, name, when) CHECK_ROW_(x, name, when, RQ)
#define CHECK_ROW_CELL_(x, name, when) CHECK_ROW_(x, name, when, CELL)
#define CHECK_ROW_W4B_(x, name, when) CHECK_ROW_(x, name, when, W4B)
#define CHECK_W_(x, name, word, type, when, rule, doc) CHECK_ROW_##rule##_(x, name, when)
#define CHECK_A_(x, name, word, type, when, rule, doc, shadow) CHECK_ROW_##rule##_(x, name, when)
#define CHECK_TABLE_(fmt) static const field_check checks_##fmt[] = {MLIP_FIELDS_##fmt(CHECK_W_, CHECK_A_, fmt){0xFFu, 0u}};
MLIP_FORMATS(CHECK_TABLE_)

static const field_check* checks_of(uint32_t opcode) {
  switch (opcode) {
#define CHECK_OF_OPCODE_(NAME, name, value, fmt, forms) \
  case value: return checks_##fmt;
    MLIP_OPCODES(CHECK_OF_OPCODE_)
#undef CHECK_OF_OPCODE_
    default: return NULL;
  }
}

/* Whether a field of `when` is part of a command of this opcode and type. */
static int when_holds(uint32_t when, uint32_t opcode, uint32_t dt) {
  const int avg = opcode == MLIP_OP_AVGPOOL || opcode == MLIP_OP_GLOBAL_AVGPOOL;
  switch (when) {
    case MLIP_WHEN_F16: return dt == MLIP_DT_FP16;
    case MLIP_WHEN_Q8: return dt != MLIP_DT_FP16;
    case MLIP_WHEN_AVG: return avg;
    case MLIP_WHEN_AVG_Q8: return avg && dt != MLIP_DT_FP16;
    default: return 1;
  }
}

/* The command's `requant` field (its RQ row), MLIP_REQUANT_FIXED where it
 * has none: the arithmetic its Q and SHIFT fields follow. */
static uint32_t requant_of(const mlip_decoded_cmd* d, const field_check* row, uint32_t dt) {
  for (; row->at != 0xFFu; ++row) {
    if ((row->how & 31u) == MLIP_RULE_RQ && when_holds((uint32_t)row->how >> 5, d->opcode, dt)) {
      uint32_t v;
      memcpy(&v, (const unsigned char*)&d->u + 4u * row->at, sizeof v);
      return v;
    }
  }
  return MLIP_REQUANT_FIXED;
}

mlip_status mlip_sim_check_fields(const mlip_decoded_cmd* d) {
  const field_check* row = checks_of(d->opcode);
  uint32_t dt, requant;
  if (row == NULL) {
    return MLIP_ERR_INVALID_ARG;
  }
  memcpy(&dt, &d->u, sizeof dt); /* every format's first field */
  requant = requant_of(d, row, dt);
  for (; row->at != 0xFFu; ++row) {
    uint32_t v;
    memcpy(&v, (const unsigned char*)&d->u + 4u * row->at, sizeof v);
    if (when_holds((uint32_t)row->how >> 5, d->opcode, dt) && !mlip_sim_rule_ok(row->how & 31u, v, dt, requant)) {
      return MLIP_ERR_INVALID_ARG;
    }
  }
  return MLIP_OK;
}

/* The element type (every format's dtype, word 29) against the opcode's
 * forms and the buffer's quantize mode (docs/command-buffer.md "int8
 * commands"). */
static mlip_status check_dtype(const mlip_sim_view* v, const mlip_decoded_cmd* d) {
  const int q8 = v->hdr.quantize == MLIP_QUANT_INT8;
  uint32_t dt;
  int ok;
  memcpy(&dt, &d->u, sizeof dt);
  switch (mlip_opcode_forms(d->opcode)) {
    case MLIP_FORMS_BOTH: ok = q8 ? dt == MLIP_DT_INT8 || dt == MLIP_DT_UINT8 : dt == MLIP_DT_FP16; break;
    case MLIP_FORMS_WIDE: /* BOTH, and 16x8 in an int8 buffer */
      ok = q8 ? dt == MLIP_DT_INT8 || dt == MLIP_DT_UINT8 || dt == MLIP_DT_INT16 : dt == MLIP_DT_FP16;
      break;
    case MLIP_FORMS_Q8: ok = q8 && (dt == MLIP_DT_INT8 || dt == MLIP_DT_UINT8); break;
    case MLIP_FORMS_Q8W: ok = q8 && (dt == MLIP_DT_INT8 || dt == MLIP_DT_UINT8 || dt == MLIP_DT_INT16); break;
    case MLIP_FORMS_F16: ok = !q8 && dt == MLIP_DT_FP16; break;
    default: ok = dt == 0u; break; /* DMA, LAYOUT, BARRIER: the word is unused */
  }
  return ok ? MLIP_OK : MLIP_ERR_INVALID_ARG;
}

/* The rules every command obeys, the per-field ones, then its opcode's own
 * (op_<format>.c). */
mlip_status mlip_sim_check_cmd(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d) {
  const mlip_sim_opcode* op = mlip_sim_opcode_of(d->opcode);
  if (op == NULL) {
    return MLIP_ERR_OPCODE;
  }
  if (d->tile >= v->hdr.num_tiles) {
    return MLIP_ERR_TILE;
  }
  if (d->layer >= v->hdr.sections[MLIP_SEC_LAYERS].count) {
    return MLIP_ERR_INVALID_ARG;
  }
  if (section == MLIP_SEC_INIT && d->opcode != MLIP_OP_DMA_IN && d->opcode != MLIP_OP_BARRIER) {
    return MLIP_ERR_INVALID_ARG; /* INIT only loads the pinned weights */
  }
  MLIP_TRY(check_dtype(v, d));
  MLIP_TRY(mlip_sim_check_fields(d));
  return op->check(v, section, d);
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
      mlip_decoded_cmd d;
      mlip_sim_read_cmd(&v, sec, i, &d);
      MLIP_TRY(mlip_sim_check_cmd(&v, sec, &d));
    }
  }
  return MLIP_OK;
}
