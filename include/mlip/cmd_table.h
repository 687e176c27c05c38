/* The operands of every MLIP command, one table per opcode: each field's
 * name, the word of mlip_cmd.w that holds it, its C type, when it is part of
 * the command, its validation rule and one line on what it is. mlip/cmd_args.h
 * generates from these tables the typed structs (mlip_<format>_args), their
 * encoders and decoders and the relocation of pinned weights; the simulator
 * (runtime/sim/validate.c) generates its per-field validation from them, and
 * the tests their builders. docs/command-buffer.md shows the same tables,
 * and a unit test keeps the two equal (tests/unit/mlip/cmd_table_test.cpp).
 * Included by mlip/cmdbuf.h (through mlip/cmd_args.h); X-macros only, no
 * definitions of its own but MLIP_PERMUTE_RANK.
 *
 * MLIP_OPCODES(X): X(NAME, name, value, format, forms), one row per opcode
 * in value order (the enum MLIP_OP_<NAME> = value; values are the wire
 * format; `name` is NAME in lower case, for generated function names).
 * `format` names the opcode's table MLIP_FIELDS_<format> (opcodes with the
 * same operands share one). `forms`: the element types the opcode has
 * (word 29, the `dtype` field of every format):
 *   NONE  moves bytes and has none: 0 in every buffer
 *   F16   fp16 only (MLIP_DT_FP16, so fp16 buffers only)
 *   Q8    8-bit only (MLIP_DT_INT8 or _UINT8, so int8 buffers only)
 *   BOTH  fp16 in an fp16 buffer, int8 or uint8 in an int8 buffer
 *   WIDE  as BOTH, and int16 (MLIP_DT_INT16: 16x8, int16 activations with
 *         int8 weights) in an int8 buffer
 *   Q8W   as Q8, and int16 (16x8) in an int8 buffer: no fp16 form */
#ifndef MLIP_CMD_TABLE_H_
#define MLIP_CMD_TABLE_H_

#define MLIP_OPCODES(X)                                    \
  X(DMA_IN, dma_in, 1, dma, NONE)                          \
  X(DMA_OUT, dma_out, 2, dma, NONE)                        \
  X(CONVERT, convert, 3, convert, F16)                     \
  X(LAYOUT, layout, 4, layout, NONE)                       \
  X(CONV2D, conv2d, 5, conv2d, WIDE)                       \
  X(FC, fc, 6, fc, WIDE)                                   \
  X(MAXPOOL, maxpool, 7, pool, WIDE)                       \
  X(AVGPOOL, avgpool, 8, pool, WIDE)                       \
  X(GLOBAL_AVGPOOL, global_avgpool, 9, global_pool, WIDE)  \
  X(GLOBAL_MAXPOOL, global_maxpool, 10, global_pool, BOTH) \
  X(ADD, add, 11, add, WIDE)                               \
  X(BARRIER, barrier, 12, barrier, NONE)                   \
  X(ACTIVATION, activation, 13, activation, F16)           \
  X(ELTWISE, eltwise, 14, eltwise, WIDE)                   \
  X(RESIZE, resize, 15, resize, BOTH)                      \
  X(TABLE, table, 16, table, Q8W)                          \
  X(MATMUL, matmul, 17, matmul, WIDE)                      \
  X(PERMUTE, permute, 18, permute, NONE)                   \
  X(SOFTMAX, softmax, 19, softmax, BOTH)                   \
  X(NORM, norm, 20, norm, BOTH)                            \
  X(REDUCE, reduce, 21, reduce, BOTH)                      \
  X(RNN, rnn, 22, rnn, BOTH)

/* Every format once, in the order of MLIP_OPCODES. */
#define MLIP_FORMATS(X) \
  X(dma) X(convert) X(layout) X(conv2d) X(fc) X(pool) X(global_pool) X(add) X(barrier) X(activation) \
  X(eltwise) X(resize) X(table) X(matmul) X(permute) X(softmax) X(norm) X(reduce) X(rnn)

/* A format's table: MLIP_FIELDS_<format>(W, A, x), where x is passed
 * through to every row (the format, for the generators).
 *
 * W(x, name, word, type, when, rule, doc): the field of word `word`. The
 *   W rows of a table name the words 0, 1, 2, ... in order, with no gap
 *   (mlip/cmd_args.h checks it at compile time).
 * A(x, name, word, type, when, rule, doc, shadow): the other meaning of a
 *   word a W row (`shadow`) already names: the 8-bit clamp in the words of
 *   the fp16 activation's parameters. The dtype decides which one the word
 *   holds: the A field when `when` holds, else the W field.
 *
 * type: uint32_t, int32_t (two's complement), or float (its bits).
 * when: the commands that have the field (the others leave its word 0):
 *   ANY, F16 (fp16 commands), Q8 (8-bit commands), AVG (AVGPOOL and
 *   GLOBAL_AVGPOOL), AVG_Q8 (8-bit AVGPOOL and GLOBAL_AVGPOOL).
 * rule: MLIP_RULES below. A rule that holds for the field's value alone is
 *   checked field by field (the validator's generated part); the rules that
 *   relate fields (an operand's extent inside OCM, no overlap, lo <= hi,
 *   b_base < b_len, ...) are each opcode's own check in runtime/sim. */

/* MLIP_RULES(X): X(NAME, checked, doc). `checked` 1: the field's value
 * alone decides (runtime/sim/validate.c checks it, MLIP_ERR_INVALID_ARG
 * otherwise); 0: a marker for the opcode's own check, the pinning and the
 * docs. */
