#include "mlip/pin.h"

namespace mlipc::mlip {

Pinning pin_weights(const PlanContext& ctx, std::vector<LayerPlan>& plans, bool wb_pin_ocm, uint32_t capacity) {
  const LoweredRegion& r = ctx.region;
  const int num_layers = static_cast<int>(r.layers.size());
  Pinning pin;
  pin.used.assign(static_cast<size_t>(ctx.num_tiles), 0);
  for (int i = 0; i < num_layers; ++i) {
    const RLayer& l = r.layers[static_cast<size_t>(i)];
    if (!l.has_weights()) continue;
    if (!wb_pin_ocm) {
      pin.streamed.push_back(l.name);
      continue;
    }
    // Each tile's slice goes after what it pinned so far: weights, then bias.
    PinnedWeights pw;
    pw.weight_rel.assign(static_cast<size_t>(ctx.num_tiles), -1);
    pw.bias_rel.assign(static_cast<size_t>(ctx.num_tiles), -1);
    std::vector<uint32_t> used = pin.used;
    bool fits = true;
    const LayerPlan& streamed_plan = plans[static_cast<size_t>(i)];
    for (int tile = 0; tile < static_cast<int>(streamed_plan.split.ranges.size()); ++tile) {
      const WeightSlice s = weight_slice(ctx, i, streamed_plan, tile);
      const uint64_t need = ocm_round(s.w_bytes) + ocm_round(s.b_bytes);
      if (used[tile] + need > capacity) fits = false;
      pw.weight_rel[tile] = used[tile];
      pw.bias_rel[tile] = used[tile] + ocm_round(s.w_bytes);
      used[tile] += static_cast<uint32_t>(need);
    }
    std::optional<LayerPlan> pinned_plan;
    if (fits) pinned_plan = plan_layer_pinned(ctx, i, streamed_plan.split.how, pw);
    if (!pinned_plan) {
      pin.streamed.push_back(l.name);
      continue;
    }
    pin.used = used;
    plans[static_cast<size_t>(i)] = std::move(*pinned_plan);
    pin.pinned.push_back(l.name);
    const LayerPlan& plan = plans[static_cast<size_t>(i)];
    for (int tile = 0; tile < static_cast<int>(plan.split.ranges.size()); ++tile) {
      const WeightSlice s = weight_slice(ctx, i, plan, tile);
      for (int part = 0; part < 2; ++part) {
        const int64_t off = part ? s.b_off : s.w_off, bytes = part ? s.b_bytes : s.w_bytes;
        const int64_t rel = part ? pw.bias_rel[tile] : pw.weight_rel[tile];
        if (bytes == 0) continue;
        mlip_dma_args a{};
        a.binding = weights_binding(r);
        a.ddr_offset = u32(off);
        a.ocm_offset = u32(rel);  // relative to the pinned range: a PIN field
        a.rows = 1;
        a.row_bytes = u32(bytes);
        a.ddr_stride = u32(bytes);
        a.ocm_stride = u32(bytes);
        // The load_weights layer follows the model's.
        pin.load.push_back(make_command(MLIP_OP_DMA_IN, tile, num_layers, a, /*pinned=*/true));
        pin.pinned_bytes += static_cast<uint64_t>(bytes);
      }
    }
  }
  return pin;
}

}  // namespace mlipc::mlip
