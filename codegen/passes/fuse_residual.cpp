// Conv + Add(conv, r) -> Conv with residual r (passes.h). The Conv moves to
// the Add's place in the schedule: every input of both is computed by then.
#include "ops/activation.h"
#include "passes/passes.h"

namespace mlipc::passes {

void fuse_residual(Graph& g) {
  const auto consumers = g.consumers();
  const auto producers = g.producers();
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t ai = 0; ai < g.nodes.size(); ++ai) {
    const Node& add = g.nodes[ai];
    if (add.op != "Add" || add.inputs.size() != 2 || add.outputs.size() != 1) continue;
    const Value& y = g.value(add.outputs[0]);
    if (y.dtype != DType::Float32 || add.inputs[0] == add.inputs[1]) continue;
    // The later-scheduled of the Add's Conv inputs; the other input is r.
    int best = -1, best_k = -1;
    for (int k = 0; k < 2; ++k) {
      const ValueId c = add.inputs[static_cast<size_t>(k)], r = add.inputs[static_cast<size_t>(1 - k)];
      const int pc = producers[c];
      if (pc < 0 || dead[static_cast<size_t>(pc)]) continue;
      const Node& conv = g.nodes[static_cast<size_t>(pc)];
      if (conv.op != "Conv" || conv.outputs.size() != 1 || conv.inputs.size() > 3 || conv.attrs.has("activation"))
        continue;
      if (consumers[c].size() != 1 || g.is_graph_output(c)) continue;
      if (g.value(c).shape != y.shape || g.value(r).shape != y.shape || g.value(r).dtype != DType::Float32) continue;
      if (pc > best) best = pc, best_k = k;
    }
    if (best < 0) continue;
    Node fused = g.nodes[static_cast<size_t>(best)];
    fused.inputs.resize(3, kNoValue);
    fused.inputs.push_back(add.inputs[static_cast<size_t>(1 - best_k)]);
    fused.attrs.set("mlipc_residual", int64_t{1});
    if (activation_of(add.attrs).kind != Activation::None) set_activation(fused.attrs, activation_of(add.attrs));
    fused.outputs = add.outputs;
    fused.origins.insert(fused.origins.end(), add.origins.begin(), add.origins.end());
    g.nodes[ai] = std::move(fused);
    dead[static_cast<size_t>(best)] = true;
  }
  g.erase_nodes(dead);
}

}  // namespace mlipc::passes