#define MLIP_RULES(X)                                                                                              \
  X(ANY, 0, "any value")                                                                                         \
  X(BIND, 0, "a binding index, below the binding count")                                                         \
  X(OCM, 0, "an OCM offset: a multiple of 128, the operand's extent inside ocm_size")                           \
  X(PIN, 0, "an OCM offset of constant data (weights), relative to the pinned range in a command that reads it pinned") \
  X(PIN_OPT, 1, "as PIN, or MLIP_NO_OFFSET (none); 8-bit: required")                                            \
  X(PIN_ANY, 0, "as PIN, or MLIP_NO_OFFSET (none), in either form (the opcode's check says when)")             \
  X(ACC, 1, "an OCM offset (the fp32 accumulator); 8-bit: MLIP_NO_OFFSET (no accumulator)")                    \
  X(NZ, 1, "at least 1")                                                                                         \
  X(BOOL, 1, "0 or 1")                                                                                           \
  X(FLAG, 1, "0 or 1; 8-bit: 1 (the whole reduction in one command)")                                            \
  X(ACT, 1, "an MLIP_ACT_* below MLIP_ACT_COUNT_; 8-bit: MLIP_ACT_NONE (the clamp replaces it)")                 \
  X(ACT1, 1, "an MLIP_ACT_* other than MLIP_ACT_NONE, below MLIP_ACT_COUNT_")                                    \
  X(F32, 0, "float32 bits, any")                                                                                 \
  X(FUNC, 1, "MLIP_ELT_ADD .. MLIP_ELT_DIV; 8-bit: MLIP_ELT_MUL")                                              \
  X(CVT, 1, "MLIP_CVT_F32_TO_F16 or MLIP_CVT_F16_TO_F32")                                                       \
  X(ELEM, 1, "1, 2 or 4")                                                                                        \
  X(TAPS, 1, "1 or 2; 8-bit: 1 (nearest)")                                                                       \
  X(GAP, 1, "at most MLIP_POOL_MAX_GAP")                                                                         \
  X(ZP, 1, "inside the 8-bit type: [-128, 127] or [0, 255]; int16: 0 (symmetric)")                                \
  X(CLAMP, 1, "inside the element type ([-128, 127], [0, 255], int16 [-32768, 32767]), lo <= hi")                \
  X(Q, 1, "0 or in [2^30, 2^31); requant ORT: a finite float32's bits")                                          \
  X(SHIFT, 1, "in [-31, 30]; requant ORT: MLIP_REQUANT_F32")                                                     \
  X(SHIFT0, 1, "in [-31, 0] (a multiplier below 1); requant ORT: MLIP_REQUANT_F32")                              \
  X(RQ, 1, "MLIP_REQUANT_FIXED or MLIP_REQUANT_ORT: the arithmetic of the command's pairs")                    \
  X(CELL, 1, "MLIP_RNN_LSTM or MLIP_RNN_GRU")                                                                    \
  X(W4B, 1, "0 (8-bit weights) or a 4-bit weights' block, at most MLIP_INT8_MAX_TAPS; int16: 0")                  \
  X(DCVT, 0, "0 (the bytes as they are), MLIP_CVT_F32_TO_F16 (DMA_IN) or MLIP_CVT_F16_TO_F32 (DMA_OUT); converting: row_bytes even")

/* DMA_IN / DMA_OUT: rows x row_bytes, strided on both sides. A converting
 * DMA (convert != 0) moves fp32 in DDR to fp16 in OCM or back: row_bytes
 * counts the OCM's (fp16) bytes, a DDR row is twice as long, and the DDR
 * offset and stride are DDR bytes (docs/mlip-spec.md section 3). */
#define MLIP_FIELDS_dma(W, A, x)                                                                         \
  W(x, binding, 0, uint32_t, ANY, BIND, "the DDR binding (DMA_OUT: OUTPUT or SCRATCH)")                  \
  W(x, ddr_offset, 1, uint32_t, ANY, ANY, "first byte in the binding")                                   \
  W(x, ocm_offset, 2, uint32_t, ANY, PIN, "first byte in the tile's OCM (INIT: in the pinned range)")   \
  W(x, rows, 3, uint32_t, ANY, NZ, "rows")                                                               \
  W(x, row_bytes, 4, uint32_t, ANY, NZ, "bytes per row")                                                 \
  W(x, ddr_stride, 5, uint32_t, ANY, ANY, "bytes from a row to the next in DDR")                         \
  W(x, ocm_stride, 6, uint32_t, ANY, ANY, "bytes from a row to the next in OCM (at least row_bytes)")    \
  W(x, convert, 7, uint32_t, ANY, DCVT, "0, or fp32 in DDR <-> fp16 in OCM while moving")

/* CONVERT: count elements from src to dst (no overlap). */
#define MLIP_FIELDS_convert(W, A, x)                                                 \
  W(x, src, 0, uint32_t, ANY, OCM, "the elements read")                              \
  W(x, dst, 1, uint32_t, ANY, OCM, "the elements written")                           \
  W(x, count, 2, uint32_t, ANY, NZ, "elements")                                      \
  W(x, mode, 3, uint32_t, ANY, CVT, "fp32 -> fp16 or fp16 -> fp32")

/* LAYOUT: src [outer][a][b] -> dst [outer][b][a] (no overlap). */
#define MLIP_FIELDS_layout(W, A, x)                                         \
  W(x, src, 0, uint32_t, ANY, OCM, "[outer][a][b] elements")                \
  W(x, dst, 1, uint32_t, ANY, OCM, "[outer][b][a] elements")                \
  W(x, outer, 2, uint32_t, ANY, NZ, "matrices")                             \
  W(x, a, 3, uint32_t, ANY, NZ, "rows of each source matrix")               \
  W(x, b, 4, uint32_t, ANY, NZ, "columns of each source matrix")            \
  W(x, elem_bytes, 5, uint32_t, ANY, ELEM, "bytes per element")

