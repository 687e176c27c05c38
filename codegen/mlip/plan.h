// Tiling and OCM planning of one layer: how its output is split across
// tiles (rows, channels, elements), how each tile's share is cut into passes
// that fit the OCM working area, where each pass's buffers sit in OCM, and
// the DMA and compute commands that result. The machinery is here
// (LayerPlanner); what a layer kind emits is its plan function in
// layers/<kind>.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mlip/lower.h"
#include "mlip/region_ir.h"
#include "mlip/target.h"
#include "support/error.h"

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
  uint32_t work_limit;  // OCM bytes per tile for working buffers (working_ocm_bytes)
  const LoweredRegion& region;
};

// ---- sizes and ranges (shared by the planners and the support rules) ----

// `v` rounded up to the OCM alignment (every OCM buffer starts aligned).
inline uint64_t ocm_round(uint64_t v) { return (v + MLIP_OCM_ALIGN - 1) / MLIP_OCM_ALIGN * MLIP_OCM_ALIGN; }

// Even split of [0, n) into at most `parts` non-empty ranges of whole
// granules.
std::vector<std::pair<int64_t, int64_t>> split_range(int64_t n, int parts, int64_t granule = 1);

// Largest v in [1, hi] with fits(v), or 0 (fits is monotone).
int64_t largest(int64_t hi, const std::function<bool(int64_t)>& fits);

// A command field; throws on a value outside uint32.
uint32_t u32(int64_t v);
// The same for a signed (int32) field.
int32_t i32(int64_t v);

