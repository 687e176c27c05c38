// Pass 3 of post-training quantization, mixed precision: each compute layer
// alone is quantized, folded by fold_qdq in a graph of its own and run on the
// fp32 reference inputs of every sample; its SQNR against the fp32 layer
// decides whether it stays int8 (QuantizeOptions::min_sqnr_db), and a layer
// fold_qdq cannot fold stays float with fold_qdq's reason. A same-scale
// layer is int8 when an int8 layer writes its input or reads its output.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ops/qlinear.h"
#include "passes/passes.h"
#include "ptq/classify.h"
#include "ptq/error_sum.h"
#include "ptq/samples.h"

namespace mlipc::ptq {

struct Hessians;  // weight_rounding.h

// Per layer of find_layers: what mixed precision decided and measured.
struct Precision {
  std::vector<bool> int8;
  std::vector<int> bits;         // an int8 layer's weights: 8, or 4 (--weight-bits 4)
  std::vector<bool> act16;       // an integer layer's activations are int16 (16x8)
  std::vector<std::string> why;  // why it stays float
  std::vector<ErrorSum> alone;   // the layer alone, int8 against fp32
  std::vector<bool> measured;    // `alone` holds its figures
};

// Measures every compute layer of g (fp32: a copy of g the samples run on)
// and decides the compute layers; the same-scale ones stay float until
// decide_same_scale. With --weight-bits 4 a layer that can take 4-bit
// weights (takes_4bit) is measured at 4 and at 8 bits: 4 when its 4-bit
// SQNR reaches the threshold, else 8 when that does, else float. With
// `ranges16` (the int16 parameters, ranges.h) a layer is measured 16x8 too:
// with --quantize int16x8 (options act_bits 16) only 16x8; with int8, 16x8
// is the last try before float.
// `gptq`: the layers' Hessians, when their weights are rounded by GPTQ
// (weight_rounding.h): each layer is measured with the weights it will have.
Precision measure_layers(const Graph& g, const Graph& fp32, const std::vector<Layer>& layers,
                         const std::map<std::string, ops::QParam>& ranges, const Samples& samples,
                         const std::map<std::string, ops::QParam>* ranges16 = nullptr,
                         const Hessians* gptq = nullptr);

// Decides the same-scale layers from the int8 compute layers around them.
void decide_same_scale(const Graph& g, const std::vector<Layer>& layers, Precision& p);

// Whether fold_qdq turned layer `name` into an integer operator in g.
bool folded(const Graph& g, const std::string& name);

// fold_qdq's reason for layer `name` (node or op) staying float, if it gave one.
std::string fold_reason(const std::vector<passes::FloatNote>& notes, const std::string& name);

}  // namespace mlipc::ptq
