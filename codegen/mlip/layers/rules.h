// Pieces the layer kinds' support rules and nodes-JSON writers share.
#pragma once

#include <any>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ir/graph.h"
#include "ops/quant.h"
#include "ops/spatial.h"
#include "mlip/region_ir.h"
#include "mlip/layer_kind.h"
#include "mlip/target.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

// The parameters of layer l's kind, of the type its lowering stored in
// RLayer::params (each kind's file defines its own).
template <class P>
const P& params_of(const RLayer& l) {
  if (const P* p = std::any_cast<P>(&l.params)) return *p;
  fail("internal: MLIP layer '{}' does not hold its kind's parameters", l.name);
}
template <class P>
P& params_of(RLayer& l) {
  if (P* p = std::any_cast<P>(&l.params)) return *p;
  fail("internal: MLIP layer '{}' does not hold its kind's parameters", l.name);
}

// A 2-D window (CONV2D, the pools): kernel, strides, dilations, pads.
struct Window {
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1, pt = 0, pl = 0, pb = 0, pr = 0;
};
// The window of a resolved geometry with kernel kh x kw.
Window window_of(const ops::Geometry& geo, int64_t kh, int64_t kw);

// A float32 4-D (NCHW) tensor.
bool is_float4d(const Graph& g, ValueId v);
// The only node that reads v (v not a graph output), or -1.
int only_consumer(const Graph& g, const std::vector<std::vector<int>>& consumers, ValueId v);
// Input i of n is present and a constant.
bool is_const(const Graph& g, const Node& n, size_t i);
// "" or why `batch` images are too many for one layer (kMaxBatch).
std::string batch_reason(int64_t batch);
// "" or why the target cannot run a window: kernel side, stride, or a
// dilation (only where `dilation` says the operator may have one and the
// target supports it).
std::string window_reason(const ops::Geometry& geo, const TargetInfo& target, bool dilation);

// A float32 value binary16 cannot hold (issue 30 item 11): a non-zero that
// rounds to zero (underflow) or a finite one that rounds to infinity
// (overflow).
bool half_underflows(float v);
bool half_overflows(float v);
// "" or why node n stays in float on the CPU: a float32 constant among
// `inputs` (at most `max_elems` elements; -1: any size) holds a value
// binary16 cannot hold, an overflow or, with `underflow`, an underflow too.
// The one text of that reason (it ends with kHalfConstantEnd).
std::string half_constant_reason(const Graph& g, const std::vector<ValueId>& inputs, bool underflow,
                                 int64_t max_elems);
inline constexpr const char* kHalfConstantEnd = "which binary16 cannot hold";
inline constexpr const char* kStaysInFloat = ": the node stays in float on the CPU";  // the reason's last words
// "" or why an fp16 layer of n would change its meaning: a constant of its
// data inputs (ops::data_inputs: weights, biases, operands; not bounds,
// shapes or axes) that overflows binary16. Every fp16 layer kind's rule
// (support.cpp's unsupported_reason) ends with it.
std::string half_overflow_reason(const Graph& g, const Node& n);

// A pool of one window that holds every position of its input (pool.cpp):
// one output position per axis, no dilation that skips a position, and,
// for an average that counts its padding, no padding. Its value is the
// global pool's (GlobalMaxPool, GlobalAveragePool: an average counting
// only the input's positions divides by its size) whatever the kernel,
// ceil_mode or stride, so it lowers to GLOBAL_MAXPOOL / GLOBAL_AVGPOOL
// (global_pool.cpp: the rule and the lowering). The geometry form takes a
// resolved geometry (any rank), the node form a MaxPool, AveragePool or
// QLinearAveragePool of a 3-D or 4-D input.
bool global_window(const ops::Geometry& geo, bool avg, bool count_include_pad);
bool global_window(const Graph& g, const Node& n);
std::string global_window_reason(const Graph& g, const Node& n, const SupportLimits& limits);
void lower_global_window(LowerContext& ctx, const Node& n);

// "" or why tensor `v` could not cross a region border (layers/convert.cpp):
// converting one row of one channel must fit the OCM working area.
std::string border_reason(const Value& v, uint32_t work_bytes);

