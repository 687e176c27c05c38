// `mlipc compile --pes K [--pe-memory SIZE]`: one model pipelined across K
// processing elements. The model is compiled once as a whole (its layers'
// estimated cycles and sizes), cut into stages by pe_partition.h, and each
// stage compiled as its own MLF module (tvmgen_<m>_stage<k>_run), checked
// (the same layers on the MLIP as in the whole model, every stage within the
// memory limit), and written with pipeline.json (manifest.h) into one
// tarball. docs/mesh.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "driver/compile.h"
#include "mesh/manifest.h"

namespace mlipc::mesh {

// What a PE's runtime takes besides the model (docs/mesh.md): the
// runtime's code and data with the simulator (22.7 KB on Cortex-M55 -Os by
// scripts/cortex_m_size.py) and the pipeline API, rounded up.
constexpr uint64_t kRuntimeBytes = 32 * 1024;

struct MeshOptions {
  int pes = 1;
  uint64_t pe_memory = 0;  // bytes per PE; 0: no limit
};

struct MeshResult {
  Manifest manifest;
  std::map<std::string, std::string> files;  // the tarball's content
  int onnx_nodes = 0;
};

MeshResult compile_mesh(const std::filesystem::path& onnx, const driver::CompileOptions& options,
                        const MeshOptions& mesh);

// "524288", "512KiB", "512K", "1MiB", "1M": bytes. Throws naming --pe-memory.
uint64_t parse_memory_size(const std::string& text);

}  // namespace mlipc::mesh
