/* The MLIP command-buffer format, version 1: the one definition that the
 * compiler's encoder (codegen/mlip) and the runtime's validator and
 * simulator (runtime/sim) both include. docs/command-buffer.md explains
 * every field; docs/mlip-spec.md the machine that executes it.
 *
 * A command buffer is little-endian and relocatable: it names memory only
 * through bindings (INPUT k, OUTPUT k, SCRATCH, WEIGHTS) resolved when it
 * runs, and through offsets in the on-chip memory (OCM) of a tile. All
 * structures are made of 32-bit words so that their layout is the same on
 * every C compiler; readers copy them out of the buffer with memcpy, so the
 * buffer itself needs no particular alignment. */
#ifndef MLIP_CMDBUF_H_
#define MLIP_CMDBUF_H_

#include <stddef.h>
#include <stdint.h>

#include "mlip/cmd_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* C99 has no _Static_assert: a negative array size fails the build. */
#define MLIP_STATIC_ASSERT(cond, name) typedef char mlip_static_assert_##name[(cond) ? 1 : -1]

#define MLIP_MAGIC "MRVL"             /* as DPDK's cnxk model binaries */
#define MLIP_FORMAT_VERSION 1u
#define MLIP_TARGET_ARCH 128u         /* DPDK: 128 = MLIP */
#define MLIP_HEADER_SIZE 256u
#define MLIP_OCM_ALIGN 128u           /* every OCM buffer offset is a multiple of this */
#define MLIP_MAX_TILES 8u
#define MLIP_NO_OFFSET 0xFFFFFFFFu    /* an absent optional OCM operand (e.g. no bias) */

/* Processors (header.mcpu). */
enum { MLIP_MCPU_CN10KA = 1, MLIP_MCPU_CNF10KB = 2 };

/* header.quantize */
enum { MLIP_QUANT_FP16 = 0, MLIP_QUANT_INT8 = 1 };

/* header.flags */
enum {
  MLIP_FLAG_WB_PIN_OCM = 1u << 0, /* weights pinned in OCM by the INIT section */
  MLIP_FLAG_HW = 1u << 1          /* bound to the hardware backend (-mattr=hw) */
};

/* Sections, in the order they appear after the header. */
enum {
  MLIP_SEC_BINDINGS = 0, /* mlip_binding[count] */
  MLIP_SEC_LAYERS = 1,   /* mlip_layer[count] */
  MLIP_SEC_INIT = 2,     /* mlip_cmd[count]: run once when the model is loaded */
  MLIP_SEC_MAIN = 3,     /* mlip_cmd[count]: run for every inference */
  MLIP_SEC_FINISH = 4,   /* mlip_cmd[count]: run when the model is unloaded */
  MLIP_SEC_IO = 5,       /* mlip_io_desc[count]: region inputs, then outputs */
  MLIP_SEC_WEIGHTS = 6,  /* raw bytes, read through the WEIGHTS binding */
  MLIP_SEC_STRINGS = 7,  /* NUL-terminated names referenced by offset */
  MLIP_NUM_SECTIONS = 8
};

typedef struct mlip_section {
  uint32_t offset; /* from the start of the buffer; a multiple of 16 */
  uint32_t size;   /* bytes */
  uint32_t count;  /* records (bytes for WEIGHTS and STRINGS) */
} mlip_section;

typedef struct mlip_header {
  uint8_t magic[4];            /* "MRVL" */
  uint32_t version;            /* MLIP_FORMAT_VERSION */
  uint32_t target_arch;        /* MLIP_TARGET_ARCH */
  uint32_t mcpu;               /* MLIP_MCPU_* */
  uint32_t header_size;        /* MLIP_HEADER_SIZE */
  uint32_t total_size;         /* header + payload, bytes */
  uint32_t num_tiles;          /* 1..MLIP_MAX_TILES: tiles the commands name */
  uint32_t ocm_size;           /* OCM bytes per tile the commands use (the simulator provides this much) */
  uint32_t ocm_pinned_offset;  /* start of the pinned-weights range in every tile (== ocm_size if none) */
  uint32_t quantize;           /* MLIP_QUANT_* */
  uint32_t flags;              /* MLIP_FLAG_* */
  uint32_t num_inputs;         /* INPUT bindings */
  uint32_t num_outputs;        /* OUTPUT bindings */
  /* The cycle model (docs/mlip-spec.md): constants of the target, so that
   * the runtime estimates cycles without a target table of its own. */
  uint32_t macs_per_cycle;     /* per tile */
  uint32_t dma_bytes_per_cycle;/* per tile */
  uint32_t eltwise_per_cycle;  /* elements per cycle per tile for pool/add/convert/layout */
  uint32_t cmd_overhead_cycles;
  uint32_t clock_mhz;
  mlip_section sections[MLIP_NUM_SECTIONS]; /* 96 bytes */
  uint32_t payload_crc32c;     /* CRC32C (Castagnoli) of bytes [header_size, total_size) */
  uint8_t name[64];            /* region name, NUL-terminated */
  uint32_t reserved[4];        /* zero */
  uint32_t header_crc32c;      /* CRC32C of header bytes [0, 252) */
} mlip_header;
MLIP_STATIC_ASSERT(sizeof(mlip_header) == MLIP_HEADER_SIZE, header_is_256_bytes);

