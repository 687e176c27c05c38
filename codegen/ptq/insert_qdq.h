// Pass 4 of post-training quantization: the QuantizeLinear/DequantizeLinear
// pairs around the int8 layers. Activations per tensor, asymmetric
// (ops::range_qparam), int8; weights per output channel, symmetric (max |w| /
// 127, values in [-127, 127]; or int4, --weight-bits 4; the scale raised where the bias needs it:
// weight_scale.h); biases int32 at x_scale * w_scale. A tensor an
// int8 layer writes is read through its DequantizeLinear by everyone; one a
// float layer writes is quantized only for the int8 layers that read it; a
// same-scale layer's output takes its input's parameters.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ops/qlinear.h"
#include "ptq/classify.h"

namespace mlipc::ptq {

// What insert_qdq made: the int8 value standing for each quantized float
// tensor (by name) and its parameters.
struct Inserted {
  std::map<std::string, std::string> quantized;  // float tensor -> its QuantizeLinear's output
  std::map<std::string, ops::QParam> params;     // float tensor -> its scale and zero point
  // node -> the output channels whose weight scale was raised for the bias
  std::map<std::string, std::vector<int64_t>> bias_raised;
};

struct Hessians;

// The weights' width per layer (4 or 8; empty: all 8), a dense layer's
// 4-bit block along K (--weight-bits, --weight-block-size), and the layers'
// Hessians when they are rounded by GPTQ (--weight-rounding gptq,
// weight_rounding.h; nullptr: round to nearest).
struct WeightBits {
  std::vector<int> bits;
  int64_t block = 32;
  const Hessians* gptq = nullptr;
  int of(size_t layer) const { return layer < bits.size() ? bits[layer] : 8; }
};

// The 16x8 layers (int16 activations, symmetric; int8 weights; --quantize
// int16x8, or mixed precision's second try) and the int16 parameters of
// every float tensor (ranges.h, symmetric_int16). A tensor a 16x8 layer
// reads or writes is int16; a 16x8 layer's bias stays a float constant,
// which fold_qdq quantizes to int64 (no int32 limit to raise weight scales for).
struct Act16 {
  std::vector<bool> layers;
  const std::map<std::string, ops::QParam>* ranges = nullptr;
  bool of(size_t layer) const { return layer < layers.size() && layers[layer]; }
};

// Whether n may take 4-bit weights: a Conv, Gemm or MatMul whose weights are
// a constant (per output channel for a Conv, in blocks for a dense layer).
bool takes_4bit(const Graph& g, const Node& n);

// Inserts the pairs into g around layers[k] where int8[k]; `ranges` are the
// calibrated parameters of every float tensor (ranges.h), by name. A layer
// of 4 bits gets int4 weights (weight_scale.h) and its node the marks
// ops::kWeightBitsAttr (and kWeightBlockAttr for a dense layer).
Inserted insert_qdq(Graph& g, const std::vector<Layer>& layers, const std::vector<bool>& int8,
                    const std::map<std::string, ops::QParam>& ranges, const WeightBits& wb = {},
                    const Act16& act16 = {});

}  // namespace mlipc::ptq