// ELTWISE's rule and lowering (layers/eltwise.cpp), which ADD uses for an
// Add that broadcasts or adds a constant.
std::string eltwise_reason(const Graph& g, const Node& n, const SupportLimits& limits);
void lower_eltwise(LowerContext& ctx, const Node& n);
// A Clip on int16 values (16x8: what passes/fold_qdq makes of a QDQ Relu
// or Clip that keeps its input's scale, when no QLinearConv, QLinearAdd or
// QLinearMul before it takes it as its clamp): an int16 ELTWISE MUL by a
// constant 1 at multiplier 1, exact, with the Clip's bounds as its clamp
// (layers/eltwise.cpp). clamp16 says whether n is one, clamp16_reason
// why it stays on the CPU ("" when it runs on the MLIP).
bool clamp16(const Graph& g, const Node& n);
std::string clamp16_reason(const Graph& g, const Node& n, const SupportLimits& limits);
void lower_clamp16(LowerContext& ctx, const Node& n);
// A guard of a Div's divisor that ELTWISE folds into the division (issue 30,
// item 11: an epsilon binary16 cannot hold keeps its meaning in fp32): Div(a,
// Add(b, eps)), Div(a, Sqrt(Add(b, eps))) or Div(a, Sqrt(b)), each folded
// node read only by the next. Node indices (-1: absent), b, eps.
struct Guard {
  int add = -1, sqrt = -1;
  ValueId b = kNoValue;
  float eps = 0.0f;
};
std::optional<Guard> guard_of(const Graph& g, const std::vector<std::vector<int>>& consumers,
                              const std::vector<int>& producers, const Node& div);
// Whether node `node` (an Add or Sqrt) is folded into the Div after it.
bool folded_guard(const Graph& g, const std::vector<std::vector<int>>& consumers, const std::vector<int>& producers,
                  int node);

// The int8 FC (layers/fc.cpp) of a dense 1x1 QLinearConv (conv_is_dense,
// layers/conv2d.cpp: what passes/fold_qdq makes of a QDQ Gemm or MatMul):
// "" or why n rows of k inputs cannot run, and the lowering.
bool conv_is_dense(const Graph& g, const Node& n);
// A float layer's bias (fp32, one per output channel or column): added to
// the constants and l's bias_offset, bias_bytes and bias_name set.
void add_f32_bias(LowerContext& ctx, RLayer& l, const std::vector<float>& bias, const std::string& name);
// CONV2D's space-to-depth form of a kernel wider (or a stride longer) than
// the target's (conv2d.cpp, docs/mlip-spec.md): the factor f by which a
// convolution of 2-D window `geo` over an input `width` wide of `channels`
// channels folds (1: it does not), and its [M, C, kh, kw] weights w4 as
// the folded [M, f * C, kh, kw / f] ones: [m][r * C + c][y][j] is
// [m][c][y][j * f + r].
int64_t conv_fold_factor(const ops::Geometry& geo, int64_t width, int64_t channels, int64_t groups,
                         const TargetInfo& target);
template <class T>
std::vector<T> fold_weights(const std::vector<T>& w, const Shape& w4, int64_t f);
// The 2-D form of a convolution's tensors (CONV2D, CONV_TRANSPOSE): [N, C, W]
// is [N, C, 1, W]; other ranks as they are.
Shape conv_shape_2d(const Shape& s);
// The window of a 1-D convolution or pool as the 2-D one of its [N, C, 1, W]
// form: the first axis of extent 1 (kernel 1, stride 1, dilation 1, no
// padding); a 2-D window as it is.
ops::Geometry geometry_2d(const ops::Geometry& geo);
// An int8 layer's bias table (docs/mlip-spec.md, requantization records):
// per output channel m of `channels`, its int32 bias (0 where `bias` is
// empty) and its requantization (q, shift): rq's only entry, or entry
// m % period (per-channel scales; ConvTranspose's weight columns repeat
// every M / group channels). Sets l's bias_offset, bias_bytes and bias_name.
// A 16x8 layer (l.dtype MLIP_DT_INT16, set before) gets the 16-byte
// records: the bias int64 (low word first), then q and shift.
void add_requant_records(LowerContext& ctx, RLayer& l, const std::vector<ops::Requant>& rq,
                         const std::vector<int64_t>& bias, int64_t channels, int64_t period,
                         const std::string& bias_name);