/* Bindings: the DDR memory a command buffer reads and writes. */
enum { MLIP_BIND_INPUT = 1, MLIP_BIND_OUTPUT = 2, MLIP_BIND_SCRATCH = 3, MLIP_BIND_WEIGHTS = 4 };

typedef struct mlip_binding {
  uint32_t kind;   /* MLIP_BIND_* */
  uint32_t index;  /* input/output number; 0 for SCRATCH and WEIGHTS */
  uint32_t size;   /* bytes every reference through it must stay within */
  uint32_t reserved;
} mlip_binding;
MLIP_STATIC_ASSERT(sizeof(mlip_binding) == 16, binding_is_16_bytes);

/* Layers: the unit of profiling. Commands name their layer; the cycles of
 * a layer are those of its slowest tile. */
enum {
  MLIP_LAYER_CONVERT_IN = 1, /* region input: fp32 NCHW -> fp16 NHWC */
  MLIP_LAYER_CONVERT_OUT = 2,/* region output: fp16 NHWC -> fp32 NCHW */
  MLIP_LAYER_CONV2D = 3,
  MLIP_LAYER_FC = 4,
  MLIP_LAYER_MAXPOOL = 5,
  MLIP_LAYER_AVGPOOL = 6,
  MLIP_LAYER_GLOBAL_AVGPOOL = 7,
  MLIP_LAYER_GLOBAL_MAXPOOL = 8,
  MLIP_LAYER_ADD = 9,
  MLIP_LAYER_CONCAT = 10,
  MLIP_LAYER_LOAD_WEIGHTS = 11, /* the INIT section's pinning */
  MLIP_LAYER_ACTIVATION = 12,   /* a standalone activation */
  MLIP_LAYER_ELTWISE = 13,      /* Sub, Mul, Max, Min, PRelu, broadcast Add */
  MLIP_LAYER_RESIZE = 14,       /* Resize, Upsample: nearest and bilinear */
  MLIP_LAYER_CHANNEL_SLICE = 15,/* Split and Slice of channels: DMA only */
  MLIP_LAYER_CHANNEL_SHUFFLE = 16, /* Reshape-Transpose-Reshape channel shuffle: LAYOUT */
  MLIP_LAYER_MATMUL = 17,       /* MatMul of row-major tensors: batched, either operand computed, B transposed */
  MLIP_LAYER_SOFTMAX = 18,      /* Softmax, LogSoftmax along the last axis */
  MLIP_LAYER_LAYERNORM = 19,    /* LayerNormalization, and its opset-13 decomposition */
  MLIP_LAYER_REDUCE = 20,       /* ReduceMean, ReduceSum */
  MLIP_LAYER_PERMUTE = 21,      /* Transpose, Reshape across layouts, Slice, Gather of one index, Expand: PERMUTE */
  MLIP_LAYER_CONCAT_ROWS = 22,  /* Concat on any axis of row-major tensors: DMA only */
  MLIP_LAYER_CONV_TRANSPOSE = 23, /* ConvTranspose 1-D and 2-D: a CONV2D per stride phase, strided DMA_OUT */
  MLIP_LAYER_RNN = 24,          /* LSTM, GRU: MATMUL (input projections) and RNN (the time loop) per chunk of steps */
  MLIP_LAYER_RNN_STATE = 25,    /* an LSTM's or GRU's Y_h (Y's last steps) or Y_c (the cell states after Y): DMA only */
  MLIP_LAYER_COUNT_
};

