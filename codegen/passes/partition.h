// Partitioning for the MLIP accelerator: annotate which nodes the
// accelerator supports (with the reason when it does not), form composites
// (conv/fc/add with their activation, flatten feeding fc), and merge
// supported nodes into connected, acyclic regions named
// tvmgen_mrvl_main_<k>, each replaced by one "mlip.Region" node whose body
// is the sub-graph. Any number of MLIP and CPU regions may interleave.
#pragma once

#include <string>

#include "ir/graph.h"

namespace mlipc::passes {

// What the target supports (filled from the MLIP target table by the driver).
struct PartitionCaps {
  std::string mcpu = "cn10ka";
  int max_kernel = 16;        // largest kernel side
  int max_stride = 8;
  bool dilation = true;
  int64_t max_batch = 8;      // images per layer (as TVM's Marvell integration)
  int64_t ocm_work_bytes = 1 << 20;  // OCM a layer may use per tile
};

// The reason a node stays on the CPU is kept in its attribute "mlip_reason".
void partition(Graph& g, const PartitionCaps& caps);

// "" when the accelerator can run `n` (as its own layer or fused into its
// producer); otherwise why not. Exposed for tests and `mlipc inspect`.
std::string mlip_unsupported_reason(const Graph& g, const Node& n, const PartitionCaps& caps);

}  // namespace mlipc::passes
