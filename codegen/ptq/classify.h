// The layers of an fp32 graph that post-training quantization could make
// int8, by their operators' traits (ops/op.h: the QDQ fold class, the
// weight, bias and data inputs):
//   compute layers     the classes fold_qdq folds into an integer operator
//                      (Conv, Gemm, MatMul, Add, Mul, AveragePool,
//                      GlobalAveragePool, Concat, the activations it makes
//                      tables of); a clamping activation (Relu, Clip) that
//                      alone reads the output of one that absorbs it is part
//                      of it: the output is quantized after it, so its range
//                      narrows the output's
//   same-scale layers  MaxPool, constant Pad, nearest Resize, the views and
//                      Transpose: they keep their input's scale and zero point
//   bracketed layers   LSTM and GRU (ONNX has no integer form): int8 means a
//                      Q/DQ pair on X and on Y around the float node, which
//                      keeps its float weights (onnxruntime quantize_static's
//                      layout; the MLIP's 8-bit RNN layer runs the chain);
//                      Y_h and Y_c unread
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace mlipc::ptq {

enum class Kind { Compute, SameScale, Bracketed };

struct Layer {
  int node = -1, act = -1;  // indices in the graph it was found in; act: a fused Relu or Clip
  Kind kind = Kind::Compute;
  std::string name, op;
  ValueId out = kNoValue;   // what it writes (after the activation)
  bool rearranges = false;  // Flatten, Reshape, Transpose, ...: data movement, not a row of the report
};

inline bool is_f32(const Graph& g, ValueId v) { return v != kNoValue && g.value(v).dtype == DType::Float32; }
// A tensor computed at run time (not a constant).
inline bool computed(const Graph& g, ValueId v) { return v != kNoValue && !g.value(v).is_constant(); }

// Why node n cannot be an int8 layer (empty: it can; "-": its operator has no
// integer form), before any folding.
std::string candidate_reason(const Graph& g, const Node& n);

// Every layer of g that could be int8, in schedule order.
std::vector<Layer> find_layers(const Graph& g);

}  // namespace mlipc::ptq
