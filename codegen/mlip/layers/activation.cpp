// ACTIVATION: an activation (mlip/activation.h) that cannot ride on the
// layer before it (its input is a region input, is read by other nodes too,
// or comes from a layer that fuses none or already has one). No float ONNX
// operator maps to it directly: the lowering makes it (LowerContext::
// apply_activation) and the selection asks its rule. Split across tiles by
// elements (64 at a time), each tile's share in chunks that fit OCM,
// computed in place. int8 (docs/mlip-spec.md 4a): the lookup that
// passes/fold_qdq makes of Sigmoid, Tanh, HardSigmoid, HardSwish,
// LeakyRelu, SiLU... on int8 (and of com.microsoft's QLinearSigmoid and
// QLinearLeakyRelu) is one TABLE command through the same 256 entries the
// CPU kernel reads, so it gives the CPU's bits.
#include <algorithm>

#include <fmt/format.h>

#include "ops/qlinear.h"
#include "mlip/activation.h"
#include "mlip/layer_kind.h"
#include "mlip/lut16.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace activation_layer {

// An 8-bit lookup's own parameters (RLayer::params): its 256-byte table in
// WEIGHTS (streamed once per tile). An fp16 ACTIVATION has none: its
// activation is RLayer::act.
struct LookupParams {
  int64_t table = -1;
};

}  // namespace activation_layer

RLayer& add_table_layer(LowerContext& ctx, const Node& n, int in, const std::vector<int64_t>& table,
                        const std::string& table_name) {
  // 16x8: the 513 int16 knots, two bytes each (little-endian)
  const bool wide = table.size() == MLIP_LUT16_ENTRIES;
  std::vector<uint8_t> bytes;
  std::vector<float> shown(table.size());
  for (size_t i = 0; i < table.size(); ++i) {
    bytes.push_back(static_cast<uint8_t>(table[i] & 0xff));
    if (wide) bytes.push_back(static_cast<uint8_t>((table[i] >> 8) & 0xff));
    shown[i] = static_cast<float>(table[i]);
  }
  const int64_t offset = ctx.add_bytes(bytes);
  ctx.add_const({table_name, {static_cast<int64_t>(table.size())}, shown});
  RLayer& l = ctx.new_layer(MLIP_LAYER_ACTIVATION, n);
  l.inputs = {in};
  l.params = activation_layer::LookupParams{offset};
  return l;
}