// An 8-bit CONV2D's or FC's weights, o rows of k int8 values w (row-major,
// in the MLIP's order), as its WEIGHTS bytes: as they are, or where node n
// carries PTQ's 4-bit mark (ops::kWeightBitsAttr) one mlip/kq4_format.h
// record per row in blocks of the node's block (a Conv's: its whole row),
// l.w4_block set. A block the MLIP's order mixes (an FC reading a
// flattened NHWC input: its K order is not ONNX's) that no exponent holds
// halves the block until every one does (1 always does: each value is an
// int4 times 2^e).
std::vector<uint8_t> q8_weight_bytes(const Node& n, RLayer& l, const std::vector<int64_t>& w, int64_t o, int64_t k);
std::string dense_q8_reason(int64_t n, int64_t k, const SupportLimits& limits, bool wide = false);
void lower_dense_conv_q8(LowerContext& ctx, const Node& n);
// A 2-D [N, C] or 4-D [N, C, 1, 1] shape: its NHWC bytes are its ONNX
// bytes, so a view between two such shapes of N rows moves nothing.
bool row_shape(const Shape& s);
// Whether v has readers, is no graph output, and every reader is an int8
// dense layer reading it as input 0 (QLinearMatMul, a dense QLinearConv;
// one that `chosen` holds, when given) or a view into rows whose readers
// all are: the views into rows such layers absorb (support.cpp, lower.cpp).
bool q8_dense_readers(const Graph& g, const std::vector<std::vector<int>>& consumers, const std::vector<bool>* chosen,
                      ValueId v);

// CHANNEL_SHUFFLE (layers/channel_shuffle.cpp): the Reshape, Transpose,
// Reshape of a channel shuffle in groups, by node index.
struct Shuffle {
  int reshape, transpose, reshape_back;
  int64_t groups;
};
// The shuffle node `node` is one of the three nodes of, or nullopt.
std::optional<Shuffle> shuffle_at(const Graph& g, const std::vector<std::vector<int>>& consumers,
                                  const std::vector<int>& producers, int node);
// "" or why the MLIP cannot run the shuffle.
std::string shuffle_reason(const Graph& g, const Shuffle& s, const SupportLimits& limits);
// Its layer (at the last Reshape; the other two make none).
void lower_shuffle(LowerContext& ctx, const Shuffle& s);

// PERMUTE's work (layers/permute.cpp): output element (i0, .., i5) of
// `dims` is source element offset + sum i_k * strides[k]. strided_copy
// merges dimensions whose strides chain and drops those of size 1; `ok`
// says whether at most MLIP_PERMUTE_RANK (6) remain.
struct StridedCopy {
  std::vector<int64_t> dims, strides;
  int64_t offset = 0;
  bool ok = true;
  // one contiguous run of the source in order: a view, no copy
  bool identity() const { return dims.size() == 1 && strides[0] == 1 && offset == 0; }
};
StridedCopy strided_copy(std::vector<int64_t> dims, std::vector<int64_t> strides, int64_t offset);
// The element strides of tensor t's logical (ONNX) axes in its storage:
// row-major, or NHWC for a 4-D tensor that is not.
std::vector<int64_t> storage_strides(const RTensor& t);

// The row-major kinds' data movement (layers/permute.cpp): "" or why the
// MLIP cannot move `n` (Transpose, Reshape, Flatten, Squeeze, Unsqueeze,
// Slice, Gather, Expand) inside a region, and its lowering (a view when
// the bytes allow, a PERMUTE layer otherwise).
std::string move_reason(const Graph& g, const Node& n, const SupportLimits& limits);
void lower_move(LowerContext& ctx, const Node& n);
// Concat on any axis of row-major tensors (layers/concat_rows.cpp).
std::string concat_rows_reason(const Graph& g, const Node& n, const SupportLimits& limits);
void lower_concat_rows(LowerContext& ctx, const Node& n);
// MATMUL (layers/matmul.cpp): a MatMul FC does not take (3-D and more, or B
// computed).
std::string matmul_reason(const Graph& g, const Node& n, const SupportLimits& limits);
// int8 float chains (layers/rules.cpp): a DequantizeLinear, then a Softmax,
// LayerNormalization, LSTM, GRU, ReduceMean or ReduceSum, then a QuantizeLinear (per-tensor
// parameters, one 8-bit type, each node read only by the next), the float operator of the
// CPU's int8 build between its QDQ pairs, is one 8-bit layer of the middle
// node's kind (SOFTMAX, LAYERNORM, RNN, REDUCE) that repeats the CPU kernels' fp32
// operations. q8_chain_at finds it from its middle node; q8_chain_member
// says whether node `node` is a chain's DequantizeLinear or QuantizeLinear
// (they make no layer of their own); the scale and zero point of a Q or DQ.
struct Q8Chain {
  int dq = -1, node = -1, q = -1;
};
std::optional<Q8Chain> q8_chain_at(const Graph& g, const std::vector<std::vector<int>>& consumers,
                                   const std::vector<int>& producers, int node);
