#include "mesh/plan_search.h"

#include "support/error.h"

namespace mlipc::mesh {

ChosenPlan first_plan(Request& request, StageCompiler& stages, int pes, uint64_t pe_memory) {
  ChosenPlan chosen;
  uint64_t margin = 0;  // what compiled stages needed beyond the estimate
  for (int attempt = 0;; ++attempt) {
    if (attempt == 8) fail("internal: --pes {}: no split of the model compiles as estimated", pes);
    Request r = request;
    if (r.memory_limit) r.memory_limit = r.memory_limit > margin ? r.memory_limit - margin : 1;
    try {
      chosen.plan = partition_pes(r);
    } catch (const Error&) {
      if (margin == 0) throw;
      fail("--pe-memory {}: the model does not fit on {} PE(s) of {} bytes once its stages are compiled; raise "
           "--pe-memory or --pes",
           pe_memory, pes, pe_memory);
    }
    chosen.compiled = stages.compile(chosen.plan);
    if (chosen.compiled.bad_unit >= 0) {  // a cut that moves a layer to the CPU is not taken
      const size_t u = static_cast<size_t>(chosen.compiled.bad_unit);
      if (u > 0) request.units[u - 1].cut_after = false;
      request.units[u].cut_after = false;
      continue;
    }
    if (chosen.compiled.over) {
      margin += chosen.compiled.over;
      continue;
    }
    return chosen;
  }
}

void settle_cuts(const Request& request, StageCompiler& stages, ChosenPlan& chosen) {
  Plan& plan = chosen.plan;
  for (bool improved = true; improved;) {
    improved = false;
    for (size_t b = 0; b + 1 < plan.stages.size() && !improved; ++b)
      for (int delta : {-1, 1}) {
        const size_t last = plan.stages[b].last + static_cast<size_t>(delta);
        if (delta < 0 && plan.stages[b].last == plan.stages[b].first) continue;
        if (last >= plan.stages[b + 1].last || !request.units[last].cut_after) continue;
        Plan next = plan;
        next.stages[b].last = last;
        next.stages[b + 1].first = last + 1;
        CompiledPlan t = stages.compile(next);
        if (t.bad_unit >= 0 || t.over || t.slowest >= chosen.compiled.slowest) continue;
        plan = next;
        chosen.compiled = std::move(t);
        improved = true;
        break;
      }
  }
}

}  // namespace mlipc::mesh
