// The MLIP backend: every sub-graph node compiled by "mrvl" (mlip/partition.h)
// becomes a command buffer, through explicit steps (backend.cpp): lower the
// body into layers (lower.h), plan the DDR scratch, plan each layer's tiles
// and passes (plan.h), pin weights (pin.h), lay out each tile's OCM, encode
// (encoder.h), report (report.h). The node then reads the buffer as its last
// (constant) input and writes its DDR scratch as its last output, so the C
// backend emits the call and the memory planner places the scratch in the
// same arena as the CPU's tensors; the node's `compiled` is the region's
// CompiledRegion, which describes that call (ops/subgraph.h).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "mlip/partition.h"
#include "mlip/report.h"
#include "mlip/target.h"
#include "ops/subgraph.h"

namespace mlipc::mlip {

// What the backend made of one region: read by the C backend (through the
// call it describes), the driver (files, metadata.json) and the tests.
struct CompiledRegion : ops::CallableSubgraph {
  RegionReport report;
  std::vector<uint8_t> command_buffer;  // mlip/<region>.bin
  std::string nodes_json, consts_json;  // mlip/<region>-nodes.json, -consts.json
  uint32_t num_layers = 0;     // layer records in the buffer (weight loading included): the call's stats entries, and the region's
  uint64_t sim_ocm_bytes = 0;  // OCM the simulator provides: num_tiles * ocm_size
  bool hardware = false;       // -mattr=hw: the call runs on the hardware backend

  // mlip_region_run() on the command buffer (the node's last input), the
  // body's inputs and outputs and the DDR scratch (its last output):
  // templates/kernels/mlip_region.c.
  ops::SubgraphCall c_call(const Node& n) const override;
};

struct MlipResult {
  std::vector<std::shared_ptr<const CompiledRegion>> regions;  // schedule order
  std::vector<CpuNode> cpu_nodes;                              // schedule order
  std::vector<Fp16Decision> fp16_decisions;                    // Partition's
  std::map<std::string, std::string> files;                    // mlip/<region>.bin, -nodes.json, -consts.json
  // The "mlip" key of metadata.json.
  MlipReport report(const Options& options) const;
};

// `options` are valid (validate_options); `partition` is what
// mlip::partition() said about `g` before the later passes.
MlipResult lower_regions(Graph& g, const Options& options, const Partition& partition);

}  // namespace mlipc::mlip