namespace activation_layer {

// One buffer of `elems` elements, read and written in place.
uint64_t pass_bytes(int64_t elems) { return ocm_round(elems * kF16Bytes); }

// mlipc.QLinearLookup (x, table): a constant table of 256 values of x's
// type (16x8: 513 int16 knots, mlip/lut16.h).
std::string q8_support(const Graph& g, const Node& n, const SupportLimits& lim) {
  if (!lim.int8) return "int8 lookup tables need -quantize=int8";
  if (!is_const(g, n, 1)) return "the table is not constant";
  const Value& x = g.value(n.inputs[0]);
  const int64_t entries = x.dtype == DType::Int16 ? MLIP_LUT16_ENTRIES : 256;
  if (g.value(n.inputs[1]).dtype != x.dtype || g.value(n.outputs[0]).dtype != x.dtype ||
      numel(g.value(n.inputs[1]).shape) != entries)
    return fmt::format("a table of another type or size than {} values of the input's type", entries);
  // element by element: a 3-D input (a 1-D convolution's, NHWC) gives its layout to the output
  if (x.shape.size() < 2 || x.shape.size() > 4) return "only 2-D, 3-D and 4-D tensors";
  return batch_reason(x.shape[0]);
}

std::string support(const Graph& g, const Node& n, const SupportLimits& lim) {
  if (n.op == ops::kQLookupOp) return q8_support(g, n, lim);
  if (std::string r = activation_reason(g, n); !r.empty()) return r;
  const Shape& x = g.value(n.inputs[0]).shape;
  if (x.size() != 4 && x.size() != 2) return rowmajor_reason(g.value(n.inputs[0]));  // any layout: elements
  return batch_reason(x[0]);  // one element fits any OCM
}

// The lookup's layer: the table's bytes in WEIGHTS (streamed once per tile).
void lower(LowerContext& ctx, const Node& n) {
  const int in_t = ctx.tensor_of(n.inputs[0]);  // before the layer: it may add a relayout layer
  RLayer& l = add_table_layer(ctx, n, in_t, ctx.any_constant(n, 1).as_int64(), ctx.graph().value(n.inputs[1]).name);
  l.output = ctx.graph().value(n.inputs[0]).shape.size() == 3 ? ctx.output_like(n, in_t) : ctx.output_tensor(n);
  l.dtype = ctx.tensor(l.output).dtype;
}

// int8: as below with one-byte elements and the table in OCM beside them
// (16x8: two-byte elements, the 513 knots).
void plan_q8(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const RTensor& x = p.in();
  const RTensor& y = p.out();
  const int64_t E = y.elems();
  const bool wide = l.dtype == MLIP_DT_INT16;
  const int64_t eb = wide ? 2 : 1, tb = wide ? MLIP_TABLE16_BYTES : MLIP_TABLE_BYTES;
  const auto parts = split_range(E, p.num_tiles(), 64);
  p.set_split(Split::Elements, parts);
  const int64_t chunk = largest(E, [&](int64_t v) { return ocm_round(v * eb) + ocm_round(tb) <= p.work_limit(); });
  for (size_t t = 0; t < parts.size(); ++t) {
    const int tile = static_cast<int>(t);
    Ocm ocm(p.work_limit());
    const int64_t n = std::min(chunk, parts[t].second - parts[t].first);
    const uint32_t table = ocm.take(tb);
    const uint32_t off = ocm.take(n * eb);
    p.note_ocm(tile, ocm);
    p.dma_in(tile, p.weights_binding(), params_of<LookupParams>(l).table, table, tb);
    for (int64_t e0 = parts[t].first; e0 < parts[t].second; e0 += n) {
      const int64_t en = std::min(n, parts[t].second - e0);
      p.count_pass();
      p.dma_in(tile, p.binding(x), p.ddr_base(x) + e0 * eb, off, en * eb);
      mlip_table_args a{};
      a.in = off;
      a.out = off;
      a.count = u32(en);
      a.table = table;
      a.dtype = l.dtype;
      p.emit(MLIP_OP_TABLE, tile, a);
      p.dma_out(tile, p.binding(y), p.ddr_base(y) + e0 * eb, off, en * eb);
    }
  }
}

void plan(LayerPlanner& p) {
  if (p.layer().q8()) return plan_q8(p);
  const RTensor& x = p.in();
  const RTensor& y = p.out();
  const int64_t E = y.elems();
  const auto parts = split_range(E, p.num_tiles(), 64);
  p.set_split(Split::Elements, parts);
  const int64_t chunk = largest(E, [&](int64_t v) { return pass_bytes(v) <= p.work_limit(); });
  for (size_t t = 0; t < parts.size(); ++t) {
    const int tile = static_cast<int>(t);
    Ocm ocm(p.work_limit());
    const int64_t n = std::min(chunk, parts[t].second - parts[t].first);
    const uint32_t off = ocm.take(n * kF16Bytes);
    p.note_ocm(tile, ocm);
    for (int64_t e0 = parts[t].first; e0 < parts[t].second; e0 += n) {
      const int64_t en = std::min(n, parts[t].second - e0);
      p.count_pass();
      p.dma_in(tile, p.binding(x), p.ddr_base(x) + e0 * kF16Bytes, off, en * kF16Bytes);
      mlip_activation_args a{};
      a.in = off;
      a.out = off;
      a.count = u32(en);
      p.fused(a);
      p.emit(MLIP_OP_ACTIVATION, tile, a);
      p.dma_out(tile, p.binding(y), p.ddr_base(y) + e0 * kF16Bytes, off, en * kF16Bytes);
    }
  }
}

}  // namespace activation_layer

extern const LayerKind kActivation = {MLIP_LAYER_ACTIVATION, "activation", "Activation", "mrvl.activation",
                                      {ops::kQLookupOp}, /*fuses_activation=*/false, activation_layer::support,
                                      activation_layer::lower, activation_layer::plan, nullptr,
                                      nullptr};

}  // namespace mlipc::mlip::layers
