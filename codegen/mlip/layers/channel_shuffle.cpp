// CHANNEL_SHUFFLE: ShuffleNet's channel shuffle, exported as Reshape
// [N, C, H, W] -> [N, g, C/g, H, W], Transpose (0, 2, 1, 3, 4), Reshape back
// to [N, C, H, W]. In NHWC it is, at every position, the transpose of the
// channels as a [g][C/g] matrix: one LAYOUT command per chunk of positions.
// No ONNX operator maps to it alone: the selection recognizes the three
// nodes (shuffle_at), the lowering makes the layer at the last one. Split
// across tiles by positions.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace channel_shuffle_layer {

// A CHANNEL_SHUFFLE layer's own parameters (RLayer::params): its groups.
struct ShuffleParams {
  int64_t groups = 1;
};

// The pattern starting at reshape node r, or nullopt.
std::optional<Shuffle> shuffle_from(const Graph& g, const std::vector<std::vector<int>>& consumers, int r) {
  const Node& a = g.nodes[static_cast<size_t>(r)];
  if (a.op != "Reshape" || !is_float4d(g, a.inputs[0])) return std::nullopt;
  const Shape& x = g.value(a.inputs[0]).shape;
  const Shape& s5 = g.value(a.outputs[0]).shape;
  if (s5.size() != 5 || s5[0] != x[0] || s5[1] < 1 || s5[1] * s5[2] != x[1] || s5[3] != x[2] || s5[4] != x[3])
    return std::nullopt;
  const int t = only_consumer(g, consumers, a.outputs[0]);
  if (t < 0) return std::nullopt;
  const Node& tn = g.nodes[static_cast<size_t>(t)];
  if (tn.op != "Transpose" || tn.attrs.get_ints("perm", {}) != std::vector<int64_t>{0, 2, 1, 3, 4}) return std::nullopt;
  const int b = only_consumer(g, consumers, tn.outputs[0]);
  if (b < 0) return std::nullopt;
  const Node& bn = g.nodes[static_cast<size_t>(b)];
  if (bn.op != "Reshape" || g.value(bn.outputs[0]).shape != x) return std::nullopt;
  return Shuffle{r, t, b, s5[1]};
}

// The buffers of `positions` positions of C channels: in and out.
uint64_t pass_bytes(int64_t positions, int64_t channels) { return 2 * ocm_round(positions * channels * kF16Bytes); }

}  // namespace channel_shuffle_layer

std::optional<Shuffle> shuffle_at(const Graph& g, const std::vector<std::vector<int>>& consumers,
                                  const std::vector<int>& producers, int node) {
  const Node& n = g.nodes[static_cast<size_t>(node)];
  int r = node;
  if (n.inputs.empty() || n.inputs[0] == kNoValue) return std::nullopt;
  if (n.op == "Transpose") {
    r = producers[n.inputs[0]];
  } else if (n.op == "Reshape" && g.value(n.inputs[0]).shape.size() == 5) {
    const int t = producers[n.inputs[0]];  // the pattern's Transpose, if any
    const Node* tn = t >= 0 ? &g.nodes[static_cast<size_t>(t)] : nullptr;
    r = tn && tn->op == "Transpose" && !tn->inputs.empty() ? producers[tn->inputs[0]] : -1;
  } else if (n.op != "Reshape") {
    return std::nullopt;
  }
  if (r < 0) return std::nullopt;
  std::optional<Shuffle> s = channel_shuffle_layer::shuffle_from(g, consumers, r);
  if (s && s->reshape != node && s->transpose != node && s->reshape_back != node) return std::nullopt;
  return s;
}

std::string shuffle_reason(const Graph& g, const Shuffle& s, const SupportLimits& lim) {
  const Shape& x = g.value(g.nodes[static_cast<size_t>(s.reshape)].inputs[0]).shape;
  if (std::string r = batch_reason(x[0]); !r.empty()) return r;
  if (channel_shuffle_layer::pass_bytes(1, x[1]) > lim.work_bytes)
    return fmt::format("{} channels: one position does not fit the {} bytes of OCM", x[1], lim.work_bytes);
  return "";
}

void lower_shuffle(LowerContext& ctx, const Shuffle& s) {
  const Graph& g = ctx.graph();
  const Node& last = g.nodes[static_cast<size_t>(s.reshape_back)];
  const int in_t = ctx.tensor_of(g.nodes[static_cast<size_t>(s.reshape)].inputs[0]);  // before the layer
  RLayer& l = ctx.new_layer(MLIP_LAYER_CHANNEL_SHUFFLE, last);
  l.name = g.nodes[static_cast<size_t>(s.reshape)].name;
  l.origins.clear();
  for (int i : {s.reshape, s.transpose, s.reshape_back}) {
    const auto& o = g.nodes[static_cast<size_t>(i)].origins;
    l.origins.insert(l.origins.end(), o.begin(), o.end());
  }
  l.inputs = {in_t};
  l.params = channel_shuffle_layer::ShuffleParams{s.groups};
  l.output = ctx.output_tensor(last);
}

namespace channel_shuffle_layer {

// Positions split across tiles, each tile's share in chunks that fit OCM:
// DMA in, LAYOUT [positions][g][C/g] -> [positions][C/g][g], DMA out.
void plan(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const int64_t groups = params_of<ShuffleParams>(l).groups;
  const RTensor& x = p.in();
  const RTensor& y = p.out();
  const int64_t P = y.n * y.h * y.w, C = y.c;
  const auto parts = split_range(P, p.num_tiles());
  p.set_split(Split::Positions, parts);
  const int64_t pc = largest(P, [&](int64_t v) { return pass_bytes(v, C) <= p.work_limit(); });
  if (pc == 0) fail("layer '{}' does not fit OCM", l.name);
  for (size_t t = 0; t < parts.size(); ++t) {
    const int tile = static_cast<int>(t);
    Ocm ocm(p.work_limit());
    const int64_t n = std::min(pc, parts[t].second - parts[t].first);
    const uint32_t in_off = ocm.take(n * C * kF16Bytes), out_off = ocm.take(n * C * kF16Bytes);
    p.note_ocm(tile, ocm);
    for (int64_t p0 = parts[t].first; p0 < parts[t].second; p0 += pc) {
      const int64_t pn = std::min(pc, parts[t].second - p0);
      p.count_pass();
      p.dma_in(tile, p.binding(x), p.ddr_base(x) + p0 * C * kF16Bytes, in_off, pn * C * kF16Bytes);
      mlip_layout_args a{};
      a.src = in_off;
      a.dst = out_off;
      a.outer = u32(pn);
      a.a = u32(groups);
      a.b = u32(C / groups);
      a.elem_bytes = u32(kF16Bytes);
      p.emit(MLIP_OP_LAYOUT, tile, a);
      p.dma_out(tile, p.binding(y), p.ddr_base(y) + p0 * C * kF16Bytes, out_off, pn * C * kF16Bytes);
    }
  }
}

void json(const RLayer& l, nlohmann::json& a) { a["groups"] = params_of<ShuffleParams>(l).groups; }

}  // namespace channel_shuffle_layer

extern const LayerKind kChannelShuffle = {MLIP_LAYER_CHANNEL_SHUFFLE, "channel_shuffle", "ChannelShuffle",
                                          "mrvl.channel_shuffle", {}, /*fuses_activation=*/false,
                                          nullptr, nullptr, channel_shuffle_layer::plan, nullptr,
                                          channel_shuffle_layer::json};

}  // namespace mlipc::mlip::layers
