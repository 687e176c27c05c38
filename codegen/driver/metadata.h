// metadata.json of a compiled module: TVM's keys (mlf/metadata.h) and
// mlipc's own ("mlipc": target, memory plan, layers, float notes, quantized
// I/O, the calibration's report; "mlip": the accelerator's report).
#pragma once

#include <string>

#include "driver/compile.h"

namespace mlipc::driver {

// The file of r compiled by compile_graph (its module, MLIP result, graph).
std::string module_metadata(const CompileResult& r, const CompileOptions& options);

// The MACs of r.module's layer l when it runs on the CPU (ops::node_macs of
// its node, the operator table's count), 0 for an MLIP region's call (its
// layers count their own: mlip::LayerReport::macs). metadata.json's layer
// table records it ("macs", CPU layers only).
uint64_t cpu_layer_macs(const CompileResult& r, const c::Layer& l);
bool is_mlip_region(const CompileResult& r, const c::Layer& l);

}  // namespace mlipc::driver
