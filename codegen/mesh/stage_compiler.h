// Compiles the stages of a plan (pe_partition.h) into modules of their own
// and checks them against the whole model: the same ONNX nodes on the MLIP
// (a stage piece whose layers fell back to the CPU would compute other
// bits), and every stage within the memory limit. A stage's graph depends
// only on its units, so each (stage, units) is compiled once, whatever else
// the search tries.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "driver/compile.h"
#include "mesh/manifest.h"
#include "mesh/units.h"

namespace mlipc::mesh {

// A plan's stages, compiled.
struct CompiledPlan {
  std::vector<std::shared_ptr<const driver::CompileResult>> stages;
  std::vector<PipeTensor> tensors;
  int bad_unit = -1;  // a unit whose layers left the MLIP
  uint64_t over = 0;  // bytes the largest stage needs beyond the limit
  uint64_t slowest = 0;
};

class StageCompiler {
 public:
  // prepared: the model after the target-independent passes (model.pre is
  // its graph); whole: it compiled as one module.
  StageCompiler(const driver::CompileResult& prepared, const driver::CompileResult& whole, const Model& model,
                const driver::CompileOptions& options, uint64_t pe_memory);

  CompiledPlan compile(const Plan& plan);

 private:
  const driver::CompileResult& prepared_;
  const Model& model_;
  const driver::CompileOptions& options_;
  uint64_t pe_memory_;
  std::set<std::string> whole_mlip_;  // ONNX nodes the whole model runs on the MLIP
  std::map<std::tuple<size_t, size_t, size_t>, std::shared_ptr<const driver::CompileResult>> compiled_;
};

}  // namespace mlipc::mesh
