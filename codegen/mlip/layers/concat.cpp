// CONCAT: Concat on the channel axis of 4-D tensors, as DMA only: every
// input's positions are copied into its channel range of the NHWC output.
// Split across tiles by positions. int8 (docs/mlip-spec.md 4a): the same
// byte movement of one-byte elements (16x8: two-byte ones); passes/fold_qdq has given every input
// the output's scale and zero point (an input of another scale goes through
// a lookup table first, QLinearConcat too), so concatenation is exact.
#include <algorithm>

#include <fmt/format.h>

#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace concat_layer {

// `positions` positions of one input of `channels` channels of `eb` bytes.
uint64_t pass_bytes(int64_t positions, int64_t channels, int64_t eb) { return ocm_round(positions * channels * eb); }

// The channel form of 4-D tensors (NHWC); the other forms are CONCAT_ROWS
// layers (concat_rows.cpp).
std::string channel_support(const Graph& g, const Node& n, const SupportLimits& lim) {
  const Value& out = g.value(n.outputs[0]);
  if (lim.int8) {
    if (!is_int_act_type(out.dtype) || out.shape.size() != 4)
      return "only int8/uint8/int16 4-D concatenation has an int8 MLIP layer";
    for (ValueId in : n.inputs)
      if (g.value(in).dtype != out.dtype) return "inputs of another type than the output";
  } else if (out.dtype != DType::Float32 || out.shape.size() != 4) {
    return "only float32 4-D concatenation";
  }
  const int64_t eb = lim.int8 && out.dtype != DType::Int16 ? 1 : kF16Bytes;
  if (std::string r = batch_reason(out.shape[0]); !r.empty()) return r;
  const int64_t axis = n.attrs.get_int("axis", 1);
  if (axis != 1 && axis != -3) return "only concatenation on the channel axis";
  for (ValueId in : n.inputs) {
    const Value& v = g.value(in);
    if (v.is_constant()) return "a constant input";
    if (pass_bytes(1, v.shape[1], eb) > lim.work_bytes)
      return fmt::format("input '{}' has {} channels: one position does not fit the {} bytes of OCM", v.name,
                         v.shape[1], lim.work_bytes);
  }
  return "";
}

std::string support(const Graph& g, const Node& n, const SupportLimits& lim) {
  const std::string why = channel_support(g, n, lim);
  if (why.empty()) return why;
  const std::string rows = concat_rows_reason(g, n, lim);
  return rows.empty() ? rows : why;
}

void lower(LowerContext& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  const bool q8 = is_int_act_type(g.value(n.outputs[0]).dtype);
  if (!channel_support(g, n, SupportLimits{target_info("cn10ka"), ~0u, q8}).empty()) return lower_concat_rows(ctx, n);
  std::vector<int> inputs;  // before the layer: tensor_of may add a relayout layer
  for (ValueId in : n.inputs) inputs.push_back(ctx.tensor_of(in));
  RLayer& l = ctx.new_layer(MLIP_LAYER_CONCAT, n);
  l.inputs = inputs;
  l.output = ctx.output_tensor(n);
  l.dtype = ctx.tensor(l.output).dtype;  // int8: the report's type; DMA commands carry none
}

// Input after input, its positions split across tiles, each tile's share in
// chunks of positions that fit OCM (the images' positions follow each other
// in NHWC).
void plan(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const RTensor& y = p.out();
  const int64_t P = y.n * y.h * y.w, C = y.c, eb = y.elem_bytes();
  const auto parts = split_range(P, p.num_tiles());
  p.set_split(Split::Positions, parts);
  int64_t choff = 0;
  for (size_t i = 0; i < l.inputs.size(); ++i) {
    const RTensor& x = p.in(static_cast<int>(i));
    const int64_t Ci = x.c;
    const int64_t pc = largest(P, [&](int64_t v) { return pass_bytes(v, Ci, eb) <= p.work_limit(); });
    if (pc == 0) fail("layer '{}' does not fit OCM", l.name);
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      Ocm ocm(p.work_limit());
      const uint32_t off = ocm.take(std::min(pc, parts[t].second - parts[t].first) * Ci * eb);
      p.note_ocm(tile, ocm);
      for (int64_t p0 = parts[t].first; p0 < parts[t].second; p0 += pc) {
        const int64_t pn = std::min(pc, parts[t].second - p0);
        p.count_pass();
        p.dma_in(tile, p.binding(x), p.ddr_base(x) + p0 * Ci * eb, off, pn * Ci * eb);
        p.dma_out(tile, p.binding(y), p.ddr_base(y) + (p0 * C + choff) * eb, off, pn, Ci * eb, C * eb, Ci * eb);
      }
    }
    choff += Ci;
  }
}

}  // namespace concat_layer

extern const LayerKind kConcat = {MLIP_LAYER_CONCAT, "concat", "Concat", "mrvl.concat", {"Concat"},
                                  /*fuses_activation=*/false, concat_layer::support, concat_layer::lower,
                                  concat_layer::plan, nullptr, nullptr};

}  // namespace mlipc::mlip::layers
