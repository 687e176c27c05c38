// metadata.json of a compiled module: TVM's keys (mlf/metadata.h) and
// mlipc's own ("mlipc": target, memory plan, layers, float notes, quantized
// I/O, the calibration's report; "mlip": the accelerator's report).
#pragma once

#include <string>

#include "driver/compile.h"

namespace mlipc::driver {

// The file of r compiled by compile_graph (its module, MLIP result, graph).
std::string module_metadata(const CompileResult& r, const CompileOptions& options);

}  // namespace mlipc::driver
