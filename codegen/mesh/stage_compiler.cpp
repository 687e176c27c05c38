#include "mesh/stage_compiler.h"

#include <algorithm>

#include <fmt/format.h>

#include "mesh/stage_figures.h"
#include "mesh/stage_graph.h"
#include "support/error.h"

namespace mlipc::mesh {

StageCompiler::StageCompiler(const driver::CompileResult& prepared, const driver::CompileResult& whole,
                             const Model& model, const driver::CompileOptions& options, uint64_t pe_memory)
    : prepared_(prepared), model_(model), options_(options), pe_memory_(pe_memory), whole_mlip_(mlip_origins(whole)) {}

CompiledPlan StageCompiler::compile(const Plan& plan) {
  CompiledPlan tried;
  std::vector<int> unit_stage(model_.units.size());
  for (size_t s = 0; s < plan.stages.size(); ++s)
    for (size_t u = plan.stages[s].first; u <= plan.stages[s].last; ++u) unit_stage[u] = static_cast<int>(s);
  const std::vector<int> st = node_stages(prepared_.graph, model_.node_unit, unit_stage);
  if (st.empty()) fail("internal: --pes: the stages' order contradicts the graph's");
  // A stage of no node would be a module the runtime refuses: never written.
  for (size_t s = 0; s < plan.stages.size(); ++s)
    if (std::find(st.begin(), st.end(), static_cast<int>(s)) == st.end())
      fail("internal: --pes: stage {} (units {} to {}) holds no node of the model", s, plan.stages[s].first,
           plan.stages[s].last);
  std::vector<ValueId> values;
  tried.tensors = pipe_tensors(prepared_.graph, st, values);
  std::set<std::string> staged_mlip;
  for (size_t s = 0; s < plan.stages.size(); ++s) {
    auto& slot = compiled_[{s, plan.stages[s].first, plan.stages[s].last}];
    if (!slot) {
      driver::CompileOptions so = options_;
      so.codegen.module_name = fmt::format("{}_stage{}", options_.codegen.module_name, s);
      auto sr = std::make_shared<driver::CompileResult>(prepared_);
      sr->graph = stage_graph(prepared_.graph, st, static_cast<int>(s), tried.tensors, values);
      driver::compile_graph(*sr, so);
      slot = sr;
    }
    for (const std::string& o : mlip_origins(*slot)) staged_mlip.insert(o);
    const uint64_t total = model_memory(*slot).total();
    if (pe_memory_ && total > pe_memory_) tried.over = std::max(tried.over, total - pe_memory_);
    tried.slowest = std::max(tried.slowest, model_cycles(*slot));
    tried.stages.push_back(slot);
  }
  // The same layers on the MLIP as in the whole model (so the same bits).
  for (size_t u = 0; u < model_.units.size() && tried.bad_unit < 0; ++u)
    for (const std::string& o : model_.units[u].origins)
      if (whole_mlip_.count(o) != staged_mlip.count(o)) tried.bad_unit = static_cast<int>(u);
  return tried;
}

}  // namespace mlipc::mesh
