// Post-training quantization of an fp32 graph: calibration, mixed precision,
// and the QuantizeLinear/DequantizeLinear pairs that passes/fold_qdq turns
// into integer operators (docs/user-guide.md, "Post-training quantization").
// The steps, one file each:
//   ranges.cpp           the reference evaluator runs the samples; every float
//                        tensor's range (calibration.h) becomes its int8 scale
//   classify.cpp         the layers that could be int8, of three kinds: compute
//                        layers (fold_qdq folds them into an integer operator),
//                        same-scale layers (their input's scale passes through)
//                        and bracketed ones (LSTM, GRU: float between pairs)
//   weight_rounding.cpp  --weight-rounding gptq: each weighted layer's input
//                        Hessian, and the error-compensating rounding of its
//                        weights (GPTQ) on the grid the scales fix
//   mixed_precision.cpp  each compute layer alone, int8 against fp32: its SQNR
//                        decides whether it stays int8
//   insert_qdq.cpp       the pairs around the int8 layers, the weights and biases
//   model_error.cpp      the quantized model beside the fp32 model: the report
//   samples.cpp          running the calibration samples (each step does)
//   quantize.cpp         the whole, run by the driver after fuse_pad
// options.h and report.h hold what the pass is asked and what it reports.
#pragma once

#include <vector>

#include "ir/graph.h"
#include "ptq/options.h"
#include "ptq/report.h"

namespace mlipc::ptq {

// Calibrates an fp32 graph on `samples` (each the graph's inputs, in
// graph-input order) and inserts QuantizeLinear/DequantizeLinear pairs
// (int8: per-channel symmetric weights, int32 bias, per-tensor asymmetric
// activations) around every layer that stays int8, for fold_qdq to turn
// into integer operators. The reference evaluator runs the samples.
QuantizeReport quantize(Graph& g, const std::vector<std::vector<TensorData>>& samples, const QuantizeOptions& options);

}  // namespace mlipc::ptq
