#include "passes/passes.h"

namespace mlipc::passes {

void simplify(Graph& g) {
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    if (n.op != "Identity" && n.op != "Dropout") continue;
    // The Dropout shape rule already refused training mode, so both are the identity here.
    ValueId in = n.inputs[0];
    ValueId out = n.outputs[0];
    g.replace_uses(out, in);
    for (GraphIO& o : g.outputs)
      if (o.value == out) o.value = in;
    if (n.op == "Dropout" && n.outputs.size() > 1 && n.outputs[1] != kNoValue) {
      ValueId mask = n.outputs[1];
      TensorData ones(DType::Bool, g.value(in).shape);
      for (int64_t k = 0; k < ones.numel(); ++k) ones.raw()[k] = 1;
      g.set_constant(mask, std::move(ones));
    }
    dead[i] = true;
  }
  g.erase_nodes(dead);
}

}  // namespace mlipc::passes
