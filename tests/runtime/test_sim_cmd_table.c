/* runtime.sim_cmd_table: the operand tables of mlip/cmd_table.h and what is
   generated from them (mlip/cmd_args.h, the simulator's per-field rules):
   - every format round-trips: a struct encoded then decoded is the struct
     again, and random words decoded then encoded give back every word a
     field of the command's form names (the others 0), through the format's
     own functions and through mlip_cmd_decode / mlip_cmd_encode;
   - a word with two meanings goes to the one the dtype names;
   - relocation moves exactly the PIN fields (PIN_OPT and PIN_ANY unless none);
   - the per-field rules (mlip_sim_check_fields) accept a command whose
     fields all hold good values and refuse each checked field set to a
     value outside its rule, for each dtype and opcode the row applies to,
     and a marker rule (checked 0) never refuses a value.
   The rows are read from the tables themselves, so a row added later is
   covered. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "mlip/cmdbuf.h"
#include "sim_internal.h"

/* ---- the tables as data ---------------------------------------------------- */

typedef struct row {
  int format;       /* MLIP_FORMAT_* */
  const char* name; /* "<format>.<field>" */
  uint32_t word;    /* in mlip_cmd.w */
  uint32_t at;      /* struct word: 0 dtype, 1 + word for a W field */
  uint32_t rule;    /* MLIP_RULE_* */
  uint32_t when;    /* MLIP_WHEN_* */
  int alt;          /* an A row: shares its word with the field at shadow_at */
  uint32_t shadow_at;
} row;