/* CONV2D on an NHWC block: input [in_h][in_w][in_c], weights
 * [out_c][kh][kw][in_c / groups] (OHWI), bias [out_c] fp32 (8-bit: a
 * requantization record of MLIP_REQUANT_RECORD_BYTES per output channel;
 * int16: of MLIP_REQUANT16_RECORD_BYTES, its bias int64), output
 * [out_h][out_w][out_c]. Output channel j of the block is channel
 * oc_base + j of the layer; its group is (oc_base + j) / oc_per_group, and
 * it reads input channels group * ic_per_group - ic_base .. + ic_per_group
 * of the block. 8-bit with w4_block n > 0: each output channel's
 * kh * kw * ic_per_group weights are a record of mlip/kq4_format.h (M = 1,
 * blocks of n), mlip_kq4_bytes(1, K, n) bytes a channel. */
#define MLIP_FIELDS_conv2d(W, A, x)                                                                              \
  W(x, in, 0, uint32_t, ANY, OCM, "input block [in_h][in_w][in_c]")                                              \
  W(x, in_h, 1, uint32_t, ANY, NZ, "input rows")                                                                 \
  W(x, in_w, 2, uint32_t, ANY, NZ, "input columns")                                                              \
  W(x, in_c, 3, uint32_t, ANY, NZ, "input channels")                                                             \
  W(x, weights, 4, uint32_t, ANY, PIN, "weights [out_c][kh][kw][ic_per_group]")                                  \
  W(x, bias, 5, uint32_t, ANY, PIN_OPT, "bias [out_c] fp32; 8-bit: the requantization records")                  \
  W(x, out, 6, uint32_t, ANY, OCM, "output block [out_h][out_w][out_c]")                                         \
  W(x, out_h, 7, uint32_t, ANY, NZ, "output rows")                                                               \
  W(x, out_w, 8, uint32_t, ANY, NZ, "output columns")                                                            \
  W(x, out_c, 9, uint32_t, ANY, NZ, "output channels")                                                           \
  W(x, kh, 10, uint32_t, ANY, NZ, "kernel rows")                                                                 \
  W(x, kw, 11, uint32_t, ANY, NZ, "kernel columns")                                                              \
  W(x, stride_h, 12, uint32_t, ANY, NZ, "vertical stride")                                                       \
  W(x, stride_w, 13, uint32_t, ANY, NZ, "horizontal stride")                                                     \
  W(x, dil_h, 14, uint32_t, ANY, NZ, "vertical dilation")                                                        \
  W(x, dil_w, 15, uint32_t, ANY, NZ, "horizontal dilation")                                                      \
  W(x, pad_top, 16, uint32_t, ANY, ANY, "output row 0 reads input row 0 * stride_h - pad_top (block rows)")      \
  W(x, pad_left, 17, uint32_t, ANY, ANY, "the same for columns")                                                 \
  W(x, groups, 18, uint32_t, ANY, NZ, "groups of the layer")                                                     \
  W(x, ic_per_group, 19, uint32_t, ANY, NZ, "input channels per group")                                          \
  W(x, oc_per_group, 20, uint32_t, ANY, NZ, "output channels per group (of the layer)")                          \
  W(x, oc_base, 21, uint32_t, ANY, ANY, "the layer's channel of the block's output channel 0")                    \
  W(x, ic_base, 22, uint32_t, ANY, ANY, "the layer's channel of the block's input channel 0")                     \
  W(x, act, 23, uint32_t, ANY, ACT, "fused activation")                                                         \
  W(x, act_lo, 24, float, F16, F32, "activation parameter lo")                                                   \
  W(x, act_hi, 25, float, F16, F32, "activation parameter hi")                                                   \
  A(x, clamp_lo, 24, int32_t, Q8, CLAMP, "output clamp, low", act_lo)                                            \
  A(x, clamp_hi, 25, int32_t, Q8, CLAMP, "output clamp, high", act_hi)                                           \
  A(x, w4_block, 23, uint32_t, Q8, W4B, "0: int8 weights; n: 4-bit weights, a packed row per channel", act)       \
  W(x, x_zp, 26, int32_t, Q8, ZP, "input zero point")                                                            \
  W(x, y_zp, 27, int32_t, Q8, ZP, "output zero point")                                                           \
  W(x, requant, 28, uint32_t, Q8, RQ, "the records' arithmetic")

/* FC: input [n][k] (a K chunk), weights [out_c][k], accumulator [n][out_c]
 * fp32, bias [out_c] fp32, output [n][out_c]. `first` starts the
 * accumulator at zero; `last` adds the bias, applies the activation and
 * rounds into the output (out and bias are operands only then). 8-bit: the
 * whole reduction in one command (first and last 1, no accumulator, k at
 * most MLIP_INT8_MAX_TAPS), one requantization record per output at bias
 * (int16: MLIP_REQUANT16_RECORD_BYTES each, as CONV2D's). 8-bit with
 * w4_block n > 0: 4-bit weights, each output's row of k a record of
 * mlip/kq4_format.h as CONV2D's. */
#define MLIP_FIELDS_fc(W, A, x)                                                                       \
  W(x, in, 0, uint32_t, ANY, OCM, "input [n][k]")                                                     \
  W(x, weights, 1, uint32_t, ANY, PIN, "weights [out_c][k]")                                          \
  W(x, bias, 2, uint32_t, ANY, PIN_OPT, "bias [out_c] fp32; 8-bit: the requantization records")       \
  W(x, acc, 3, uint32_t, ANY, ACC, "fp32 accumulator [n][out_c]")                                     \
  W(x, out, 4, uint32_t, ANY, OCM, "output [n][out_c]")                                               \
  W(x, n, 5, uint32_t, ANY, NZ, "rows (images)")                                                      \
  W(x, k, 6, uint32_t, ANY, NZ, "inputs per row in this chunk")                                       \
  W(x, out_c, 7, uint32_t, ANY, NZ, "outputs per row")                                                \
  W(x, first, 8, uint32_t, ANY, FLAG, "the first chunk: the accumulator starts at zero")              \
  W(x, last, 9, uint32_t, ANY, FLAG, "the last chunk: bias, activation, rounding into out")           \
  W(x, act, 10, uint32_t, ANY, ACT, "fused activation")                                               \
  W(x, act_lo, 11, float, F16, F32, "activation parameter lo")                                        \
  W(x, act_hi, 12, float, F16, F32, "activation parameter hi")                                        \
  A(x, clamp_lo, 11, int32_t, Q8, CLAMP, "output clamp, low", act_lo)                                 \
  A(x, clamp_hi, 12, int32_t, Q8, CLAMP, "output clamp, high", act_hi)                                \
  A(x, w4_block, 10, uint32_t, Q8, W4B, "0: int8 weights; n: 4-bit weights, a packed row per output", act) \
  W(x, x_zp, 13, int32_t, Q8, ZP, "input zero point")                                                 \
  W(x, y_zp, 14, int32_t, Q8, ZP, "output zero point")                                                \
  W(x, requant, 15, uint32_t, Q8, RQ, "the records' arithmetic")

