/* Private declarations of the MLIP command-buffer validator and simulator
 * (runtime/sim): validate.c (the buffer, the rules every command obeys and
 * the per-field rules of the operand tables), execute.c (running sections),
 * opcodes.c (the opcode table) and one op_<format>.c per operand format (its
 * opcodes' own rules and executors, fp16 and 8-bit). Commands are decoded
 * once (mlip_cmd_decode, mlip/cmd_args.h) and checked and run as typed
 * structs. Not installed with the public headers: the tests include it
 * to reach the cycle model and the reader helpers. The machine is defined in
 * docs/mlip-spec.md, the format in docs/command-buffer.md and
 * include/mlip/cmdbuf.h (the operand tables: mlip/cmd_table.h). */
#ifndef MLIP_SIM_INTERNAL_H_
#define MLIP_SIM_INTERNAL_H_

#include "mlip/strict_fp.h" /* first: no contraction, same bits everywhere */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mlip/cmdbuf.h"
#define MLIP_KMATH_NO_FLOAT16 /* fp16.c has them (mlip/region.h) */
#include "mlip/kmath.h"
#include "mlip/kq4_format.h"
#include "mlip/region.h"
#include "mlip/requant.h"
#include "mlip/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Upper bound on a region's inputs plus outputs. Bindings are resolved into
 * stack arrays (the runtime has no heap), so a buffer with more is rejected
 * with MLIP_ERR_UNSUPPORTED. Override with -D. */
#ifndef MLIP_REGION_MAX_IO
#define MLIP_REGION_MAX_IO 64u
#endif
/* inputs + outputs + SCRATCH + WEIGHTS */
#define MLIP_REGION_MAX_BINDINGS (MLIP_REGION_MAX_IO + 2u)

#define MLIP_MAX_OCM_SIZE (1024u * 1024u) /* per tile */
#define MLIP_SECTION_ALIGN 16u
#define MLIP_HEADER_CRC_BYTES 252u        /* header_crc32c covers [0, 252) */

/* A header copied out of a buffer plus the counts the executor needs. The
 * buffer may be unaligned, so every record is read with memcpy. */
typedef struct mlip_sim_view {
  const uint8_t* buf;
  size_t size;
  mlip_header hdr;
} mlip_sim_view;

/* 1 on a little-endian host (the only kind the runtime supports). */
static inline int mlip_sim_host_little_endian(void) {
  const uint16_t one = 1u;
  uint8_t b[2];
  memcpy(b, &one, sizeof b);
  return b[0] == 1u;
}

/* Built for size (-Os: firmware), the simulator's compute opcodes run their
 * reference loops, one output at a time in the spec's order, and the row
 * helpers below are plain loops; otherwise CONV2D and FC compute blocks of
 * outputs side by side in vectorized lanes. Both give the same bits (the
 * sums keep their order); -DMLIP_SIM_COMPACT=0 or =1 chooses. */
#ifndef MLIP_SIM_COMPACT
#if defined(__OPTIMIZE_SIZE__)
#define MLIP_SIM_COMPACT 1
#else
#define MLIP_SIM_COMPACT 0
#endif
#endif

/* Built for speed, a function the compiler must not inline into its one
 * caller (GCC and Clang; elsewhere a hint it may ignore): the 8-bit CONV2D
 * inlined into the fp16 executor ran its loops 4% slower. Built for size,
 * inlining is what saves bytes. */
#if !MLIP_SIM_COMPACT && defined(__GNUC__)
#define MLIP_SIM_NOINLINE __attribute__((noinline))
#else
#define MLIP_SIM_NOINLINE
#endif

/* Exact binary16 -> binary32 (docs/mlip-spec.md, section 4): the normal
 * numbers inline, with one test, because the compute loops convert every
 * operand; zeros, subnormals, infinities and NaNs in fp16.c. */
