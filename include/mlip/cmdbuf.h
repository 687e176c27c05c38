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
enum { MLIP_IO_INT8 = 1, MLIP_IO_UINT8 = 2, MLIP_IO_FP16 = 7, MLIP_IO_FP32 = 8 }; /* DPDK's codes */
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
#define MLIP_OP_ENUM_(NAME, value, fmt, forms) MLIP_OP_##NAME = value,
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
  MLIP_ACT_COUNT_
};

/* ELTWISE functions: a is the full-size operand, b the cycled one. */
enum {
  MLIP_ELT_ADD = 1, MLIP_ELT_SUB = 2 /* a - b */, MLIP_ELT_RSUB = 3 /* b - a */, MLIP_ELT_MUL = 4,
  MLIP_ELT_MAX = 5, MLIP_ELT_MIN = 6, MLIP_ELT_PRELU = 7 /* a < 0 ? a * b : a */, MLIP_ELT_COUNT_
};

/* Element type of a command (its `dtype` field, word 29; 0 in every fp16
 * buffer and in commands that have none). An int8 buffer (header.quantize MLIP_QUANT_INT8)
 * holds only 8-bit compute commands, an fp16 buffer only fp16 ones
 * (docs/mlip-spec.md section 4a). */
enum { MLIP_DT_FP16 = 0, MLIP_DT_INT8 = 1, MLIP_DT_UINT8 = 2 };
/* The int8 bounds that keep every int32 sum exact: products per CONV2D
 * output (255 * 255 * 33025 < 2^31, as the compiler's own bound) and
 * positions of a GLOBAL_AVGPOOL (255 * 8421504 < 2^31). */
#define MLIP_INT8_MAX_TAPS 33025u
#define MLIP_INT8_MAX_POOL_HW 8421504u
/* An int8 CONV2D's (and FC's) per-output-channel record at its BIAS offset: int32
 * bias, int32 multiplier q (0 or in [2^30, 2^31)), int32 shift in [-31, 30]. */
#define MLIP_REQUANT_RECORD_BYTES 12u

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
#define MLIP_RESIZE_ENTRY_BYTES 8u     /* RESIZE: a tap, uint32 index and float32 weight */

/* LEGACY (issue 23, removed once the compiler and the tests fill typed
 * structs): the word indices. */
