// CHANNEL_SLICE: a range of channels of a 4-D tensor copied into a tensor of
// its own, as DMA only (the counterpart of CONCAT): Split on the channel
// axis (one layer per output) and Slice of channels with step 1. Split
// across tiles by positions.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ops/slice.h"
#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace channel_slice_layer {

// A CHANNEL_SLICE layer's own parameters (RLayer::params): the input
// channel its output's channel 0 is.
struct SliceParams {
  int64_t channel_offset = 0;
};

// `positions` positions of `channels` channels.
uint64_t pass_bytes(int64_t positions, int64_t channels) { return ocm_round(positions * channels * kF16Bytes); }

// "" when every output of n keeps x's batch, height and width (only channels change).
std::string only_channels(const Graph& g, const Node& n) {
  const Shape& x = g.value(n.inputs[0]).shape;
  for (ValueId out : n.outputs) {
    if (out == kNoValue) continue;
    const Shape& y = g.value(out).shape;
    if (y.size() != 4 || y[0] != x[0] || y[2] != x[2] || y[3] != x[3])
      return n.op == "Split" ? "only a split of the channel axis" : "only a slice of channels";
  }
  return "";
}

// The channel form's rule; the other forms are PERMUTE layers (move_reason).
std::string channel_support(const Graph& g, const Node& n, const SupportLimits& lim) {
  if (!is_float4d(g, n.inputs[0])) return "only float32 4-D (NCHW) tensors";
  const Value& x = g.value(n.inputs[0]);
  if (x.is_constant()) return "a constant input";
  if (std::string r = batch_reason(x.shape[0]); !r.empty()) return r;
  if (std::string r = only_channels(g, n); !r.empty()) return r;
  if (n.op == "Slice") {
    if (!ops::slice_bounds_constant(g, n)) return "slice bounds computed at run time";
    const ops::SliceParams p = ops::slice_params(g, n);
    if (p.step[1] != 1) return fmt::format("a channel step of {} (only 1)", p.step[1]);
  }
  for (ValueId out : n.outputs)
    if (out != kNoValue && pass_bytes(1, g.value(out).shape[1]) > lim.work_bytes)
      return fmt::format("output '{}' has {} channels: one position does not fit the {} bytes of OCM",
                         g.value(out).name, g.value(out).shape[1], lim.work_bytes);
  return "";
}

std::string support(const Graph& g, const Node& n, const SupportLimits& lim) {
  const std::string why = channel_support(g, n, lim);
  if (why.empty()) return why;
  const std::string moved = move_reason(g, n, lim);
  return moved.empty() ? moved : why;
}

void lower(LowerContext& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  if (!channel_support(g, n, SupportLimits{target_info("cn10ka"), ~0u}).empty()) return lower_move(ctx, n);
  const int x = ctx.tensor_of(n.inputs[0]);
  int64_t first = 0;
  if (n.op == "Slice") first = ops::slice_params(g, n).start[1];
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    if (n.outputs[i] == kNoValue) fail("internal: a Split output is absent");
    {
      RLayer& l = ctx.new_layer(MLIP_LAYER_CHANNEL_SLICE, n);
      if (n.outputs.size() > 1) l.name = fmt::format("{}:{}", n.name, i);
      l.inputs = {x};
      l.params = SliceParams{first};
      l.output = ctx.output_tensor(n, i);
    }
    first += g.value(n.outputs[i]).shape[1];
  }
}

// Positions split across tiles, each tile's share in chunks that fit OCM:
// a strided DMA gathers the channel range of each position, a contiguous
// one writes the chunk.
void plan(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const int64_t first = params_of<SliceParams>(l).channel_offset;
  const RTensor& x = p.in();
  const RTensor& y = p.out();
  const int64_t P = y.n * y.h * y.w, C = x.c, Co = y.c;
  const auto parts = split_range(P, p.num_tiles());
  p.set_split(Split::Positions, parts);
  const int64_t pc = largest(P, [&](int64_t v) { return pass_bytes(v, Co) <= p.work_limit(); });
  if (pc == 0) fail("layer '{}' does not fit OCM", l.name);
  for (size_t t = 0; t < parts.size(); ++t) {
    const int tile = static_cast<int>(t);
    Ocm ocm(p.work_limit());
    const uint32_t off = ocm.take(std::min(pc, parts[t].second - parts[t].first) * Co * kF16Bytes);
    p.note_ocm(tile, ocm);
    for (int64_t p0 = parts[t].first; p0 < parts[t].second; p0 += pc) {
      const int64_t pn = std::min(pc, parts[t].second - p0);
      p.count_pass();
      p.dma_in(tile, p.binding(x), p.ddr_base(x) + (p0 * C + first) * kF16Bytes, off, pn, Co * kF16Bytes,
               C * kF16Bytes, Co * kF16Bytes);
      p.dma_out(tile, p.binding(y), p.ddr_base(y) + p0 * Co * kF16Bytes, off, pn * Co * kF16Bytes);
    }
  }
}

void json(const RLayer& l, nlohmann::json& a) { a["channel_offset"] = params_of<SliceParams>(l).channel_offset; }

}  // namespace channel_slice_layer

extern const LayerKind kChannelSlice = {MLIP_LAYER_CHANNEL_SLICE, "channel_slice", "ChannelSlice",
                                        "mrvl.channel_slice", {"Split", "Slice"}, /*fuses_activation=*/false,
                                        channel_slice_layer::support, channel_slice_layer::lower,
                                        channel_slice_layer::plan, nullptr, channel_slice_layer::json};

}  // namespace mlipc::mlip::layers
