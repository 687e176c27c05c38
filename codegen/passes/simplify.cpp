#include "passes/passes.h"

namespace mlipc::passes {

namespace {

// A Pad that adds nothing: its pads (the input since opset 11, the
// attribute before) a constant of zeros. torch exports one before every
// AvgPool1d and avg_pool1d; it would cost a copy, and on "mrvl, c" split
// an MLIP region (Pad has no MLIP layer).
bool pads_nothing(const Graph& g, const Node& n) {
  if (n.op != "Pad") return false;
  std::vector<int64_t> pads;
  if (n.has_input(1)) {
    const Value& p = g.value(n.inputs[1]);
    if (!p.is_constant()) return false;
    pads = p.constant->as_int64();
  } else {
    pads = n.attrs.get_ints("pads", {});
  }
  for (int64_t x : pads)
    if (x != 0) return false;
  return true;
}

}  // namespace

void simplify(Graph& g) {
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    if (n.op != "Identity" && n.op != "Dropout" && !pads_nothing(g, n)) continue;
    // The Dropout shape rule already refused training mode, so all three are the identity here.
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