typedef struct mlip_layer {
  uint32_t kind;        /* MLIP_LAYER_* */
  uint32_t name;        /* offset in STRINGS */
  uint32_t macs_lo;     /* multiply-accumulates of the whole layer */
  uint32_t macs_hi;
  uint32_t est_cycles;  /* the compiler's estimate (the simulator recomputes and must agree) */
  uint32_t reserved[3];
} mlip_layer;
MLIP_STATIC_ASSERT(sizeof(mlip_layer) == 32, layer_is_32_bytes);

/* Region inputs and outputs (DPDK's per-I/O descriptors). */
enum { MLIP_IO_INT8 = 1, MLIP_IO_UINT8 = 2, MLIP_IO_INT16 = 3, MLIP_IO_FP16 = 7, MLIP_IO_FP32 = 8 }; /* DPDK's codes */
enum { MLIP_LAYOUT_NCHW = 0, MLIP_LAYOUT_NHWC = 1 };

typedef struct mlip_io_desc {
  uint32_t name;        /* offset in STRINGS */
  uint32_t type;        /* MLIP_IO_* */
  uint32_t layout;      /* MLIP_LAYOUT_* of the DDR tensor */
  uint32_t ndim;        /* 1..4 */
  uint32_t shape[4];
  uint32_t size;        /* bytes */
  uint32_t qscale_bits; /* float32 bits of the quantize scale (1.0 for fp16) */
  uint32_t reserved[2];
} mlip_io_desc;
MLIP_STATIC_ASSERT(sizeof(mlip_io_desc) == 48, io_desc_is_48_bytes);

/* Opcodes: MLIP_OP_<NAME> of MLIP_OPCODES (mlip/cmd_table.h), which also
 * names each one's operand table. DMA_IN / DMA_OUT: DDR <-> OCM, 2-D
 * strided; CONVERT: fp32 <-> fp16 in OCM; LAYOUT: [A][B] -> [B][A]
 * transpose (CHW <-> HWC); BARRIER: all tiles, every earlier command
 * completes first; ACTIVATION: out[i] = act(in[i]); ELTWISE: out[i] =
 * act(f(a[i], b[(b_base + i) % b_len])); RESIZE: an NHWC block resampled
 * through row and column tap tables; TABLE (8-bit only): out[i] =
 * table[in[i] - type minimum]. */
#define MLIP_OP_ENUM_(NAME, name, value, fmt, forms) MLIP_OP_##NAME = value,
enum { MLIP_OPCODES(MLIP_OP_ENUM_) MLIP_OP_COUNT_ };
#undef MLIP_OP_ENUM_

/* Activations: fused into CONV2D, FC, ADD, ELTWISE and the pools, or the
 * whole of an ACTIVATION command. Three words each: the kind and two float32
 * parameters (lo, hi) whose meaning is the kind's (docs/mlip-spec.md
 * section 4). RELU6 is CLIP with [0, 6]. */
enum {
  MLIP_ACT_NONE = 0,
  MLIP_ACT_RELU = 1,
  MLIP_ACT_CLIP = 2,         /* lo, hi: the bounds (lo applied first) */
  MLIP_ACT_SIGMOID = 3,
  MLIP_ACT_TANH = 4,
  MLIP_ACT_SILU = 5,         /* v * sigmoid(v) */
  MLIP_ACT_HARDSIGMOID = 6,  /* lo = alpha, hi = beta */
  MLIP_ACT_HARDSWISH = 7,    /* v * hardsigmoid(v); lo = alpha, hi = beta */
  MLIP_ACT_LEAKYRELU = 8,    /* lo = alpha */
  MLIP_ACT_ELU = 9,          /* lo = alpha */
  MLIP_ACT_GELU = 10,        /* v * 0.5 * (1 + erf(v / sqrt 2)) */
  MLIP_ACT_GELU_TANH = 11,   /* the tanh approximation */
  MLIP_ACT_ERF = 12,
  MLIP_ACT_SQRT = 13,
  MLIP_ACT_RECIP = 14,       /* 1 / v */
  MLIP_ACT_POW = 15,         /* v ^ lo (a constant exponent) */
  MLIP_ACT_COUNT_
};

/* ELTWISE functions: a is the full-size operand, b the cycled one. */
enum {
  MLIP_ELT_ADD = 1, MLIP_ELT_SUB = 2 /* a - b */, MLIP_ELT_RSUB = 3 /* b - a */, MLIP_ELT_MUL = 4,
  MLIP_ELT_MAX = 5, MLIP_ELT_MIN = 6, MLIP_ELT_PRELU = 7 /* a < 0 ? a * b : a */, MLIP_ELT_DIV = 8 /* a / b */,
  MLIP_ELT_COUNT_
};

