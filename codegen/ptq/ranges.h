// Pass 1 (and 2) of post-training quantization: the reference evaluator runs
// every sample through the fp32 graph and records each float tensor's range
// (and, for the percentile and entropy methods, a second run fills its
// histogram: calibration.h); each range becomes the tensor's int8 scale and
// zero point.
#pragma once

#include <map>
#include <string>

#include "ops/qlinear.h"
#include "ptq/samples.h"

namespace mlipc::ptq {

// Activations are int8 (TFLite's scheme, the MLIP's int8 mode).
constexpr DType kActType = DType::Int8;

// Every float tensor of g that the samples reach, by name: its parameters.
// `int16`, when given, gets the same tensors' 16x8 parameters
// (symmetric_int16) from the same ranges.
std::map<std::string, ops::QParam> calibrate_ranges(const Graph& g, const Samples& samples,
                                                    std::map<std::string, ops::QParam>* int16 = nullptr);

// 16x8 activations (TFLite's): int16, symmetric, zero point 0, scale
// max(|lo|, |hi|) / 32767 in float32 (values in [-32767, 32767]).
ops::QParam symmetric_int16(float lo, float hi);

// The parameters of a tensor that is all zeros have no scale: any positive
// one holds 0 (1, zero point 0).
ops::QParam usable(ops::QParam p);

}  // namespace mlipc::ptq