#define ROW_W_(x, name, word, type, when, rule, doc) \
  {MLIP_FORMAT_##x, #x "." #name, word, offsetof(mlip_##x##_args, name) / 4u, MLIP_RULE_##rule, MLIP_WHEN_##when, 0, 0},
#define ROW_A_(x, name, word, type, when, rule, doc, shadow)                                                    \
  {MLIP_FORMAT_##x, #x "." #name, word, offsetof(mlip_##x##_args, name) / 4u, MLIP_RULE_##rule, MLIP_WHEN_##when, \
   1, offsetof(mlip_##x##_args, shadow) / 4u},
#define ROWS_(fmt) MLIP_FIELDS_##fmt(ROW_W_, ROW_A_, fmt)
static const row rows[] = {MLIP_FORMATS(ROWS_)};
#define NUM_ROWS (sizeof rows / sizeof rows[0])

#define RULE_CHECKED_(name, checked, doc) checked,
static const int rule_checked[MLIP_RULE_COUNT_] = {MLIP_RULES(RULE_CHECKED_)};

/* The opcodes of each format (two for dma, pool, global_pool). */
static uint32_t opcodes_of(int format, uint32_t out[2]) {
  uint32_t n = 0;
#define OPCODE_OF_(NAME, name, value, fmt, forms) \
  if (MLIP_FORMAT_##fmt == format) out[n++] = value;
  MLIP_OPCODES(OPCODE_OF_)
#undef OPCODE_OF_
  return n;
}

/* The element types an opcode may carry. */
static uint32_t dtypes_of(uint32_t opcode, uint32_t out[4]) {
  switch (mlip_opcode_forms(opcode)) {
    case MLIP_FORMS_BOTH: out[0] = MLIP_DT_FP16; out[1] = MLIP_DT_INT8; out[2] = MLIP_DT_UINT8; return 3;
    case MLIP_FORMS_WIDE:
      out[0] = MLIP_DT_FP16; out[1] = MLIP_DT_INT8; out[2] = MLIP_DT_UINT8; out[3] = MLIP_DT_INT16;
      return 4;
    case MLIP_FORMS_Q8: out[0] = MLIP_DT_INT8; out[1] = MLIP_DT_UINT8; return 2;
    case MLIP_FORMS_Q8W: out[0] = MLIP_DT_INT8; out[1] = MLIP_DT_UINT8; out[2] = MLIP_DT_INT16; return 3;
    default: out[0] = MLIP_DT_FP16; return 1;
  }
}

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

/* A field of a decoded command, by struct word (any type: its bits). The
   bytes of the whole union: a format's struct, with the fields that share a
   word (A rows), may be longer than storage_, the raw words' copy. */
static uint32_t get(const mlip_decoded_cmd* d, uint32_t at) {
  uint32_t v;
  assert_true(4u * at + 4u <= sizeof d->u);
  memcpy(&v, (const unsigned char*)&d->u + 4u * at, 4u);
  return v;
}
static void set(mlip_decoded_cmd* d, uint32_t at, uint32_t v) {
  assert_true(4u * at + 4u <= sizeof d->u);
  memcpy((unsigned char*)&d->u + 4u * at, &v, 4u);
}

static uint64_t rng = 0x243F6A8885A308D3ull;
static uint32_t rnd(void) { /* splitmix64 */
  uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (uint32_t)(z ^ (z >> 31));
}

/* Whether an A row of this format is the word's meaning for dt. */
static int alt_active(const row* r, uint32_t dt) {
  return r->when == MLIP_WHEN_Q8 ? dt != MLIP_DT_FP16 : dt == MLIP_DT_FP16;
}

/* ---- round trips ----------------------------------------------------------- */

static void test_tables_are_well_formed(void** state) {
  size_t i, j;
  (void)state;
  assert_true(NUM_ROWS > 100u);
  for (i = 0; i < NUM_ROWS; ++i) {
    const row* r = &rows[i];
    assert_true(r->word < MLIP_OPERAND_WORDS);
    assert_true(r->rule < MLIP_RULE_COUNT_);
    if (!r->alt) assert_int_equal(r->at, 1u + r->word);
    if (r->alt) {
      /* an A row's word is its shadow's, with the other dtype */
      assert_int_equal(r->shadow_at, 1u + r->word);
      assert_true(r->when == MLIP_WHEN_Q8 || r->when == MLIP_WHEN_F16);
    }
    for (j = 0; j < i; ++j)
      if (rows[j].format == r->format) assert_true(strcmp(rows[j].name, r->name) != 0);
  }
}

/* A random command of `opcode` and `dt` as a decoded struct whose fields
   outside the form are 0 where they share a word. */
static void random_fields(mlip_decoded_cmd* d, uint32_t opcode, uint32_t dt) {
  size_t i;
  memset(d, 0, sizeof *d);
  d->opcode = opcode;
  d->tile = rnd() % 8u;
  d->layer = rnd() % 65536u;
  set(d, 0, dt);
  for (i = 0; i < NUM_ROWS; ++i)
    if (rows[i].format == mlip_opcode_format(opcode)) set(d, rows[i].at, rnd());
  for (i = 0; i < NUM_ROWS; ++i)
    if (rows[i].format == mlip_opcode_format(opcode) && rows[i].alt)
      set(d, alt_active(&rows[i], dt) ? rows[i].shadow_at : rows[i].at, 0u);
}

static void test_encode_then_decode_gives_the_struct(void** state) {
  int f;
  (void)state;
  for (f = 0; f < MLIP_FORMAT_COUNT_; ++f) {
    uint32_t ops[2], dts[4], no = opcodes_of(f, ops), k, t;
    for (k = 0; k < no; ++k) {
      uint32_t nd = dtypes_of(ops[k], dts);
      for (t = 0; t < nd; ++t) {
        int it;
        for (it = 0; it < 50; ++it) {
          mlip_decoded_cmd d, back;
          mlip_cmd c;
          random_fields(&d, ops[k], dts[t]);
          mlip_cmd_encode(&d, &c);
          assert_int_equal(c.opcode, ops[k]);
          assert_int_equal(c.w[MLIP_DTYPE_WORD], dts[t]);
          assert_int_equal(mlip_cmd_decode(&c, &back), 1);
          assert_int_equal(back.opcode, d.opcode);
          assert_int_equal(back.tile, d.tile);
          assert_int_equal(back.layer, d.layer);
          {
            size_t i;
            assert_int_equal(get(&back, 0), dts[t]);
            for (i = 0; i < NUM_ROWS; ++i)
              if (rows[i].format == f && get(&back, rows[i].at) != get(&d, rows[i].at)) {
                print_error("%s (dtype %u): %08x after the round trip, %08x before\n", rows[i].name, dts[t],
                            get(&back, rows[i].at), get(&d, rows[i].at));
                fail();
              }
          }
        }
      }
    }
  }
}

/* The words a command of this format and dtype names. */
static void named_words(int f, uint32_t dt, int named[30]) {
  size_t i;
  memset(named, 0, 30 * sizeof named[0]);
  named[MLIP_DTYPE_WORD] = 1;
  for (i = 0; i < NUM_ROWS; ++i)
    if (rows[i].format == f) named[rows[i].word] = 1;
  (void)dt;
}

static void test_decode_then_encode_gives_the_words(void** state) {
  int f;
  (void)state;
  for (f = 0; f < MLIP_FORMAT_COUNT_; ++f) {
    uint32_t ops[2], dts[4], no = opcodes_of(f, ops), k, t;
    for (k = 0; k < no; ++k) {
      uint32_t nd = dtypes_of(ops[k], dts);
      for (t = 0; t < nd; ++t) {
        int it, named[30];
        named_words(f, dts[t], named);
        for (it = 0; it < 50; ++it) {
          mlip_cmd c, again;
          mlip_decoded_cmd d;
          uint32_t i;
          memset(&c, 0, sizeof c);
          c.opcode = (uint8_t)ops[k];
          c.tile = (uint8_t)(rnd() % 8u);
          c.layer = (uint16_t)rnd();
          for (i = 0; i < 30u; ++i) c.w[i] = rnd();
          c.w[MLIP_DTYPE_WORD] = dts[t];
          assert_int_equal(mlip_cmd_decode(&c, &d), 1);
          mlip_cmd_encode(&d, &again);
          assert_int_equal(again.opcode, c.opcode);
          assert_int_equal(again.tile, c.tile);
          assert_int_equal(again.layer, c.layer);
          for (i = 0; i < 30u; ++i) {
            const uint32_t want = named[i] ? c.w[i] : 0u;
            if (again.w[i] != want) {
              print_error("format %d opcode %u dtype %u: word %u is %08x after the round trip, %08x before\n", f,
                          ops[k], dts[t], i, again.w[i], c.w[i]);
              fail();
            }
          }
        }
      }
    }
  }
}

/* The format's own decoder and encoder agree with the generic ones. */
static void test_each_format_has_its_own_coders(void** state) {
  mlip_cmd c, e1, e2;
  mlip_decoded_cmd d;
  mlip_conv2d_args conv;
  mlip_fc_args fc;
  mlip_pool_args pool;
  uint32_t i;
  (void)state;
  for (i = 0; i < 30u; ++i) c.w[i] = rnd();
  c.opcode = MLIP_OP_CONV2D;
  c.tile = 1;
  c.layer = 7;
  c.reserved = 0;
  c.w[MLIP_DTYPE_WORD] = MLIP_DT_INT8;
  mlip_conv2d_decode(&c, &conv);
  (void)mlip_cmd_decode(&c, &d);
  assert_memory_equal(&conv, &d.u.conv2d, sizeof conv);
  memset(&e1, 0, sizeof e1);
  mlip_conv2d_encode(&conv, &e1);
  mlip_cmd_encode(&d, &e2);
  assert_memory_equal(e1.w, e2.w, sizeof e1.w);
  c.opcode = MLIP_OP_FC;
  c.w[MLIP_DTYPE_WORD] = MLIP_DT_FP16;
  mlip_fc_decode(&c, &fc);
  (void)mlip_cmd_decode(&c, &d);
  assert_memory_equal(&fc, &d.u.fc, sizeof fc);
  c.opcode = MLIP_OP_AVGPOOL;
  mlip_pool_decode(&c, &pool);
  (void)mlip_cmd_decode(&c, &d);
  assert_memory_equal(&pool, &d.u.pool, sizeof pool);
  /* an unknown opcode decodes to no operand */
  c.opcode = 0;
  assert_int_equal(mlip_cmd_decode(&c, &d), 0);
  assert_int_equal(get(&d, 0), 0u);
  assert_int_equal(mlip_opcode_format(0), -1);
  assert_int_equal(mlip_opcode_format(MLIP_OP_COUNT_), -1);
}

/* CONV2D's words 24 and 25: the fp16 activation's parameters (float) or the
   8-bit clamp (int32), as the dtype says. */
static void test_a_shared_word_goes_where_the_dtype_says(void** state) {
  mlip_conv2d_args a, b;
  mlip_cmd c;
  (void)state;
  memset(&a, 0, sizeof a);
  a.act_lo = 1.5f;
  a.act_hi = -2.0f;
  a.clamp_lo = -100;
  a.clamp_hi = 100;
  mlip_conv2d_encode(&a, &c); /* fp16: the floats */
  assert_int_equal(c.w[24], 0x3FC00000u);
  assert_int_equal(c.w[25], 0xC0000000u);
  mlip_conv2d_decode(&c, &b);
  assert_true(b.act_lo == 1.5f && b.act_hi == -2.0f);
  assert_int_equal(b.clamp_lo, 0);
  a.dtype = MLIP_DT_UINT8;
  mlip_conv2d_encode(&a, &c); /* 8-bit: the clamp */
  assert_int_equal(c.w[24], (uint32_t)-100);
  assert_int_equal(c.w[25], 100u);
  mlip_conv2d_decode(&c, &b);
  assert_int_equal(b.clamp_lo, -100);
  assert_int_equal(b.clamp_hi, 100);
  assert_true(b.act_lo == 0.0f && b.act_hi == 0.0f);
}

/* Relocation adds the base to every PIN field, and to every PIN_OPT and
   PIN_ANY field that is not MLIP_NO_OFFSET; nothing else moves. */
static void test_relocation_moves_the_pinned_fields(void** state) {
  int f;
  (void)state;
  for (f = 0; f < MLIP_FORMAT_COUNT_; ++f) {
    uint32_t ops[2];
    int it;
    (void)opcodes_of(f, ops);
    for (it = 0; it < 20; ++it) {
      mlip_decoded_cmd d, back;
      mlip_cmd c;
      size_t i;
      const uint32_t base = 0x8000u;
      random_fields(&d, ops[0], MLIP_DT_FP16);
      for (i = 0; i < NUM_ROWS; ++i)
        if (rows[i].format == f && (rows[i].rule == MLIP_RULE_PIN_OPT || rows[i].rule == MLIP_RULE_PIN_ANY) && (it & 1))
          set(&d, rows[i].at, MLIP_NO_OFFSET);
      mlip_cmd_encode(&d, &c);
      mlip_cmd_relocate_pinned(&c, base);
      (void)mlip_cmd_decode(&c, &back);
      for (i = 0; i < NUM_ROWS; ++i) {
        const row* r = &rows[i];
        uint32_t want = get(&d, r->at);
        if (r->format != f || (r->alt && !alt_active(r, MLIP_DT_FP16))) continue;
        if (r->rule == MLIP_RULE_PIN || ((r->rule == MLIP_RULE_PIN_OPT || r->rule == MLIP_RULE_PIN_ANY) && want != MLIP_NO_OFFSET)) want += base;
        if (get(&back, r->at) != want) {
          print_error("%s: %08x after relocation, want %08x\n", r->name, get(&back, r->at), want);
          fail();
        }
      }
    }
  }
}

/* ---- the per-field rules ------------------------------------------------------ */

/* A value every rule accepts for dt. */
static uint32_t good_value(uint32_t rule, uint32_t dt) {
  switch (rule) {
    case MLIP_RULE_ACC: return dt != MLIP_DT_FP16 ? MLIP_NO_OFFSET : 0u;
    case MLIP_RULE_NZ:
    case MLIP_RULE_BOOL:
    case MLIP_RULE_FLAG:
    case MLIP_RULE_ACT1:
    case MLIP_RULE_CVT:
    case MLIP_RULE_TAPS: return 1u;
    case MLIP_RULE_CELL: return MLIP_RNN_LSTM;
    case MLIP_RULE_FUNC: return MLIP_ELT_MUL;
    case MLIP_RULE_ELEM: return 2u;
    case MLIP_RULE_Q: return 0x40000000u;
    case MLIP_RULE_SHIFT0: return (uint32_t)-3;
    default: return 0u;
  }
}

/* Values outside the rule for dt (count returned; 0: none, the rule
   accepts every value of this type). */
static uint32_t bad_values(uint32_t rule, uint32_t dt, uint32_t out[4]) {
  const int q8 = dt != MLIP_DT_FP16;
  uint32_t n = 0;
  switch (rule) {
    case MLIP_RULE_PIN_OPT: if (q8) out[n++] = MLIP_NO_OFFSET; break;
    case MLIP_RULE_ACC: if (q8) out[n++] = 0u; break;
    case MLIP_RULE_NZ: out[n++] = 0u; break;
    case MLIP_RULE_BOOL: out[n++] = 2u; out[n++] = 0xFFFFFFFFu; break;
    case MLIP_RULE_FLAG: out[n++] = 2u; if (q8) out[n++] = 0u; break;
    case MLIP_RULE_ACT: out[n++] = MLIP_ACT_COUNT_; if (q8) out[n++] = MLIP_ACT_RELU; break;
    case MLIP_RULE_ACT1: out[n++] = MLIP_ACT_NONE; out[n++] = MLIP_ACT_COUNT_; break;
    case MLIP_RULE_FUNC: out[n++] = 0u; out[n++] = MLIP_ELT_COUNT_; if (q8) out[n++] = MLIP_ELT_ADD; break;
    case MLIP_RULE_CVT: out[n++] = 0u; out[n++] = 3u; break;
    case MLIP_RULE_ELEM: out[n++] = 3u; out[n++] = 8u; break;
    case MLIP_RULE_TAPS: out[n++] = 0u; out[n++] = 3u; if (q8) out[n++] = 2u; break;
    case MLIP_RULE_GAP: out[n++] = MLIP_POOL_MAX_GAP + 1u; break;
    case MLIP_RULE_ZP:
      if (dt == MLIP_DT_INT16) { /* symmetric: 0 only */
        out[n++] = 1u;
        out[n++] = (uint32_t)-1;
        break;
      }
      /* fall through */
    case MLIP_RULE_CLAMP:
      out[n++] = dt == MLIP_DT_INT8 ? 128u : dt == MLIP_DT_INT16 ? 32768u : 256u;
      out[n++] = dt == MLIP_DT_INT8 ? (uint32_t)-129 : dt == MLIP_DT_INT16 ? (uint32_t)-32769 : (uint32_t)-1;
      break;
    case MLIP_RULE_Q: out[n++] = 1u; out[n++] = 0x3FFFFFFFu; out[n++] = 0x80000000u; break;
    case MLIP_RULE_SHIFT: out[n++] = 31u; out[n++] = (uint32_t)-32; break;
    case MLIP_RULE_SHIFT0: out[n++] = 1u; out[n++] = (uint32_t)-32; break;
    case MLIP_RULE_RQ: out[n++] = 2u; out[n++] = 0xFFFFFFFFu; break;
    case MLIP_RULE_CELL: out[n++] = 0u; out[n++] = 3u; break;
    case MLIP_RULE_W4B: out[n++] = MLIP_INT8_MAX_TAPS + 1u; if (dt == MLIP_DT_INT16) out[n++] = 1u; break;
    default: break;
  }
  return n;
}

/* A command of opcode and dt whose every field holds a good value. */
static void good_command(mlip_decoded_cmd* d, uint32_t opcode, uint32_t dt) {
  size_t i;
  memset(d, 0, sizeof *d);
  d->opcode = opcode;
  set(d, 0, dt);
  for (i = 0; i < NUM_ROWS; ++i)
    if (rows[i].format == mlip_opcode_format(opcode)) set(d, rows[i].at, good_value(rows[i].rule, dt));
}

static void test_each_checked_field_refuses_values_outside_its_rule(void** state) {
  uint32_t op, refused = 0;
  (void)state;
  for (op = 1; op < MLIP_OP_COUNT_; ++op) {
    uint32_t dts[4], nd = dtypes_of(op, dts), t;
    for (t = 0; t < nd; ++t) {
      mlip_decoded_cmd d;
      size_t i;
      good_command(&d, op, dts[t]);
      assert_int_equal(mlip_sim_check_fields(&d), MLIP_OK);
      for (i = 0; i < NUM_ROWS; ++i) {
        const row* r = &rows[i];
        uint32_t bad[4], nb, k;
        if (r->format != mlip_opcode_format(op)) continue;
        nb = bad_values(r->rule, dts[t], bad);
        for (k = 0; k < nb; ++k) {
          const mlip_status want = when_holds(r->when, op, dts[t]) ? MLIP_ERR_INVALID_ARG : MLIP_OK;
          mlip_decoded_cmd e = d;
          set(&e, r->at, bad[k]);
          if (mlip_sim_check_fields(&e) != want) {
            print_error("%s = %08x (opcode %u, dtype %u): %s, want %s\n", r->name, bad[k], op, dts[t],
                        mlip_status_str(mlip_sim_check_fields(&e)), mlip_status_str(want));
            fail();
          }
          refused += want != MLIP_OK;
        }
      }
    }
  }
  assert_true(refused > 150u);
  {
    mlip_decoded_cmd d;
    memset(&d, 0, sizeof d);
    d.opcode = MLIP_OP_COUNT_; /* no table */
    assert_int_equal(mlip_sim_check_fields(&d), MLIP_ERR_INVALID_ARG);
  }
}

/* MLIP_RULES says which rules are checked field by field: a checked rule
   refuses some value (for some dtype), a marker none. */
static void test_the_checked_column_tells_the_truth(void** state) {
  static const uint32_t probes[] = {0u, 1u, 2u, 3u, 4u, 7u, 8u, 127u, 128u, 255u, 256u, 65535u, 65536u,
                                    0x3FFFFFFFu, 0x40000000u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFF80u,
                                    0xFFFFFFE0u, 0xFFFFFFFEu, 0xFFFFFFFFu};
  uint32_t rule;
  (void)state;
  for (rule = 0; rule < MLIP_RULE_COUNT_; ++rule) {
    uint32_t dt, i, refused = 0;
    for (dt = 0; dt <= MLIP_DT_UINT8; ++dt)
      for (i = 0; i < sizeof probes / sizeof probes[0]; ++i) refused += !mlip_sim_rule_ok(rule, probes[i], dt, MLIP_REQUANT_FIXED);
    if ((refused > 0u) != (rule_checked[rule] != 0)) {
      print_error("rule %u: checked %d in MLIP_RULES, but refuses %u probes\n", rule, rule_checked[rule], refused);
      fail();
    }
  }
}

/* The requant field decides what the Q and SHIFT fields hold: a command
   with requant MLIP_REQUANT_ORT takes a float32's bits and MLIP_REQUANT_F32
   and refuses a fixed-point pair; a fixed one the reverse; an unknown
   arithmetic is refused. */
static void test_requant_decides_the_pairs_rule(void** state) {
  mlip_decoded_cmd d;
  const float quarter = 0.25f, neg = -1.5f;
  uint32_t fq, fn;
  (void)state;
  memcpy(&fq, &quarter, sizeof fq);
  memcpy(&fn, &neg, sizeof fn);
  memset(&d, 0, sizeof d);
  d.opcode = MLIP_OP_ELTWISE;
  d.u.eltwise.dtype = MLIP_DT_INT8;
  d.u.eltwise.count = d.u.eltwise.b_len = 1u;
  d.u.eltwise.func = MLIP_ELT_MUL;
  d.u.eltwise.q = 0x40000000;
  d.u.eltwise.shift = -1;
  assert_int_equal(mlip_sim_check_fields(&d), MLIP_OK);
  d.u.eltwise.requant = MLIP_REQUANT_ORT;
  assert_int_equal(mlip_sim_check_fields(&d), MLIP_ERR_INVALID_ARG);
  d.u.eltwise.q = (int32_t)fq;
  d.u.eltwise.shift = MLIP_REQUANT_F32;
  assert_int_equal(mlip_sim_check_fields(&d), MLIP_OK);
  d.u.eltwise.requant = 2u;
  assert_int_equal(mlip_sim_check_fields(&d), MLIP_ERR_INVALID_ARG);
  d.u.eltwise.requant = MLIP_REQUANT_FIXED;
  assert_int_equal(mlip_sim_check_fields(&d), MLIP_ERR_INVALID_ARG);
  /* ADD's offset (qy) may be negative; its shifts are all MLIP_REQUANT_F32. */
  memset(&d, 0, sizeof d);
  d.opcode = MLIP_OP_ADD;
  d.u.add.dtype = MLIP_DT_UINT8;
  d.u.add.count = 1u;
  d.u.add.hi = 255;
  d.u.add.requant = MLIP_REQUANT_ORT;
  d.u.add.qa = d.u.add.qb = (int32_t)fq;
  d.u.add.qy = (int32_t)fn;
  d.u.add.sa = d.u.add.sb = d.u.add.sy = MLIP_REQUANT_F32;
  assert_int_equal(mlip_sim_check_fields(&d), MLIP_OK);
  d.u.add.qy = 0x7F800000; /* infinity */
  assert_int_equal(mlip_sim_check_fields(&d), MLIP_ERR_INVALID_ARG);
  /* The records' rule (CONV2D, FC) and a pool table's follow it too. */
  assert_true(mlip_sim_q8_requant_ok(fq, (uint32_t)MLIP_REQUANT_F32, MLIP_REQUANT_MAX_SHIFT, MLIP_REQUANT_ORT));
  assert_false(mlip_sim_q8_requant_ok(fn, (uint32_t)MLIP_REQUANT_F32, MLIP_REQUANT_MAX_SHIFT, MLIP_REQUANT_ORT));
  assert_false(mlip_sim_q8_requant_ok(0x40000000u, (uint32_t)-1, MLIP_REQUANT_MAX_SHIFT, MLIP_REQUANT_ORT));
  assert_true(mlip_sim_q8_requant_ok(0x40000000u, (uint32_t)-1, MLIP_REQUANT_MAX_SHIFT, MLIP_REQUANT_FIXED));
  assert_false(mlip_sim_q8_requant_ok(fq, (uint32_t)MLIP_REQUANT_F32, MLIP_REQUANT_MAX_SHIFT, MLIP_REQUANT_FIXED));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tables_are_well_formed),
      cmocka_unit_test(test_encode_then_decode_gives_the_struct),
      cmocka_unit_test(test_decode_then_encode_gives_the_words),
      cmocka_unit_test(test_each_format_has_its_own_coders),
      cmocka_unit_test(test_a_shared_word_goes_where_the_dtype_says),
      cmocka_unit_test(test_relocation_moves_the_pinned_fields),
      cmocka_unit_test(test_each_checked_field_refuses_values_outside_its_rule),
      cmocka_unit_test(test_the_checked_column_tells_the_truth),
      cmocka_unit_test(test_requant_decides_the_pairs_rule),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
