// RESIZE: Resize and Upsample of the spatial axes of a 4-D tensor, nearest
// (any nearest_mode and coordinate mode) and linear (bilinear: half_pixel,
// pytorch_half_pixel, align_corners, asymmetric, ...). The compiler computes
// every output row's and column's input indices and weights once, as the
// reference kernel does (ops/resize.h), and stores them as two tap
// tables in WEIGHTS; the command reads them. Split across tiles by output
// rows, each tile's share in groups of channels and passes of output rows
// that fit OCM. int8 (docs/mlip-spec.md 4a): a nearest Resize of an
// int8/uint8 tensor (what passes/fold_qdq keeps on the integers: input and
// output share scale and zero point) is the same command on one-byte
// elements, a copy; a linear one stays float (fold_qdq says why), so an
// int8 region never holds it.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ops/resize.h"
#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace resize_layer {

constexpr int64_t kEntryBytes = MLIP_RESIZE_ENTRY_BYTES;  // a tap: uint32 index, float32 weight

// A RESIZE layer's own parameters (RLayer::params): its tap tables in
// WEIGHTS (rows, columns; always streamed), the taps per output row and
// column, the input row of every row tap (the planner sizes passes with
// them), and the method for nodes-JSON.
struct ResizeParams {
  int64_t row_table = -1, col_table = -1;
  int64_t row_taps = 1, col_taps = 1;
  std::vector<int64_t> rows;
  std::string method;
};

// One axis' taps: index and weight of tap t of output index o at [o * taps + t].
struct AxisTaps {
  int64_t taps = 1;
  std::vector<int64_t> index;
  std::vector<float> weight;
};

// The taps of axis d of plan p: an axis the plan leaves alone reads index o.
AxisTaps axis_taps(const ops::ResizePlan& p, int d) {
  const ops::ResizeAxis& ax = p.axes[static_cast<size_t>(d)];
  AxisTaps a;
  if (!ax.resized) {
    for (int64_t o = 0; o < ax.out; ++o) a.index.push_back(o);
    a.weight.assign(a.index.size(), 0.0f);
    return a;
  }
  a.taps = p.taps;
  a.index = ax.index;
  a.weight = p.mode == ops::ResizeMode::Nearest ? std::vector<float>(ax.index.size(), 0.0f) : ax.coeff;
  return a;
}

// The input rows output rows [o0, o1) read.
std::pair<int64_t, int64_t> rows_read(const AxisTaps& rows, int64_t o0, int64_t o1) {
  int64_t lo = INT64_MAX, hi = -1;
  for (int64_t i = o0 * rows.taps; i < o1 * rows.taps; ++i) {
    lo = std::min(lo, rows.index[static_cast<size_t>(i)]);
    hi = std::max(hi, rows.index[static_cast<size_t>(i)]);
  }
  return {lo, hi + 1};
}

// The most input rows any R consecutive output rows read.
int64_t max_span(const AxisTaps& rows, int64_t R) {
  const int64_t out = static_cast<int64_t>(rows.index.size()) / rows.taps;
  int64_t span = 0;
  for (int64_t o0 = 0; o0 < out; ++o0) {
    auto [lo, hi] = rows_read(rows, o0, std::min(out, o0 + R));
    span = std::max(span, hi - lo);
  }
  return span;
}

// OCM of a pass: input rows, output rows (elements of eb bytes), the pass's
// row taps, every column's taps.
uint64_t pass_bytes(int64_t span, int64_t R, int64_t occ, int64_t W, int64_t OW, const AxisTaps& rows,
                    const AxisTaps& cols, int64_t eb) {
  return ocm_round(span * W * occ * eb) + ocm_round(R * OW * occ * eb) + ocm_round(R * rows.taps * kEntryBytes) +
         ocm_round(OW * cols.taps * kEntryBytes);
}

