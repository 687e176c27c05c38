// REDUCE: ReduceMean and ReduceSum over one run of consecutive axes of a
// row-major tensor (keepdims either way; the opset-18 form, axes a constant
// input): [outer][len][inner] -> [outer][inner], fp32 sums in order, the
// mean one fp32 division (docs/mlip-spec.md section 4). Split across tiles
// by the outer blocks; each tile's share in chunks of blocks, or of columns
// of one block (a strided DMA) when a block does not fit OCM. int8
// (docs/mlip-spec.md 4a): a DequantizeLinear, ReduceMean or ReduceSum,
// QuantizeLinear chain of the CPU's int8 build (the reduction float between
// its QDQ pairs: a quantized transformer's mean pooling) is one 8-bit REDUCE
// that repeats the kernels' fp32 operations in their order.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace reduce_layer {

// A REDUCE layer's own parameters (RLayer::params).
struct ReduceParams {
  int64_t outer = 1, len = 1, inner = 1;
  bool mean = false;
  // 8-bit (RLayer::q8()): the input's and the output's scale and zero point
  float x_scale = 0.0f, y_scale = 0.0f;
  int32_t x_zp = 0, y_zp = 0;
};

// blocks x len x cols input, blocks x cols output, of eb bytes each.
uint64_t pass_bytes(int64_t blocks, int64_t len, int64_t cols, int64_t eb = kF16Bytes) {
  return ocm_round(blocks * len * cols * eb) + ocm_round(blocks * cols * eb);
}

// outer, len, inner of n's axes, or why not.
std::string dims_of(const Graph& g, const Node& n, ReduceParams& p) {
  const Shape& s = g.value(n.inputs[0]).shape;
  const int64_t r = static_cast<int64_t>(s.size());
  std::vector<bool> reduced(s.size(), false);
  if (n.has_input(1)) {
    const Value& a = g.value(n.inputs[1]);
    if (!a.is_constant()) return "axes computed at run time";
    for (int64_t ax : a.constant->as_int64()) reduced[static_cast<size_t>(ax < 0 ? ax + r : ax)] = true;
  }
  if (std::none_of(reduced.begin(), reduced.end(), [](bool b) { return b; })) {
    if (n.attrs.get_int("noop_with_empty_axes", 0) != 0) return "no axis to reduce";
    reduced.assign(s.size(), true);
  }
  size_t j0 = 0;
  while (!reduced[j0]) ++j0;
  size_t j1 = j0;
  while (j1 < s.size() && reduced[j1]) ++j1;
  for (size_t d = j1; d < s.size(); ++d)
    if (reduced[d]) return "axes that are not one run of consecutive axes";
  p = ReduceParams{};
  for (size_t d = 0; d < j0; ++d) p.outer *= s[d];
  for (size_t d = j0; d < j1; ++d) p.len *= s[d];
  for (size_t d = j1; d < s.size(); ++d) p.inner *= s[d];
  p.mean = n.op == "ReduceMean";
  return "";
}

std::string support(const Graph& g, const Node& n, const SupportLimits& lim) {
  if (lim.int8) return fmt::format("{} on int8 tensors has no MLIP layer", n.op);
  if (std::string r = rowmajor_reason(g.value(n.inputs[0])); !r.empty()) return r;
  if (std::string r = rowmajor_reason(g.value(n.outputs[0])); !r.empty()) return r;
  ReduceParams p;
  if (std::string r = dims_of(g, n, p); !r.empty()) return r;
  if (pass_bytes(1, p.len, 1) > lim.work_bytes)
    return fmt::format("{} elements reduced do not fit the {} bytes of OCM", p.len, lim.work_bytes);
  return "";
}

// The 8-bit REDUCE of chain c: the DequantizeLinear's int8 input in, the
// QuantizeLinear's output out (the two make no layer of their own).
void lower_q8(LowerContext& ctx, const Q8Chain& c) {
  const Graph& g = ctx.graph();
  const Node& dq = g.nodes[static_cast<size_t>(c.dq)];
  const Node& n = g.nodes[static_cast<size_t>(c.node)];
  const Node& q = g.nodes[static_cast<size_t>(c.q)];
  ReduceParams p;
  if (std::string r = dims_of(g, n, p); !r.empty()) fail("{}", r);
  p.x_scale = q8_scale_of(g, dq);
  p.x_zp = q8_zero_point_of(g, dq);
  p.y_scale = q8_scale_of(g, q);
  p.y_zp = q8_zero_point_of(g, q);
  const int in = ctx.rowmajor_of(dq.inputs[0]);
  RLayer& l = ctx.new_layer(MLIP_LAYER_REDUCE, n);
  l.origins.insert(l.origins.begin(), dq.origins.begin(), dq.origins.end());
  l.origins.insert(l.origins.end(), q.origins.begin(), q.origins.end());
  l.inputs = {in};
  l.dtype = mlip_dtype(g.value(dq.inputs[0]).dtype);
  l.params = p;
  l.output = ctx.output_tensor(q, 0, true);
}

