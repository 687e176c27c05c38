// The driver's quantization step: --quantize, -quantize=int8,
// --calibration and their options checked against each other and the
// target, and post-training quantization (ptq/quantize.h) of an fp32 model
// on its calibration data.
#pragma once

#include "driver/compile.h"

namespace mlipc::driver {

// Whether int8 is asked for, after checking the quantization options
// agree with each other and with the target (before any work): --quantize
// int8, or -quantize=int8 on "mrvl, c". With -quantize unset on "mrvl, c"
// the model decides (choose_mlip_quantize), and --quantize int8 chooses int8.
bool wants_int8(const CompileOptions& o, const Target& t);

// "mrvl, c": the MLIP quantization of r.graph (an imported model) into
// r.mlip_options.quantize and quantize_why. An explicit -quantize wins;
// unset, it is int8 for a quantized model (passes::quantized_nodes: QDQ or
// QOperator) or with --quantize int8, fp16 otherwise. Returns whether the
// build is int8.
bool choose_mlip_quantize(CompileResult& r, const CompileOptions& o);

// The line compile and inspect print: "MLIP quantization: int8 (why)".
std::string quantize_line(const mlip::Options& o);

// Quantizes r.graph, an fp32 model, on its calibration data (r.quantization
// holds the report); a model that is quantized already is taken as it is.
// The one check that an int8 build has a quantized model or calibration
// data: made on the whole model, before a mesh splits it into stages.
// The layers mixed precision keeps float may then be fp16 layers on the
// MLIP (mlip_options.fp16_float_layers).
void quantize_model(CompileResult& r, const CompileOptions& o, mlip::Options& mlip_options);

}  // namespace mlipc::driver
