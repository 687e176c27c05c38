// The commands on a mesh tarball (--pes, docs/mesh.md): compile prints its
// stages, inspect shows them, run streams samples through the pipeline.
// compile_cmd, inspect_cmd and run_cmd hand over to these.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "cli/inspect_data.h"
#include "driver/compile.h"
#include "mlf/archive.h"

namespace mlipc::cli {

// `pe_memory`: bytes, 0 for no limit (cli/memory_size.h read the option).
// Returns the summary compile prints.
std::string compile_mesh(const std::string& model, const std::filesystem::path& out, const driver::CompileOptions& options,
                         int pes, uint64_t pe_memory);

// A tarball is a mesh when it holds pipeline.json.
bool is_mesh(const mlf::FileMap& files);
// What inspect shows of it (pipeline.json checked against the stages), and
// the text.
InspectMesh mesh_inspect_data(const mlf::FileMap& files, const std::string& tarball);
std::string render_mesh_inspect(const InspectMesh& d);

struct MeshRunArgs {
  std::string tarball, inputs, outputs;
  int timeout = 0, build_timeout = 0;
};
// Writes the outputs (--outputs); returns the summary run prints.
std::string run_mesh(const MeshRunArgs& a);

}  // namespace mlipc::cli
