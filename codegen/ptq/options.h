// What post-training quantization is asked to do (ptq/quantize.h):
// --calibration-method, --calibration-percentile, --quantize-min-sqnr-db,
// --weight-bits, --weight-block-size, --weight-rounding, and where its
// progress goes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "ptq/calibration.h"

namespace mlipc::ptq {

// --weight-rounding: how a weight becomes an integer on its fixed grid.
// Nearest: each weight alone, rounded half to even. Gptq: error-compensating
// (ptq/weight_rounding.h), for Conv, Gemm and MatMul with constant weights.
// Auto (not given): Gptq for 16x8 (act_bits 16), whose int16 activations
// leave the weights' rounding the larger error (KWS: +11.8 dB over nearest,
// and about 40% more calibration time), Nearest otherwise (int8, where
// the activations' rounding dominates: +2.1 dB).
enum class WeightRounding { Auto, Nearest, Gptq };

struct QuantizeOptions;
// What Auto stands for under these options; Nearest and Gptq as given.
WeightRounding resolved_rounding(const QuantizeOptions& o);

struct QuantizeOptions {
  calib::Method method = calib::Method::MinMax;
  double percentile = 99.99;  // Method::Percentile: in (0, 100]
  // Mixed precision: a layer whose int8 SQNR (the layer alone, on the fp32
  // reference inputs) is below this stays float.
  double min_sqnr_db = 20.0;
  // --weight-bits: 8, or 4 for Conv, Gemm and MatMul with constant weights
  // (per output channel; a dense layer's in blocks of weight_block along K,
  // ptq/weight_scale.h). A layer whose 4-bit SQNR is below min_sqnr_db
  // tries 8 bits before staying float.
  int weight_bits = 8;
  int64_t weight_block = 32;
  WeightRounding weight_rounding = WeightRounding::Auto;
  // --quantize int16x8: 16, every layer 16x8 (int16 activations, symmetric,
  // with int8 weights); 8 (--quantize int8): int8, and a layer whose int8
  // SQNR is below min_sqnr_db tries 16x8 before staying float.
  int act_bits = 8;
  // Whether mixed precision tries 16x8 before float (act_bits 8). The driver
  // turns it off for an MLIP target: there a float layer is an fp16 MLIP
  // layer, closer to fp32 than a 16x8 one and an MLIP layer whatever its
  // operator (the MLIP's 16x8 layers are CONV2D, FC, MAXPOOL,
  // AVGPOOL, GLOBAL_AVGPOOL, ADD and ELTWISE only).
  bool try_16x8 = true;
  // Where the samples come from, for messages (the --calibration file).
  std::string data_name;
  // Called as the calibration advances: the phase, samples done, samples in
  // the phase (the CLI draws a progress bar from it).
  std::function<void(std::string_view phase, size_t done, size_t total)> progress;
};

inline WeightRounding resolved_rounding(const QuantizeOptions& o) {
  if (o.weight_rounding != WeightRounding::Auto) return o.weight_rounding;
  return o.act_bits == 16 ? WeightRounding::Gptq : WeightRounding::Nearest;
}

}  // namespace mlipc::ptq
