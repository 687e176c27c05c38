#include "mesh/stage_figures.h"

#include <fmt/format.h>

#include "mesh/cpu_cost.h"
#include "mlip/backend.h"

namespace mlipc::mesh {

uint64_t model_cycles(const driver::CompileResult& r) {
  uint64_t cycles = 0;
  for (const c::Layer& l : r.module.layers) {
    const Node& n = r.graph.nodes[static_cast<size_t>(l.node)];
    if (const auto* region = dynamic_cast<const mlip::CompiledRegion*>(n.compiled.get()))
      cycles += region->report.est_cycles;
    else
      cycles += cpu_cycles(r.graph, n);
  }
  return cycles;
}

StageMemory model_memory(const driver::CompileResult& r) {
  StageMemory m;
  m.workspace = r.module.workspace_size;
  m.constants = r.module.constants_size;
  for (const auto* list : {&r.module.inputs, &r.module.outputs})
    for (const c::IoInfo& io : *list) m.io += io.size_bytes;
  m.runtime = kRuntimeBytes;
  return m;
}

std::set<std::string> mlip_origins(const driver::CompileResult& r) {
  std::set<std::string> s;
  for (const auto& region : r.mlip.regions)
    for (const mlip::LayerReport& l : region->report.layers) s.insert(l.origins.begin(), l.origins.end());
  return s;
}

std::vector<std::string> layer_lines(const driver::CompileResult& r) {
  std::vector<std::string> lines;
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  for (const c::Layer& l : r.module.layers) {
    const Node& n = r.graph.nodes[static_cast<size_t>(l.node)];
    if (const auto* region = dynamic_cast<const mlip::CompiledRegion*>(n.compiled.get())) {
      for (const mlip::LayerReport& lr : region->report.layers)
        lines.push_back(fmt::format("mlip {} {} cycles: {}", lr.kind, lr.est_cycles,
                                    lr.origins.empty() ? "(region border)" : join(lr.origins)));
      continue;
    }
    lines.push_back(fmt::format("cpu {} {} cycles: {}", l.op, cpu_cycles(r.graph, n), join(l.origins)));
  }
  return lines;
}

}  // namespace mlipc::mesh
