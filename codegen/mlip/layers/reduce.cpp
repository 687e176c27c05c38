// REDUCE: ReduceMean and ReduceSum over one run of consecutive axes of a
// row-major tensor (keepdims either way; the opset-18 form, axes a constant
// input): [outer][len][inner] -> [outer][inner], fp32 sums in order, the
// mean one fp32 division (docs/mlip-spec.md section 4). Split across tiles
// by the outer blocks; each tile's share in chunks of blocks, or of columns
// of one block (a strided DMA) when a block does not fit OCM.
#include <algorithm>

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
};

// blocks x len x cols input, blocks x cols output.
uint64_t pass_bytes(int64_t blocks, int64_t len, int64_t cols) {
  return ocm_round(blocks * len * cols * kF16Bytes) + ocm_round(blocks * cols * kF16Bytes);
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

void lower(LowerContext& ctx, const Node& n) {
  ReduceParams p;
  if (std::string r = dims_of(ctx.graph(), n, p); !r.empty()) fail("{}", r);
  const int in = ctx.rowmajor_of(n.inputs[0]);  // before the layer: it may add a relayout layer
  RLayer& l = ctx.new_layer(MLIP_LAYER_REDUCE, n);
  l.inputs = {in};
  l.params = p;
  l.output = ctx.output_tensor(n, 0, true);
}

void emit(LayerPlanner& p, int tile, uint32_t in, uint32_t out, int64_t blocks, int64_t len, int64_t cols, bool mean) {
  mlip_reduce_args a{};
  a.in = in;
  a.out = out;
  a.outer = u32(blocks);
  a.len = u32(len);
  a.inner = u32(cols);
  a.mean = mean ? 1 : 0;
  a.dtype = MLIP_DT_FP16;
  p.emit(MLIP_OP_REDUCE, tile, a);
}

void plan(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const ReduceParams& rp = params_of<ReduceParams>(l);
  const RTensor& x = p.in();
  const RTensor& y = p.out();
  const int64_t L = rp.len, I = rp.inner;
  const auto parts = split_range(rp.outer, p.num_tiles());
  p.set_split(Split::Rows, parts);
  const int64_t bc = largest(rp.outer, [&](int64_t v) { return pass_bytes(v, L, I) <= p.work_limit(); });
  const int64_t cc = bc > 0 ? I : largest(I, [&](int64_t v) { return pass_bytes(1, L, v) <= p.work_limit(); });
  if (cc == 0) fail("layer '{}' does not fit OCM", l.name);
  for (size_t t = 0; t < parts.size(); ++t) {
    const int tile = static_cast<int>(t);
    const int64_t share = parts[t].second - parts[t].first;
    const int64_t blocks = bc > 0 ? std::min(bc, share) : 1;
    Ocm ocm(p.work_limit());
    const uint32_t in = ocm.take(blocks * L * cc * kF16Bytes), out = ocm.take(blocks * cc * kF16Bytes);
    p.note_ocm(tile, ocm);
    for (int64_t o0 = parts[t].first; o0 < parts[t].second; o0 += blocks) {
      const int64_t on = std::min(blocks, parts[t].second - o0);
      for (int64_t c0 = 0; c0 < I; c0 += cc) {
        const int64_t cn = std::min(cc, I - c0);
        p.count_pass();
        if (cn == I) p.dma_in(tile, p.binding(x), p.ddr_base(x) + o0 * L * I * kF16Bytes, in, on * L * I * kF16Bytes);
        else p.dma_in(tile, p.binding(x), p.ddr_base(x) + (o0 * L * I + c0) * kF16Bytes, in, L, cn * kF16Bytes, I * kF16Bytes, cn * kF16Bytes);
        emit(p, tile, in, out, on, L, cn, rp.mean);
        p.dma_out(tile, p.binding(y), p.ddr_base(y) + (o0 * I + c0) * kF16Bytes, out, on * cn * kF16Bytes);
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

extern const LayerKind kReduce = {MLIP_LAYER_REDUCE, "reduce", "Reduce", "mrvl.reduce", {"ReduceMean", "ReduceSum"},
                                  /*fuses_activation=*/false, reduce_layer::support, reduce_layer::lower,
                                  reduce_layer::plan, nullptr, reduce_layer::json};

}  // namespace mlipc::mlip::layers
