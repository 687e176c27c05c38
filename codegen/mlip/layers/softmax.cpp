// SOFTMAX: Softmax and LogSoftmax along the last axis of a row-major tensor
// (opset 13), or over the trailing axes from `axis` (the coerced 2-D form of
// opsets before 13): each row is one SOFTMAX command's row, max-subtracted,
// exp by mlip/kmath.h's written algorithm, summed in order, divided (or, for
// LogSoftmax, the log of the sum subtracted): docs/mlip-spec.md section 4.
// Split across tiles by rows, each tile's share in chunks of rows computed
// in place in OCM.
// int8 (docs/mlip-spec.md 4a): a DequantizeLinear, Softmax, QuantizeLinear
// chain of the CPU's int8 build (the Softmax stays float between its QDQ
// pairs there) is one 8-bit SOFTMAX layer that repeats those kernels'
// float operations in their order (mlip/kmath.h's exponential), so it
// gives their bits.
#include <algorithm>
#include <cmath>
#include <optional>

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
  // 8-bit (RLayer::q8()): the input's and the output's scale and zero point
  float x_scale = 0.0f, y_scale = 0.0f;
  int32_t x_zp = 0, y_zp = 0;
};

// rows x len elements of eb bytes, in place.
uint64_t pass_bytes(int64_t rows, int64_t len, int64_t eb = kF16Bytes) { return ocm_round(rows * len * eb); }

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

}  // namespace softmax_layer

std::string q8_softmax_reason(const Graph& g, const Q8Chain& p, const SupportLimits& lim) {
  if (!lim.int8) return "an int8 Softmax needs -quantize=int8";
  const Node& sm = g.nodes[static_cast<size_t>(p.node)];
  Value x = g.value(sm.inputs[0]);  // the float tensor: the shape rules are the fp16 ones
  if (std::string r = rowmajor_reason(x); !r.empty()) return r;
  const int64_t len = softmax_layer::row_len(sm, x.shape);
  if (len == 0) return "only along the last axis (or the trailing axes of the coerced form)";
  const float xs = q8_scale_of(g, g.nodes[static_cast<size_t>(p.dq)]);
  const float ys = q8_scale_of(g, g.nodes[static_cast<size_t>(p.q)]);
  if (!(xs > 0.0f) || !(ys > 0.0f) || std::isinf(xs) || std::isinf(ys)) return "a scale that is not positive and finite";
  if (softmax_layer::pass_bytes(1, len, 1) > lim.work_bytes)
    return fmt::format("a row of {} elements does not fit the {} bytes of OCM", len, lim.work_bytes);
  return "";
}

namespace softmax_layer {

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

// The 8-bit SOFTMAX of pattern p: the DequantizeLinear's int8 input in,
// the QuantizeLinear's output out (the two make no layer of their own).
void lower_q8(LowerContext& ctx, const Q8Chain& p) {
  const Graph& g = ctx.graph();
  const Node& dq = g.nodes[static_cast<size_t>(p.dq)];
  const Node& sm = g.nodes[static_cast<size_t>(p.node)];
  const Node& q = g.nodes[static_cast<size_t>(p.q)];
  const Value& x = g.value(dq.inputs[0]);
  const int in = ctx.rowmajor_of(dq.inputs[0]);
  RLayer& l = ctx.new_layer(MLIP_LAYER_SOFTMAX, sm);
  l.origins.insert(l.origins.begin(), dq.origins.begin(), dq.origins.end());
  l.origins.insert(l.origins.end(), q.origins.begin(), q.origins.end());
  l.inputs = {in};
  l.dtype = mlip_dtype(x.dtype);
  SoftmaxParams sp;
  sp.len = row_len(sm, x.shape);
  sp.rows = numel(x.shape) / sp.len;
  sp.x_scale = q8_scale_of(g, dq);
  sp.x_zp = q8_zero_point_of(g, dq);
  sp.y_scale = q8_scale_of(g, q);
  sp.y_zp = q8_zero_point_of(g, q);
  l.params = sp;
  l.output = ctx.output_tensor(q, 0, true);
}

void lower(LowerContext& ctx, const Node& n) {
  if (auto p = q8_chain_at(ctx.graph(), ctx.consumers(), ctx.producers(), ctx.index_of(n)))
    if (is_q8_type(ctx.graph().value(ctx.graph().nodes[static_cast<size_t>(p->dq)].inputs[0]).dtype))
      return lower_q8(ctx, *p);
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
  const int64_t eb = l.q8() ? 1 : kF16Bytes;
  const auto parts = split_range(sp.rows, p.num_tiles());
  p.set_split(Split::Rows, parts);
  const int64_t rc = largest(sp.rows, [&](int64_t v) { return pass_bytes(v, sp.len, eb) <= p.work_limit(); });
  if (rc == 0) fail("layer '{}' does not fit OCM", l.name);
  for (size_t t = 0; t < parts.size(); ++t) {
    const int tile = static_cast<int>(t);
    Ocm ocm(p.work_limit());
    const uint32_t off = ocm.take(std::min(rc, parts[t].second - parts[t].first) * sp.len * eb);
    p.note_ocm(tile, ocm);
    for (int64_t r0 = parts[t].first; r0 < parts[t].second; r0 += rc) {
      const int64_t rn = std::min(rc, parts[t].second - r0);
      p.count_pass();
      p.dma_in(tile, p.binding(x), p.ddr_base(x) + r0 * sp.len * eb, off, rn * sp.len * eb);
      mlip_softmax_args a{};
      a.in = off;
      a.out = off;
      a.rows = u32(rn);
      a.len = u32(sp.len);
      a.log = sp.log ? 1 : 0;
      a.dtype = l.dtype;
      if (l.q8()) {
        a.x_scale = sp.x_scale;
        a.x_zp = sp.x_zp;
        a.y_scale = sp.y_scale;
        a.y_zp = sp.y_zp;
      }
      p.emit(MLIP_OP_SOFTMAX, tile, a);
      p.dma_out(tile, p.binding(y), p.ddr_base(y) + r0 * sp.len * eb, off, rn * sp.len * eb);
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