/* MAXPOOL / AVGPOOL on an NHWC block [in_h][in_w][c] -> [out_h][out_w][c].
 * Output row oh's window starts at block row oh * stride_h - pad_top, its
 * taps gap_h + 1 rows apart (columns likewise). 8-bit AVGPOOL: the sum of a
 * window of count n is requantized by entry n of a table of kh * kw + 1
 * {int32 q, int32 shift} pairs (MLIP_POOL_TABLE_ENTRY_BYTES each); 16x8
 * (int16): the same table, an int64 sum, mlip_requantize64. */
#define MLIP_FIELDS_pool(W, A, x)                                                                                 \
  W(x, in, 0, uint32_t, ANY, OCM, "input block [in_h][in_w][c]")                                                  \
  W(x, in_h, 1, uint32_t, ANY, NZ, "input rows")                                                                  \
  W(x, in_w, 2, uint32_t, ANY, NZ, "input columns")                                                               \
  W(x, c, 3, uint32_t, ANY, NZ, "channels")                                                                       \
  W(x, out, 4, uint32_t, ANY, OCM, "output block [out_h][out_w][c]")                                              \
  W(x, out_h, 5, uint32_t, ANY, NZ, "output rows")                                                                \
  W(x, out_w, 6, uint32_t, ANY, NZ, "output columns")                                                             \
  W(x, kh, 7, uint32_t, ANY, NZ, "window rows")                                                                   \
  W(x, kw, 8, uint32_t, ANY, NZ, "window columns")                                                                \
  W(x, stride_h, 9, uint32_t, ANY, NZ, "vertical stride")                                                         \
  W(x, stride_w, 10, uint32_t, ANY, NZ, "horizontal stride")                                                      \
  W(x, pad_top, 11, uint32_t, ANY, ANY, "output row 0's window starts at block row -pad_top")                     \
  W(x, pad_left, 12, uint32_t, ANY, ANY, "the same for columns")                                                  \
  W(x, count_include_pad, 13, uint32_t, AVG, BOOL, "1: count the taps inside the padded bounds, 0: inside the block") \
  W(x, padded_top, 14, int32_t, ANY, ANY, "the padded input's first row (block rows)")                           \
  W(x, padded_bottom, 15, int32_t, ANY, ANY, "the padded input's end row")                                        \
  W(x, padded_left, 16, int32_t, ANY, ANY, "the padded input's first column")                                    \
  W(x, padded_right, 17, int32_t, ANY, ANY, "the padded input's end column")                                     \
  W(x, act, 18, uint32_t, ANY, ACT, "fused activation")                                                          \
  W(x, act_lo, 19, float, F16, F32, "activation parameter lo")                                                    \
  W(x, act_hi, 20, float, F16, F32, "activation parameter hi")                                                    \
  W(x, gap_h, 21, uint32_t, ANY, GAP, "the window's vertical dilation minus one")                                \
  W(x, gap_w, 22, uint32_t, ANY, GAP, "the window's horizontal dilation minus one")                              \
  W(x, x_zp, 23, int32_t, AVG_Q8, ZP, "input zero point")                                                        \
  W(x, y_zp, 24, int32_t, AVG_Q8, ZP, "output zero point")                                                       \
  W(x, table, 25, uint32_t, AVG_Q8, OCM, "kh * kw + 1 {q, shift} pairs, entry n for a window of count n")       \
  W(x, lo, 26, int32_t, AVG_Q8, CLAMP, "output clamp, low")                                                      \
  W(x, hi, 27, int32_t, AVG_Q8, CLAMP, "output clamp, high")                                                     \
  W(x, requant, 28, uint32_t, AVG_Q8, RQ, "the table's arithmetic")

/* GLOBAL_AVGPOOL / GLOBAL_MAXPOOL: input [hw][c] -> output [c]. */
#define MLIP_FIELDS_global_pool(W, A, x)                                                          \
  W(x, in, 0, uint32_t, ANY, OCM, "input [hw][c]")                                                \
  W(x, out, 1, uint32_t, ANY, OCM, "output [c]")                                                  \
  W(x, hw, 2, uint32_t, ANY, NZ, "positions")                                                     \
  W(x, c, 3, uint32_t, ANY, NZ, "channels")                                                       \
  W(x, act, 4, uint32_t, ANY, ACT, "fused activation")                                           \
  W(x, act_lo, 5, float, F16, F32, "activation parameter lo")                                     \
  W(x, act_hi, 6, float, F16, F32, "activation parameter hi")                                     \
  W(x, x_zp, 7, int32_t, AVG_Q8, ZP, "input zero point")                                         \
  W(x, y_zp, 8, int32_t, AVG_Q8, ZP, "output zero point")                                        \
  W(x, q, 9, int32_t, AVG_Q8, Q, "multiplier of x_scale / (y_scale * hw)")                       \
  W(x, shift, 10, int32_t, AVG_Q8, SHIFT, "its shift")                                           \
  W(x, lo, 11, int32_t, AVG_Q8, CLAMP, "output clamp, low")                                      \
  W(x, hi, 12, int32_t, AVG_Q8, CLAMP, "output clamp, high")                                    \
  W(x, requant, 13, uint32_t, AVG_Q8, RQ, "q and shift's arithmetic")

