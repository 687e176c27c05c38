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
#include "mlip/report.h"
#include "mlip/target.h"

namespace mlipc::mlip {

struct Selection {
  std::vector<bool> chosen;         // per node: runs on the MLIP
  std::vector<bool> layer;          // per node: a layer of its own (the others ride on one)
  std::vector<std::string> reason;  // per node not chosen: why
  // The nodes whose fp16 form would change their meaning (a constant
  // binary16 cannot hold) and what was decided, by node index, in schedule order.
  std::vector<std::pair<int, Fp16Decision>> fp16;
};

// Fp16Decision::decision's values.
inline constexpr const char* kGuardFolded = "guard folded";
inline constexpr const char* kEpsilonFolded = "epsilon folded";
inline constexpr const char* kKeptInFloat = "kept on the CPU in float";

Selection select_nodes(const Graph& g, const Options& options);

// "" when the MLIP can run `n` as far as `n` alone decides (a layer whose
// kind's rule holds; an activation or view, which its neighbours decide);
// otherwise why not, in one line without the node's name.
std::string unsupported_reason(const Graph& g, const Node& n, const Options& options);

}  // namespace mlipc::mlip
