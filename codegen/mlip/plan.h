// Tiling and OCM planning of one layer: how its output is split across
// tiles (rows, channels, elements), how each tile's share is cut into passes
// that fit the OCM working area, where each pass's buffers sit in OCM, and
// the DMA and compute commands that result.
#pragma once

#include <vector>

#include "mlip/lower.h"
#include "mlip/region_ir.h"
#include "mlip/target.h"

namespace mlipc::mlip {

// Weights pinned in OCM for one layer: per tile, the offset (relative to the
// pinned range) of the weights and bias that tile uses; -1 when streamed.
struct PinnedWeights {
  std::vector<int64_t> weight_rel, bias_rel;
  bool any() const {
    for (int64_t v : weight_rel)
      if (v >= 0) return true;
    return false;
  }
};

struct PlanContext {
  const TargetInfo& target;
  int num_tiles;
  uint32_t work_limit;  // OCM bytes per tile for working buffers
  const LoweredRegion& region;
};

// Plans layer `index`. With `split` empty the planner chooses (by the cycle
// model) between the splits that apply; otherwise it uses the one named.
LayerPlan plan_layer(const PlanContext& ctx, int index, const std::string& split = "",
                     const PinnedWeights* pinned = nullptr);

// The bytes of weights and bias tile t needs for a layer planned as `plan`
// (its weight slice), as (weight offset, weight bytes, bias offset, bias
// bytes) in the WEIGHTS section; zero sizes when the layer has no weights.
struct WeightSlice {
  int64_t w_off = 0, w_bytes = 0, b_off = 0, b_bytes = 0;
};
WeightSlice weight_slice(const PlanContext& ctx, int index, const LayerPlan& plan, int tile);

// Binding numbers: inputs, outputs, then SCRATCH, then WEIGHTS.
uint32_t scratch_binding(const LoweredRegion& r);
uint32_t weights_binding(const LoweredRegion& r);

}  // namespace mlipc::mlip