bool q8_chain_member(const Graph& g, const std::vector<std::vector<int>>& consumers,
                     const std::vector<int>& producers, int node);
float q8_scale_of(const Graph& g, const Node& qdq);
// Whether Q/DQ node n has a constant per-tensor scale and zero point.
bool q8_per_tensor(const Graph& g, const Node& n);
int32_t q8_zero_point_of(const Graph& g, const Node& qdq);
// "" or why a chain cannot run: its Softmax (layers/softmax.cpp), its
// LayerNormalization (layers/layernorm.cpp).
std::string q8_softmax_reason(const Graph& g, const Q8Chain& p, const SupportLimits& limits);
std::string q8_norm_reason(const Graph& g, const Q8Chain& p, const SupportLimits& limits);
// Its LSTM or GRU (layers/rnn.cpp: the 8-bit RNN layer, Y_h and Y_c
// unread); and why an LSTM or GRU of an int8 model that is no chain's
// stays on the CPU.
std::string q8_rnn_reason(const Graph& g, const Q8Chain& p, const SupportLimits& limits);
std::string q8_rnn_missing(const Graph& g, const std::vector<std::vector<int>>& consumers,
                           const std::vector<int>& producers, const Node& n);
// ... its ReduceMean or ReduceSum (layers/reduce.cpp: an 8-bit REDUCE).
std::string q8_reduce_reason(const Graph& g, const Q8Chain& p, const SupportLimits& limits);
// An 8-bit TABLE layer of node n (layers/activation.cpp): tensor `in`
// through `table` (256 values, entry i for the input value type minimum +
// i), the table in WEIGHTS and among the constants as `table_name`. The
// caller sets its output and dtype.
RLayer& add_table_layer(LowerContext& ctx, const Node& n, int in, const std::vector<int64_t>& table,
                        const std::string& table_name);
// int8 elementwise chains (layers/q8_lookup.cpp, docs/mlip-spec.md 4a): the
// nodes between a computed 8-bit tensor x and an 8-bit tensor y of x's
// type and shape, where every node is elementwise (Q8Lookup's list: float
// arithmetic between a DequantizeLinear and a QuantizeLinear, QLinearAdd,
// QLinearMul, lookups) on x-derived tensors of x's shape and scalar
// constants, and every value between them is read by the chain alone: y is
// a function of x's value element by element, so one TABLE layer of 256
// entries, computed at compile time by the reference evaluator (the CPU
// kernels' own arithmetic, ops/), gives the CPU build's bits. GELU between
// QDQ pairs in either exported form is one. A chain holds a float node
// (what fold_qdq could not fold) or two nodes at least (one integer node is
// its own layer's); the largest one is taken.
struct Q8Lookup {
  ValueId x = kNoValue, y = kNoValue;
  std::vector<int> nodes;  // schedule order; the last one writes y
};
std::vector<Q8Lookup> q8_lookups(const Graph& g, const std::vector<std::vector<int>>& consumers,
                                 const std::vector<int>& producers);
std::string q8_lookup_reason(const Graph& g, const Q8Lookup& c, const SupportLimits& limits);
// The 256 values of y, entry i for x = x's type minimum + i.
std::vector<int64_t> q8_lookup_table(const Graph& g, const Q8Lookup& c);
void lower_q8_lookup(LowerContext& ctx, const Q8Lookup& c);
// int8 data movement between QDQ pairs (layers/q8_split.cpp): a
// DequantizeLinear whose only reader is a Split (constant sizes), each
// output of which reaches one QuantizeLinear through views only (Squeeze,
// Unsqueeze, Reshape, Flatten), every value read by the next node alone.
// Quantization commutes with moving: each output is a PERMUTE copy of the
// int8 input's part, then (where its scale or zero point differ) a TABLE
// of q(dq(v)) computed as the CPU's QuantizeLinear and DequantizeLinear
// compute it.
struct Q8Split {
  int dq = -1, split = -1;
  std::vector<std::vector<int>> outputs;  // per Split output: its views, then its QuantizeLinear
};
std::vector<Q8Split> q8_splits(const Graph& g, const std::vector<std::vector<int>>& consumers,
                               const std::vector<int>& producers);
