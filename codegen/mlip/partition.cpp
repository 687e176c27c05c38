#include "mlip/partition.h"

#include "mlip/support.h"
#include "passes/partition.h"

namespace mlipc::mlip {

Partition partition(Graph& g, const Options& options) {
  // Whether an int8 build has a quantized model is the driver's check, made
  // once on the whole model (driver/quantization.cpp): `g` may be one stage
  // of a pipeline (codegen/mesh), whose nodes may all be float.
  Selection s = select_nodes(g, options);
  std::vector<std::string> names;
  for (const Node& n : g.nodes) names.push_back(n.name);
  const std::vector<int> left_out = passes::partition(g, {s.chosen, s.layer, kCompiler, "tvmgen_mrvl_main_"});
  for (int i : left_out) {
    s.chosen[static_cast<size_t>(i)] = false;
    s.reason[static_cast<size_t>(i)] = "no accelerated layer next to it";
  }
  Partition p;
  for (size_t i = 0; i < names.size(); ++i)
    if (!s.chosen[i]) p.cpu_reasons[names[i]] = s.reason[i];
  // A fold holds only where its node stayed on the MLIP; a node left out
  // with its Div computes its guard on the CPU in fp32, as written.
  for (const auto& [node, d] : s.fp16)
    if (s.chosen[static_cast<size_t>(node)] || d.decision == kKeptInFloat) p.fp16_decisions.push_back(d);
  return p;
}

}  // namespace mlipc::mlip
