// Declarations of every operator's shape rule and reference kernel.
#pragma once

#include "ops/op.h"

namespace mlipc::ops {

#define MLIPC_OP(name)               \
  void infer_##name(InferContext&);  \
  void eval_##name(EvalContext&);
#define MLIPC_OP_TRAITS(name, traits) MLIPC_OP(name)
#include "ops/op_list.inc"
#undef MLIPC_OP_TRAITS
#undef MLIPC_OP

// Internal operators (names that are not C identifiers).
void infer_Subgraph(InferContext&);  // kSubgraphOp
void eval_Subgraph(EvalContext&);
void infer_QLinearLookup(InferContext&);  // kQLookupOp (ops/qlinear_lookup.cpp)
void eval_QLinearLookup(EvalContext&);
void infer_QLinearConvTranspose(InferContext&);  // kQConvTransposeOp (ops/qlinear_conv_transpose.cpp)
void eval_QLinearConvTranspose(EvalContext&);

// Multiply-accumulate counts (OpTraits::macs), each formula written once
// for the forms of one operator.
uint64_t conv_macs(const Graph& g, const Node& n);            // Conv, ConvInteger, QLinearConv (ops/conv.cpp)
uint64_t conv_transpose_macs(const Graph& g, const Node& n);  // ConvTranspose, mlipc.QLinearConvTranspose (ops/conv_transpose.cpp)
uint64_t gemm_macs(const Graph& g, const Node& n);            // Gemm (ops/gemm.cpp)
uint64_t matmul_macs(const Graph& g, const Node& n);          // MatMul, MatMulInteger, QLinearMatMul (ops/matmul.cpp)
uint64_t recurrent_macs(const Graph& g, const Node& n);       // RNN, GRU, LSTM (ops/recurrent.cpp)

// Why a Resize or Pad has no integer form (OpTraits::qdq_unless): an
// interpolating Resize, a Pad that is not constant; "" otherwise.
std::string resize_qdq_refusal(const Node& n);  // ops/resize.cpp
std::string pad_qdq_refusal(const Node& n);     // ops/pad.cpp

// Gemm's weight axis (OpTraits::weights): B's output columns are axis 1, or
// axis 0 with transB.
int gemm_weight_axis(const Node& n);

}  // namespace mlipc::ops
