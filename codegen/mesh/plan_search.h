// The search for the stages (docs/mesh.md, steps 6 and 7): the estimate's
// plan (pe_partition.h) is made again until its compiled stages keep the
// whole model's MLIP layers and fit the memory limit; then the compiled
// figures settle the cuts, a boundary moving by one layer while that makes
// the slowest compiled stage faster.
#pragma once

#include "mesh/pe_partition.h"
#include "mesh/stage_compiler.h"

namespace mlipc::mesh {

struct ChosenPlan {
  Plan plan;
  CompiledPlan compiled;
};

// The first plan whose compiled stages pass StageCompiler's checks. A cut
// that moves a layer to the CPU is forbidden in `request` (so that
// settle_cuts does not try it either); a stage over the limit makes the
// next plan keep the shortfall in reserve. `pes` and `pe_memory` are the
// user's, for the messages.
ChosenPlan first_plan(Request& request, StageCompiler& stages, int pes, uint64_t pe_memory);

// Moves each boundary of `chosen` by one layer, either way, while that makes
// the slowest compiled stage faster and every stage still passes the checks.
void settle_cuts(const Request& request, StageCompiler& stages, ChosenPlan& chosen);

}  // namespace mlipc::mesh