/* ADD: out[i] = act(a[i] + b[i]); 8-bit: QLinearAdd (mlip_qadd_sum). */
#define MLIP_FIELDS_add(W, A, x)                                                        \
  W(x, a, 0, uint32_t, ANY, OCM, "first operand [count]")                               \
  W(x, b, 1, uint32_t, ANY, OCM, "second operand [count]")                              \
  W(x, out, 2, uint32_t, ANY, OCM, "result [count]")                                    \
  W(x, count, 3, uint32_t, ANY, NZ, "elements")                                         \
  W(x, act, 4, uint32_t, ANY, ACT, "fused activation")                                 \
  W(x, act_lo, 5, float, F16, F32, "activation parameter lo")                           \
  W(x, act_hi, 6, float, F16, F32, "activation parameter hi")                           \
  W(x, a_zp, 7, int32_t, Q8, ZP, "a's zero point")                                      \
  W(x, b_zp, 8, int32_t, Q8, ZP, "b's zero point")                                      \
  W(x, y_zp, 9, int32_t, Q8, ZP, "the result's zero point")                             \
  W(x, qa, 10, int32_t, Q8, Q, "a's multiplier to the common scale")                    \
  W(x, sa, 11, int32_t, Q8, SHIFT0, "its shift")                                        \
  W(x, qb, 12, int32_t, Q8, Q, "b's multiplier to the common scale")                    \
  W(x, sb, 13, int32_t, Q8, SHIFT0, "its shift")                                        \
  W(x, qy, 14, int32_t, Q8, Q, "the sum's multiplier to the result's scale")            \
  W(x, sy, 15, int32_t, Q8, SHIFT, "its shift")                                         \
  W(x, lo, 16, int32_t, Q8, CLAMP, "output clamp, low")                                 \
  W(x, hi, 17, int32_t, Q8, CLAMP, "output clamp, high")                                 \
  W(x, requant, 18, uint32_t, Q8, RQ, "ORT: qa, qb, qy hold mlip_qadd_f32's ra, rb, offset")

/* BARRIER: every earlier command completes first; no operand. */
#define MLIP_FIELDS_barrier(W, A, x)

/* ACTIVATION: out[i] = act(in[i]), in place (out == in) or no overlap. */
#define MLIP_FIELDS_activation(W, A, x)                                 \
  W(x, in, 0, uint32_t, ANY, OCM, "input [count]")                      \
  W(x, out, 1, uint32_t, ANY, OCM, "output [count]")                    \
  W(x, count, 2, uint32_t, ANY, NZ, "elements")                         \
  W(x, act, 3, uint32_t, ANY, ACT1, "the activation")                   \
  W(x, act_lo, 4, float, ANY, F32, "activation parameter lo")           \
  W(x, act_hi, 5, float, ANY, F32, "activation parameter hi")

/* ELTWISE: out[i] = act(f(a[i], b[(b_base + i / b_rep) % b_len])): b
 * equal-shaped (b_len == count, b_base 0), one value per channel of an NHWC
 * block (b_len = channels, b_base the block's first channel), a scalar
 * (b_len 1), the trailing dimensions of a row-major a (b_len their
 * elements), or one value per row of b_rep elements (a row-major a whose
 * last dimensions b lacks). b_rep 0 means 1. fp16: b may first have
 * b_add added and its square root taken (a guard epsilon a binary16 tensor
 * could not hold, folded into its Div). 8-bit (QLinearMul):
 * requantize((a - a_zp) * (b - b_zp)). */
#define MLIP_FIELDS_eltwise(W, A, x)                                                         \
  W(x, a, 0, uint32_t, ANY, OCM, "full operand [count]")                                     \
  W(x, b, 1, uint32_t, ANY, OCM, "cycled operand [b_len]")                                   \
  W(x, out, 2, uint32_t, ANY, OCM, "result [count]")                                         \
  W(x, count, 3, uint32_t, ANY, NZ, "elements")                                              \
  W(x, b_len, 4, uint32_t, ANY, NZ, "elements of b")                                         \
  W(x, b_base, 5, uint32_t, ANY, ANY, "b's element of a[0] (below b_len)")                  \
  W(x, func, 6, uint32_t, ANY, FUNC, "f")                                                    \
  W(x, act, 7, uint32_t, ANY, ACT, "fused activation")                                      \
  W(x, act_lo, 8, float, F16, F32, "activation parameter lo")                                \
  W(x, act_hi, 9, float, F16, F32, "activation parameter hi")                                \
  W(x, a_zp, 10, int32_t, Q8, ZP, "a's zero point")                                          \
  W(x, b_zp, 11, int32_t, Q8, ZP, "b's zero point")                                          \
  W(x, y_zp, 12, int32_t, Q8, ZP, "the result's zero point")                                 \
  W(x, q, 13, int32_t, Q8, Q, "multiplier of a_scale * b_scale / y_scale")                   \
  W(x, shift, 14, int32_t, Q8, SHIFT, "its shift")                                           \
  W(x, lo, 15, int32_t, Q8, CLAMP, "output clamp, low")                                      \
  W(x, hi, 16, int32_t, Q8, CLAMP, "output clamp, high")                                     \
  W(x, b_rep, 17, uint32_t, ANY, ANY, "elements of a per value of b (0 or 1: one)")               \
  W(x, b_add, 18, float, F16, F32, "added to b in fp32 before f (a guard epsilon; 0: nothing)")    \
  W(x, b_sqrt, 19, uint32_t, ANY, BOOL, "1: f reads sqrt(b + b_add) (fp16 only)")                 \
  W(x, requant, 20, uint32_t, Q8, RQ, "q and shift's arithmetic")

