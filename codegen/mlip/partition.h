// Partitioning for the MLIP: the nodes select_nodes() (support.h) chooses
// become sub-graphs compiled by "mrvl" (passes/partition.h), named
// tvmgen_mrvl_main_<k> as TVM's Marvell integration names them; the rest
// stays on the CPU, each node with the reason.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "mlip/report.h"
#include "mlip/target.h"

namespace mlipc::mlip {

// The compiler name on the sub-graphs the MLIP backend compiles.
constexpr const char* kCompiler = "mrvl";

struct Partition {
  std::map<std::string, std::string> cpu_reasons;  // node name -> why it stays on the CPU
  // The nodes whose fp16 form would change their meaning, and what was done
  // (select_nodes' decisions, the folds only where the node stayed chosen).
  std::vector<Fp16Decision> fp16_decisions;
};

Partition partition(Graph& g, const Options& options);

}  // namespace mlipc::mlip
