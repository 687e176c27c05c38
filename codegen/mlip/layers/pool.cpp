// MAXPOOL and AVGPOOL: MaxPool and AveragePool (floor or ceil mode, pads
// below the window, asymmetric too, count_include_pad, dilations) on NHWC tensors,
// 2-D, and 1-D as the [N, C, 1, W] form a 1-D convolution's tensors have. A
// ceil_mode window that reaches past the padded input reads and counts only
// the positions inside it, as the reference does. Split across tiles by output rows,
// each tile's share in groups of channels and passes of output rows that
// fit OCM. int8 (docs/mlip-spec.md 4a): MaxPool on the integers, and
// QLinearAveragePool (what passes/fold_qdq makes of a QDQ AveragePool) with
// a table of the CPU kernel's (q, shift) per window count. 16x8: MaxPool
// on int16 (the CPU's kernel's exact maximum) and QLinearAveragePool on
// int16 (the same table; an int64 sum and mlip_requantize64, as the CPU's).
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ops/qlinear.h"
#include "ops/spatial.h"
#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace pool_layer {

constexpr ops::GeometryRules kPoolRules{/*dilations=*/true, /*ceil_mode=*/true};
// QLinearAveragePool's, as its shape rule (ops/qlinear_pool.cpp).
constexpr ops::GeometryRules kQPoolRules{/*dilations=*/true, /*ceil_mode=*/true, /*pads_below_window=*/true};

const ops::GeometryRules& rules_of(const Node& n) { return n.op == "QLinearAveragePool" ? kQPoolRules : kPoolRules; }

// The window of pool n on input shape x ([N, C, W] or [N, C, H, W]) as a 2-D
// one. A stride along an axis with one output position moves no window: it
// is 1 (torch's mean over a whole signal, avg_pool1d(x, x.shape[-1]), has a
// stride of the signal's length, above any MLIP's).
ops::Geometry pool_geometry(const Node& n, const Shape& x) {
  ops::Geometry geo = geometry_2d(ops::resolve_geometry(n.attrs, ops::spatial_of(x), {}, rules_of(n)));
  for (size_t i = 0; i < geo.strides.size(); ++i)
    if (geo.out[i] == 1) geo.strides[i] = 1;
  return geo;
}

bool is_1d_or_2d(const Value& v) { return v.shape.size() == 3 || v.shape.size() == 4; }

bool is_avg(const Node& n) { return n.op == "AveragePool" || n.op == "QLinearAveragePool"; }

// A pool layer's own parameters (RLayer::params): its window and
// count_include_pad; an 8-bit AVGPOOL's requantization table in WEIGHTS (a
// {q, shift} pair per window count from 0 to kh * kw; always streamed), its
// zero points and output range.
struct PoolParams {
  Window win;
  bool count_include_pad = false;
  int64_t table = -1, table_bytes = 0;
  int32_t x_zp = 0, y_zp = 0, lo = 0, hi = 0;
};

// Bytes of an int8 AVGPOOL's table: a {q, shift} pair per count 0 .. taps.
int64_t table_bytes(int64_t taps) { return (taps + 1) * static_cast<int64_t>(MLIP_POOL_TABLE_ENTRY_BYTES); }

// What one pass of one image works on, and the OCM it needs (the planner's
// passes and the support rule's smallest pass: one row of one channel).
struct PoolPass {
  int64_t H, W;   // input image
  int64_t OW;     // output width
  int64_t kh, sh; // vertical window: its extent (dilation included) and stride
  int64_t eb = kF16Bytes;  // bytes per element: 1 in int8 regions
  int64_t table = 0;       // bytes of an int8 AVGPOOL's requantization table

  int64_t rows_for(int64_t R) const { return std::min(H, (R - 1) * sh + kh); }
  // R output rows of occ channels, read from occ input channels.
  uint64_t bytes(int64_t R, int64_t occ) const {
    return ocm_round(rows_for(R) * W * occ * eb) + ocm_round(R * OW * occ * eb) + ocm_round(table);
  }
};