void lower(LowerContext& ctx, const Node& n) {
  if (auto c = q8_chain_at(ctx.graph(), ctx.consumers(), ctx.producers(), ctx.index_of(n))) return lower_q8(ctx, *c);
  ReduceParams p;
  if (std::string r = dims_of(ctx.graph(), n, p); !r.empty()) fail("{}", r);
  const int in = ctx.rowmajor_of(n.inputs[0]);  // before the layer: it may add a relayout layer
  RLayer& l = ctx.new_layer(MLIP_LAYER_REDUCE, n);
  l.inputs = {in};
  l.params = p;
  l.output = ctx.output_tensor(n, 0, true);
}

void emit(LayerPlanner& p, int tile, uint32_t in, uint32_t out, int64_t blocks, int64_t len, int64_t cols) {
  const RLayer& l = p.layer();
  const ReduceParams& rp = params_of<ReduceParams>(l);
  mlip_reduce_args a{};
  a.in = in;
  a.out = out;
  a.outer = u32(blocks);
  a.len = u32(len);
  a.inner = u32(cols);
  a.mean = rp.mean ? 1 : 0;
  a.dtype = l.dtype;
  if (l.q8()) {
    a.x_scale = rp.x_scale;
    a.x_zp = rp.x_zp;
    a.y_scale = rp.y_scale;
    a.y_zp = rp.y_zp;
  }
  p.emit(MLIP_OP_REDUCE, tile, a);
}

void plan(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const ReduceParams& rp = params_of<ReduceParams>(l);
  const RTensor& x = p.in();
  const RTensor& y = p.out();
  const int64_t L = rp.len, I = rp.inner;
  const int64_t eb = l.q8() ? 1 : kF16Bytes;
  const auto parts = split_range(rp.outer, p.num_tiles());
  p.set_split(Split::Rows, parts);
  const int64_t bc = largest(rp.outer, [&](int64_t v) { return pass_bytes(v, L, I, eb) <= p.work_limit(); });
  const int64_t cc = bc > 0 ? I : largest(I, [&](int64_t v) { return pass_bytes(1, L, v, eb) <= p.work_limit(); });
  if (cc == 0) fail("layer '{}' does not fit OCM", l.name);
  for (size_t t = 0; t < parts.size(); ++t) {
    const int tile = static_cast<int>(t);
    const int64_t share = parts[t].second - parts[t].first;
    const int64_t blocks = bc > 0 ? std::min(bc, share) : 1;
    Ocm ocm(p.work_limit());
    const uint32_t in = ocm.take(blocks * L * cc * eb), out = ocm.take(blocks * cc * eb);
    p.note_ocm(tile, ocm);
    for (int64_t o0 = parts[t].first; o0 < parts[t].second; o0 += blocks) {
      const int64_t on = std::min(blocks, parts[t].second - o0);
      for (int64_t c0 = 0; c0 < I; c0 += cc) {
        const int64_t cn = std::min(cc, I - c0);
        p.count_pass();
        if (cn == I) p.dma_in(tile, p.binding(x), p.ddr_base(x) + o0 * L * I * eb, in, on * L * I * eb);
        else p.dma_in(tile, p.binding(x), p.ddr_base(x) + (o0 * L * I + c0) * eb, in, L, cn * eb, I * eb, cn * eb);
        emit(p, tile, in, out, on, L, cn);
        p.dma_out(tile, p.binding(y), p.ddr_base(y) + (o0 * I + c0) * eb, out, on * cn * eb);
      }
    }
  }
}

void json(const RLayer& l, nlohmann::json& a) {
  const ReduceParams& rp = params_of<ReduceParams>(l);
  a["outer"] = rp.outer;
  a["len"] = rp.len;
  a["inner"] = rp.inner;
  a["mean"] = rp.mean;
}

}  // namespace reduce_layer

std::string q8_reduce_reason(const Graph& g, const Q8Chain& c, const SupportLimits& lim) {
  if (!lim.int8) return "an int8 reduction needs -quantize=int8";
  const Node& n = g.nodes[static_cast<size_t>(c.node)];
  // the float tensors: the shape rules are the fp16 ones
  if (std::string r = rowmajor_reason(g.value(n.inputs[0])); !r.empty()) return r;
  if (std::string r = rowmajor_reason(g.value(n.outputs[0])); !r.empty()) return r;
  reduce_layer::ReduceParams p;
  if (std::string r = reduce_layer::dims_of(g, n, p); !r.empty()) return r;
  const float xs = q8_scale_of(g, g.nodes[static_cast<size_t>(c.dq)]);
  const float ys = q8_scale_of(g, g.nodes[static_cast<size_t>(c.q)]);
  if (!(xs > 0.0f) || !(ys > 0.0f) || std::isinf(xs) || std::isinf(ys)) return "a scale that is not positive and finite";
  if (reduce_layer::pass_bytes(1, p.len, 1, 1) > lim.work_bytes)
    return fmt::format("{} elements reduced do not fit the {} bytes of OCM", p.len, lim.work_bytes);
  return "";
}

extern const LayerKind kReduce = {MLIP_LAYER_REDUCE, "reduce", "Reduce", "mrvl.reduce", {"ReduceMean", "ReduceSum"},
                                  /*fuses_activation=*/false, reduce_layer::support, reduce_layer::lower,
                                  reduce_layer::plan, nullptr, reduce_layer::json};

}  // namespace mlipc::mlip::layers
