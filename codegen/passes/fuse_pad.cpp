#include "passes/passes.h"

namespace mlipc::passes {

namespace {

// Spatial pads of a Pad node that only adds zeros around the spatial axes of
// an N-C-spatial tensor; empty when it does anything else.
std::vector<int64_t> zero_spatial_pads(const Graph& g, const Node& pad) {
  if (pad.attrs.get_string("mode", "constant") != "constant" || !pad.has_input(1)) return {};
  const Value& pads_v = g.value(pad.inputs[1]);
  if (!pads_v.is_constant()) return {};
  if (pad.has_input(2)) {
    const Value& cv = g.value(pad.inputs[2]);
    if (!cv.is_constant() || cv.constant->numel() != 1 || cv.constant->at(0) != 0.0) return {};
  }
  if (pad.inputs.size() > 3 && pad.has_input(3)) return {};  // opset 18 axes
  std::vector<int64_t> p = pads_v.constant->as_int64();
  const size_t rank = g.value(pad.inputs[0]).shape.size();
  if (rank < 3 || p.size() != 2 * rank) return {};
  for (int64_t v : p)
    if (v < 0) return {};
  if (p[0] || p[1] || p[rank] || p[rank + 1]) return {};  // batch and channel axes
  std::vector<int64_t> spatial;
  for (size_t i = 2; i < rank; ++i) spatial.push_back(p[i]);
  for (size_t i = 2; i < rank; ++i) spatial.push_back(p[rank + i]);
  return spatial;
}

}  // namespace

void fuse_pad(Graph& g) {
  auto consumers = g.consumers();
  auto producers = g.producers();
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& conv = g.nodes[i];
    if (conv.op != "Conv") continue;
    ValueId x = conv.inputs[0];
    int pi = producers[x];
    if (pi < 0 || dead[pi] || g.nodes[pi].op != "Pad" || consumers[x].size() != 1 || g.is_graph_output(x)) continue;
    if (conv.attrs.get_string("auto_pad", "NOTSET") != "NOTSET") continue;
    const Node& pad = g.nodes[pi];
    std::vector<int64_t> extra = zero_spatial_pads(g, pad);
    if (extra.empty()) continue;
    std::vector<int64_t> pads = conv.attrs.get_ints("pads", std::vector<int64_t>(extra.size(), 0));
    if (pads.size() != extra.size()) continue;
    for (size_t k = 0; k < pads.size(); ++k) pads[k] += extra[k];
    conv.attrs.set("pads", pads);
    conv.inputs[0] = pad.inputs[0];
    conv.origins.insert(conv.origins.begin(), pad.origins.begin(), pad.origins.end());
    dead[pi] = true;
  }
  g.erase_nodes(dead);
}

}  // namespace mlipc::passes
