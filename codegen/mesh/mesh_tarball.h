// The tarball of a pipeline once its stages are chosen: pipeline.json and
// its C form (manifest.h), each stage's MLF module in its folder, and the
// runner and transports (templates/mesh) under mesh/ (docs/mesh.md, "The
// tarball").
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "driver/compile.h"
#include "mesh/manifest.h"
#include "mesh/plan_search.h"

namespace mlipc::mesh {

struct MeshResult {
  Manifest manifest;
  std::map<std::string, std::string> files;  // the tarball's content
  int onnx_nodes = 0;
  // "mrvl, c": the MLIP quantization the stages share and why
  // (driver::quantize_line); "" for --target c.
  std::string quantize_line;
};

// prepared: the model after the target-independent passes; whole: it
// compiled as one module (the single-PE figures); pes, pe_memory: what the
// user asked; clock_mhz: the cycle model's.
MeshResult mesh_tarball(const driver::CompileResult& prepared, const driver::CompileResult& whole,
                        const driver::CompileOptions& options, int pes, uint64_t pe_memory, double clock_mhz,
                        const ChosenPlan& chosen);

}  // namespace mlipc::mesh