// QLinearAveragePool (X, x_scale, x_zp, y_scale, y_zp): constant scales and
// zero points, one type in and out.
std::string q8_avg_reason(const Graph& g, const Node& n) {
  for (size_t i : {1, 3})
    if (!is_const(g, n, i)) return fmt::format("input #{} is not constant", i);
  for (size_t i : {2, 4})
    if (n.has_input(i) && !is_const(g, n, i)) return fmt::format("input #{} is not constant", i);
  if (g.value(n.outputs[0]).dtype != g.value(n.inputs[0]).dtype) return "input and output types differ";
  if (g.value(n.inputs[0]).dtype == DType::Int16)  // the MLIP's int16 tensors are symmetric
    for (size_t i : {2, 4})
      if (n.has_input(i) && g.value(n.inputs[i]).constant->as_int64()[0] != 0)
        return fmt::format("an int16 (16x8) zero point other than 0 (input #{})", i);
  return "";
}

std::string support(const Graph& g, const Node& n, const SupportLimits& lim) {
  // 16x8 (int16): MAXPOOL's window (an exact maximum of int16s) and
  // QLinearAveragePool (AVGPOOL, or GLOBAL_AVGPOOL for a global window);
  // GLOBAL_MAXPOOL has no 16x8 form.
  const bool wide = g.value(n.inputs[0]).dtype == DType::Int16;
  if (wide && !(n.op == "MaxPool" && !global_window(g, n)) && n.op != "QLinearAveragePool")
    return fmt::format(
        "{} on int16 (16x8): of the pools only a MaxPool window (MAXPOOL) and QLinearAveragePool have a 16x8 MLIP "
        "layer",
        n.op);
  if (n.op == "QLinearAveragePool")
    if (std::string r = q8_avg_reason(g, n); !r.empty()) return r;
  if (global_window(g, n)) {
    if (n.outputs.size() > 1 && n.outputs[1] != kNoValue) return "the Indices output";
    return global_window_reason(g, n, lim);
  }
  // int8: MaxPool on the integers (fold_qdq keeps it when its input and
  // output share scale and zero point), exact; QLinearAveragePool.
  const Value& xv = g.value(n.inputs[0]);
  const bool q8 = lim.int8 && (n.op == "MaxPool" || n.op == "QLinearAveragePool") && is_1d_or_2d(xv);
  if (lim.int8 && !q8) return "only MaxPool and QLinearAveragePool of 3-D and 4-D tensors have an int8 MLIP layer";
  if (!lim.int8 && n.op == "QLinearAveragePool") return "QLinearAveragePool needs -quantize=int8";
  if (!q8 && (xv.dtype != DType::Float32 || !is_1d_or_2d(xv)))
    return "only 1-D and 2-D float32 pooling (3-D and 4-D NCHW tensors) runs on the MLIP";
  const Shape x = conv_shape_2d(xv.shape);  // [N, C, H, W]
  if (std::string r = batch_reason(x[0]); !r.empty()) return r;
  if (n.outputs.size() > 1 && n.outputs[1] != kNoValue) return "the Indices output";
  const ops::Geometry geo = pool_geometry(n, xv.shape);
  if (std::string r = window_reason(geo, lim.target, true); !r.empty()) return r;
  for (int64_t d : geo.dilations)
    if (d - 1 > static_cast<int64_t>(MLIP_POOL_MAX_GAP))
      return fmt::format("dilation {} above the {} of a MAXPOOL or AVGPOOL window", d, MLIP_POOL_MAX_GAP + 1);
  PoolPass pass{x[2], x[3], geo.out[1], (geo.kernel[0] - 1) * geo.dilations[0] + 1, geo.strides[0],
                q8 && !wide ? 1 : kF16Bytes};  // int16: two bytes, as fp16
  if (n.op == "QLinearAveragePool") {
    const int64_t taps = geo.kernel[0] * geo.kernel[1];
    if (taps > static_cast<int64_t>(MLIP_INT8_MAX_POOL_HW))  // 16x8 too: the bound of the table's size
      return fmt::format("a window of {} taps, above the int8 bound of {}", taps, MLIP_INT8_MAX_POOL_HW);
    pass.table = table_bytes(taps);
  }
  const uint64_t need = pass.bytes(1, 1);
  if (need > lim.work_bytes)
    return fmt::format("one output row needs {} bytes of OCM, more than the {} available", need, lim.work_bytes);
  return "";
}