float mlip_sim_h2f_special(uint16_t h);
static inline float mlip_sim_h2f(uint16_t h) {
  const uint32_t magnitude = (uint32_t)h & 0x7FFFu;
  uint32_t bits;
  float f;
  if (magnitude - 0x0400u >= 0x7800u) { /* biased exponent 0 or 31 */
    return mlip_sim_h2f_special(h);
  }
  /* rebias the exponent 15 -> 127, widen the mantissa 10 -> 23 bits */
  bits = (((uint32_t)h & 0x8000u) << 16) | ((magnitude << 13) + 0x38000000u);
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* Loads from the OCM / buffer (any alignment). */
static inline uint16_t mlip_sim_ld16(const uint8_t* p) {
  uint16_t v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline float mlip_sim_ldf(const uint8_t* p) {
  float v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline void mlip_sim_st16(uint8_t* p, uint16_t v) {
  memcpy(p, &v, sizeof v);
}
static inline void mlip_sim_stf(uint8_t* p, float v) {
  memcpy(p, &v, sizeof v);
}

/* Where the compiler targets x86 with F16C and AVX (mlipc run builds with
 * -march=native), the conversions of whole rows use the hardware's: exact
 * like mlip_sim_h2f for every half (subnormals included, whatever the
 * MXCSR), except that a signaling NaN comes out quiet; every caller's
 * result for a NaN operand is the canonical NaN, so no output changes.
 * -DMLIP_SIM_NO_F16C keeps the portable code. */
#if !MLIP_SIM_COMPACT && defined(__F16C__) && defined(__AVX__) && !defined(MLIP_SIM_NO_F16C)
#define MLIP_SIM_F16C 1
#include <immintrin.h>

/* 8 consecutive halves at src (any alignment) to floats, by the hardware. */
static inline __m256 mlip_sim_h2f_8(const uint8_t* src) {
  return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(const void*)src));
}
#endif

/* n consecutive halves at src (any alignment) to floats, exactly as
 * mlip_sim_h2f (but for a NaN's quiet bit with F16C): the normal numbers
 * in a loop the compiler vectorizes, then the few zeros, subnormals,
 * infinities and NaNs one by one. */
static inline void mlip_sim_h2f_row(const uint8_t* src, float* dst, size_t n) {
#if MLIP_SIM_COMPACT /* built for size: the plain loop */
  size_t i;
  for (i = 0; i < n; ++i) {
    dst[i] = mlip_sim_h2f(mlip_sim_ld16(src + i * 2u));
  }
#else
  uint32_t special = 0u;
  size_t i = 0;
#ifdef MLIP_SIM_F16C
  for (; i + 8u <= n; i += 8u) {
    _mm256_storeu_ps(dst + i, mlip_sim_h2f_8(src + i * 2u));
  }
  src += i * 2u;
  dst += i;
  n -= i;
#endif
  for (i = 0; i < n; ++i) {
    uint16_t h;
    uint32_t magnitude, bits;
    memcpy(&h, src + i * 2u, sizeof h);
    magnitude = (uint32_t)h & 0x7FFFu;
    bits = (((uint32_t)h & 0x8000u) << 16) | ((magnitude << 13) + 0x38000000u);
    special |= (uint32_t)(magnitude - 0x0400u >= 0x7800u);
    memcpy(dst + i, &bits, sizeof bits);
  }
  if (special != 0u) {
    for (i = 0; i < n; ++i) {
      uint16_t h;
      memcpy(&h, src + i * 2u, sizeof h);
      if (((uint32_t)h & 0x7FFFu) - 0x0400u >= 0x7800u) {
        dst[i] = mlip_sim_h2f_special(h);
      }
    }
  }
#endif
}

/* A command word read as a signed 32-bit value, two's complement, without
 * the implementation-defined unsigned -> signed conversion. */
static inline int32_t mlip_sim_as_i32(uint32_t u) {
  return u <= 0x7FFFFFFFu ? (int32_t)u : -(int32_t)(0xFFFFFFFFu - u) - 1;
}

/* ---- numerics (docs/mlip-spec.md section 4) ------------------------------ *
 * Products of two halves are exact in fp32; every sum is one fp32 addition
 * in the fixed order of the spec (the runtime is built with
 * -ffp-contract=off, so no fused multiply-add); bias, activation and the
 * one division of an average in fp32; one round-to-nearest-even to fp16 at
 * the end. Inline because the compute loops call them for every element. */

static inline float mlip_sim_bits_to_float(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* The activation, in fp32 before the one rounding (docs/mlip-spec.md
 * section 4). Transcendentals are mlip/kmath.h's (double arithmetic with
 * +, -, *, / only, one rounding to float by integer code), so every host
 * computes the same bits; each product and sum is its own statement. */
static inline float mlip_sim_hardsigmoid(float v, float alpha, float beta) {
  float t = alpha * v;
  t = t + beta;
  return t > 1.0f ? 1.0f : (t < 0.0f ? 0.0f : t); /* NaN stays NaN */
}

/* GELU as exported (docs/mlip-spec.md section 4): the Erf form
   0.5 * (v * (1 + erf(v * (1/sqrt 2)))) and the tanh approximation
   0.5 * (v * (1 + tanh(sqrt(2/pi) * (v + 0.044715 * v^3)))), each product
   and sum one fp32 operation, the constants rounded to float. */
static inline float mlip_sim_gelu(float v) {
  float t = v * 0.70710678118654752f;
  t = mlip_erff(t);
  t = 1.0f + t;
  t = v * t;
  return 0.5f * t;
}
static inline float mlip_sim_gelu_tanh(float v) {
  float c = v * v;
  float t;
  c = c * v;
  c = 0.044715f * c;
  c = v + c;
  c = 0.79788456080286536f * c;
  t = mlip_tanhf(c);
  t = 1.0f + t;
  t = v * t;
  return 0.5f * t;
}
/* v ^ e for a constant exponent: 2 is v * v (exact as the graph's Pow
   computes it), 0.5 the square root, otherwise mlip_powf. */
static inline float mlip_sim_pow(float v, float e) {
  if (e == 2.0f) {
    return v * v;
  }
  if (e == 0.5f) {
    return mlip_sqrtf(v);
  }
  return mlip_powf(v, e);
}

static inline float mlip_sim_apply_act(float v, uint32_t act, float lo, float hi) {
  float t;
  switch (act) {
    case MLIP_ACT_RELU: return v <= 0.0f ? 0.0f : v; /* -0 becomes +0; a NaN stays NaN */
    case MLIP_ACT_CLIP:
      t = v < lo ? lo : v; /* the lower bound first: lo > hi gives hi */
      return t > hi ? hi : t;
    case MLIP_ACT_SIGMOID: return mlip_sigmoidf(v);
    case MLIP_ACT_TANH: return mlip_tanhf(v);
    case MLIP_ACT_SILU:
      t = mlip_sigmoidf(v);
      return v * t;
    case MLIP_ACT_HARDSIGMOID: return mlip_sim_hardsigmoid(v, lo, hi);
    case MLIP_ACT_HARDSWISH:
      t = mlip_sim_hardsigmoid(v, lo, hi);
      return v * t;
    case MLIP_ACT_LEAKYRELU: return v < 0.0f ? v * lo : v;
    case MLIP_ACT_ELU:
      if (v < 0.0f) {
        t = mlip_expm1f(v);
        return lo * t;
      }
      return v;
    case MLIP_ACT_GELU: return mlip_sim_gelu(v);
    case MLIP_ACT_GELU_TANH: return mlip_sim_gelu_tanh(v);
    case MLIP_ACT_ERF: return mlip_erff(v);
    case MLIP_ACT_SQRT: return mlip_sqrtf(v);
    case MLIP_ACT_RECIP: return 1.0f / v;
    case MLIP_ACT_POW: return mlip_sim_pow(v, lo);
    default: return v;
  }
}

/* The one rounding of a computed result to fp16. A NaN computed by
 * arithmetic (inf - inf, 0 * inf, or one propagated from an operand) has a
 * host-dependent sign (x86 makes negative default NaNs, AArch64 positive
 * ones, RISC-V always the positive canonical NaN), so every NaN result is the
 * positive quiet NaN 0x7E00: the same bits on every host. CONVERT, which does
 * no arithmetic, keeps the sign (mlip_f32_to_f16). */
static inline uint16_t mlip_sim_round_result(float v) {
  if (v != v) {
    return 0x7E00u;
  }
  return mlip_f32_to_f16(v);
}

/* mlip_sim_apply_act on n values in place: the switch once, and loops the
 * compiler vectorizes for the piecewise-linear activations. */
static inline void mlip_sim_act_row(float* v, size_t n, uint32_t act, float lo, float hi) {
#if MLIP_SIM_COMPACT /* built for size: the plain loop */
  size_t i;
  for (i = 0; i < n; ++i) {
    v[i] = mlip_sim_apply_act(v[i], act, lo, hi);
  }
#else
  size_t i;
  switch (act) {
    case MLIP_ACT_NONE: return;
    case MLIP_ACT_RELU:
      for (i = 0; i < n; ++i) {
        v[i] = v[i] <= 0.0f ? 0.0f : v[i];
      }
      return;
    case MLIP_ACT_CLIP:
      for (i = 0; i < n; ++i) {
        const float t = v[i] < lo ? lo : v[i];
        v[i] = t > hi ? hi : t;
      }
      return;
    default:
      for (i = 0; i < n; ++i) {
        v[i] = mlip_sim_apply_act(v[i], act, lo, hi);
      }
      return;
  }
#endif
}

/* mlip_sim_round_result of n results, stored as consecutive halves at dst
 * (any alignment): the results that round to a normal half in a loop the
 * compiler vectorizes (round to nearest even on the bit pattern), then the
 * zeros, subnormals, overflows and NaNs one by one. */
static inline void mlip_sim_round_row(const float* v, uint8_t* dst, size_t n) {
#if MLIP_SIM_COMPACT /* built for size: the plain loop */
  size_t i;
  for (i = 0; i < n; ++i) {
    mlip_sim_st16(dst + i * 2u, mlip_sim_round_result(v[i]));
  }
#else
  uint32_t special = 0u;
  size_t i;
  for (i = 0; i < n; ++i) {
    uint32_t bits, magnitude;
    uint16_t h;
    memcpy(&bits, v + i, sizeof bits);
    magnitude = bits & 0x7FFFFFFFu;
    /* rebias 127 -> 15 and keep 10 mantissa bits, adding just under half
       of the dropped unit plus the kept last bit: ties go to even */
    h = (uint16_t)(((bits >> 16) & 0x8000u) | ((magnitude - 0x38000000u + 0x0FFFu + ((magnitude >> 13) & 1u)) >> 13));
    /* normal halves: 2^-14 <= |v| below the rounding boundary 65520 */
    special |= (uint32_t)(magnitude - 0x38800000u >= 0x477FF000u - 0x38800000u);
    memcpy(dst + i * 2u, &h, sizeof h);
  }
  if (special != 0u) {
    for (i = 0; i < n; ++i) {
      uint32_t bits;
      memcpy(&bits, v + i, sizeof bits);
      if ((bits & 0x7FFFFFFFu) - 0x38800000u >= 0x477FF000u - 0x38800000u) {
        const uint16_t h = mlip_sim_round_result(v[i]);
        memcpy(dst + i * 2u, &h, sizeof h);
      }
    }
  }
#endif
}

static inline float mlip_sim_neg_inf(void) {
  return mlip_sim_bits_to_float(0xFF800000u);
}

/* ---- validation arithmetic -------------------------------------------------
 * Every bound check is done in 64 bits with saturating products, so no
 * operand word can make a check wrap. */

static inline uint64_t mlip_sim_sat_mul(uint64_t a, uint64_t b) {
  if (a != 0u && b > UINT64_MAX / a) {
    return UINT64_MAX;
  }
  return a * b;
}

static inline uint64_t mlip_sim_sat_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline uint64_t mlip_sim_mul3(uint64_t a, uint64_t b, uint64_t c) {
  return mlip_sim_sat_mul(mlip_sim_sat_mul(a, b), c);
}

static inline uint64_t mlip_sim_mul4(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  return mlip_sim_sat_mul(mlip_sim_mul3(a, b, c), d);
}

/* Two in-bounds OCM ranges (both end below 1 MiB, so no sum wraps). */
static inline int mlip_sim_overlaps(uint32_t a, uint64_t a_len, uint32_t b, uint64_t b_len) {
  return (uint64_t)a < (uint64_t)b + b_len && (uint64_t)b < (uint64_t)a + a_len;
}

#define MLIP_TRY(expr)        \
  do {                        \
    mlip_status st_ = (expr); \
    if (st_ != MLIP_OK) {     \
      return st_;             \
    }                         \
  } while (0)

/* ---- validate.c ---------------------------------------------------------- */

/* Checks the header and the section table and fills view: size >= 256,
 * magic, version, [header CRC], target and header fields, total_size ==
 * size, sections in order and in bounds, [payload CRC]. With check_crc == 0
 * it is cheap (no pass over the payload): the executor re-runs it on every
 * run, so a buffer that passed validation once is still read safely. */
mlip_status mlip_sim_open(const uint8_t* buf, size_t size, int check_crc, mlip_sim_view* view);

/* Reads record i of a section (the caller has checked i < count). */
void mlip_sim_read_binding(const mlip_sim_view* v, uint32_t i, mlip_binding* out);
void mlip_sim_read_layer(const mlip_sim_view* v, uint32_t i, mlip_layer* out);
/* Command i of a section, decoded (mlip_cmd_decode: an unknown opcode has
 * no operand). */
void mlip_sim_read_cmd(const mlip_sim_view* v, uint32_t section, uint32_t i, mlip_decoded_cmd* out);

/* An OCM operand [off, off + bytes) of the command's tile: aligned and inside
 * ocm_size (MLIP_ERR_INVALID_ARG, MLIP_ERR_BOUNDS). */
mlip_status mlip_sim_check_ocm(const mlip_sim_view* v, uint32_t off, uint64_t bytes);
/* MAIN and FINISH write nothing at or above ocm_pinned_offset (MLIP_ERR_BOUNDS). */
mlip_status mlip_sim_check_write(const mlip_sim_view* v, uint32_t section, uint32_t off, uint64_t bytes);

/* The per-field rules of a decoded command's operand table (the checked
 * rules of mlip/cmd_table.h, for the fields its opcode and dtype have):
 * MLIP_OK or MLIP_ERR_INVALID_ARG (also for an unknown opcode). */
mlip_status mlip_sim_check_fields(const mlip_decoded_cmd* d);
/* One value against one rule (MLIP_RULE_*) for element type dt and the
 * command's requant field (Q and SHIFT rules depend on it): 1 when it
 * holds; the marker rules (checked 0 in MLIP_RULES) always hold. */
int mlip_sim_rule_ok(uint32_t rule, uint32_t value, uint32_t dt, uint32_t requant);

/* Every rule of docs/command-buffer.md for one command of `section`
 * (MLIP_SEC_INIT, _MAIN or _FINISH): opcode, tile, layer, the element
 * type, the per-field rules, then the opcode's own (op_<format>.c). The
 * executor re-checks each command with it before running it (cheap next
 * to the command itself). */
mlip_status mlip_sim_check_cmd(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d);

/* ---- op_convert.c -------------------------------------------------------- */

/* n elements fp32 -> fp16 (mode MLIP_CVT_F32_TO_F16) or fp16 -> fp32, src
 * to dst (no overlap): CONVERT's arithmetic, which a converting DMA shares. */
void mlip_sim_convert_elems(uint8_t* dst, const uint8_t* src, size_t n, uint32_t mode);

/* ---- execute.c ----------------------------------------------------------- */

/* Estimated cycles of `layer` as the simulator accumulates them (the cycle
 * model of mlip/cycle_model.h): for every contiguous run of the layer's commands
 * in INIT, MAIN and FINISH, the slowest tile's max(compute, DMA) +
 * cmd_overhead_cycles * commands, summed over the runs. The compiler writes the same number into the layer's
 * est_cycles. Validates the buffer first. */
mlip_status mlip_sim_layer_cycles(const uint8_t* buf, size_t size, uint32_t layer, uint64_t* cycles);

/* What a section runs against. */
typedef struct mlip_sim_env {
  const mlip_sim_view* view;
  uint8_t* ocm;                 /* num_tiles * ocm_size bytes */
  void* const* inputs;          /* header.num_inputs pointers */
  void* const* outputs;         /* header.num_outputs pointers */
  uint8_t* scratch;
  uint32_t scratch_size;
  mlip_layer_stats* stats;      /* one per layer, or NULL */
} mlip_sim_env;

/* ---- opcodes.c and op_<format>.c ----------------------------------------- */

/* One opcode: its own validation rules (after the ones every command obeys
 * and the per-field ones, checked by mlip_sim_check_cmd) and its executor,
 * which runs in the OCM of the command's tile (`ocm`) and may assume the
 * command passed `check`. Both read the decoded command's operands
 * (d->u.<format>). */
typedef mlip_status (*mlip_sim_check_fn)(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d);
typedef mlip_status (*mlip_sim_exec_fn)(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d);

typedef struct mlip_sim_opcode {
  mlip_sim_check_fn check;
  mlip_sim_exec_fn exec;
} mlip_sim_opcode;

/* The table entry of an opcode, or NULL when it is not one. */
const mlip_sim_opcode* mlip_sim_opcode_of(uint32_t opcode);

/* mlip_sim_check_<format> and mlip_sim_exec_<format> of every opcode of
 * MLIP_OPCODES (mlip/cmd_table.h), in op_<format>.c (BARRIER: opcodes.c);
 * declared once per opcode, so twice for a format two opcodes share. */
#define MLIP_SIM_OPCODE_DECL_(NAME, name, value, fmt, forms)                                                     \
  mlip_status mlip_sim_check_##fmt(const mlip_sim_view* v, uint32_t section, const mlip_decoded_cmd* d); \
  mlip_status mlip_sim_exec_##fmt(const mlip_sim_env* env, uint8_t* ocm, const mlip_decoded_cmd* d);
MLIP_OPCODES(MLIP_SIM_OPCODE_DECL_)
#undef MLIP_SIM_OPCODE_DECL_

/* Runs every command of a section in order, accumulating stats per
 * contiguous run of a layer. Returns MLIP_ERR_INTERNAL if a command fails its
 * re-check (cannot happen after validation). */
mlip_status mlip_sim_run_section(const mlip_sim_env* env, uint32_t section);

/* ---- 8-bit commands (docs/mlip-spec.md section 4a) -------------------------
 * What the 8-bit forms in op_<format>.c share: the element type's range, a
 * requantization pair's rule, the byte loads and stores, and CONV2D's and
 * FC's per-output-channel records and dot product. The arithmetic is
 * mlip/requant.h, the header the CPU's int8 kernels include, so a region
 * gives the bits of those kernels. */

/* The element type's range (MLIP_DT_INT16 too: CONV2D's and FC's 16x8 form). */
static inline int32_t mlip_sim_q8_lo(uint32_t dt) {
  return dt == MLIP_DT_INT8 ? -128 : (dt == MLIP_DT_INT16 ? -32768 : 0);
}
static inline int32_t mlip_sim_q8_hi(uint32_t dt) {
  return dt == MLIP_DT_INT8 ? 127 : (dt == MLIP_DT_INT16 ? 32767 : 255);
}

/* A requantization pair as mlip_quantize_multiplier makes it: q zero or in
 * [2^30, 2^31), shift in [MLIP_REQUANT_MIN_SHIFT, max_shift]; with requant
 * MLIP_REQUANT_ORT, a positive finite float32's bits and MLIP_REQUANT_F32
 * (mlip/requant.h). */
static inline int mlip_sim_q8_requant_ok(uint32_t q, uint32_t shift, int32_t max_shift, uint32_t requant) {
  const int32_t s = mlip_sim_as_i32(shift);
  if (requant == MLIP_REQUANT_ORT) return q > 0u && q < 0x7F800000u && s == MLIP_REQUANT_F32;
  return (q == 0u || (q >= 0x40000000u && q <= 0x7FFFFFFFu)) && s >= MLIP_REQUANT_MIN_SHIFT && s <= max_shift;
}

/* The sign mask of an 8-bit type (0x80: int8, 0: uint8) and the value of
 * one of its bytes under it, by arithmetic rather than a branch, so that
 * loops over bytes vectorize. */
static inline int32_t mlip_sim_q8_sign(uint32_t dt) {
  return dt == MLIP_DT_INT8 ? 0x80 : 0;
}
static inline int32_t mlip_sim_q8_value(uint8_t byte, int32_t sign) {
  return ((int32_t)byte ^ sign) - sign;
}
/* An element of the command's type at p. */
static inline int32_t mlip_sim_q8_load(uint32_t dt, const uint8_t* p) {
  return mlip_sim_q8_value(*p, mlip_sim_q8_sign(dt));
}

/* Stores v (already inside the type) as its byte. */
static inline void mlip_sim_q8_store(uint8_t* p, int32_t v) {
  *p = (uint8_t)(v < 0 ? v + 256 : v);
}

/* QuantizeLinear of a float32 x to an 8-bit type as the CPU's kernel
   (templates/kernels/quantize_linear.c): x / y_scale rounded half to even,
   plus y_zp, saturated to [lo, hi]; NaN gives y_zp. The quotient is first
   clamped to one past the range, which changes no result and keeps the
   rounding's argument below 2^22 (mlip_round_half_even_f32). The last step
   of the 8-bit SOFTMAX and NORM (docs/mlip-spec.md 4a). */
static inline int32_t mlip_sim_q8_quantize(float x, float y_scale, int32_t y_zp, int32_t lo, int32_t hi) {
  const float vlo = (float)(lo - y_zp - 1), vhi = (float)(hi - y_zp + 1);
  float v = x / y_scale;
  int32_t q;
  if (v != v) {
    return y_zp;
  }
  v = v < vlo ? vlo : (v > vhi ? vhi : v);
  q = (int32_t)mlip_round_half_even_f32(v) + y_zp;
  return q < lo ? lo : (q > hi ? hi : q);
}

/* Record j's word k (0 bias, 1 q, 2 shift) of CONV2D's and FC's records
 * (MLIP_REQUANT_RECORD_BYTES each). */
static inline uint32_t mlip_sim_q8_record_word(const uint8_t* rec, size_t j, size_t k) {
  uint32_t u;
  memcpy(&u, rec + j * MLIP_REQUANT_RECORD_BYTES + k * 4u, sizeof u);
  return u;
}

/* The n records at rec are data, not command words: CONV2D and FC check
   them before they write anything. */
static inline int mlip_sim_q8_records_ok(const uint8_t* rec, size_t n, uint32_t requant) {
  size_t j;
  for (j = 0; j < n; ++j) {
    if (!mlip_sim_q8_requant_ok(mlip_sim_q8_record_word(rec, j, 1), mlip_sim_q8_record_word(rec, j, 2),
                                MLIP_REQUANT_MAX_SHIFT, requant)) {
      return 0;
    }
  }
  return 1;
}

/* Output channel j of CONV2D and FC: the products' sum plus record j's
   bias (saturated to int32), requantized by its (q, shift) into [lo, hi]. */
static inline void mlip_sim_q8_store_requantized(uint8_t* p, int32_t acc, const uint8_t* rec, size_t j, int32_t zy,
                                                 int32_t lo, int32_t hi) {
  const int32_t s = mlip_add_sat_i32(acc, mlip_sim_as_i32(mlip_sim_q8_record_word(rec, j, 0)));
  mlip_sim_q8_store(p, mlip_requantize(s, mlip_sim_as_i32(mlip_sim_q8_record_word(rec, j, 1)),
                                       mlip_sim_as_i32(mlip_sim_q8_record_word(rec, j, 2)), zy, lo, hi));
}

/* The sum of (x[i] - zx) * w[i] over n bytes, x of type dt, w int8. Integer
   sums do not depend on their order: the loop is written for the compiler
   to vectorize (mlip_sim_q8_value: no branch per byte). */
static inline int32_t mlip_sim_q8_dot(uint32_t dt, const uint8_t* x, const uint8_t* w, size_t n, int32_t zx) {
  const int32_t sx = mlip_sim_q8_sign(dt);
  int32_t acc = 0; /* callers bound n (MLIP_INT8_MAX_TAPS): no overflow */
  size_t i;
  for (i = 0; i < n; ++i) {
    acc += (mlip_sim_q8_value(x[i], sx) - zx) * mlip_sim_q8_value(w[i], 0x80);
  }
  return acc;
}

/* ---- 4-bit weights (CONV2D and FC with w4_block n > 0) ----------------------
 * Each output channel's row of K weights is a record of mlip/kq4_format.h
 * of its own (M = 1, blocks of n), unpacked on read: the arithmetic is the
 * 8-bit command's on the values (docs/command-buffer.md "int8 commands"). */

/* The bytes of one channel's packed row (k at most MLIP_INT8_MAX_TAPS, block
   in [1, k]: the callers checked both). */
static inline uint64_t mlip_sim_w4_row_bytes(uint64_t k, uint32_t block) {
  return (uint64_t)mlip_kq4_bytes(1, (int32_t)k, (int32_t)block);
}

/* Whether the rows of `rows` channels at w4 hold no exponent above
   MLIP_KQ4_MAX_EXPONENT: data in OCM, checked when the command runs. */
static inline int mlip_sim_w4_ok(const uint8_t* w4, size_t rows, uint32_t k, uint32_t block) {
  const uint64_t rb = mlip_sim_w4_row_bytes(k, block);
  size_t j;
  for (j = 0; j < rows; ++j) {
    if (!mlip_kq4_exponents_ok(w4 + j * rb, 1, (int32_t)k, (int32_t)block)) {
      return 0;
    }
  }
  return 1;
}

/* The weights of a packed row the executors unpack at once into a local
   buffer (a longer row is read weight by weight: mlip_sim_q4_dot). */
#define MLIP_SIM_W4_ROW 2048u

/* mlip_sim_q8_dot with the weights t0 .. t0 + n - 1 of the packed row at
   w4 (k weights, blocks of `block`). */
static inline int32_t mlip_sim_q4_dot(uint32_t dt, const uint8_t* x, const uint8_t* w4, uint32_t k, uint32_t block,
                                      size_t t0, size_t n, int32_t zx) {
  const int32_t sx = mlip_sim_q8_sign(dt);
  int32_t acc = 0; /* callers bound n (MLIP_INT8_MAX_TAPS), |w| <= 128: no overflow */
  size_t i;
  for (i = 0; i < n; ++i) {
    acc += (mlip_sim_q8_value(x[i], sx) - zx) * mlip_kq4_weight(w4, 1, (int32_t)k, (int32_t)block, 0, (int32_t)(t0 + i));
  }
  return acc;
}

/* ---- 16x8 (MLIP_DT_INT16: CONV2D and FC, docs/mlip-spec.md section 4a) ----
 * int16 activations (zero point 0, two bytes little-endian), int8 weights,
 * an int64 sum and bias, requantized by mlip_requantize64: the arithmetic
 * of the CPU's 16x8 kernels (templates/kernels/conv_integer.c, wide). */

/* The int16 element at p, and v (inside int16) stored there. */
static inline int32_t mlip_sim_i16_load(const uint8_t* p) {
  const int32_t u = (int32_t)mlip_sim_ld16(p);
  return u >= 32768 ? u - 65536 : u;
}
static inline void mlip_sim_i16_store(uint8_t* p, int32_t v) {
  mlip_sim_st16(p, (uint16_t)(v < 0 ? v + 65536 : v));
}

/* Record j's word k (0, 1: the bias's low and high words; 2 q; 3 shift)
   of MLIP_REQUANT16_RECORD_BYTES each. */
static inline uint32_t mlip_sim_q16_record_word(const uint8_t* rec, size_t j, size_t k) {
  uint32_t u;
  memcpy(&u, rec + j * MLIP_REQUANT16_RECORD_BYTES + k * 4u, sizeof u);
  return u;
}
/* Record j's int64 bias (two's complement, without converting an
   out-of-range unsigned value). */
static inline int64_t mlip_sim_q16_record_bias(const uint8_t* rec, size_t j) {
  const uint64_t u = (uint64_t)mlip_sim_q16_record_word(rec, j, 0) | (uint64_t)mlip_sim_q16_record_word(rec, j, 1) << 32;
  return u >= ((uint64_t)1 << 63) ? -(int64_t)(~u) - 1 : (int64_t)u;
}

/* The records are data: each pair a valid one of the command's mode, each
   bias within MLIP_INT16_MAX_BIAS (so the sum stays inside what
   mlip_requantize64 takes). Checked before anything is written. */
static inline int mlip_sim_q16_records_ok(const uint8_t* rec, size_t n, uint32_t requant) {
  size_t j;
  for (j = 0; j < n; ++j) {
    const int64_t b = mlip_sim_q16_record_bias(rec, j);
    if (b > MLIP_INT16_MAX_BIAS || b < -MLIP_INT16_MAX_BIAS ||
        !mlip_sim_q8_requant_ok(mlip_sim_q16_record_word(rec, j, 2), mlip_sim_q16_record_word(rec, j, 3),
                                MLIP_REQUANT_MAX_SHIFT, requant)) {
      return 0;
    }
  }
  return 1;
}

/* Output channel j: the int64 sum plus record j's bias (no saturation:
   both bounded), requantized by its pair into [lo, hi], stored as int16. */
static inline void mlip_sim_q16_store_requantized(uint8_t* p, int64_t acc, const uint8_t* rec, size_t j, int32_t lo,
                                                  int32_t hi) {
  const int64_t s = acc + mlip_sim_q16_record_bias(rec, j);
  mlip_sim_i16_store(p, mlip_requantize64(s, mlip_sim_as_i32(mlip_sim_q16_record_word(rec, j, 2)),
                                          mlip_sim_as_i32(mlip_sim_q16_record_word(rec, j, 3)), 0, lo, hi));
}

/* The sum of x[i] * w[i] over n elements, x int16, w int8, in int64 (a
   product is at most 2^15 * 2^7; callers bound n by MLIP_INT8_MAX_TAPS). */
static inline int64_t mlip_sim_q16_dot(const uint8_t* x, const uint8_t* w, size_t n) {
  int64_t acc = 0;
  size_t i;
  for (i = 0; i < n; ++i) {
    acc += (int64_t)(mlip_sim_i16_load(x + i * 2u) * mlip_sim_q8_value(w[i], 0x80));
  }
  return acc;
}

#ifdef __cplusplus
}
#endif

#endif /* MLIP_SIM_INTERNAL_H_ */
