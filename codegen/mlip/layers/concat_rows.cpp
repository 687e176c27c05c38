// CONCAT_ROWS: Concat on any axis of row-major tensors (the class token
// before the patches, the heads merged back), as DMA only: each input's
// rows (the elements from the axis on, for every index before it) are
// copied into their columns of the output's rows. A constant input (the
// class token, position tables folded by the frontend) is fp16 in WEIGHTS.
// Split across tiles by rows. CONCAT (concat.cpp) takes the 4-D channel form
// of the NHWC kinds and hands the others here.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace concat_rows_layer {

// A CONCAT_ROWS layer's own parameters (RLayer::params): the rows, each
// input's row length and where a constant input's values are in WEIGHTS
// (-1: a computed input, the layer's next input tensor).
struct ConcatRowsParams {
  int64_t rows = 1;
  std::vector<int64_t> cols, weights;
};

int64_t axis_of(const Node& n, size_t rank) {
  int64_t a = n.attrs.get_int("axis", 0);
  return a < 0 ? a + static_cast<int64_t>(rank) : a;
}

}  // namespace concat_rows_layer

std::string concat_rows_reason(const Graph& g, const Node& n, const SupportLimits& lim) {
  if (lim.int8) return "only int8/uint8 4-D concatenation has an int8 MLIP layer";
  const Value& out = g.value(n.outputs[0]);
  if (std::string r = rowmajor_reason(out); !r.empty()) return r;
  bool computed = false;
  for (ValueId in : n.inputs) {
    const Value& v = g.value(in);
    if (std::string r = rowmajor_reason(v); !r.empty()) return r;
    computed = computed || !v.is_constant();
    int64_t cols = 1;
    const size_t axis = static_cast<size_t>(concat_rows_layer::axis_of(n, out.shape.size()));
    for (size_t d = axis; d < v.shape.size(); ++d) cols *= v.shape[d];
    if (ocm_round(cols * kF16Bytes) > lim.work_bytes)
      return fmt::format("a row of input '{}' does not fit the {} bytes of OCM", v.name, lim.work_bytes);
  }
  if (!computed) return "every input is constant";
  return "";
}

void lower_concat_rows(LowerContext& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  const Shape& ys = g.value(n.outputs[0]).shape;
  const size_t axis = static_cast<size_t>(concat_rows_layer::axis_of(n, ys.size()));
  concat_rows_layer::ConcatRowsParams cp;
  for (size_t d = 0; d < axis; ++d) cp.rows *= ys[d];
  std::vector<int> inputs;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Value& v = g.value(n.inputs[i]);
    int64_t cols = 1;
    for (size_t d = axis; d < v.shape.size(); ++d) cols *= v.shape[d];
    cp.cols.push_back(cols);
    if (v.is_constant()) {
      const TensorData& c = ctx.constant(n, i);
      std::vector<float> f(static_cast<size_t>(c.numel()));
      for (int64_t k = 0; k < c.numel(); ++k) f[static_cast<size_t>(k)] = static_cast<float>(c.at(k));
      cp.weights.push_back(ctx.add_f16(f));
      ctx.add_const({v.name, v.shape, f});
    } else {
      cp.weights.push_back(-1);
      inputs.push_back(ctx.rowmajor_of(n.inputs[i]));
    }
  }
  RLayer& l = ctx.new_layer(MLIP_LAYER_CONCAT_ROWS, n);
  l.inputs = inputs;
  l.params = cp;
  l.output = ctx.output_tensor(n, 0, true);
}

namespace concat_rows_layer {

// Input after input: its rows split across tiles, each tile's share in
// chunks that fit OCM, DMA in (contiguous) and out (into the output's rows).
void plan(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const ConcatRowsParams& cp = params_of<ConcatRowsParams>(l);
  const RTensor& y = p.out();
  int64_t total = 0;
  for (int64_t c : cp.cols) total += c;
  const auto parts = split_range(cp.rows, p.num_tiles());
  p.set_split(Split::Rows, parts);
  int64_t col = 0;
  int next = 0;
  for (size_t i = 0; i < cp.cols.size(); ++i) {
    const int64_t ci = cp.cols[i];
    const bool weights = cp.weights[i] >= 0;
    const RTensor* x = weights ? nullptr : &p.in(next++);
    const uint32_t bind = weights ? p.weights_binding() : p.binding(*x);
    const int64_t base = weights ? cp.weights[i] : p.ddr_base(*x);
    const int64_t rc = largest(cp.rows, [&](int64_t v) { return ocm_round(v * ci * kF16Bytes) <= p.work_limit(); });
    if (rc == 0) fail("layer '{}' does not fit OCM", l.name);
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      Ocm ocm(p.work_limit());
      const uint32_t off = ocm.take(std::min(rc, parts[t].second - parts[t].first) * ci * kF16Bytes);
      p.note_ocm(tile, ocm);
      for (int64_t r0 = parts[t].first; r0 < parts[t].second; r0 += rc) {
        const int64_t rn = std::min(rc, parts[t].second - r0);
        p.count_pass();
        p.dma_in(tile, bind, base + r0 * ci * kF16Bytes, off, rn * ci * kF16Bytes);
        p.dma_out(tile, p.binding(y), p.ddr_base(y) + (r0 * total + col) * kF16Bytes, off, rn, ci * kF16Bytes,
                  total * kF16Bytes, ci * kF16Bytes);
      }
    }
    col += ci;
  }
}

void json(const RLayer& l, nlohmann::json& a) {
  const ConcatRowsParams& cp = params_of<ConcatRowsParams>(l);
  a["rows"] = cp.rows;
  a["columns"] = cp.cols;
}

}  // namespace concat_rows_layer

extern const LayerKind kConcatRows = {MLIP_LAYER_CONCAT_ROWS, "concat_rows", "Concat", "mrvl.concat_rows", {},
                                      /*fuses_activation=*/false, nullptr, nullptr, concat_rows_layer::plan, nullptr,
                                      concat_rows_layer::json};

}  // namespace mlipc::mlip::layers
