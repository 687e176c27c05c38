// SOFTMAX: Softmax and LogSoftmax along the last axis of a row-major tensor
// (opset 13), or over the trailing axes from `axis` (the coerced 2-D form of
// opsets before 13): each row is one SOFTMAX command's row, max-subtracted,
// exp by mlip/kmath.h's written algorithm, summed in order, divided (or, for
// LogSoftmax, the log of the sum subtracted): docs/mlip-spec.md section 4.
// Split across tiles by rows, each tile's share in chunks of rows computed
// in place in OCM.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace softmax_layer {

// A SOFTMAX layer's own parameters (RLayer::params).
struct SoftmaxParams {
  int64_t rows = 1, len = 1;
  bool log = false;
};

// rows x len halves, in place.
uint64_t pass_bytes(int64_t rows, int64_t len) { return ocm_round(rows * len * kF16Bytes); }

// The elements of one row: from the axis on (coerced), or the axis alone
// when every axis after it has size 1; 0 when the axis is not the last.
int64_t row_len(const Node& n, const Shape& s) {
  const int64_t r = static_cast<int64_t>(s.size());
  int64_t axis = n.attrs.get_int("axis", -1);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) return 0;
  int64_t len = 1, after = 1;
  for (int64_t d = axis; d < r; ++d) len *= s[static_cast<size_t>(d)];
  for (int64_t d = axis + 1; d < r; ++d) after *= s[static_cast<size_t>(d)];
  if (n.attrs.get_int("coerce_2d", 0) != 0) return len;
  return after == 1 ? s[static_cast<size_t>(axis)] : 0;
}

std::string support(const Graph& g, const Node& n, const SupportLimits& lim) {
  if (lim.int8) return fmt::format("{} on int8 tensors has no MLIP layer yet", n.op);
  const Value& x = g.value(n.inputs[0]);
  if (std::string r = rowmajor_reason(x); !r.empty()) return r;
  const int64_t len = row_len(n, x.shape);
  if (len == 0) return "only along the last axis (or the trailing axes of the coerced form)";
  if (pass_bytes(1, len) > lim.work_bytes)
    return fmt::format("a row of {} elements does not fit the {} bytes of OCM", len, lim.work_bytes);
  return "";
}

void lower(LowerContext& ctx, const Node& n) {
  const Value& x = ctx.graph().value(n.inputs[0]);
  const int in = ctx.rowmajor_of(n.inputs[0]);  // before the layer: it may add a relayout layer
  RLayer& l = ctx.new_layer(MLIP_LAYER_SOFTMAX, n);
  l.inputs = {in};
  SoftmaxParams p;
  p.len = row_len(n, x.shape);
  p.rows = numel(x.shape) / p.len;
  p.log = n.op == "LogSoftmax";
  l.params = p;
  l.output = ctx.output_tensor(n, 0, true);
}

void plan(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const SoftmaxParams& sp = params_of<SoftmaxParams>(l);
  const RTensor& x = p.in();
  const RTensor& y = p.out();
  const auto parts = split_range(sp.rows, p.num_tiles());
  p.set_split(Split::Rows, parts);
  const int64_t rc = largest(sp.rows, [&](int64_t v) { return pass_bytes(v, sp.len) <= p.work_limit(); });
  if (rc == 0) fail("layer '{}' does not fit OCM", l.name);
  for (size_t t = 0; t < parts.size(); ++t) {
    const int tile = static_cast<int>(t);
    Ocm ocm(p.work_limit());
    const uint32_t off = ocm.take(std::min(rc, parts[t].second - parts[t].first) * sp.len * kF16Bytes);
    p.note_ocm(tile, ocm);
    for (int64_t r0 = parts[t].first; r0 < parts[t].second; r0 += rc) {
      const int64_t rn = std::min(rc, parts[t].second - r0);
      p.count_pass();
      p.dma_in(tile, p.binding(x), p.ddr_base(x) + r0 * sp.len * kF16Bytes, off, rn * sp.len * kF16Bytes);
      mlip_softmax_args a{};
      a.in = off;
      a.out = off;
      a.rows = u32(rn);
      a.len = u32(sp.len);
      a.log = sp.log ? 1 : 0;
      a.dtype = MLIP_DT_FP16;
      p.emit(MLIP_OP_SOFTMAX, tile, a);
      p.dma_out(tile, p.binding(y), p.ddr_base(y) + r0 * sp.len * kF16Bytes, off, rn * sp.len * kF16Bytes);
    }
  }
}

void json(const RLayer& l, nlohmann::json& a) {
  const SoftmaxParams& sp = params_of<SoftmaxParams>(l);
  a["rows"] = sp.rows;
  a["axis_len"] = sp.len;
  a["log"] = sp.log;
}

}  // namespace softmax_layer

extern const LayerKind kSoftmax = {MLIP_LAYER_SOFTMAX, "softmax", "Softmax", "mrvl.softmax", {"Softmax", "LogSoftmax"},
                                   /*fuses_activation=*/false, softmax_layer::support, softmax_layer::lower,
                                   softmax_layer::plan, nullptr, softmax_layer::json};

}  // namespace mlipc::mlip::layers
