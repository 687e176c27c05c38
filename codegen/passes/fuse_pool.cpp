// Conv -> MaxPool -> one Conv computing the pooled tensor (passes.h): the
// C kernel keeps the few convolution rows the pool's window spans in a
// scratch buffer, so the convolution's output never exists.
#include "ops/conv.h"
#include "passes/passes.h"

namespace mlipc::passes {

void fuse_pool(Graph& g) {
  const auto consumers = g.consumers();
  const auto producers = g.producers();
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t pi = 0; pi < g.nodes.size(); ++pi) {
    const Node& pool = g.nodes[pi];
    if (pool.op != "MaxPool" || pool.outputs.size() != 1 || pool.inputs.size() != 1) continue;
    const ValueId c = pool.inputs[0];
    const int ci = producers[c];
    if (ci < 0 || dead[static_cast<size_t>(ci)] || consumers[c].size() != 1 || g.is_graph_output(c)) continue;
    Node& conv = g.nodes[static_cast<size_t>(ci)];
    // The tiled kernel's case: 2-D, one group, constant weights and bias,
    // no residual, no pool already.
    if (conv.op != "Conv" || conv.outputs.size() != 1 || conv.inputs.size() > 3 || g.value(c).shape.size() != 4 ||
        g.value(c).dtype != DType::Float32 || conv.attrs.get_int("group", 1) != 1 || ops::has_fused_pool(conv.attrs))
      continue;
    bool constant = g.value(conv.inputs[1]).is_constant();
    if (conv.has_input(2)) constant = constant && g.value(conv.inputs[2]).is_constant();
    if (!constant) continue;
    ops::set_fused_pool(conv.attrs, pool.attrs);
    conv.outputs = pool.outputs;
    conv.origins.insert(conv.origins.end(), pool.origins.begin(), pool.origins.end());
    dead[pi] = true;
  }
  g.erase_nodes(dead);
}

}  // namespace mlipc::passes
