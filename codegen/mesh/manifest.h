// The pipeline manifest of a mesh tarball: pipeline.json (the schema is
// docs/mesh.md, written and read here only), and its C form (pipeline.c,
// the mlip_pipeline of include/mlip/pipeline.h with the stage modules'
// descriptors) that the runners link and the runtime checks against the
// stages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/tensor_data.h"
#include "mlf/archive.h"

namespace mlipc::mesh {

constexpr int kManifestVersion = 1;  // MLIP_PIPELINE_VERSION
constexpr int kHost = -1;            // MLIP_PIPE_HOST: the coordinator

struct PipeTensor {
  std::string name;
  DType dtype = DType::Float32;
  Shape shape;
  uint64_t bytes = 0;
  int producer = kHost;        // stage, or kHost for a model input
  std::vector<int> consumers;  // stages, kHost for a model output
};

// A stage's memory on its PE, as metadata.json reports its module.
struct StageMemory {
  uint64_t workspace = 0, constants = 0, io = 0, runtime = 0;
  uint64_t total() const { return workspace + constants + io + runtime; }
};

struct PipeStage {
  int pe = 0;
  std::string module;              // its MLF module, also the folder in the tarball
  std::vector<std::string> layers; // what it runs: "mlip <kind>" or "cpu <op>", ONNX nodes
  std::vector<int> inputs, outputs;  // tensor indices in the module's order
  uint64_t est_cycles = 0;
  StageMemory memory;
};

struct Manifest {
  int version = kManifestVersion;
  std::string generator, model_name, module_name, target;
  int pes_requested = 1;
  uint64_t pe_memory_limit = 0;  // 0: none
  double clock_mhz = 0;
  std::string fewer_note;         // why fewer stages than PEs asked for
  std::vector<PipeStage> stages;
  std::vector<PipeTensor> tensors;
  std::vector<int> inputs, outputs;  // the model's, tensor indices
  uint64_t single_pe_cycles = 0;     // the same model as one stage
  uint64_t single_pe_memory = 0;

  uint64_t slowest_stage_cycles() const;
  uint64_t latency_cycles() const;  // the stages one after another
  // Samples per second at clock_mhz: 1 / slowest stage.
  double throughput() const;
  double single_pe_throughput() const;
};

std::string manifest_to_json(const Manifest& m);
// Throws Error naming the field ("pipeline.json: stages[1].path '../../etc/'
// is not the stage's folder 'default_stage1/'") when `text` is not a
// manifest this mlipc writes: every field of the schema (docs/mesh.md) with
// its type and range, no other key, and the fields agreeing with each other
// (manifest_read.cpp lists the rules).
Manifest manifest_from_json(const std::string& text);
// The manifest against the tarball's stage modules: each stage's folder
// holds its module's metadata.json, whose module name, inputs and outputs
// (names, dtypes, shapes, in order) are the stage's. Throws naming the
// field, as manifest_from_json.
void check_stage_modules(const Manifest& m, const mlf::FileMap& files);

// The C form: `const mlip_pipeline mlipc_pipeline` and
// `const mlip_model* const mlipc_pipeline_models[]` (tvmgen_<module>_model
// of each stage).
std::string manifest_to_c(const Manifest& m);

// Where the stage's files are in the tarball ("<module>/").
std::string stage_dir(const PipeStage& s);

}  // namespace mlipc::mesh
