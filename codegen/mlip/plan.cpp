#include "mlip/plan.h"

#include <algorithm>
#include <climits>

#include <fmt/format.h>

#include "mlip/cycles.h"
#include "mlip/layer_kind.h"
#include "support/error.h"

namespace mlipc::mlip {

const char* split_name(Split s) {
  switch (s) {
    case Split::Rows: return "rows";
    case Split::Channels: return "channels";
    case Split::Elements: return "elements";
    case Split::Positions: return "positions";
  }
  return "?";
}

std::vector<std::pair<int64_t, int64_t>> split_range(int64_t n, int parts, int64_t granule) {
  std::vector<std::pair<int64_t, int64_t>> r;
  int64_t units = (n + granule - 1) / granule;
  int64_t p = std::min<int64_t>(parts, std::max<int64_t>(units, 1));
  for (int64_t i = 0; i < p; ++i) {
    int64_t b = units * i / p * granule, e = std::min(n, units * (i + 1) / p * granule);
    if (e > b) r.emplace_back(b, e);
  }
  return r;
}

int64_t largest(int64_t hi, const std::function<bool(int64_t)>& fits) {
  if (hi < 1 || !fits(1)) return 0;
  int64_t lo = 1;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

uint32_t u32(int64_t v) {
  if (v < 0 || v > 0xFFFFFFFFLL) fail("internal: MLIP operand {} out of range", v);
  return static_cast<uint32_t>(v);
}

int32_t i32(int64_t v) {
  if (v < INT32_MIN || v > INT32_MAX) fail("internal: MLIP operand {} out of range", v);
  return static_cast<int32_t>(v);
}

uint32_t Ocm::take(uint64_t bytes) {
  uint32_t off = static_cast<uint32_t>(top_);
  top_ += ocm_round(bytes);
  if (top_ > limit_) fail("internal: OCM plan exceeds the {}-byte working area", limit_);
  used_ = std::max(used_, top_);
  return off;
}

LayerPlanner::LayerPlanner(const PlanContext& ctx, int index, Split split, const PinnedWeights* pinned)
    : ctx_(ctx), r_(ctx.region), l_(r_.layers[static_cast<size_t>(index)]), index_(index), split_(split),
      pinned_(pinned) {
  plan_.ocm_used.assign(static_cast<size_t>(ctx.num_tiles), 0);
  plan_.split.how = split;
}

void LayerPlanner::set_split(Split how, std::vector<std::pair<int64_t, int64_t>> ranges) {
  plan_.split.how = how;
  plan_.split.ranges = std::move(ranges);
}

void LayerPlanner::note_ocm(int tile, const Ocm& ocm) {
  uint32_t& used = plan_.ocm_used[static_cast<size_t>(tile)];
  used = std::max(used, ocm.used());
}

bool LayerPlanner::pinned(int tile) const {
  return pinned_ && pinned_->weight_rel[static_cast<size_t>(tile)] >= 0;
}
int64_t LayerPlanner::pinned_weights(int tile) const { return pinned_->weight_rel[static_cast<size_t>(tile)]; }
int64_t LayerPlanner::pinned_bias(int tile) const { return pinned_->bias_rel[static_cast<size_t>(tile)]; }

uint32_t LayerPlanner::binding(const RTensor& t) const {
  if (t.home == RTensor::Input) return static_cast<uint32_t>(t.index);
  if (t.home == RTensor::Output) return static_cast<uint32_t>(r_.inputs.size() + static_cast<size_t>(t.index));
  return scratch_binding(r_);
}

uint32_t LayerPlanner::weights_binding() const { return mlip::weights_binding(r_); }

bool LayerPlanner::converts(uint32_t bind) const {
  const size_t b = bind, ni = r_.inputs.size(), no = r_.outputs.size();
  const int t = b < ni ? r_.inputs[b] : b < ni + no ? r_.outputs[b - ni] : -1;
  return t >= 0 && !r_.tensors[static_cast<size_t>(t)].q8();
}

void LayerPlanner::dma(uint8_t opcode, int tile, uint32_t bind, int64_t ddr, uint32_t ocm, int64_t rows,
                       int64_t row_bytes, int64_t ddr_stride, int64_t ocm_stride) {
  // One row has no stride; the format wants it equal to the row then.
  if (rows <= 1) ddr_stride = ocm_stride = row_bytes;
  mlip_dma_args a{};
  if (converts(bind)) {  // fp32 in DDR: its offsets twice the fp16 tensor's the layer addresses
    a.convert = opcode == MLIP_OP_DMA_IN ? MLIP_CVT_F32_TO_F16 : MLIP_CVT_F16_TO_F32;
    ddr *= 2;
    ddr_stride *= 2;
  }
  a.binding = bind;
  a.ddr_offset = u32(ddr);
  a.ocm_offset = ocm;
  a.rows = u32(rows);
  a.row_bytes = u32(row_bytes);
  a.ddr_stride = u32(ddr_stride);
  a.ocm_stride = u32(ocm_stride);
  emit(opcode, tile, a);
}

void LayerPlanner::dma_in(int tile, uint32_t bind, int64_t ddr, uint32_t ocm, int64_t rows, int64_t row_bytes,
                          int64_t ddr_stride, int64_t ocm_stride) {
  dma(MLIP_OP_DMA_IN, tile, bind, ddr, ocm, rows, row_bytes, ddr_stride, ocm_stride);
}

void LayerPlanner::dma_out(int tile, uint32_t bind, int64_t ddr, uint32_t ocm, int64_t rows, int64_t row_bytes,
                           int64_t ddr_stride, int64_t ocm_stride) {
  dma(MLIP_OP_DMA_OUT, tile, bind, ddr, ocm, rows, row_bytes, ddr_stride, ocm_stride);
}

LayerPlan LayerPlanner::finish() {
  plan_.commands.push_back(make_command(MLIP_OP_BARRIER, 0, index_, mlip_barrier_args{}));
  plan_.est_cycles = layer_cycles(plan_.commands, ctx_.target);
  plan_.pinned = pinned_ && pinned_->any();
  return std::move(plan_);
}

uint32_t scratch_binding(const LoweredRegion& r) { return static_cast<uint32_t>(r.inputs.size() + r.outputs.size()); }
uint32_t weights_binding(const LoweredRegion& r) { return scratch_binding(r) + 1; }

namespace {

std::optional<LayerPlan> run_planner(const PlanContext& ctx, int index, Split split, const PinnedWeights* pinned) {
  const LayerKind& kind = layer_kind(ctx.region.layers[static_cast<size_t>(index)].kind);
  if (!kind.plan) fail("internal: layer kind {} cannot be planned", kind.name);
  LayerPlanner p(ctx, index, split, pinned);
  kind.plan(p);
  if (!p.refused().empty()) return std::nullopt;
  return p.finish();
}

LayerPlan plan_streamed(const PlanContext& ctx, int index, Split split) {
  std::optional<LayerPlan> p = run_planner(ctx, index, split, nullptr);
  if (!p) fail("internal: layer {} could not be planned", ctx.region.layers[static_cast<size_t>(index)].name);
  return std::move(*p);
}

}  // namespace

std::optional<LayerPlan> plan_layer_pinned(const PlanContext& ctx, int index, Split split,
                                           const PinnedWeights& pinned) {
  return run_planner(ctx, index, split, &pinned);
}

LayerPlan plan_layer(const PlanContext& ctx, int index) {
  const RLayer& l = ctx.region.layers[static_cast<size_t>(index)];
  const LayerKind& kind = layer_kind(l.kind);
  if (!kind.splits) return plan_streamed(ctx, index, Split::Rows);  // the kind picks its split
  LayerPlan best;
  bool have = false;
  for (Split s : kind.splits(ctx.region.tensors[static_cast<size_t>(l.output)])) {
    LayerPlan p = plan_streamed(ctx, index, s);
    if (!have || p.est_cycles < best.est_cycles) {
      best = std::move(p);
      have = true;
    }
  }
  return best;
}

WeightSlice weight_slice(const PlanContext& ctx, int index, const LayerPlan& plan, int tile) {
  const RLayer& l = ctx.region.layers[static_cast<size_t>(index)];
  WeightSlice s;
  if (!l.has_weights() || static_cast<size_t>(tile) >= plan.split.ranges.size()) return s;
  const RTensor& y = ctx.region.tensors[static_cast<size_t>(l.output)];
  const int64_t oc = y.c;
  const int64_t per = l.weight_bytes / oc;  // bytes of one output channel's weights
  int64_t c0 = 0, c1 = oc;
  if (plan.split.how == Split::Channels) {
    c0 = plan.split.ranges[static_cast<size_t>(tile)].first;
    c1 = plan.split.ranges[static_cast<size_t>(tile)].second;
  }
  s.w_off = l.weight_offset + c0 * per;
  s.w_bytes = (c1 - c0) * per;
  if (l.has_bias()) {
    const int64_t bper = l.bias_bytes / oc;  // fp32 bias, or an int8 layer's requantization record
    s.b_off = l.bias_offset + c0 * bper;
    s.b_bytes = (c1 - c0) * bper;
  }
  return s;
}

}  // namespace mlipc::mlip