// An 8-bit or 16x8 AVGPOOL's fields and table: the CPU kernel's (q, shift) of
// x_scale / (y_scale * count) for every count (ops::average_requant), the
// zero points, and the type's range (QLinearAveragePool has no clamp).
void lower_q8_avg(LowerContext& ctx, const Node& n, PoolParams& p) {
  const Graph& g = ctx.graph();
  const DType t = g.value(n.inputs[0]).dtype;
  const int64_t taps = p.win.kh * p.win.kw;
  const std::vector<ops::Requant> r = ops::average_requant(ctx.any_constant(n, 1).data<float>()[0],
                                                          ctx.any_constant(n, 3).data<float>()[0], taps,
                                                          ops::requant_mode(n.attrs));
  std::vector<uint32_t> table;
  for (const ops::Requant& e : r) {
    table.push_back(static_cast<uint32_t>(e.q));
    table.push_back(static_cast<uint32_t>(e.shift));
  }
  p.table = ctx.add_u32(table);
  p.table_bytes = table_bytes(taps);
  p.x_zp = n.has_input(2) ? static_cast<int32_t>(ctx.any_constant(n, 2).as_int64()[0]) : 0;
  p.y_zp = n.has_input(4) ? static_cast<int32_t>(ctx.any_constant(n, 4).as_int64()[0]) : 0;
  p.lo = ops::quant_min(t);
  p.hi = ops::quant_max(t);
}

void lower(LowerContext& ctx, const Node& n) {
  if (global_window(ctx.graph(), n)) return lower_global_window(ctx, n);
  const bool avg = is_avg(n);
  const Shape& xs = ctx.graph().value(n.inputs[0]).shape;
  const ops::Geometry geo = pool_geometry(n, xs);
  PoolParams p;
  p.win = window_of(geo, geo.kernel[0], geo.kernel[1]);
  p.count_include_pad = avg && n.attrs.get_int("count_include_pad", 0) != 0;
  if (n.op == "QLinearAveragePool") lower_q8_avg(ctx, n, p);
  const int in_t = ctx.nhwc_of(n.inputs[0]);  // before the layer: it may add a relayout layer
  RLayer& l = ctx.new_layer(avg ? MLIP_LAYER_AVGPOOL : MLIP_LAYER_MAXPOOL, n);
  l.inputs = {in_t};
  l.params = p;
  l.output = xs.size() == 3 ? ctx.nhwc_output(n) : ctx.output_tensor(n);
  l.dtype = ctx.tensor(l.output).dtype;  // int8 or int16 MAXPOOL: no other field (scale and zero point pass through)
}

std::vector<Split> splits(const RTensor&) { return {Split::Rows}; }

