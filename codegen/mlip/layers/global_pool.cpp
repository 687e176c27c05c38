// GLOBAL_AVGPOOL and GLOBAL_MAXPOOL: GlobalAveragePool and GlobalMaxPool
// of NHWC tensors, and the MaxPool, AveragePool and QLinearAveragePool
// whose one window is the whole input (pool.cpp's global_window: a
// torch avg_pool1d(x, x.shape[-1]), AvgPool2d(7) on a 7x7 map) whatever
// their kernel. Split across tiles by channels, each tile's share in groups
// of channels whose whole spatial extent fits OCM.
#include <algorithm>

#include <fmt/format.h>

#include "ops/qlinear.h"
#include "ops/quant.h"
#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace global_pool_layer {

// An 8-bit GLOBAL_AVGPOOL's own parameters (RLayer::params): zero points,
// the requantization of x_scale / (y_scale * hw), the output range.
struct GlobalAvgQ8Params {
  int32_t x_zp = 0, y_zp = 0, q = 0, shift = 0, lo = 0, hi = 0;
};

// The OCM `channels` channels of an image of `hw` positions need.
uint64_t pass_bytes(int64_t hw, int64_t channels, int64_t eb = kF16Bytes) {
  return ocm_round(hw * channels * eb) + ocm_round(channels * eb);
}

// QLinearGlobalAveragePool (x, x_scale, x_zp, y_scale, y_zp; NCHW) and
// GlobalMaxPool on int8 tensors, and a global window's MaxPool and
// QLinearAveragePool (the same inputs): the int8 forms. `x` is the input's
// [N, C, H, W] form. 16x8: QLinearGlobalAveragePool on int16 (an int64
// sum, mlip_requantize64: the CPU's qlinear_global_avgpool16.c).
std::string q8_support(const Graph& g, const Node& n, const Shape& x, const SupportLimits& lim) {
  if (!lim.int8) return "int8 global pooling needs -quantize=int8";
  if (n.op == "GlobalAveragePool" || n.op == "AveragePool") return fmt::format("{} on int8 tensors", n.op);
  if (n.attrs.get_int("channels_last", 0) != 0) return "channels_last";
  if (std::string r = batch_reason(x[0]); !r.empty()) return r;
  // 16x8: QLinearGlobalAveragePool only (the support gate lets no other
  // global pool on int16 through).
  const bool wide = g.value(n.inputs[0]).dtype == DType::Int16;
  if (n.op == "QLinearGlobalAveragePool" || n.op == "QLinearAveragePool") {
    for (size_t i : {1, 3})
      if (!is_const(g, n, i)) return fmt::format("input #{} is not constant", i);
    for (size_t i : {2, 4})
      if (n.has_input(i) && !is_const(g, n, i)) return fmt::format("input #{} is not constant", i);
    if (g.value(n.outputs[0]).dtype != g.value(n.inputs[0]).dtype) return "input and output types differ";
    // 16x8 (int16): an int64 sum, no bound but OCM's.
    if (!wide && x[2] * x[3] > static_cast<int64_t>(MLIP_INT8_MAX_POOL_HW)) return "more positions than the int8 bound";
  }
  if (pass_bytes(x[2] * x[3], 1, wide ? 2 : 1) > lim.work_bytes) return "the spatial extent does not fit OCM";
  return "";
}

std::string support(const Graph& g, const Node& n, const SupportLimits& lim) {
  const Shape& x = g.value(n.inputs[0]).shape;
  if (lim.int8 || n.op == "QLinearGlobalAveragePool") {
    if (x.size() != 4) return "only 4-D int8 global pooling runs on the MLIP";
    return q8_support(g, n, x, lim);
  }
  if (!is_float4d(g, n.inputs[0])) return "only 4-D float32 global pooling runs on the MLIP";
  if (std::string r = batch_reason(x[0]); !r.empty()) return r;
  if (pass_bytes(x[2] * x[3], 1) > lim.work_bytes) return "the spatial extent does not fit OCM";
  return "";
}

// The layer of n (a global pool, or a pool of one whole-input window) on
// its input's NHWC form (a 3-D [N, C, W] one with h = 1).
void lower_layer(LowerContext& ctx, const Node& n, bool avg) {
  const Graph& g = ctx.graph();
  const Shape& xs = g.value(n.inputs[0]).shape;
  const int in_t = ctx.nhwc_of(n.inputs[0]);  // before the layer: it may add a relayout layer
  RLayer& l = ctx.new_layer(avg ? MLIP_LAYER_GLOBAL_AVGPOOL : MLIP_LAYER_GLOBAL_MAXPOOL, n);
  l.inputs = {in_t};
  l.output = xs.size() == 3 ? ctx.nhwc_output(n) : ctx.output_tensor(n);
  l.dtype = ctx.tensor(l.output).dtype;
  if (n.op != "QLinearGlobalAveragePool" && n.op != "QLinearAveragePool") return;
  // The CPU kernels' constants (ops/qlinear_pool.cpp: QLinearAveragePool's
  // table entry for a count of hw is the same mean_requant): one
  // requantization of x_scale / (y_scale * hw), the type's range (16x8:
  // int16's; qlinear_global_avgpool16.c's same mean_requant).
  const DType t = g.value(n.inputs[0]).dtype;
  const int32_t zx = n.has_input(2) ? static_cast<int32_t>(ctx.any_constant(n, 2).as_int64()[0]) : 0;
  const int32_t zy = n.has_input(4) ? static_cast<int32_t>(ctx.any_constant(n, 4).as_int64()[0]) : 0;
  const Shape x = conv_shape_2d(xs);
  const ops::Requant r = ops::mean_requant(ctx.any_constant(n, 1).data<float>()[0],
                                          ctx.any_constant(n, 3).data<float>()[0], x[2] * x[3],
                                          ops::requant_mode(n.attrs), "the mean");
  l.params = GlobalAvgQ8Params{zx, zy, r.q, r.shift, ops::quant_min(t), ops::quant_max(t)};
}

