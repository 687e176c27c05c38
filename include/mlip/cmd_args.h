/* Typed MLIP commands, generated from the tables of mlip/cmd_table.h by the
 * preprocessor (C99 and C++): for every format
 *
 *   mlip_<format>_args            the operands as named, typed fields; the
 *                                 first member is `dtype` (word 29, MLIP_DT_*),
 *                                 then every W row of the table in word order,
 *                                 then the A rows (the 8-bit meanings of words
 *                                 an fp16 field names)
 *   mlip_<format>_decode(c, a)    the command's words into the struct
 *   mlip_<format>_encode(a, c)    the struct into the words (the head, opcode,
 *                                 tile and layer, is the caller's)
 *   mlip_<format>_relocate(a, b)  adds b to every PIN / PIN_OPT field (not to
 *                                 MLIP_NO_OFFSET): a pinned command's weights
 *                                 become OCM offsets
 *
 * and for any command: mlip_decoded_cmd (the head and a union of the
 * formats), mlip_cmd_decode, mlip_cmd_encode, mlip_cmd_relocate_pinned and
 * mlip_opcode_format. Included by mlip/cmdbuf.h, after mlip_cmd.
 *
 * A word that has two meanings (an fp16 activation parameter, float bits,
 * and an 8-bit output clamp, int32, at the same index) is two fields, both
 * named: the command's dtype decides which one the word holds. Decoding
 * gives the word to that field and zero to the other; encoding writes that
 * field. Every other W field is copied as it is, whatever the dtype, so
 * decode then encode gives back every word a field names, and encode then
 * decode gives back every field (a field of the other form left 0).
 *
 * The W fields sit at the struct's words 1 .. in the order of the words, so
 * a decode is one copy of the operand words plus the A fields: the
 * simulator decodes each command once, cheaply, on firmware too. */
#ifndef MLIP_CMD_ARGS_H_
#define MLIP_CMD_ARGS_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mlip/cmd_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Word 29 of every command: its element type (MLIP_DT_*; 0 where it has none). */
#define MLIP_DTYPE_WORD 29u
/* The words before it: every format's W fields lie among them. */
#define MLIP_OPERAND_WORDS 29u

/* Rules (MLIP_RULE_<NAME>) and when (MLIP_WHEN_<NAME>), as numbers. */
#define MLIP_RULE_ENUM_(name, checked, doc) MLIP_RULE_##name,
enum { MLIP_RULES(MLIP_RULE_ENUM_) MLIP_RULE_COUNT_ };
#undef MLIP_RULE_ENUM_
enum { MLIP_WHEN_ANY, MLIP_WHEN_F16, MLIP_WHEN_Q8, MLIP_WHEN_AVG, MLIP_WHEN_AVG_Q8 };
/* Opcode forms (the element types it has: cmd_table.h). */
enum { MLIP_FORMS_NONE, MLIP_FORMS_F16, MLIP_FORMS_Q8, MLIP_FORMS_BOTH, MLIP_FORMS_WIDE, MLIP_FORMS_Q8W };

/* ---- the structs ---------------------------------------------------------- */

#define MLIP_ARGS_W_(x, name, word, type, when, rule, doc) type name;
#define MLIP_ARGS_A_(x, name, word, type, when, rule, doc, shadow) type name;
#define MLIP_ARGS_SKIP_W_(x, name, word, type, when, rule, doc)
#define MLIP_ARGS_SKIP_A_(x, name, word, type, when, rule, doc, shadow)
#define MLIP_ARGS_STRUCT_(fmt)                                           \
  typedef struct mlip_##fmt##_args {                                     \
    uint32_t dtype; /* word 29: MLIP_DT_* */                             \
    MLIP_FIELDS_##fmt(MLIP_ARGS_W_, MLIP_ARGS_SKIP_A_, fmt)              \
    MLIP_FIELDS_##fmt(MLIP_ARGS_SKIP_W_, MLIP_ARGS_A_, fmt)              \
  } mlip_##fmt##_args;
MLIP_FORMATS(MLIP_ARGS_STRUCT_)
#undef MLIP_ARGS_STRUCT_
#undef MLIP_ARGS_W_
#undef MLIP_ARGS_A_

