// A BatchNormalization (constant parameters), perhaps followed by a Relu,
// that alone reads a Concat along the channel axis (DenseNet: every dense
// layer's input): one BatchNormalization (and Relu) per Concat input, on
// that input's channels, and the Concat of their results. Per channel the
// same arithmetic on the same values (the same bits); the Concat of batch 1
// then has producers of its own that write into its slices
// (memory/liveness.cpp's concat_slices), so the concatenated tensor is
// written once, normalized, instead of copied and then read again.
#include <algorithm>

#include "ops/concat.h"
#include "passes/passes.h"

namespace mlipc::passes {

namespace {

bool constant_float(const Graph& g, ValueId v) {
  return v != kNoValue && g.value(v).is_constant() && g.value(v).dtype == DType::Float32;
}

// Channels [c0, c0 + n) of a per-channel parameter.
TensorData channel_slice(const TensorData& t, int64_t c0, int64_t n) {
  TensorData s(DType::Float32, {n});
  for (int64_t i = 0; i < n; ++i) s.data<float>()[i] = t.data<float>()[c0 + i];
  return s;
}

}  // namespace

void split_concat_norm(Graph& g) {
  auto consumers = g.consumers();
  auto producers = g.producers();
  std::vector<bool> dead(g.nodes.size(), false);
  std::vector<std::pair<size_t, std::vector<Node>>> before;  // nodes to insert before node i
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& bn = g.nodes[i];
    if (bn.op != "BatchNormalization" || bn.outputs.size() != 1 || bn.inputs.size() != 5 ||
        bn.attrs.has("activation"))
      continue;
    bool params = true;
    for (int k = 1; k <= 4; ++k) params = params && constant_float(g, bn.inputs[static_cast<size_t>(k)]);
    const ValueId x = bn.inputs[0];
    const int ci = producers[x];
    if (!params || ci < 0 || dead[static_cast<size_t>(ci)] || consumers[x].size() != 1 || g.is_graph_output(x))
      continue;
    const Node& cat = g.nodes[static_cast<size_t>(ci)];
    const Shape xs = g.value(x).shape;  // a copy: adding values below moves them
    if (cat.op != "Concat" || cat.outputs.size() != 1 || xs.size() < 2 || xs[0] != 1 ||
        g.value(x).dtype != DType::Float32 || ops::concat_axis(cat.attrs, static_cast<int>(xs.size())) != 1)
      continue;
    // A Relu that alone reads the BatchNormalization moves with it.
    const ValueId b = bn.outputs[0];
    int ri = -1;
    if (consumers[b].size() == 1 && !g.is_graph_output(b)) {
      const Node& r = g.nodes[static_cast<size_t>(consumers[b][0])];
      if (r.op == "Relu" && r.inputs.size() == 1 && r.outputs.size() == 1 && !r.attrs.has("activation"))
        ri = consumers[b][0];
    }
    std::vector<Node> added;
    std::vector<ValueId> parts;
    int64_t c0 = 0;
    for (size_t k = 0; k < cat.inputs.size(); ++k) {
      const ValueId in = cat.inputs[k];
      const Shape is = g.value(in).shape;
      const int64_t n = is.size() == xs.size() ? is[1] : -1;
      if (n < 0) break;
      Node nb;
      nb.op = "BatchNormalization";
      nb.name = g.unique_name(bn.name + "_part" + std::to_string(k));
      nb.origins = bn.origins;
      nb.attrs = bn.attrs;
      nb.inputs = {in};
      for (int p = 1; p <= 4; ++p)
        nb.inputs.push_back(g.add_constant(nb.name + "_p" + std::to_string(p),
                                           channel_slice(*g.value(bn.inputs[static_cast<size_t>(p)]).constant, c0, n)));
      ValueId out = g.add_value(g.unique_name(nb.name + "_y"), DType::Float32);
      g.value(out).shape = is;
      g.value(out).shape_known = true;
      nb.outputs = {out};
      added.push_back(nb);
      if (ri >= 0) {
        const Node& r = g.nodes[static_cast<size_t>(ri)];
        Node nr;
        nr.op = "Relu";
        nr.name = g.unique_name(r.name + "_part" + std::to_string(k));
        nr.origins = r.origins;
        nr.inputs = {out};
        out = g.add_value(g.unique_name(nr.name + "_y"), DType::Float32);
        g.value(out).shape = is;
        g.value(out).shape_known = true;
        nr.outputs = {out};
        added.push_back(nr);
      }
      parts.push_back(out);
      c0 += n;
    }
    if (parts.size() != cat.inputs.size() || c0 != xs[1]) continue;
    // The Concat of the parts takes the place of the last moved node,
    // writing its output; the old Concat and the moved nodes go.
    const size_t last = ri >= 0 ? static_cast<size_t>(ri) : i;
    Node nc = cat;
    nc.name = g.unique_name(cat.name + "_normalized");
    nc.inputs = parts;
    nc.outputs = {g.nodes[last].outputs[0]};
    added.push_back(nc);
    dead[static_cast<size_t>(ci)] = true;
    dead[i] = true;
    if (ri >= 0) dead[static_cast<size_t>(ri)] = true;
    before.emplace_back(last, std::move(added));
  }
  if (before.empty()) return;
  std::sort(before.begin(), before.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Node> nodes;
  std::vector<bool> keep;
  size_t j = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (j < before.size() && before[j].first == i)
      for (Node& n : before[j++].second) nodes.push_back(std::move(n)), keep.push_back(false);
    nodes.push_back(std::move(g.nodes[i]));
    keep.push_back(dead[i]);
  }
  g.nodes = std::move(nodes);
  g.erase_nodes(keep);
}

}  // namespace mlipc::passes
