// What post-training quantization reports (ptq/quantize.h): per layer its
// precision, why it stays float and its int8 error; per output the error of
// the quantized model; the QDQ model --emit-qdq writes. compile prints it,
// metadata.json keeps it ("quantization"), inspect lists it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ptq/options.h"

namespace mlipc::ptq {

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
  // The output channels whose weight scale was raised above max |w| / 127 so
  // that the bias fits the int32 accumulator (ptq/weight_scale.h).
  std::vector<int64_t> bias_raised;
  int weight_bits = 8;  // an int8 layer's weights: 8, or 4 (--weight-bits 4)
  int act_bits = 8;     // an integer layer's output: 8, or 16 (16x8: int16 activations, int8 weights)
};

struct OutputQuantization {
  std::string name;
  double sqnr_db = 0.0, max_abs_error = 0.0;  // the quantized model's output against the fp32 model's
};

struct QuantizeReport {
  QuantizeOptions options;
  size_t samples = 0;          // samples calibrated on
  size_t samples_in_data = 0;  // samples the data held (more past limits::kMaxCalibrationSamples); 0: not known
  std::vector<LayerQuantization> layers;  // schedule order
  std::vector<OutputQuantization> outputs;
  // --weight-rounding gptq: the integer layers whose weights GPTQ rounded,
  // and the weighted ones that kept round-to-nearest (node, why).
  size_t gptq_layers = 0;
  std::vector<std::pair<std::string, std::string>> rounded_nearest;
  Graph qdq;  // the QDQ model before fold_qdq: what --emit-qdq writes
};

}  // namespace mlipc::ptq