// The typed operands of each format (mlip_<format>_args) encoded into a
// command record: one overload per format of mlip/cmd_table.h.
#define MLIPC_MLIP_ENCODE_(fmt)                                                                     \
  inline void encode_args(const mlip_##fmt##_args& a, mlip_cmd& c) { mlip_##fmt##_encode(&a, &c); } \
  constexpr int format_id(const mlip_##fmt##_args*) { return MLIP_FORMAT_##fmt; }
MLIP_FORMATS(MLIPC_MLIP_ENCODE_)
#undef MLIPC_MLIP_ENCODE_

// Command `opcode` of layer `layer` on `tile` from its operands (whose
// format must be the opcode's); `pinned`: RCommand::pinned.
template <class Args>
RCommand make_command(uint8_t opcode, int tile, int layer, const Args& args, bool pinned = false) {
  if (mlip_opcode_format(opcode) != format_id(&args)) fail("internal: MLIP opcode {} given another format", opcode);
  RCommand c;
  encode_args(args, c.cmd);
  c.cmd.opcode = opcode;
  c.cmd.tile = static_cast<uint8_t>(tile);
  c.cmd.layer = static_cast<uint16_t>(layer);
  c.pinned = pinned;
  return c;
}

// Bump allocation in one tile's OCM working area for one group of passes.
class Ocm {
 public:
  explicit Ocm(uint32_t limit) : limit_(limit) {}
  uint32_t take(uint64_t bytes);
  uint32_t used() const { return static_cast<uint32_t>(used_); }

 private:
  uint64_t limit_;
  uint64_t top_ = 0, used_ = 0;
};

// What a layer kind's plan function works with: the layer, its tensors, the
// tiles, and the command list it appends to.
class LayerPlanner {
 public:
  LayerPlanner(const PlanContext& ctx, int index, Split split, const PinnedWeights* pinned);

  // The layer, and the split asked for (meaningful for kinds with candidate
  // splits, LayerKind::splits; the others pick theirs and call set_split).
  const RLayer& layer() const { return l_; }
  Split split() const { return split_; }
  const RTensor& in(int k = 0) const { return r_.tensors[static_cast<size_t>(l_.inputs[static_cast<size_t>(k)])]; }
  const RTensor& out() const { return r_.tensors[static_cast<size_t>(l_.output)]; }
  int num_tiles() const { return ctx_.num_tiles; }
  uint32_t work_limit() const { return ctx_.work_limit; }

  // Records how the work is divided (reports, weight slices for pinning).
  void set_split(Split how, std::vector<std::pair<int64_t, int64_t>> ranges);
  // One more pass (a DMA-in, compute, DMA-out round).
  void count_pass() { ++plan_.passes; }
  // A group of passes used `ocm` on `tile`.
  void note_ocm(int tile, const Ocm& ocm);

  // Pinned weights: whether tile t reads this layer's weights from the
  // pinned range, and their offsets there (relative to its start).
  bool pinned(int tile) const;
  int64_t pinned_weights(int tile) const;
  int64_t pinned_bias(int tile) const;

  // DDR addressing: a tensor's binding and the offset of its first byte in it.
  uint32_t binding(const RTensor& t) const;
  int64_t ddr_base(const RTensor& t) const { return t.home == RTensor::Scratch ? t.offset : 0; }
  uint32_t weights_binding() const;

  // Appends command `opcode` of this layer for `tile`, its operands typed
  // (mlip_<format>_args of the opcode's table, mlip/cmd_table.h); `pinned`
  // when it reads the layer's weights from the pinned range (its PIN fields
  // then hold offsets relative to the range: pinned_weights, pinned_bias).
  template <class Args>
  RCommand& emit(uint8_t opcode, int tile, const Args& args, bool pinned = false) {
    plan_.commands.push_back(make_command(opcode, tile, index_, args, pinned));
    return plan_.commands.back();
  }
  // rows x row_bytes between DDR (binding, offset, stride) and OCM (offset, stride).
  // A float region's border bindings (its inputs and outputs) hold the CPU's
  // fp32: a layer addresses them as the fp16 tensor it reads or writes, and
  // the DMA converts (its DDR offset and stride doubled; docs/mlip-spec.md
  // section 3), so a border costs no command of its own.
  void dma_in(int tile, uint32_t binding, int64_t ddr, uint32_t ocm, int64_t rows, int64_t row_bytes,
              int64_t ddr_stride, int64_t ocm_stride);
  void dma_out(int tile, uint32_t binding, int64_t ddr, uint32_t ocm, int64_t rows, int64_t row_bytes,
               int64_t ddr_stride, int64_t ocm_stride);
  // One contiguous block: rows = 1.
  void dma_in(int tile, uint32_t binding, int64_t ddr, uint32_t ocm, int64_t bytes) {
    dma_in(tile, binding, ddr, ocm, 1, bytes, 0, 0);
  }
  void dma_out(int tile, uint32_t binding, int64_t ddr, uint32_t ocm, int64_t bytes) {
    dma_out(tile, binding, ddr, ocm, 1, bytes, 0, 0);
  }
  // The layer's element type, and its fused activation in an fp16 command
  // (an 8-bit command has none: its kind sets the output clamp), into a
  // command's fields.
  template <class Args>
  void fused(Args& a) const {
    a.dtype = l_.dtype;
    if (l_.q8()) return;
    a.act = l_.act.kind;
    a.act_lo = l_.act.lo;
    a.act_hi = l_.act.hi;
  }

  // The kind cannot read its weights from the pinned range in this plan (a
  // dense layer whose reduction needs several passes): the plan function
  // returns, and the layer streams its weights (pin.h).
  void refuse_pinned(std::string why) { refused_ = std::move(why); }
  const std::string& refused() const { return refused_; }

  // Ends the layer (a barrier) and estimates its cycles.
  LayerPlan finish();

 private:
  void dma(uint8_t opcode, int tile, uint32_t binding, int64_t ddr, uint32_t ocm, int64_t rows, int64_t row_bytes,
           int64_t ddr_stride, int64_t ocm_stride);
  bool converts(uint32_t binding) const;  // an fp32 border binding of a float region

  const PlanContext& ctx_;
  const LoweredRegion& r_;
  const RLayer& l_;
  int index_;
  Split split_;
  const PinnedWeights* pinned_;
  LayerPlan plan_;
  std::string refused_;
};

// Plans layer `index`, its weights streamed: the best of its kind's
// candidate splits by the cycle model (the first on a tie), or the split
// the kind picks.
LayerPlan plan_layer(const PlanContext& ctx, int index);
// Plans layer `index` for `split` with the weights of the tiles `pinned`
// names read from the pinned range; nullopt when its kind cannot.
std::optional<LayerPlan> plan_layer_pinned(const PlanContext& ctx, int index, Split split,
                                           const PinnedWeights& pinned);

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
