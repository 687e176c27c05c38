// Host emulation of a mesh tarball (docs/mesh.md): every stage's module,
// the runtime, the manifest's C form and the pipeline runner
// (templates/mesh: one thread per stage) built with the system C compiler
// into one program, cached like a single model's build (host_model.h),
// then run on a stream of samples.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "host/host_model.h"

namespace mlipc::host {

struct MeshStageFiles {
  std::string dir;     // the stage's folder in the tarball ("default_stage0/")
  std::string module;  // its module name
};

struct MeshRunResult {
  std::vector<std::string> outputs;  // raw bytes of each model output, all samples, manifest order
  double total_ns = 0;               // the whole stream, wall clock
  std::vector<double> stage_ns;      // per stage: time in its steps (receive, run, send)
};

class MeshModel {
 public:
  // Checks that the tarball holds only what mlipc compile --pes writes
  // (each stage folder a module's files, the runner's sources as embedded,
  // pipeline.json, mesh/pipeline.c), then builds `stages` with the
  // manifest's C form `pipeline_c` (the caller renders it from
  // pipeline.json: the runtime checks it against the stages when the
  // program starts).
  static MeshModel build(const std::filesystem::path& tarball, const std::vector<MeshStageFiles>& stages,
                         const std::string& pipeline_c, const BuildOptions& options = {});

  const std::filesystem::path& executable() const { return exe_; }

  // inputs[k]: every sample of the model's k-th input (manifest order);
  // output_bytes[k]: the bytes of one sample of output k.
  MeshRunResult run(const std::vector<std::string>& inputs, uint64_t samples, const std::vector<uint64_t>& output_bytes,
                    size_t num_stages, int timeout_seconds = limits::kDefaultRunSeconds) const;

 private:
  std::filesystem::path tarball_;
  std::filesystem::path exe_;
};

}  // namespace mlipc::host