/* RESIZE: input [in_h][in_w][c] -> output [out_h][out_w][c] through a row
 * table of out_h * row_taps entries and a column table of out_w * col_taps,
 * each 8 bytes: a uint32 index and a float32 weight. A row entry names block
 * row index - row_base (in [0, in_h)), a column entry column index (in
 * [0, in_w)). One tap copies the element; two taps weight it. */
#define MLIP_FIELDS_resize(W, A, x)                                                        \
  W(x, in, 0, uint32_t, ANY, OCM, "input block [in_h][in_w][c]")                           \
  W(x, in_h, 1, uint32_t, ANY, NZ, "input rows")                                           \
  W(x, in_w, 2, uint32_t, ANY, NZ, "input columns")                                        \
  W(x, c, 3, uint32_t, ANY, NZ, "channels")                                                \
  W(x, out, 4, uint32_t, ANY, OCM, "output block [out_h][out_w][c]")                       \
  W(x, out_h, 5, uint32_t, ANY, NZ, "output rows")                                         \
  W(x, out_w, 6, uint32_t, ANY, NZ, "output columns")                                      \
  W(x, row_table, 7, uint32_t, ANY, OCM, "out_h * row_taps row taps")                      \
  W(x, col_table, 8, uint32_t, ANY, OCM, "out_w * col_taps column taps")                   \
  W(x, row_taps, 9, uint32_t, ANY, TAPS, "taps per output row")                            \
  W(x, col_taps, 10, uint32_t, ANY, TAPS, "taps per output column")                        \
  W(x, row_base, 11, uint32_t, ANY, ANY, "the layer row of block row 0")

/* TABLE (8-bit and int16): out[i] = table[in[i] - type minimum]; int16
 * (16x8): MLIP_LUT16_ENTRIES int16 knots interpolated (mlip/lut16.h,
 * mlip_lut16_between: the CPU's 16x8 lookup); in place or no
 * overlap. */
#define MLIP_FIELDS_table(W, A, x)                                                     \
  W(x, in, 0, uint32_t, ANY, OCM, "input [count]")                                     \
  W(x, out, 1, uint32_t, ANY, OCM, "output [count]")                                   \
  W(x, count, 2, uint32_t, ANY, NZ, "elements")                                        \
  W(x, table, 3, uint32_t, ANY, OCM, "MLIP_TABLE_BYTES output values; int16: MLIP_TABLE16_BYTES of knots")

/* MATMUL: out[t][i][j] = act(alpha * sum_k a[t][i][k] * b[t][k][j] + bias[j])
 * for t < batch, i < m, j < n, the sum over k in order (fp32); b is
 * [batch][k][n], or [batch][n][k] when trans_b, and one matrix for every t
 * when b_shared (constant weights: PIN). 8-bit (QLinearMatMul of two
 * computed operands, attention's Q.K^T and .V): the int32 sum of
 * (a - a_zp) * (b - b_zp) (k at most MLIP_INT8_MAX_TAPS) plus record j's
 * bias, requantized by record j (one per column at bias, as FC's), plus
 * y_zp, clamped; no alpha, no activation. int16 (16x8: QLinearMatMul's
 * 16x8 form): A and the output int16 (zero points 0), B int16 (b_int16 1:
 * two computed operands) or int8 (0: constant weights), the int64 sum plus
 * record j's int64 bias (MLIP_REQUANT16_RECORD_BYTES records, as FC's)
 * requantized by mlip_requantize64. */
#define MLIP_FIELDS_matmul(W, A, x)                                                                  \
  W(x, a, 0, uint32_t, ANY, OCM, "A [batch][m][k]")                                                  \
  W(x, b, 1, uint32_t, ANY, PIN, "B [batch or 1][k][n], or [n][k] when trans_b")                     \
  W(x, bias, 2, uint32_t, ANY, PIN_OPT, "bias [n] fp32, or MLIP_NO_OFFSET; 8-bit: the requantization records") \
  W(x, out, 3, uint32_t, ANY, OCM, "output [batch][m][n]")                                           \
  W(x, batch, 4, uint32_t, ANY, NZ, "matrix products")                                               \
  W(x, m, 5, uint32_t, ANY, NZ, "rows of A and of the output")                                       \
  W(x, k, 6, uint32_t, ANY, NZ, "the reduction")                                                     \
  W(x, n, 7, uint32_t, ANY, NZ, "columns of B and of the output")                                    \
  W(x, b_shared, 8, uint32_t, ANY, BOOL, "1: one B for every product (constant weights)")           \
  W(x, trans_b, 9, uint32_t, ANY, BOOL, "1: B is stored [n][k]")                                     \
  W(x, alpha, 10, float, F16, F32, "scale of the sum, before the bias")                             \
  W(x, act, 11, uint32_t, ANY, ACT, "fused activation")                                             \
  W(x, act_lo, 12, float, F16, F32, "activation parameter lo")                                       \
  W(x, act_hi, 13, float, F16, F32, "activation parameter hi")                                       \
  A(x, clamp_lo, 12, int32_t, Q8, CLAMP, "output clamp, low", act_lo)                                \
  A(x, clamp_hi, 13, int32_t, Q8, CLAMP, "output clamp, high", act_hi)                               \
  W(x, a_zp, 14, int32_t, Q8, ZP, "A's zero point")                                                  \
  W(x, b_zp, 15, int32_t, Q8, ZP, "B's zero point")                                                  \
  W(x, y_zp, 16, int32_t, Q8, ZP, "the output's zero point")                                         \
  W(x, requant, 17, uint32_t, Q8, RQ, "the records' arithmetic")                                   \
  W(x, b_int16, 18, uint32_t, Q8, BOOL, "int16: 1 when B is int16 (computed), 0 int8 (weights); 8-bit: 0")