// Images one after another; each image's output rows split across tiles;
// each tile's share in groups of channels that fit OCM (a pool reads only
// the channels it writes), each group in passes of output rows.
void plan(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const PoolParams& pp = params_of<PoolParams>(l);
  const Window& win = pp.win;
  const RTensor& x = p.in();
  const RTensor& y = p.out();
  const int64_t eb = x.elem_bytes();
  const int64_t H = x.h, W = x.w, C = x.c, OH = y.h, OW = y.w;
  const int64_t extent_h = (win.kh - 1) * win.dh + 1;  // input rows one window spans
  const PoolPass pass{H, W, OW, extent_h, win.sh, eb, pp.table_bytes};
  const auto parts = split_range(OH, p.num_tiles());
  p.set_split(Split::Rows, parts);
  const uint64_t limit = p.work_limit();
  for (int64_t img = 0; img < x.n; ++img) {
    const int64_t xb = p.ddr_base(x) + img * H * W * C * eb;
    const int64_t yb = p.ddr_base(y) + img * OH * OW * C * eb;
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      const int64_t r0 = parts[t].first, r1 = parts[t].second;
      const int64_t occ = largest(C, [&](int64_t v) { return pass.bytes(1, v) <= limit; });
      if (occ == 0) fail("layer '{}' does not fit OCM even one row and channel at a time", l.name);
      const int64_t R = largest(r1 - r0, [&](int64_t v) { return pass.bytes(v, occ) <= limit; });
      for (int64_t cs = 0; cs < C; cs += occ) {
        const int64_t cn = std::min(occ, C - cs);
        Ocm ocm(p.work_limit());
        const uint32_t in_off = ocm.take(pass.rows_for(R) * W * cn * eb);
        const uint32_t out_off = ocm.take(R * OW * cn * eb);
        const uint32_t table_off = pp.table >= 0 ? ocm.take(pp.table_bytes) : MLIP_NO_OFFSET;
        p.note_ocm(tile, ocm);
        if (pp.table >= 0) p.dma_in(tile, p.weights_binding(), pp.table, table_off, pp.table_bytes);
        for (int64_t p0 = r0; p0 < r1; p0 += R) {
          const int64_t p1 = std::min(r1, p0 + R);
          const int64_t top = p0 * win.sh - win.pt;  // input row of the pass's first window
          int64_t ir0 = std::max<int64_t>(0, top);
          int64_t ir1 = std::min(H, (p1 - 1) * win.sh - win.pt + extent_h);
          ir0 = std::min(ir0, H - 1);  // a pass whose windows are all padding still loads one real row
          ir1 = std::max(ir1, ir0 + 1);
          p.count_pass();
          if (cn == C)
            p.dma_in(tile, p.binding(x), xb + ir0 * W * C * eb, in_off, (ir1 - ir0) * W * C * eb);
          else
            p.dma_in(tile, p.binding(x), xb + (ir0 * W * C + cs) * eb, in_off, (ir1 - ir0) * W,
                     cn * eb, C * eb, cn * eb);
          mlip_pool_args a{};
          a.in = in_off;
          a.in_h = u32(ir1 - ir0);
          a.in_w = u32(W);
          a.c = u32(cn);
          a.out = out_off;
          a.out_h = u32(p1 - p0);
          a.out_w = u32(OW);
          a.kh = u32(win.kh);
          a.kw = u32(win.kw);
          a.stride_h = u32(win.sh);
          a.stride_w = u32(win.sw);
          a.pad_top = u32(ir0 - top);
          a.pad_left = u32(win.pl);
          a.count_include_pad = pp.count_include_pad ? 1u : 0u;
          // The padded input's bounds in block coordinates.
          a.padded_top = i32(-win.pt - ir0);
          a.padded_bottom = i32(H + win.pb - ir0);
          a.padded_left = i32(-win.pl);
          a.padded_right = i32(W + win.pr);
          a.gap_h = u32(win.dh - 1);
          a.gap_w = u32(win.dw - 1);
          p.fused(a);
          if (pp.table >= 0) {  // 8-bit AVGPOOL
            a.x_zp = pp.x_zp;
            a.y_zp = pp.y_zp;
            a.table = table_off;
            a.lo = pp.lo;
            a.hi = pp.hi;
            a.requant = l.requant;
          }
          p.emit(l.kind == MLIP_LAYER_MAXPOOL ? MLIP_OP_MAXPOOL : MLIP_OP_AVGPOOL, tile, a);
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
  const Window& win = params_of<PoolParams>(l).win;
  json_window(win, a);
  if (win.dh != 1 || win.dw != 1) a["dilation"] = {win.dh, win.dw};
}

}  // namespace pool_layer

bool global_window(const ops::Geometry& geo, bool avg, bool count_include_pad) {
  for (int i = 0; i < geo.rank(); ++i) {
    const int64_t k = geo.kernel[static_cast<size_t>(i)], d = geo.dilations[static_cast<size_t>(i)];
    if (geo.out[static_cast<size_t>(i)] != 1) return false;
    if (d != 1 && k != 1) return false;  // a dilated window skips positions
    // The one window, [-pad_begin, -pad_begin + k), holds every position.
    if (k - geo.pad_begin(i) < geo.in[static_cast<size_t>(i)]) return false;
    // An average that counts padding divides by more than the input's size.
    if (avg && count_include_pad && (geo.pad_begin(i) != 0 || geo.pad_end(i) != 0)) return false;
  }
  return true;
}

bool global_window(const Graph& g, const Node& n) {
  if (n.op != "MaxPool" && !pool_layer::is_avg(n)) return false;
  const Value& xv = g.value(n.inputs[0]);
  if (!pool_layer::is_1d_or_2d(xv)) return false;
  const ops::Geometry geo = ops::resolve_geometry(n.attrs, ops::spatial_of(xv.shape), {}, pool_layer::rules_of(n));
  return global_window(geo, pool_layer::is_avg(n), n.attrs.get_int("count_include_pad", 0) != 0);
}

extern const LayerKind kMaxPool = {MLIP_LAYER_MAXPOOL, "maxpool", "Maxpool2D", "mrvl.maxpool2d_nhwc2nhwc", {"MaxPool"},
                                   /*fuses_activation=*/true, pool_layer::support, pool_layer::lower, pool_layer::plan,
                                   pool_layer::splits, pool_layer::json};
extern const LayerKind kAvgPool = {MLIP_LAYER_AVGPOOL, "avgpool", "Avgpool2D", "mrvl.avgpool2d_nhwc2nhwc",
                                   {"AveragePool", "QLinearAveragePool"}, /*fuses_activation=*/true,
                                   pool_layer::support, pool_layer::lower, pool_layer::plan,
                                   pool_layer::splits, pool_layer::json};

}  // namespace mlipc::mlip::layers
