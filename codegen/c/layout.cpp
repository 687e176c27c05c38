#include "c/layout.h"

#include <algorithm>
#include <numeric>

#include "ops/op.h"

namespace mlipc::c {

bool layout_invariant(const Shape& shape) {
  if (shape.size() < 3) return true;
  int64_t spatial = 1;
  for (size_t i = 2; i < shape.size(); ++i) spatial *= shape[i];
  return shape[1] == 1 || spatial == 1;
}

Shape stored_shape(const Shape& shape, size_t rank, bool channels_last) {
  Shape s(rank > shape.size() ? rank - shape.size() : 0, 1);
  s.insert(s.end(), shape.begin(), shape.end());
  if (channels_last && s.size() >= 3) {
    const int64_t c = s[1];
    s.erase(s.begin() + 1);
    s.push_back(c);
  }
  return s;
}

namespace {

struct UnionFind {
  std::vector<ValueId> parent;
  explicit UnionFind(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  ValueId find(ValueId v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  }
  void unite(ValueId a, ValueId b) { parent[find(a)] = find(b); }
};

}  // namespace

std::vector<bool> plan_layouts(const Graph& g, const std::vector<KernelSpec>& specs) {
  const size_t nv = g.num_values();
  const std::vector<int> producers = g.producers();
  // `fixed`: must keep the shape's order. Values whose bytes are the same
  // either way are left out of the question altogether.
  std::vector<bool> fixed(nv, false), matters(nv, false);
  for (ValueId v = 0; v < static_cast<ValueId>(nv); ++v) {
    const Value& val = g.value(v);
    matters[v] = !layout_invariant(val.shape);
    if (val.is_constant() || producers[v] < 0 || g.is_graph_output(v)) fixed[v] = true;
  }
  for (const GraphIO& io : g.inputs) fixed[io.value] = true;
  UnionFind tied(nv);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const LayoutSupport& l = specs[i].layouts;
    auto in = [&](const std::vector<int>& list, size_t k) {
      return std::find(list.begin(), list.end(), static_cast<int>(k)) != list.end();
    };
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      const ValueId v = n.inputs[k];
      if (v == kNoValue) continue;
      if (is_view(n) || (!in(l.free, k) && !in(l.tied, k))) fixed[v] = true;
      else if (in(l.tied, k)) tied.unite(v, n.outputs[0]);
    }
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      const ValueId v = n.outputs[k];
      if (v == kNoValue) continue;
      if (is_view(n) || k > 0 || !l.output) fixed[v] = true;
    }
  }
  // A group of tied values is channels-last when none of them is fixed and
  // at least one has bytes that differ.
  std::vector<bool> group_fixed(nv, false), group_matters(nv, false);
  for (ValueId v = 0; v < static_cast<ValueId>(nv); ++v) {
    const ValueId r = tied.find(v);
    if (fixed[v] && matters[v]) group_fixed[r] = true;
    if (matters[v]) group_matters[r] = true;
  }
  std::vector<bool> cl(nv, false);
  for (ValueId v = 0; v < static_cast<ValueId>(nv); ++v) {
    const ValueId r = tied.find(v);
    cl[v] = matters[v] && !fixed[v] && !group_fixed[r] && group_matters[r] && g.value(v).shape.size() >= 3;
  }
  return cl;
}

}  // namespace mlipc::c