void lower(LowerContext& ctx, const Node& n) {
  lower_layer(ctx, n, n.op == "GlobalAveragePool" || n.op == "QLinearGlobalAveragePool");
}

void plan(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const RTensor& x = p.in();
  const RTensor& y = p.out();
  const int64_t eb = x.elem_bytes();
  const int64_t HW = x.h * x.w, C = x.c;
  const auto parts = split_range(C, p.num_tiles());
  p.set_split(Split::Channels, parts);
  for (int64_t img = 0; img < x.n; ++img) {
    const int64_t xb = p.ddr_base(x) + img * HW * C * eb;
    const int64_t yb = p.ddr_base(y) + img * C * eb;
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      const int64_t c0 = parts[t].first, c1 = parts[t].second;
      const int64_t cc = largest(c1 - c0, [&](int64_t v) { return pass_bytes(HW, v, eb) <= p.work_limit(); });
      if (cc == 0) fail("layer '{}' does not fit OCM", l.name);
      for (int64_t cs = c0; cs < c1; cs += cc) {
        const int64_t cn = std::min(cc, c1 - cs);
        Ocm ocm(p.work_limit());
        const uint32_t in_off = ocm.take(HW * cn * eb), out_off = ocm.take(cn * eb);
        p.note_ocm(tile, ocm);
        p.count_pass();
        if (cn == C)
          p.dma_in(tile, p.binding(x), xb, in_off, HW * C * eb);
        else
          p.dma_in(tile, p.binding(x), xb + cs * eb, in_off, HW, cn * eb, C * eb, cn * eb);
        mlip_global_pool_args a{};
        a.in = in_off;
        a.out = out_off;
        a.hw = u32(HW);
        a.c = u32(cn);
        p.fused(a);
        if (l.q8() && l.kind == MLIP_LAYER_GLOBAL_AVGPOOL) {
          const GlobalAvgQ8Params& q = params_of<GlobalAvgQ8Params>(l);
          a.x_zp = q.x_zp;
          a.y_zp = q.y_zp;
          a.q = q.q;
          a.shift = q.shift;
          a.lo = q.lo;
          a.hi = q.hi;
          a.requant = l.requant;
        }
        p.emit(l.kind == MLIP_LAYER_GLOBAL_AVGPOOL ? MLIP_OP_GLOBAL_AVGPOOL : MLIP_OP_GLOBAL_MAXPOOL, tile, a);
        p.dma_out(tile, p.binding(y), yb + cs * eb, out_off, cn * eb);
      }
    }
  }
}

}  // namespace global_pool_layer

std::string global_window_reason(const Graph& g, const Node& n, const SupportLimits& lim) {
  const Value& xv = g.value(n.inputs[0]);
  const Shape x = conv_shape_2d(xv.shape);
  if (lim.int8) return global_pool_layer::q8_support(g, n, x, lim);
  if (n.op == "QLinearAveragePool") return "QLinearAveragePool needs -quantize=int8";
  if (xv.dtype != DType::Float32) return "only float32 pooling runs on the MLIP in fp16";
  if (std::string r = batch_reason(x[0]); !r.empty()) return r;
  if (global_pool_layer::pass_bytes(x[2] * x[3], 1) > lim.work_bytes) return "the spatial extent does not fit OCM";
  return "";
}

void lower_global_window(LowerContext& ctx, const Node& n) {
  global_pool_layer::lower_layer(ctx, n, n.op == "AveragePool" || n.op == "QLinearAveragePool");
}

extern const LayerKind kGlobalAvgPool = {MLIP_LAYER_GLOBAL_AVGPOOL, "global_avgpool", "GlobalAvgpool2D",
                                         "mrvl.globalavgpool2d_nhwc2nhwc", {"GlobalAveragePool", "QLinearGlobalAveragePool"},
                                         /*fuses_activation=*/true, global_pool_layer::support,
                                         global_pool_layer::lower, global_pool_layer::plan, nullptr, nullptr};
extern const LayerKind kGlobalMaxPool = {MLIP_LAYER_GLOBAL_MAXPOOL, "global_maxpool", "GlobalMaxpool2D",
                                         "mrvl.globalmaxpool2d_nhwc2nhwc", {"GlobalMaxPool"},
                                         /*fuses_activation=*/true, global_pool_layer::support,
                                         global_pool_layer::lower, global_pool_layer::plan, nullptr, nullptr};

}  // namespace mlipc::mlip::layers
