#include <set>

#include "ops/op.h"
#include "passes/passes.h"

namespace mlipc::passes {

void materialize_outputs(Graph& g) {
  auto producers = g.producers();
  // The value whose bytes a value shares: through view ops back to a
  // computing node, a graph input or a constant.
  auto root = [&](ValueId v) {
    for (;;) {
      int p = producers[v];
      if (p < 0 || !is_view(g.nodes[p])) return v;
      v = g.nodes[p].inputs[0];
    }
  };
  std::set<ValueId> claimed;
  for (GraphIO& o : g.outputs) {
    ValueId r = root(o.value);
    bool computed = producers[r] >= 0 && !g.value(r).is_constant();
    if (computed && !g.is_graph_input(r) && claimed.insert(r).second) continue;
    Node copy;
    copy.op = "Identity";
    copy.name = g.unique_name(o.name + "_copy");
    copy.origins.push_back("copy to graph output '" + o.name + "'");
    copy.inputs = {o.value};
    ValueId out = g.add_value(g.unique_name(o.name + "_out"), g.value(o.value).dtype);
    g.value(out).shape = g.value(o.value).shape;
    g.value(out).shape_known = true;
    copy.outputs = {out};
    g.nodes.push_back(std::move(copy));
    producers.push_back(static_cast<int>(g.nodes.size()) - 1);  // for `out`
    o.value = out;
    claimed.insert(out);
  }
}

}  // namespace mlipc::passes
