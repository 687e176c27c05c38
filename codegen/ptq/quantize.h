// Post-training quantization of an fp32 graph: calibration, mixed precision,
// and the QuantizeLinear/DequantizeLinear pairs that passes/fold_qdq turns
// into integer operators (docs/user-guide.md, "Post-training quantization").
// The steps, one file each:
//   ranges.cpp           the reference evaluator runs the samples; every float
//                        tensor's range (calibration.h) becomes its int8 scale
//   classify.cpp         the layers that could be int8, of two kinds: compute
//                        layers (fold_qdq folds them into an integer operator)
//                        and same-scale layers (their input's scale passes through)
//   mixed_precision.cpp  each compute layer alone, int8 against fp32: its SQNR
//                        decides whether it stays int8
//   insert_qdq.cpp       the pairs around the int8 layers, the weights and biases
//   model_error.cpp      the quantized model beside the fp32 model: the report
//   quantize.cpp         the whole, run by the driver after fuse_pad
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "ptq/calibration.h"

namespace mlipc::ptq {

// What to do.
struct QuantizeOptions {
  calib::Method method = calib::Method::MinMax;
  double percentile = 99.99;  // Method::Percentile: in (0, 100]
  // Mixed precision: a layer whose int8 SQNR (the layer alone, on the fp32
  // reference inputs) is below this stays float.
  double min_sqnr_db = 20.0;
  // Called as the calibration advances: the phase, samples done, samples in
  // the phase (the CLI draws a progress bar from it).
  std::function<void(std::string_view phase, size_t done, size_t total)> progress;
};

// One layer of the report: the int8 error on the calibration data.
struct LayerQuantization {
  std::string node, op;
  std::vector<std::string> origins;  // the ONNX nodes it stands for
  bool int8 = false;
  std::string why;  // why it stays float (empty for int8 layers)
  // The layer alone: its int8 form on the fp32 reference inputs against the
  // fp32 layer (what mixed precision decides by); NaN for a layer that has
  // no int8 form (fold_qdq does not fold it).
  double sqnr_db = 0.0, max_abs_error = 0.0;
  // In the quantized model against the fp32 model (errors accumulated).
  double model_sqnr_db = 0.0, model_max_abs_error = 0.0;
};

struct OutputQuantization {
  std::string name;
  double sqnr_db = 0.0, max_abs_error = 0.0;  // the quantized model's output against the fp32 model's
};

struct QuantizeReport {
  QuantizeOptions options;
  size_t samples = 0;
  std::vector<LayerQuantization> layers;  // schedule order
  std::vector<OutputQuantization> outputs;
  Graph qdq;  // the QDQ model before fold_qdq: what --emit-qdq writes
};

// Calibrates an fp32 graph on `samples` (each the graph's inputs, in
// graph-input order) and inserts QuantizeLinear/DequantizeLinear pairs
// (int8: per-channel symmetric weights, int32 bias, per-tensor asymmetric
// activations) around every layer that stays int8, for fold_qdq to turn
// into integer operators. The reference evaluator runs the samples.
QuantizeReport quantize(Graph& g, const std::vector<std::vector<TensorData>>& samples, const QuantizeOptions& options);

}  // namespace mlipc::ptq
