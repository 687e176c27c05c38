// Declarations of every operator's shape rule and reference kernel.
#pragma once

#include "ops/op.h"

namespace mlipc::ops {

#define MLIPC_OP(name)               \
  void infer_##name(InferContext&);  \
  void eval_##name(EvalContext&);
#include "ops/op_list.inc"
#undef MLIPC_OP

// Internal operators (names that are not C identifiers).
void infer_Subgraph(InferContext&);  // kSubgraphOp
void eval_Subgraph(EvalContext&);
void infer_QLinearLookup(InferContext&);  // kQLookupOp (ops/qlinear_lookup.cpp)
void eval_QLinearLookup(EvalContext&);
void infer_QLinearConvTranspose(InferContext&);  // kQConvTransposeOp (ops/qlinear_conv_transpose.cpp)
void eval_QLinearConvTranspose(EvalContext&);

}  // namespace mlipc::ops