#define MLIP_DTYPE 29
/* Word indices of each opcode's operands in mlip_cmd.w. */
enum { /* DMA_IN / DMA_OUT: rows x row_bytes, strided on both sides */
  MLIP_DMA_BINDING = 0, MLIP_DMA_DDR_OFFSET = 1, MLIP_DMA_OCM_OFFSET = 2, MLIP_DMA_ROWS = 3,
  MLIP_DMA_ROW_BYTES = 4, MLIP_DMA_DDR_STRIDE = 5, MLIP_DMA_OCM_STRIDE = 6
};
enum { /* CONVERT: count elements from src to dst (may not overlap) */
  MLIP_CVT_SRC = 0, MLIP_CVT_DST = 1, MLIP_CVT_COUNT = 2, MLIP_CVT_MODE = 3
};
enum { /* LAYOUT: src [outer][a][b] -> dst [outer][b][a], elem_bytes 1, 2 or 4 */
  MLIP_LAY_SRC = 0, MLIP_LAY_DST = 1, MLIP_LAY_OUTER = 2, MLIP_LAY_A = 3, MLIP_LAY_B = 4, MLIP_LAY_ELEM = 5
};
enum { /* CONV2D on an NHWC block: input [in_h][in_w][in_c] fp16, weights
          [out_c][kh][kw][in_c/groups] fp16 (OHWI), bias [out_c] fp32,
          output [out_h][out_w][out_c] fp16. Output channel j of the block
          is channel oc_base + j of the layer; its group is
          (oc_base + j) / (layer_out_c / groups), and it reads input
          channels group * ic_per_group - ic_base .. + ic_per_group of the block. */
  MLIP_CONV_IN = 0, MLIP_CONV_IN_H = 1, MLIP_CONV_IN_W = 2, MLIP_CONV_IN_C = 3,
  MLIP_CONV_WEIGHTS = 4, MLIP_CONV_BIAS = 5,
  MLIP_CONV_OUT = 6, MLIP_CONV_OUT_H = 7, MLIP_CONV_OUT_W = 8, MLIP_CONV_OUT_C = 9,
  MLIP_CONV_KH = 10, MLIP_CONV_KW = 11, MLIP_CONV_STRIDE_H = 12, MLIP_CONV_STRIDE_W = 13,
  MLIP_CONV_DIL_H = 14, MLIP_CONV_DIL_W = 15,
  MLIP_CONV_PAD_TOP = 16,   /* input row of output row 0 is 0 * stride - pad_top (block coordinates) */
  MLIP_CONV_PAD_LEFT = 17,
  MLIP_CONV_GROUPS = 18, MLIP_CONV_IC_PER_GROUP = 19, MLIP_CONV_OC_PER_GROUP = 20,
  MLIP_CONV_OC_BASE = 21, MLIP_CONV_IC_BASE = 22,
  MLIP_CONV_ACT = 23, MLIP_CONV_ACT_LO = 24, MLIP_CONV_ACT_HI = 25, /* float32 bits */
  /* int8/uint8 (MLIP_DTYPE): act NONE, ACT_LO/ACT_HI the output clamp as
     int32, the input and output zero points; BIAS holds the records. */
  MLIP_CONV_CLAMP_LO = 24, MLIP_CONV_CLAMP_HI = 25, MLIP_CONV_X_ZP = 26, MLIP_CONV_Y_ZP = 27
};
enum { /* FC: input [n][k_count] fp16 (a K chunk), weights [out_c][k_count] fp16,
          accumulator [n][out_c] fp32, bias [out_c] fp32, output [n][out_c] fp16.
          FIRST starts the accumulator at zero; LAST adds the bias, applies
          the activation and rounds into the output. */
  MLIP_FC_IN = 0, MLIP_FC_WEIGHTS = 1, MLIP_FC_BIAS = 2, MLIP_FC_ACC = 3, MLIP_FC_OUT = 4,
  MLIP_FC_N = 5, MLIP_FC_K = 6, MLIP_FC_OUT_C = 7, MLIP_FC_FIRST = 8, MLIP_FC_LAST = 9,
  MLIP_FC_ACT = 10, MLIP_FC_ACT_LO = 11, MLIP_FC_ACT_HI = 12,
  /* int8/uint8 (MLIP_DTYPE): the whole reduction in one command (FIRST and
     LAST 1, ACC MLIP_NO_OFFSET, K at most MLIP_INT8_MAX_TAPS), act NONE,
     ACT_LO/ACT_HI the output clamp as int32, the input and output zero
     points; BIAS holds one requantization record per output, as CONV2D's. */
  MLIP_FC_CLAMP_LO = 11, MLIP_FC_CLAMP_HI = 12, MLIP_FC_X_ZP = 13, MLIP_FC_Y_ZP = 14
};
enum { /* MAXPOOL / AVGPOOL on an NHWC block (same geometry words as CONV2D) */
  MLIP_POOL_IN = 0, MLIP_POOL_IN_H = 1, MLIP_POOL_IN_W = 2, MLIP_POOL_C = 3,
  MLIP_POOL_OUT = 4, MLIP_POOL_OUT_H = 5, MLIP_POOL_OUT_W = 6,
  MLIP_POOL_KH = 7, MLIP_POOL_KW = 8, MLIP_POOL_STRIDE_H = 9, MLIP_POOL_STRIDE_W = 10,
  MLIP_POOL_PAD_TOP = 11, MLIP_POOL_PAD_LEFT = 12,
  MLIP_POOL_COUNT_INCLUDE_PAD = 13, /* AVGPOOL: 1 counts window positions inside the padded
                                       bounds below, 0 only those inside the block */
  /* The padded input's bounds in block coordinates (int32 two's complement):
     rows [padded_top, padded_bottom), columns [padded_left, padded_right). */
  MLIP_POOL_PADDED_TOP = 14, MLIP_POOL_PADDED_BOTTOM = 15,
  MLIP_POOL_PADDED_LEFT = 16, MLIP_POOL_PADDED_RIGHT = 17,
  MLIP_POOL_ACT = 18, MLIP_POOL_ACT_LO = 19, MLIP_POOL_ACT_HI = 20,
  /* The window's dilation minus one: the positions skipped between two taps
     (0, a dense window, in every buffer written before pools had dilation). */
  MLIP_POOL_GAP_H = 21, MLIP_POOL_GAP_W = 22,
  /* int8/uint8 AVGPOOL (MAXPOOL has no other word): the zero points, the
     OCM offset of kh * kw + 1 {int32 q, int32 shift} pairs (entry n
     requantizes the sum of a window of count n: x_scale / (y_scale * n);
     entry 0 is never used by a valid geometry and gives the zero point
     with q 0), and the output clamp. */
  MLIP_POOL_X_ZP = 23, MLIP_POOL_Y_ZP = 24, MLIP_POOL_TABLE = 25, MLIP_POOL_LO = 26, MLIP_POOL_HI = 27
};
enum { /* GLOBAL_AVGPOOL / GLOBAL_MAXPOOL: input [hw][c] fp16 -> output [c] fp16 */
  MLIP_GPOOL_IN = 0, MLIP_GPOOL_OUT = 1, MLIP_GPOOL_HW = 2, MLIP_GPOOL_C = 3,
  MLIP_GPOOL_ACT = 4, MLIP_GPOOL_ACT_LO = 5, MLIP_GPOOL_ACT_HI = 6,
  /* int8/uint8 GLOBAL_AVGPOOL: zero points, (q, shift) of x_scale / (y_scale * hw), clamp */
  MLIP_GPOOL_X_ZP = 7, MLIP_GPOOL_Y_ZP = 8, MLIP_GPOOL_Q = 9, MLIP_GPOOL_SHIFT = 10,
  MLIP_GPOOL_LO = 11, MLIP_GPOOL_HI = 12
};
enum { /* ADD: out[i] = round(act(a[i] + b[i])), fp16 */
  MLIP_ADD_A = 0, MLIP_ADD_B = 1, MLIP_ADD_OUT = 2, MLIP_ADD_COUNT = 3,
  MLIP_ADD_ACT = 4, MLIP_ADD_ACT_LO = 5, MLIP_ADD_ACT_HI = 6,
  /* int8/uint8 (QLinearAdd, mlip_qadd_sum): zero points, each operand's and
     the output's (q, shift), the output clamp */
  MLIP_ADD_A_ZP = 7, MLIP_ADD_B_ZP = 8, MLIP_ADD_Y_ZP = 9, MLIP_ADD_QA = 10, MLIP_ADD_SA = 11,
  MLIP_ADD_QB = 12, MLIP_ADD_SB = 13, MLIP_ADD_QY = 14, MLIP_ADD_SY = 15, MLIP_ADD_LO = 16, MLIP_ADD_HI = 17
};
enum { /* ACTIVATION: out[i] = round(act(in[i])), count fp16 elements */
  MLIP_ACTV_IN = 0, MLIP_ACTV_OUT = 1, MLIP_ACTV_COUNT = 2,
  MLIP_ACTV_ACT = 3, MLIP_ACTV_ACT_LO = 4, MLIP_ACTV_ACT_HI = 5
};
enum { /* ELTWISE: a [count] fp16, b [b_len] fp16 read cyclically from index
          b_base (b_len == count, b_base 0: equal shapes; b_len == C: one value
          per channel of an NHWC block starting at channel b_base; b_len 1:
          a scalar), out [count] fp16 = round(act(f(a[i], b[(b_base + i) % b_len]))) */
  MLIP_ELT_A = 0, MLIP_ELT_B = 1, MLIP_ELT_OUT = 2, MLIP_ELT_COUNT = 3,
  MLIP_ELT_B_LEN = 4, MLIP_ELT_B_BASE = 5, MLIP_ELT_FUNC = 6,
  MLIP_ELT_ACT = 7, MLIP_ELT_ACT_LO = 8, MLIP_ELT_ACT_HI = 9,
  /* int8/uint8 (QLinearMul, func MUL only, act NONE): out[i] =
     requantize((a[i] - a_zp) * (b[j] - b_zp), q, shift, y_zp, lo, hi) */
  MLIP_ELT_A_ZP = 10, MLIP_ELT_B_ZP = 11, MLIP_ELT_Y_ZP = 12, MLIP_ELT_Q = 13, MLIP_ELT_SHIFT = 14,
  MLIP_ELT_LO = 15, MLIP_ELT_HI = 16
};
enum { /* TABLE (8-bit buffers only): count elements of the command's type
          through a 256-byte table of output values (entry k for the input
          value type minimum + k); in place or no overlap */
  MLIP_TBL_IN = 0, MLIP_TBL_OUT = 1, MLIP_TBL_COUNT = 2, MLIP_TBL_TABLE = 3
};
enum { /* RESIZE: input [in_h][in_w][c] -> output [out_h][out_w][c], fp16 or
          (one tap each way: nearest) 8-bit.
          The row table holds out_h * row_taps entries, the column table
          out_w * col_taps, each 8 bytes: a uint32 index and a float32
          weight. A row entry names block row index - row_base (in
          [0, in_h)), a column entry column index (in [0, in_w)). One tap
          copies the element; two taps weight it (docs/mlip-spec.md 4). */
  MLIP_RESIZE_IN = 0, MLIP_RESIZE_IN_H = 1, MLIP_RESIZE_IN_W = 2, MLIP_RESIZE_C = 3,
  MLIP_RESIZE_OUT = 4, MLIP_RESIZE_OUT_H = 5, MLIP_RESIZE_OUT_W = 6,
  MLIP_RESIZE_ROW_TABLE = 7, MLIP_RESIZE_COL_TABLE = 8,
  MLIP_RESIZE_ROW_TAPS = 9, MLIP_RESIZE_COL_TAPS = 10, /* 1 or 2 */
  MLIP_RESIZE_ROW_BASE = 11
};


#ifdef __cplusplus
}
#endif

/* The operands of every opcode, typed: mlip_<format>_args, its encoder and
 * decoder (mlip/cmd_args.h, from the tables of mlip/cmd_table.h). */
#include "mlip/cmd_args.h"

#endif /* MLIP_CMDBUF_H_ */
