// IR-to-IR transformations, one per file, run in this order by the driver.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "ops/quant.h"

namespace mlipc::passes {

// Drops Identity, inference-mode Dropout (a used Dropout mask becomes a
// constant of ones) and a Pad of constant zero pads.
void simplify(Graph& g);

// Folds an inference BatchNormalization into the Conv, ConvTranspose or Gemm that feeds it
// when all parameters are constants and the BatchNorm is its only reader.
void fold_batchnorm(Graph& g);

// Why a DequantizeLinear's output still feeds a float computation after
// fold_qdq (`mlipc inspect` prints these).
struct FloatNote {
  std::string node, op, why;
};

// Folds DequantizeLinear -> op -> QuantizeLinear groups into integer
// operators with fused requantization (each operator's fold class is its
// table row's OpTraits::qdq, ops/op.h; passes/fold_qdq.cpp lists them), and
// writes com.microsoft's QLinearSigmoid, QLinearLeakyRelu and QLinearConcat
// as table lookups. Returns one note per DequantizeLinear left feeding a
// float computation.
std::vector<FloatNote> fold_qdq(Graph& g);

// The rule of a quantized model, written once: its quantization operators
// (ops::is_quantization_op) that read or write a computed (not constant)
// int8/uint8 tensor. QuantizeLinear and DequantizeLinear count as QDQ, the
// integer operators (QLinear*, ConvInteger, MatMulInteger,
// DynamicQuantizeLinear) as QOperator. A DequantizeLinear of constant
// weights alone (weight-only quantization) computes in float and does not
// count, nor does a Cast to uint8 in an fp32 model.
struct QuantizedNodes {
  int qdq = 0, qoperator = 0;
  bool any() const { return qdq + qoperator > 0; }
};
QuantizedNodes quantized_nodes(const Graph& g);

// Whether g is a quantized model (quantized_nodes(g).any()): a QDQ or
// QOperator model; an fp32 model is not (passes/fold_qdq.cpp).
bool has_quantized_tensors(const Graph& g);

// --io-dtype int8: every graph input read only by QuantizeLinear nodes of
// one constant per-tensor scale and zero point becomes their int8/uint8
// output, every graph output written by such a DequantizeLinear its input;
// the GraphIO records the scale and zero point. Throws one line naming the
// input or output that is not quantized at the border.
void quantize_io(Graph& g);

// Merges a constant Pad of the spatial axes into the padding of the Conv
// that reads it when it adds zeros, of the QLinearConv that reads it
// when it adds the QLinearConv's input zero point (a real 0), and of an
// AveragePool in floor mode when it adds zeros, the pads stay below the
// window, and the pool counts any padding of its own. The driver
// runs it before fold_qdq and again after it (a QDQ Pad becomes an integer
// Pad there).
void fuse_pad(Graph& g);

// GELU as exporters write it -> Gelu(x) (ONNX opset 20's operator): the
// exact form, Div(x, sqrt 2) (or Mul by 1/sqrt 2), Erf, Add 1 (approximate
// "none"), and the tanh form, x^3 (Mul(x, Mul(x, x)) or Pow(x, 3)), Mul by
// 0.044715, Add x, Mul by sqrt(2/pi), Tanh, Add 1 (approximate "tanh");
// then Mul by x and by 0.5 (in either order); constants of those exact
// float values, each intermediate read by the next node alone. One pass
// with mlip/kmath_f.h's float functions: the exact form's bits differ from
// the five operators' within the bound that header states; the tanh form
// gives the operators' bits (with Pow, within the cube's rounding, carried).
// Runs on the CPU's nodes (after the MLIP partition).
void fuse_gelu(Graph& g);

// LayerNormalization's opset-13 decomposition (ReduceMean, Sub, Pow 2,
// ReduceMean, Add eps, Sqrt, Div, optionally Mul gamma and Add beta, over
// the last axis, each intermediate read by the pattern alone) ->
// LayerNormalization with mlipc_divide = 1: one kernel with the
// decomposition's operations in its order, the same bits. Runs on the CPU's
// nodes (after the MLIP partition).
void fuse_layer_norm(Graph& g);

// Transpose([0, 2, ..., 1]) -> LayerNormalization over the last axis
// [-> Transpose back] -> one LayerNormalization that reads (and writes)
// the channels-first tensor itself (mlipc_channels_in, mlipc_channels_out):
// the same operations on the same values, the transposed tensors never
// exist. Runs on the CPU's nodes (after the MLIP partition), after
// fuse_layer_norm.
void fuse_transpose_norm(Graph& g);

// With a MatMul whose B is a constant and whose output only an Add reads,
// adding a constant with one value per output column ([N] or [1, ..., 1,
// N]: a Linear's bias): the MatMul adds it to each finished sum (input 2,
// attribute mlipc_bias = 1), before any activation fused later, and the
// sum never exists as a tensor of its own.
void fuse_matmul_bias(Graph& g);

// After fuse_activation: the MatMul's output read by a Mul by a constant
// with one value per output column (a layer scale) or a single value
// (attention's scale of Q K^T, made a column of that value), then (or without it) by
// an Add of a tensor of the output's shape (a residual), neither with an
// activation of its own: the MatMul multiplies each stored value, after its
// bias and activation, by scale[j] (input 3, mlipc_scale = 1), then adds
// the residual's element (input 4, mlipc_residual = 1), and takes the last
// fused node's place in the schedule. Either operand order; the
// intermediate tensors never exist.
void fuse_matmul_epilogue(Graph& g);

// Fuses Relu, LeakyRelu, Clip, Sigmoid and Tanh into the producing Conv,
// Gemm, MatMul, Add/Sub/Mul/Div or BatchNormalization; with `epilogues`
// (--arena-reuse on) also HardSigmoid, HardSwish and the products
// x * Sigmoid(x) (SiLU) and x * HardSigmoid(x), whose intermediate tensors
// then never exist, and Gelu (either form) into a MatMul or Gemm (a
// transformer's expanding Linear).
void fuse_activation(Graph& g, bool epilogues = true);

// With a Conv whose output only an Add reads, adding a tensor of the same
// shape (a residual connection): the Conv adds it before its activation
// (input 3, "residual"), takes the Add's activation and place in the
// schedule, and its own output never exists.
void fuse_residual(Graph& g);

// With a 2-D Conv (one group, constant weights) whose output only a MaxPool
// reads: the Conv computes the pooled tensor (ops/conv.h), keeping only
// the rows a window spans, so its own output never exists.
void fuse_pool(Graph& g);

// Makes every graph output the result of its own computing node: outputs
// that are graph inputs, constants, views of those, or shared with another
// output get an explicit copy (Identity), so the caller's output buffer can
// be their storage.
void materialize_outputs(Graph& g);

// --requant: Ort records onnxruntime's arithmetic (ops::kRequantAttr) on
// every integer operator that requantizes (QLinearConv, QLinearMatMul,
// QLinearAdd, QLinearMul, the average pools, QLinearConvTranspose); Fixed
// leaves the graph alone. The driver runs it after fold_qdq.
void set_requant_mode(Graph& g, ops::RequantMode mode);
// "fixed" or "ort"; throws naming the option otherwise.
ops::RequantMode parse_requant_mode(const std::string& text);

}  // namespace mlipc::passes
