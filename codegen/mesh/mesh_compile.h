// `mlipc compile --pes K [--pe-memory SIZE]`: one model pipelined across K
// processing elements. The model is compiled once as a whole (units.h: its
// layers' estimated cycles and sizes), cut into stages by pe_partition.h,
// each stage compiled as its own MLF module (tvmgen_<m>_stage<k>_run) and
// checked (stage_compiler.h), the cuts settled on the compiled figures
// (plan_search.h), and written with pipeline.json into one tarball
// (mesh_tarball.h). docs/mesh.md.
#pragma once

#include <cstdint>
#include <filesystem>

#include "driver/compile.h"
#include "mesh/mesh_tarball.h"

namespace mlipc::mesh {

struct MeshOptions {
  int pes = 1;
  uint64_t pe_memory = 0;  // bytes per PE; 0: no limit
};

MeshResult compile_mesh(const std::filesystem::path& onnx, const driver::CompileOptions& options,
                        const MeshOptions& mesh);

}  // namespace mlipc::mesh