/* RNN's cell (its `cell` field): the gates' order in R, the bias and the
 * projections is ONNX's (LSTM i, o, f, c; GRU z, r, h). */
enum { MLIP_RNN_LSTM = 1, MLIP_RNN_GRU = 2 };

/* Element type of a command (its `dtype` field, word 29; 0 in every fp16
 * buffer and in commands that have none). An int8 buffer (header.quantize MLIP_QUANT_INT8)
 * holds only 8-bit compute commands, an fp16 buffer only fp16 ones
 * (docs/mlip-spec.md section 4a). MLIP_DT_INT16 (16x8: int16 activations,
 * zero point 0, two bytes per element, with int8 weights) is an int8
 * buffer's too, for the opcodes whose forms are WIDE (CONV2D, FC, MAXPOOL,
 * AVGPOOL, GLOBAL_AVGPOOL, ADD, ELTWISE). */
enum { MLIP_DT_FP16 = 0, MLIP_DT_INT8 = 1, MLIP_DT_UINT8 = 2, MLIP_DT_INT16 = 3 };
/* The int8 bounds that keep every int32 sum exact: products per CONV2D
 * output (255 * 255 * 33025 < 2^31, as the compiler's own bound) and
 * positions of a GLOBAL_AVGPOOL (255 * 8421504 < 2^31). */
#define MLIP_INT8_MAX_TAPS 33025u
#define MLIP_INT8_MAX_POOL_HW 8421504u
/* An int8 CONV2D's (and FC's) per-output-channel record at its BIAS offset: int32
 * bias, int32 multiplier q (0 or in [2^30, 2^31)), int32 shift in [-31, 30]. */
#define MLIP_REQUANT_RECORD_BYTES 12u
/* An int16 (16x8) CONV2D's and FC's record: int64 bias (low word first),
 * int32 q, int32 shift (the same pair as the 8-bit record's). Its bias is
 * at most MLIP_INT16_MAX_BIAS in magnitude, so that with at most
 * MLIP_INT8_MAX_TAPS products of at most 2^15 * 2^7 the int64 sum stays
 * within the 2^62 that mlip_requantize64 takes. */
#define MLIP_REQUANT16_RECORD_BYTES 16u
#define MLIP_INT16_MAX_BIAS ((int64_t)1 << 61)

/* The arithmetic of an 8-bit command's requantization pairs (its
 * `requant` field, docs/mlip-spec.md section 4a): TFLite's fixed-point
 * (q, shift), or onnxruntime's float32 scales ((bits, MLIP_REQUANT_F32),
 * mlip/requant.h; ADD: mlip_qadd_f32's constants). */
enum { MLIP_REQUANT_FIXED = 0, MLIP_REQUANT_ORT = 1 };

/* CONVERT modes */
enum { MLIP_CVT_F32_TO_F16 = 1, MLIP_CVT_F16_TO_F32 = 2 };

/* Every command is 128 bytes: a common head and 30 operand words, whose
 * meaning is the opcode's table (mlip/cmd_table.h): write and read them as
 * its typed struct (mlip/cmd_args.h), never by index. Unused words are 0. */
typedef struct mlip_cmd {
  uint8_t opcode;
  uint8_t tile;
  uint16_t layer;     /* index into LAYERS */
  uint32_t reserved;
  uint32_t w[30];
} mlip_cmd;
MLIP_STATIC_ASSERT(sizeof(mlip_cmd) == 128, cmd_is_128_bytes);

/* Operand constants (the tables' rules, mlip/cmd_table.h). */
#define MLIP_POOL_TABLE_ENTRY_BYTES 8u /* an 8-bit AVGPOOL's {int32 q, int32 shift} per window count */
#define MLIP_POOL_MAX_GAP 65535u       /* a pool window's dilation - 1 */
#define MLIP_TABLE_BYTES 256u          /* TABLE: one output value per input value */
#define MLIP_TABLE16_BYTES 1026u       /* int16 TABLE: 513 int16 knots (mlip/lut16.h) */
#define MLIP_RESIZE_ENTRY_BYTES 8u     /* RESIZE: a tap, uint32 index and float32 weight */

#ifdef __cplusplus
}
#endif

/* The operands of every opcode, typed: mlip_<format>_args, its encoder and
 * decoder (mlip/cmd_args.h, from the tables of mlip/cmd_table.h). */
#include "mlip/cmd_args.h"

#endif /* MLIP_CMDBUF_H_ */