std::string support(const Graph& g, const Node& n, const SupportLimits& lim) {
  const Value& xv = g.value(n.inputs[0]);
  if (lim.int8) {
    if (!is_q8_type(xv.dtype) || xv.shape.size() != 4 || g.value(n.outputs[0]).dtype != xv.dtype)
      return "only an int8/uint8 4-D Resize has an int8 MLIP layer";
  } else if (!is_float4d(g, n.inputs[0])) {
    return "only float32 4-D (NCHW) tensors";
  }
  const Shape& x = xv.shape;
  if (std::string r = batch_reason(x[0]); !r.empty()) return r;
  if (ops::resize_sizes_at_run_time(g, n)) return "sizes computed at run time";
  for (size_t i = 1; i < n.inputs.size(); ++i)
    if (n.has_input(i) && !g.value(n.inputs[i]).is_constant()) return "roi, scales or sizes computed at run time";
  const ops::ResizePlan p = ops::resize_plan(g, n);
  if (p.mode == ops::ResizeMode::Cubic) return "cubic interpolation (nearest and linear run on the MLIP)";
  if (lim.int8 && p.mode != ops::ResizeMode::Nearest)
    return "linear interpolation of int8 tensors (only nearest has an int8 MLIP layer: a copy)";
  if (p.extrapolates) return "tf_crop_and_resize with positions outside the input (extrapolation_value)";
  if (p.axes[0].resized || p.axes[1].resized) return "resizing the batch or channel axis";
  for (const ops::ResizeAxis& ax : p.axes)
    if (ax.in == 0 || ax.out == 0) return "a tensor of no elements";
  const AxisTaps rows = axis_taps(p, 2), cols = axis_taps(p, 3);
  const uint64_t need = pass_bytes(max_span(rows, 1), 1, 1, x[3], p.out_shape[3], rows, cols, lim.int8 ? 1 : kF16Bytes);
  if (need > lim.work_bytes)
    return fmt::format("one output row needs {} bytes of OCM, more than the {} available", need, lim.work_bytes);
  return "";
}

// Appends one axis' taps to WEIGHTS (little-endian uint32 index, float32 weight).
int64_t add_taps(LowerContext& ctx, const AxisTaps& a) {
  std::vector<uint32_t> words;
  for (size_t i = 0; i < a.index.size(); ++i) {
    uint32_t wbits;
    std::memcpy(&wbits, &a.weight[i], sizeof wbits);
    words.push_back(static_cast<uint32_t>(a.index[i]));
    words.push_back(wbits);
  }
  return ctx.add_u32(words);
}

const char* method_name(const ops::ResizePlan& p) { return p.mode == ops::ResizeMode::Nearest ? "nearest" : "linear"; }

void lower(LowerContext& ctx, const Node& n) {
  const ops::ResizePlan p = ops::resize_plan(ctx.graph(), n);
  if (p.mode == ops::ResizeMode::Cubic || p.extrapolates || p.axes[0].resized || p.axes[1].resized)
    fail("internal: a Resize the MLIP cannot run");
  const AxisTaps rows = axis_taps(p, 2), cols = axis_taps(p, 3);
  const int64_t row_table = add_taps(ctx, rows), col_table = add_taps(ctx, cols);
  const int in_t = ctx.tensor_of(n.inputs[0]);  // before the layer: it may add a relayout layer
  RLayer& l = ctx.new_layer(MLIP_LAYER_RESIZE, n);
  l.inputs = {in_t};
  l.params = ResizeParams{row_table, col_table, rows.taps, cols.taps, rows.index, method_name(p)};
  l.output = ctx.output_tensor(n);
  l.dtype = ctx.tensor(l.output).dtype;  // int8: nearest only (support), a copy of bytes
}