/* MLIP_<format>_WORDS: the words its W fields name (0 .. WORDS - 1). */
#define MLIP_ARGS_COUNT_W_(x, name, word, type, when, rule, doc) +1
#define MLIP_ARGS_WORDS_(fmt) enum { MLIP_##fmt##_WORDS = 0 MLIP_FIELDS_##fmt(MLIP_ARGS_COUNT_W_, MLIP_ARGS_SKIP_A_, fmt) };
MLIP_FORMATS(MLIP_ARGS_WORDS_)
#undef MLIP_ARGS_WORDS_
#undef MLIP_ARGS_COUNT_W_

/* The layout a decode relies on: every field is 4 bytes, the W fields at
 * struct word 1 + word (so the table lists them in word order, without a
 * gap, below word 29), and an A field shares its word with its W shadow. */
#define MLIP_ARGS_CHECK_W_(x, name, word, type, when, rule, doc)                                             \
  MLIP_STATIC_ASSERT(sizeof(type) == 4u && offsetof(mlip_##x##_args, name) == 4u + 4u * (word) &&             \
                         (word) < MLIP_##x##_WORDS && (word) < MLIP_OPERAND_WORDS,                             \
                     x##_##name##_at_its_word);
#define MLIP_ARGS_CHECK_A_(x, name, word, type, when, rule, doc, shadow)                                      \
  MLIP_STATIC_ASSERT(sizeof(type) == 4u && offsetof(mlip_##x##_args, shadow) == 4u + 4u * (word),             \
                     x##_##name##_shares_its_word);
#define MLIP_ARGS_CHECKS_(fmt) MLIP_FIELDS_##fmt(MLIP_ARGS_CHECK_W_, MLIP_ARGS_CHECK_A_, fmt)
MLIP_FORMATS(MLIP_ARGS_CHECKS_)
#undef MLIP_ARGS_CHECKS_
#undef MLIP_ARGS_CHECK_W_
#undef MLIP_ARGS_CHECK_A_

/* ---- one format ------------------------------------------------------------ */

/* Whether a field of `when` is part of a command of element type dt (the
 * A rows are dtype-only: F16 or Q8). */
#define MLIP_WHEN_DT_F16_(dt) ((dt) == 0u)
#define MLIP_WHEN_DT_Q8_(dt) ((dt) != 0u)

#define MLIP_DECODE_A_(x, name, word, type, when, rule, doc, shadow) \
  if (MLIP_WHEN_DT_##when##_(a->dtype)) {                            \
    memcpy(&a->name, &c->w[word], sizeof a->name);                   \
    a->shadow = 0;                                                   \
  } else {                                                           \
    a->name = 0;                                                     \
  }
#define MLIP_ENCODE_A_(x, name, word, type, when, rule, doc, shadow) \
  if (MLIP_WHEN_DT_##when##_(a->dtype)) {                            \
    memcpy(&c->w[word], &a->name, sizeof a->name);                   \
  }
/* Relocation: PIN fields move, PIN_OPT and PIN_ANY ones unless MLIP_NO_OFFSET; every
 * other rule expands to nothing (a rule added to MLIP_RULES needs its line). */
#define MLIP_RELOCATE_W_(x, name, word, type, when, rule, doc) MLIP_RELOCATE_##rule##_(a->name, base)
#define MLIP_RELOCATE_PIN_(f, b) (f) += (b);
#define MLIP_RELOCATE_PIN_OPT_(f, b) \
  if ((f) != MLIP_NO_OFFSET) {       \
    (f) += (b);                      \
  }
#define MLIP_RELOCATE_PIN_ANY_(f, b) MLIP_RELOCATE_PIN_OPT_(f, b)
#define MLIP_RELOCATE_ANY_(f, b)
#define MLIP_RELOCATE_BIND_(f, b)
#define MLIP_RELOCATE_DCVT_(f, b)
#define MLIP_RELOCATE_OCM_(f, b)
#define MLIP_RELOCATE_ACC_(f, b)
#define MLIP_RELOCATE_NZ_(f, b)
#define MLIP_RELOCATE_BOOL_(f, b)
#define MLIP_RELOCATE_FLAG_(f, b)
#define MLIP_RELOCATE_ACT_(f, b)
#define MLIP_RELOCATE_ACT1_(f, b)
#define MLIP_RELOCATE_F32_(f, b)
#define MLIP_RELOCATE_FUNC_(f, b)
#define MLIP_RELOCATE_CVT_(f, b)
#define MLIP_RELOCATE_ELEM_(f, b)
#define MLIP_RELOCATE_TAPS_(f, b)
#define MLIP_RELOCATE_GAP_(f, b)
#define MLIP_RELOCATE_ZP_(f, b)
#define MLIP_RELOCATE_CLAMP_(f, b)
#define MLIP_RELOCATE_Q_(f, b)
#define MLIP_RELOCATE_SHIFT_(f, b)
#define MLIP_RELOCATE_SHIFT0_(f, b)
#define MLIP_RELOCATE_RQ_(f, b)
#define MLIP_RELOCATE_CELL_(f, b)
#define MLIP_RELOCATE_W4B_(f, b)

#define MLIP_ARGS_FUNCTIONS_(fmt)                                                                    \
  static inline void mlip_##fmt##_decode(const mlip_cmd* c, mlip_##fmt##_args* a) {                 \
    memset(a, 0, sizeof *a);                                                                         \
    memcpy((unsigned char*)a + 4u, c->w, 4u * (size_t)MLIP_##fmt##_WORDS);                           \
    a->dtype = c->w[MLIP_DTYPE_WORD];                                                                \
    MLIP_FIELDS_##fmt(MLIP_ARGS_SKIP_W_, MLIP_DECODE_A_, fmt)                                        \
  }                                                                                                  \
  static inline void mlip_##fmt##_encode(const mlip_##fmt##_args* a, mlip_cmd* c) {                 \
    memset(c->w, 0, sizeof c->w);                                                                    \
    memcpy(c->w, (const unsigned char*)a + 4u, 4u * (size_t)MLIP_##fmt##_WORDS);                     \
    c->w[MLIP_DTYPE_WORD] = a->dtype;                                                                \
    MLIP_FIELDS_##fmt(MLIP_ARGS_SKIP_W_, MLIP_ENCODE_A_, fmt)                                        \
  }                                                                                                  \
  static inline void mlip_##fmt##_relocate(mlip_##fmt##_args* a, uint32_t base) {                   \
    (void)a;                                                                                         \
    (void)base;                                                                                      \
    MLIP_FIELDS_##fmt(MLIP_RELOCATE_W_, MLIP_ARGS_SKIP_A_, fmt)                                      \
  }
MLIP_FORMATS(MLIP_ARGS_FUNCTIONS_)
#undef MLIP_ARGS_FUNCTIONS_
#undef MLIP_ENCODE_A_

/* ---- any command ------------------------------------------------------------ */

/* A command decoded: its head and its operands in its format's member of
 * the union (u.conv2d for CONV2D, u.pool for MAXPOOL and AVGPOOL, ...).
 * Every member starts with dtype. */
typedef union mlip_args {
#define MLIP_ARGS_MEMBER_(fmt) mlip_##fmt##_args fmt;
  MLIP_FORMATS(MLIP_ARGS_MEMBER_)
#undef MLIP_ARGS_MEMBER_
  unsigned char storage_[4u + 4u * MLIP_OPERAND_WORDS]; /* room for the decoder's one copy */
} mlip_args;

typedef struct mlip_decoded_cmd {
  uint32_t opcode; /* MLIP_OP_* */
  uint32_t tile;
  uint32_t layer;
  mlip_args u;
} mlip_decoded_cmd;

/* The format of an opcode as its position in MLIP_FORMATS, or -1. */
#define MLIP_FORMAT_ENUM_(fmt) MLIP_FORMAT_##fmt,
enum { MLIP_FORMATS(MLIP_FORMAT_ENUM_) MLIP_FORMAT_COUNT_ };
#undef MLIP_FORMAT_ENUM_
static inline int mlip_opcode_format(uint32_t opcode) {
  switch (opcode) {
#define MLIP_OPCODE_FORMAT_(NAME, name, value, fmt, forms) \
  case value: return MLIP_FORMAT_##fmt;
    MLIP_OPCODES(MLIP_OPCODE_FORMAT_)
#undef MLIP_OPCODE_FORMAT_
    default: return -1;
  }
}

/* The element types an opcode has (MLIP_FORMS_*), MLIP_FORMS_NONE for an
 * unknown one. */
static inline uint32_t mlip_opcode_forms(uint32_t opcode) {
  switch (opcode) {
#define MLIP_OPCODE_FORMS_(NAME, name, value, fmt, forms) \
  case value: return MLIP_FORMS_##forms;
    MLIP_OPCODES(MLIP_OPCODE_FORMS_)
#undef MLIP_OPCODE_FORMS_
    default: return MLIP_FORMS_NONE;
  }
}

/* Decodes any command: one copy of its operand words into the union, then
 * the fields that share a word. Returns 0 (operands all zero) for an
 * unknown opcode. */
#define MLIP_DECODE_U_A_(x, name, word, type, when, rule, doc, shadow) \
  {                                                                    \
    mlip_##x##_args* a = &d->u.x;                                      \
    MLIP_DECODE_A_(x, name, word, type, when, rule, doc, shadow)       \
  }
static inline int mlip_cmd_decode(const mlip_cmd* c, mlip_decoded_cmd* d) {
  d->opcode = c->opcode;
  d->tile = c->tile;
  d->layer = c->layer;
  memcpy(d->u.storage_, &c->w[MLIP_DTYPE_WORD], 4u);
  memcpy(d->u.storage_ + 4u, c->w, 4u * MLIP_OPERAND_WORDS);
  switch (c->opcode) {
#define MLIP_DECODE_OPCODE_(NAME, name, value, fmt, forms)                     \
  case value:                                                            \
    MLIP_FIELDS_##fmt(MLIP_ARGS_SKIP_W_, MLIP_DECODE_U_A_, fmt) return 1;
    MLIP_OPCODES(MLIP_DECODE_OPCODE_)
#undef MLIP_DECODE_OPCODE_
    default:
      memset(&d->u, 0, sizeof d->u);
      return 0;
  }
}
#undef MLIP_DECODE_U_A_
#undef MLIP_DECODE_A_

/* Encodes any command, head included (an unknown opcode: no operand). */
static inline void mlip_cmd_encode(const mlip_decoded_cmd* d, mlip_cmd* c) {
  memset(c, 0, sizeof *c);
  c->opcode = (uint8_t)d->opcode;
  c->tile = (uint8_t)d->tile;
  c->layer = (uint16_t)d->layer;
  switch (mlip_opcode_format(d->opcode)) {
#define MLIP_ENCODE_FORMAT_(fmt)          \
  case MLIP_FORMAT_##fmt:                 \
    mlip_##fmt##_encode(&d->u.fmt, c);    \
    break;
    MLIP_FORMATS(MLIP_ENCODE_FORMAT_)
#undef MLIP_ENCODE_FORMAT_
    default: break;
  }
}

/* Adds `base` to the PIN and PIN_OPT fields of a command (the offsets of a
 * pinned command's weights, relative to the pinned range until it is
 * placed). */
static inline void mlip_cmd_relocate_pinned(mlip_cmd* c, uint32_t base) {
  mlip_decoded_cmd d;
  if (!mlip_cmd_decode(c, &d)) {
    return;
  }
  switch (mlip_opcode_format(d.opcode)) {
#define MLIP_RELOCATE_FORMAT_(fmt)           \
  case MLIP_FORMAT_##fmt:                    \
    mlip_##fmt##_relocate(&d.u.fmt, base);   \
    break;
    MLIP_FORMATS(MLIP_RELOCATE_FORMAT_)
#undef MLIP_RELOCATE_FORMAT_
    default: break;
  }
  mlip_cmd_encode(&d, c);
}

#undef MLIP_ARGS_SKIP_W_
#undef MLIP_ARGS_SKIP_A_

#ifdef __cplusplus
}
#endif

#endif /* MLIP_CMD_ARGS_H_ */
