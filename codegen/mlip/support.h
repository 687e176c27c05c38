// Which nodes of a graph the MLIP takes, and why the others stay on the CPU
// (as Vela's constraint table, ExecuTorch's per-operator support checks):
// each ONNX operator that becomes a layer has its kind's rule
// (layers/<kind>.cpp, sized by the planner's own OCM formula);
// activations (activation.h) ride on the layer before them; a flatten (and a
// transpose to NHWC before it) rides on the dense layers after it; the
// three nodes of a channel shuffle are one layer, chosen together; a node
// with a tensor of no elements, or a tensor too wide to convert at a region
// border, stays on the CPU.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "mlip/target.h"

namespace mlipc::mlip {

struct Selection {
  std::vector<bool> chosen;         // per node: runs on the MLIP
  std::vector<bool> layer;          // per node: a layer of its own (the others ride on one)
  std::vector<std::string> reason;  // per node not chosen: why
};

Selection select_nodes(const Graph& g, const Options& options);

// "" when the MLIP can run `n` as far as `n` alone decides (a layer whose
// kind's rule holds; an activation or view, which its neighbours decide);
// otherwise why not, in one line without the node's name.
std::string unsupported_reason(const Graph& g, const Node& n, const Options& options);

}  // namespace mlipc::mlip
