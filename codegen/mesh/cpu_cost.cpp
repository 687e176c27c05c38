#include "mesh/cpu_cost.h"

#include "ops/op.h"

namespace mlipc::mesh {

uint64_t cpu_cycles(const Graph& g, const Node& n) {
  if (const uint64_t macs = node_macs(g, n)) return kCyclesPerLayer + macs * kCyclesPerMac;
  uint64_t elems = 0;
  for (const std::vector<ValueId>* list : {&n.inputs, &n.outputs})
    for (ValueId v : *list)
      if (v != kNoValue) elems += static_cast<uint64_t>(numel(g.value(v).shape));
  return kCyclesPerLayer + elems * kCyclesPerElement;
}

}  // namespace mlipc::mesh