// Images one after another; each image's output rows split across tiles;
// each tile's share in groups of channels that fit OCM, each group in passes
// of output rows reading the input rows their taps name.
void plan(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const ResizeParams& rp = params_of<ResizeParams>(l);
  const RTensor& x = p.in();
  const RTensor& y = p.out();
  const int64_t eb = x.elem_bytes();
  const int64_t H = x.h, W = x.w, C = x.c, OH = y.h, OW = y.w;
  AxisTaps rows, cols;
  rows.taps = rp.row_taps;
  rows.index = rp.rows;
  cols.taps = rp.col_taps;
  const auto parts = split_range(OH, p.num_tiles());
  p.set_split(Split::Rows, parts);
  const uint64_t limit = p.work_limit();
  const int64_t span1 = max_span(rows, 1);
  const int64_t occ = largest(C, [&](int64_t v) { return pass_bytes(span1, 1, v, W, OW, rows, cols, eb) <= limit; });
  if (occ == 0) fail("layer '{}' does not fit OCM even one row and channel at a time", l.name);
  for (int64_t img = 0; img < x.n; ++img) {
    const int64_t xb = p.ddr_base(x) + img * H * W * C * eb;
    const int64_t yb = p.ddr_base(y) + img * OH * OW * C * eb;
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      const int64_t r0 = parts[t].first, r1 = parts[t].second;
      const int64_t R = largest(r1 - r0, [&](int64_t v) {
        return pass_bytes(max_span(rows, v), v, occ, W, OW, rows, cols, eb) <= limit;
      });
      const int64_t span = max_span(rows, R);
      for (int64_t cs = 0; cs < C; cs += occ) {
        const int64_t cn = std::min(occ, C - cs);
        Ocm ocm(limit);
        const uint32_t in_off = ocm.take(span * W * cn * eb);
        const uint32_t out_off = ocm.take(R * OW * cn * eb);
        const uint32_t row_off = ocm.take(R * rows.taps * kEntryBytes);
        const uint32_t col_off = ocm.take(OW * cols.taps * kEntryBytes);
        p.note_ocm(tile, ocm);
        p.dma_in(tile, p.weights_binding(), rp.col_table, col_off, OW * cols.taps * kEntryBytes);
        for (int64_t p0 = r0; p0 < r1; p0 += R) {
          const int64_t p1 = std::min(r1, p0 + R);
          const auto [ir0, ir1] = rows_read(rows, p0, p1);
          p.count_pass();
          p.dma_in(tile, p.weights_binding(), rp.row_table + p0 * rows.taps * kEntryBytes, row_off,
                   (p1 - p0) * rows.taps * kEntryBytes);
          if (cn == C)
            p.dma_in(tile, p.binding(x), xb + ir0 * W * C * eb, in_off, (ir1 - ir0) * W * C * eb);
          else
            p.dma_in(tile, p.binding(x), xb + (ir0 * W * C + cs) * eb, in_off, (ir1 - ir0) * W,
                     cn * eb, C * eb, cn * eb);
          mlip_resize_args a{};
          a.in = in_off;
          a.in_h = u32(ir1 - ir0);
          a.in_w = u32(W);
          a.c = u32(cn);
          a.out = out_off;
          a.out_h = u32(p1 - p0);
          a.out_w = u32(OW);
          a.row_table = row_off;
          a.col_table = col_off;
          a.row_taps = u32(rows.taps);
          a.col_taps = u32(cols.taps);
          a.row_base = u32(ir0);
          a.dtype = l.dtype;  // fp16, or the 8-bit type of a nearest copy
          p.emit(MLIP_OP_RESIZE, tile, a);
          if (cn == C)
            p.dma_out(tile, p.binding(y), yb + p0 * OW * C * eb, out_off, (p1 - p0) * OW * C * eb);
          else
            p.dma_out(tile, p.binding(y), yb + (p0 * OW * C + cs) * eb, out_off, (p1 - p0) * OW,
                      cn * eb, C * eb, cn * eb);
        }
      }
    }
  }
}

void json(const RLayer& l, nlohmann::json& a) {
  const ResizeParams& rp = params_of<ResizeParams>(l);
  a["method"] = rp.method;
  a["taps"] = {rp.row_taps, rp.col_taps};
}

}  // namespace resize_layer

extern const LayerKind kResize = {MLIP_LAYER_RESIZE, "resize", "Resize2D", "mrvl.resize2d_nhwc2nhwc",
                                  {"Resize", "Upsample"}, /*fuses_activation=*/false, resize_layer::support,
                                  resize_layer::lower, resize_layer::plan, nullptr,
                                  resize_layer::json};

}  // namespace mlipc::mlip::layers
