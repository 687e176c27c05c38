// Merges a constant Pad of the spatial axes into the padding of the
// convolution or pool that reads it, when the Pad adds what the node's own
// padding stands for: zeros before a float Conv, the input zero point (a
// real 0) before a QLinearConv, whose padding taps are that zero point
// (ops/conv_integer.h; the int8 CONV2D skips them likewise), and zeros
// before an AveragePool in floor mode, where every window lies inside the
// padded input and divides by the kernel's size: the merged pool counts its
// padding (count_include_pad 1), so a pool that has pads of its own must
// count them already. torch exports a padded AvgPool1d so. The driver
// runs it before passes/fold_qdq (a float Pad -> Conv) and after it (the
// integer Pad that a QDQ Pad becomes, and QOperator models' Pad ->
// QLinearConv, as TF/Keras exporters write 'same' padding).
#include <algorithm>
#include <optional>

#include "passes/passes.h"

namespace mlipc::passes {

namespace {

// The value a convolution's padding stands for: 0 for Conv, x_zero_point
// (input 2, 0 when absent) for QLinearConv; nothing for other ops or a
// zero point computed at run time.
std::optional<double> padding_value(const Graph& g, const Node& conv) {
  if (conv.op == "Conv") return 0.0;
  if (conv.op == "AveragePool") return conv.attrs.get_int("ceil_mode", 0) == 0 ? std::optional<double>(0.0) : std::nullopt;
  if (conv.op != "QLinearConv") return std::nullopt;
  if (!conv.has_input(2)) return 0.0;
  const Value& z = g.value(conv.inputs[2]);
  if (!z.is_constant() || z.constant->numel() != 1) return std::nullopt;
  return z.constant->at(0);
}

// Spatial pads of a Pad node that only adds `value` around the spatial axes
// of an N-C-spatial tensor; empty when it does anything else.
std::vector<int64_t> spatial_pads(const Graph& g, const Node& pad, double value) {
  if (pad.attrs.get_string("mode", "constant") != "constant" || !pad.has_input(1)) return {};
  const Value& pads_v = g.value(pad.inputs[1]);
  if (!pads_v.is_constant()) return {};
  double v = 0.0;  // constant_value's default
  if (pad.has_input(2)) {
    const Value& cv = g.value(pad.inputs[2]);
    if (!cv.is_constant() || cv.constant->numel() != 1) return {};
    v = cv.constant->at(0);
  }
  if (v != value) return {};
  if (pad.inputs.size() > 3 && pad.has_input(3)) return {};  // opset 18 axes
  std::vector<int64_t> p = pads_v.constant->as_int64();
  const size_t rank = g.value(pad.inputs[0]).shape.size();
  if (rank < 3 || p.size() != 2 * rank) return {};
  for (int64_t x : p)
    if (x < 0) return {};
  if (p[0] || p[1] || p[rank] || p[rank + 1]) return {};  // batch and channel axes
  std::vector<int64_t> spatial;
  for (size_t i = 2; i < rank; ++i) spatial.push_back(p[i]);
  for (size_t i = 2; i < rank; ++i) spatial.push_back(p[rank + i]);
  return spatial;
}

// A pool's pads must each stay below its (dilated) window (ops/spatial.h,
// pads_below_window): a merge that would break that rule keeps the Pad.
bool pads_below_window(const Node& pool, const std::vector<int64_t>& pads) {
  const std::vector<int64_t> kernel = pool.attrs.get_ints("kernel_shape", {});
  const std::vector<int64_t> dil = pool.attrs.get_ints("dilations", std::vector<int64_t>(kernel.size(), 1));
  if (kernel.empty() || pads.size() != 2 * kernel.size() || dil.size() != kernel.size()) return false;
  for (size_t k = 0; k < pads.size(); ++k) {
    const size_t a = k % kernel.size();
    if (pads[k] >= (kernel[a] - 1) * dil[a] + 1) return false;
  }
  return true;
}

}  // namespace

void fuse_pad(Graph& g) {
  auto consumers = g.consumers();
  auto producers = g.producers();
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& conv = g.nodes[i];
    const std::optional<double> value = padding_value(g, conv);
    if (!value) continue;
    ValueId x = conv.inputs[0];
    int pi = producers[x];
    if (pi < 0 || dead[pi] || g.nodes[pi].op != "Pad" || consumers[x].size() != 1 || g.is_graph_output(x)) continue;
    if (conv.attrs.get_string("auto_pad", "NOTSET") != "NOTSET") continue;
    const Node& pad = g.nodes[pi];
    std::vector<int64_t> extra = spatial_pads(g, pad, *value);
    if (extra.empty()) continue;
    std::vector<int64_t> pads = conv.attrs.get_ints("pads", std::vector<int64_t>(extra.size(), 0));
    if (pads.size() != extra.size()) continue;
    const bool pool = conv.op == "AveragePool";
    if (pool && conv.attrs.get_int("count_include_pad", 0) == 0 &&
        std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; }))
      continue;
    for (size_t k = 0; k < pads.size(); ++k) pads[k] += extra[k];
    if (pool && !pads_below_window(conv, pads)) continue;
    conv.attrs.set("pads", pads);
    if (pool) conv.attrs.set("count_include_pad", int64_t{1});
    conv.inputs[0] = pad.inputs[0];
    conv.origins.insert(conv.origins.begin(), pad.origins.begin(), pad.origins.end());
    dead[pi] = true;
  }
  g.erase_nodes(dead);
}

}  // namespace mlipc::passes