/* PERMUTE: a strided copy of up to 6 dimensions, dst[i5][i4][i0][i1][i2][i3]
 * = src[i5 * s5 + i4 * s4 + i0 * s0 + i1 * s1 + i2 * s2 + i3 * s3]
 * (elements of elem_bytes): a transpose of any permutation, a slice with
 * steps, a gather of one index, a broadcast (stride 0). d4 and d5 are the
 * dimensions outside d0, 0 meaning none (as 1: a copy of 4 dimensions
 * leaves their words 0). No overlap. */
#define MLIP_FIELDS_permute(W, A, x)                                                         \
  W(x, src, 0, uint32_t, ANY, OCM, "the source block")                                       \
  W(x, dst, 1, uint32_t, ANY, OCM, "[d5][d4][d0][d1][d2][d3] elements")                      \
  W(x, elem_bytes, 2, uint32_t, ANY, ELEM, "bytes per element")                              \
  W(x, d0, 3, uint32_t, ANY, NZ, "output dimension 0 (outermost of a 4-D copy)")             \
  W(x, d1, 4, uint32_t, ANY, NZ, "output dimension 1")                                       \
  W(x, d2, 5, uint32_t, ANY, NZ, "output dimension 2")                                       \
  W(x, d3, 6, uint32_t, ANY, NZ, "output dimension 3 (innermost)")                           \
  W(x, s0, 7, uint32_t, ANY, ANY, "source elements between two steps of dimension 0")        \
  W(x, s1, 8, uint32_t, ANY, ANY, "the same for dimension 1")                                \
  W(x, s2, 9, uint32_t, ANY, ANY, "the same for dimension 2")                                \
  W(x, s3, 10, uint32_t, ANY, ANY, "the same for dimension 3")                               \
  W(x, d4, 11, uint32_t, ANY, ANY, "output dimension 4, outside d0 (0: none, as 1)")         \
  W(x, d5, 12, uint32_t, ANY, ANY, "output dimension 5, outside d4 (0: none, as 1)")         \
  W(x, s4, 13, uint32_t, ANY, ANY, "the same as s0 for dimension 4")                         \
  W(x, s5, 14, uint32_t, ANY, ANY, "the same as s0 for dimension 5")

/* The dimensions a PERMUTE command has (d0 .. d5): the one number of the
 * tables above that is not a table, shared by the simulator's loop and the
 * compiler's merge of a copy's dimensions. */
#define MLIP_PERMUTE_RANK 6

/* SOFTMAX: each of `rows` rows of `len` halves, y = e^(x - max) / sum, or
 * with log, (x - max) - log(sum) (docs/mlip-spec.md). In place allowed.
 * 8-bit (a DequantizeLinear, Softmax, QuantizeLinear of the CPU's int8
 * build): x = (q - x_zp) * x_scale in fp32, the same max, exponentials and
 * sum, y = e / sum, then QuantizeLinear's round(y / y_scale) + y_zp,
 * saturated to the type; log 0. */
#define MLIP_FIELDS_softmax(W, A, x)                                              \
  W(x, in, 0, uint32_t, ANY, OCM, "input [rows][len]")                            \
  W(x, out, 1, uint32_t, ANY, OCM, "output [rows][len]")                          \
  W(x, rows, 2, uint32_t, ANY, NZ, "rows")                                        \
  W(x, len, 3, uint32_t, ANY, NZ, "elements per row (the axis)")                  \
  W(x, log, 4, uint32_t, ANY, BOOL, "1: LogSoftmax")                              \
  W(x, x_scale, 5, float, Q8, F32, "the input's scale")                           \
  W(x, x_zp, 6, int32_t, Q8, ZP, "the input's zero point")                        \
  W(x, y_scale, 7, float, Q8, F32, "the output's scale")                          \
  W(x, y_zp, 8, int32_t, Q8, ZP, "the output's zero point")

/* NORM: each of `rows` rows of `len` halves normalized, y = (x - mean) /
 * sqrt(var + eps) * gamma[i] + beta[i] (LayerNormalization over the last
 * axis; docs/mlip-spec.md). gamma and beta fp32 [len], optional.
 * 8-bit, mode 0 (a DequantizeLinear, LayerNormalization, QuantizeLinear of
 * the CPU's int8 build): x = (q - x_zp) * x_scale in fp32, the same
 * statistics and y, then QuantizeLinear's round(y / y_scale) + y_zp,
 * saturated; gamma and beta required. 8-bit, mode 1 (the opset-13
 * decomposition with its variance quantized, onnxruntime's layout): the
 * same mean, var = the mean of mlip_powf(x - mean, 2), vq =
 * QuantizeLinear(var, v_scale, v_zp), y = (x - mean) / gamma[vq - the
 * type's minimum] (gamma: the divisor of each quantized variance, fp32
 * [256]), quantized as in mode 0; beta none, eps unused. */
#define MLIP_FIELDS_norm(W, A, x)                                                     \
  W(x, in, 0, uint32_t, ANY, OCM, "input [rows][len]")                                \
  W(x, out, 1, uint32_t, ANY, OCM, "output [rows][len]")                              \
  W(x, gamma, 2, uint32_t, ANY, PIN_ANY, "scale [len] fp32, or MLIP_NO_OFFSET; 8-bit mode 1: the divisors [256] fp32") \
  W(x, beta, 3, uint32_t, ANY, PIN_ANY, "shift [len] fp32, or MLIP_NO_OFFSET")         \
  W(x, rows, 4, uint32_t, ANY, NZ, "rows")                                            \
  W(x, len, 5, uint32_t, ANY, NZ, "elements per row")                                 \
  W(x, eps, 6, float, ANY, F32, "epsilon, added to the variance (fp32)")            \
  W(x, x_scale, 7, float, Q8, F32, "the input's scale")                               \
  W(x, x_zp, 8, int32_t, Q8, ZP, "the input's zero point")                            \
  W(x, y_scale, 9, float, Q8, F32, "the output's scale")                              \
  W(x, y_zp, 10, int32_t, Q8, ZP, "the output's zero point")                          \
  W(x, mode, 11, uint32_t, Q8, BOOL, "0: LayerNormalization; 1: the decomposition with a quantized variance") \
  W(x, v_scale, 12, float, Q8, F32, "mode 1: the variance's scale")                   \
  W(x, v_zp, 13, int32_t, Q8, ZP, "mode 1: the variance's zero point")