std::string q8_split_reason(const Graph& g, const Q8Split& s, const SupportLimits& limits);
void lower_q8_split(LowerContext& ctx, const Q8Split& s);
// int8 MATMUL (layers/matmul.cpp): "" or why a QLinearMatMul of two computed
// operands cannot run; lower_matmul lowers it too.
std::string matmul_q8_reason(const Graph& g, const Node& n, const SupportLimits& limits);
// A 16x8 QLinearMatMul (int16 A) by constant int8 weights that is not a
// dense layer (A or B not 2-D: a batch of matrices): a MATMUL layer with
// its weights in WEIGHTS (layers/matmul.cpp).
bool matmul_q16_weights(const Graph& g, const Node& n);
void lower_matmul(LowerContext& ctx, const Node& n);
// An Add of a constant per column after a MATMUL layer that only it reads:
// the bias becomes the layer's, the Add's output the layer's (true).
bool fuse_matmul_bias(LowerContext& ctx, const Node& add);
// LAYERNORM's decomposed form (layers/layernorm.cpp): ReduceMean, Sub, Pow
// 2, ReduceMean, Add epsilon, Sqrt, Div, and an optional Mul by a constant
// scale and Add of a constant shift, over the last axis: node indices (in
// that order), the input, the output, epsilon, the scale and shift
// (kNoValue: none).
struct NormPattern {
  std::vector<int> nodes;
  int last = -1;
  ValueId x = kNoValue, y = kNoValue, gamma = kNoValue, beta = kNoValue;
  float eps = 0.0f;
  int64_t len = 1;
};
std::vector<NormPattern> norm_patterns(const Graph& g, const std::vector<std::vector<int>>& consumers);
std::string norm_pattern_reason(const Graph& g, const NormPattern& p, const SupportLimits& limits);
void lower_norm_pattern(LowerContext& ctx, const NormPattern& p);
// The same decomposition in the CPU's int8 build of onnxruntime's QDQ
// layout (layers/layernorm.cpp, docs/mlip-spec.md 4a): DequantizeLinear,
// ReduceMean, Sub, Pow 2, ReduceMean, QuantizeLinear of the variance, the
// elementwise nodes from it to the divisor (QLinearAdd of the quantized
// epsilon, DequantizeLinear, Sqrt: a function of the quantized variance
// alone, one fp32 divisor per value), Div, QuantizeLinear: one 8-bit NORM
// of mode 1. The scale and shift after it are QLinearMul and QLinearAdd
// layers of their own.
struct Q8NormDecomposed {
  int dq = -1, qv = -1, div = -1, q = -1;
  std::vector<int> nodes;      // schedule order
  std::vector<int> den_chain;  // the variance's QuantizeLinear's reader .. the divisor's writer, in order
  ValueId vq = kNoValue, den = kNoValue;
  int64_t len = 1;
};
std::vector<Q8NormDecomposed> q8_norms_decomposed(const Graph& g, const std::vector<std::vector<int>>& consumers,
                                                  const std::vector<int>& producers);
std::string q8_norm_decomposed_reason(const Graph& g, const Q8NormDecomposed& p, const SupportLimits& limits);
void lower_q8_norm_decomposed(LowerContext& ctx, const Q8NormDecomposed& p);

// Whether every element of a float32 shape-changing tensor fits the rules
// of row-major kinds: a float32 tensor of 1 to kMaxRank dimensions, and a
// 4-D one (images) of a batch the MLIP takes (batch_reason).
std::string rowmajor_reason(const Value& v);
// Whether float32 v is an LSTM's or GRU's Y or a rearrangement of one
// (layers/rnn.cpp): time-major, so a 4-D one's first dimension is the
// sequence, not a batch of images (PERMUTE moves it whatever its length).
// In an int8 model, 8-bit v: the QuantizeLinear of such a Y, or a
// rearrangement of it.
bool sequence_tensor(const Graph& g, ValueId v);

// nodes-JSON: the weights (kernel_layout, kernel_const_name, bias) of a
// layer and a window (padding, strides, pool_size).
void json_weights(const RLayer& l, const char* kernel_layout, nlohmann::json& attrs);
void json_window(const Window& w, nlohmann::json& attrs);

}  // namespace mlipc::mlip::layers
