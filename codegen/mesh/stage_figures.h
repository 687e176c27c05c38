// The figures of a compiled module as one stage of a pipeline: its
// estimated cycles (the MLIP regions' from the cycle model, border
// conversions included; the CPU layers' from cpu_cost.h), its memory as
// metadata.json reports it, the ONNX nodes it runs on the MLIP, and its
// layers as pipeline.json lists them.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "driver/compile.h"
#include "mesh/manifest.h"

namespace mlipc::mesh {

// What a PE's runtime takes besides the model (docs/mesh.md): the
// runtime's code and data with the simulator (22.7 KB on Cortex-M55 -Os by
// scripts/cortex_m_size.py) and the pipeline API, rounded up.
constexpr uint64_t kRuntimeBytes = 32 * 1024;

uint64_t model_cycles(const driver::CompileResult& r);
StageMemory model_memory(const driver::CompileResult& r);  // the runtime counted as kRuntimeBytes
std::set<std::string> mlip_origins(const driver::CompileResult& r);
// One line per layer: "mlip <kind> <cycles> cycles: <ONNX nodes>" or "cpu <op> ...".
std::vector<std::string> layer_lines(const driver::CompileResult& r);

}  // namespace mlipc::mesh