/* REDUCE: out[o][i] = sum over j of in[o][j][i] (fp32, j in order), divided
 * by len when mean: ReduceSum and ReduceMean over one axis (or adjacent
 * axes merged) of a row-major tensor. 8-bit (a DequantizeLinear,
 * ReduceMean or ReduceSum, QuantizeLinear of the CPU's int8 build): x =
 * (q - x_zp) * x_scale in fp32, the same sum and mean, then
 * QuantizeLinear's round(y / y_scale) + y_zp, saturated. */
#define MLIP_FIELDS_reduce(W, A, x)                                                   \
  W(x, in, 0, uint32_t, ANY, OCM, "input [outer][len][inner]")                        \
  W(x, out, 1, uint32_t, ANY, OCM, "output [outer][inner]")                           \
  W(x, outer, 2, uint32_t, ANY, NZ, "blocks")                                         \
  W(x, len, 3, uint32_t, ANY, NZ, "elements reduced")                                 \
  W(x, inner, 4, uint32_t, ANY, NZ, "elements between two of one sum")                \
  W(x, mean, 5, uint32_t, ANY, BOOL, "1: divided by len (ReduceMean)")                \
  W(x, x_scale, 6, float, Q8, F32, "the input's scale")                               \
  W(x, x_zp, 7, int32_t, Q8, ZP, "the input's zero point")                            \
  W(x, y_scale, 8, float, Q8, F32, "the output's scale")                              \
  W(x, y_zp, 9, int32_t, Q8, ZP, "the output's zero point")

/* RNN: `steps` time steps of one direction of an LSTM or GRU layer (the
 * time loop inside one command: the state stays in OCM), for `batch`
 * independent sequences. Step s (from steps - 1 down to 0 when reverse)
 * reads the input projections xp[s] (X W^T + Wb, a MATMUL's output), the
 * state h (and the LSTM's cell c), computes every gate as xp + (R h + Rb)
 * in fp32, the gates' activations (sigmoid, tanh: the ACTIVATION
 * command's), the new state, and writes h to y[s] and to h (docs/mlip-spec.md
 * section 4, RNN). work holds the gates of one sequence.
 * 8-bit (a DequantizeLinear, LSTM or GRU, QuantizeLinear of the CPU's int8
 * build; docs/mlip-spec.md 4a): the CPU kernel's fp32 operations. xp holds
 * the 8-bit inputs [steps][batch][input], w the fp32 input weights [gates *
 * hidden][input], r fp32, bias fp32 [2][gates * hidden] (Wb, then Rb), h and
 * c fp32 state, y the 8-bit outputs; x = (q - x_zp) * x_scale, every gate
 * dot(x, W) + dot(h, R) + (Wb + Rb) in order, each step's h quantized to y
 * by QuantizeLinear's rounding. */
#define MLIP_FIELDS_rnn(W, A, x)                                                                          \
  W(x, xp, 0, uint32_t, ANY, OCM, "input projections [steps][batch][gates * hidden]")                    \
  W(x, r, 1, uint32_t, ANY, PIN, "recurrent weights [gates * hidden][hidden]")                            \
  W(x, bias, 2, uint32_t, ANY, PIN_OPT, "recurrent bias [gates * hidden] fp32, or MLIP_NO_OFFSET")        \
  W(x, h, 3, uint32_t, ANY, OCM, "hidden state [batch][hidden], read and written")                       \
  W(x, c, 4, uint32_t, ANY, ANY, "LSTM: cell state [batch][hidden] (OCM), read and written; GRU: MLIP_NO_OFFSET") \
  W(x, y, 5, uint32_t, ANY, OCM, "outputs [steps][batch][hidden]")                                       \
  W(x, work, 6, uint32_t, ANY, OCM, "fp32 [gates * hidden + hidden] working values")                    \
  W(x, steps, 7, uint32_t, ANY, NZ, "time steps")                                                        \
  W(x, batch, 8, uint32_t, ANY, NZ, "sequences")                                                         \
  W(x, hidden, 9, uint32_t, ANY, NZ, "hidden size")                                                      \
  W(x, cell, 10, uint32_t, ANY, CELL, "the cell: LSTM (gates i, o, f, c) or GRU (z, r, h)")              \
  W(x, reverse, 11, uint32_t, ANY, BOOL, "1: the steps in reverse order (from steps - 1 down to 0)")     \
  W(x, lbr, 12, uint32_t, ANY, BOOL, "GRU: linear_before_reset (LSTM: 0)")                                \
  W(x, w, 13, uint32_t, Q8, PIN, "8-bit: input weights [gates * hidden][input] fp32")                      \
  W(x, input, 14, uint32_t, Q8, NZ, "8-bit: input size")                                                   \
  W(x, x_scale, 15, float, Q8, F32, "8-bit: the input's scale")                                            \
  W(x, x_zp, 16, int32_t, Q8, ZP, "8-bit: the input's zero point")                                         \
  W(x, y_scale, 17, float, Q8, F32, "8-bit: the output's scale")                                           \
  W(x, y_zp, 18, int32_t, Q8, ZP, "8-bit: the output's zero point")

#endif /* MLIP_CMD_TABLE_H_ */
