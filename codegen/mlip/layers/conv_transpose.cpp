// CONV_TRANSPOSE: ConvTranspose, 1-D and 2-D (strides, pads, output_padding,
// groups, dilations), fp16 and int8 (mlipc.QLinearConvTranspose, what
// passes/fold_qdq makes of a QDQ ConvTranspose), as CONV2D commands: one per
// stride phase. The outputs o = r + s * q of phase r (per axis) read, through
// the taps k whose (r + pad_begin - k * dilation) is a multiple of the
// stride s, the inputs q + (r + pad_begin - k * dilation) / s: a stride-1
// convolution with those taps in reverse order, its dilation dilation /
// gcd(dilation, s). Each phase's CONV2D writes its outputs to OCM densely
// and its DMA_OUT places them at stride s in DDR (one strided DMA per output
// row). Every product is one the ONNX definition sums, none multiplies a
// zero inserted between inputs (docs/mlip-spec.md, CONV_TRANSPOSE).
#include <algorithm>
#include <numeric>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ops/conv_integer.h"
#include "ops/conv_transpose.h"
#include "ops/op.h"
#include "ops/quant.h"
#include "ops/spatial.h"
#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace conv_transpose_layer {

// One axis's stride phase r: the outputs r, r + s, ... (`count` of them),
// output q of the phase reading the inputs q + first + j * dil for its taps
// j (the kernel indices `taps`, in increasing input position).
struct Phase {
  int64_t r = 0, count = 0, first = 0, dil = 1;
  std::vector<int64_t> taps;
};

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// The phases of one axis: input extent `in`, output `out`, kernel k, stride
// s, dilation d, begin pad pb.
std::vector<Phase> phases_of(int64_t out, int64_t k, int64_t s, int64_t d, int64_t pb) {
  std::vector<Phase> v;
  for (int64_t r = 0; r < s; ++r) {
    Phase p;
    p.r = r;
    p.count = r < out ? (out - r + s - 1) / s : 0;
    for (int64_t t = k - 1; t >= 0; --t)
      if ((r + pb - t * d) % s == 0) p.taps.push_back(t);
    if (!p.taps.empty()) p.first = floor_div(r + pb - p.taps[0] * d, s);
    if (p.taps.size() > 1) p.dil = (p.taps[0] - p.taps[1]) * d / s;
    v.push_back(p);
  }
  return v;
}

// Everything the lowering and the rule read of a node: the 2-D form of its
// shapes (a 1-D one's first axis of extent 1) and geometry.
struct Geo {
  Shape x, w, y;  // [N, C, H, W], [C, M/g, kh, kw], [N, M, OH, OW]
  ops::TransposeGeometry g;
  std::vector<Phase> ph, pw;  // the phases of each axis
  int64_t groups = 1;
};

Geo geo_of(const Graph& g, const Node& n, size_t w_input) {
  Geo r;
  const Shape& x = g.value(n.inputs[0]).shape;
  const Shape& w = g.value(n.inputs[w_input]).shape;
  r.g = ops::resolve_transpose_geometry(n.attrs, ops::spatial_of(x), ops::spatial_of(w));
  if (r.g.in.size() == 1) {  // 1-D: the height axis of extent 1
    ops::TransposeGeometry t = r.g;
    t.in = {1, t.in[0]};
    t.kernel = {1, t.kernel[0]};
    t.strides = {1, t.strides[0]};
    t.dilations = {1, t.dilations[0]};
    t.output_padding = {0, t.output_padding[0]};
    t.pads = {0, t.pads[0], 0, t.pads[1]};
    t.out = {1, t.out[0]};
    r.g = t;
  }
  r.x = conv_shape_2d(x);
  r.w = conv_shape_2d(w);
  r.y = conv_shape_2d(g.value(n.outputs[0]).shape);
  r.groups = n.attrs.get_int("group", 1);
  r.ph = phases_of(r.g.out[0], r.g.kernel[0], r.g.strides[0], r.g.dilations[0], r.g.pads[0]);
  r.pw = phases_of(r.g.out[1], r.g.kernel[1], r.g.strides[1], r.g.dilations[1], r.g.pads[1]);
  return r;
}

// A CONV_TRANSPOSE layer's own parameters: the phases, the groups, where
// each phase's weights start (bytes after the layer's weight_offset), and
// in the 8-bit form the zero points and the output clamp.
struct ConvTParams {
  std::vector<Phase> ph, pw;
  int64_t groups = 1;
  std::vector<int64_t> w_rel;  // per phase, ph-major
  int32_t x_zp = 0, y_zp = 0, lo = 0, hi = 0;
};

// What one pass of one phase works on, and the OCM it needs (the plan's
// passes and the rule's smallest one): R output rows of the phase of cn
// output channels, with `lead_h` rows and `lead_w` columns of outputs that
// are computed but not stored (a pass whose first windows start past the
// input's end, or a phase whose first window starts right of column 0).
// Each output row goes out by its own DMA_OUT, which starts at a 128-byte
// aligned OCM offset: the block's rows are padded (columns computed and not
// stored, their taps outside the input) to a multiple of 128 bytes, and so
// are the leading columns.
struct PhasePass {
  int64_t H, W, C;  // input image
  int64_t QW;       // the phase's output columns
  int64_t kh, dh;   // the phase's taps and gap between them, vertically
  int64_t lead_h, lead_w;
  int64_t weights_per_oc;
  bool bias;
  int64_t eb = kF16Bytes, wb = kF16Bytes, bb = kF32Bytes;

  // Columns whose cn channels fill a multiple of 128 bytes.
  int64_t unit(int64_t cn) const { return MLIP_OCM_ALIGN / std::gcd<int64_t>(MLIP_OCM_ALIGN, cn * eb); }
  int64_t round_to(int64_t v, int64_t u) const { return (v + u - 1) / u * u; }
  // The leading columns not stored, and the block's columns.
  int64_t lead_cols(int64_t cn) const { return round_to(lead_w, unit(cn)); }
  int64_t block_cols(int64_t cn) const { return round_to(lead_cols(cn) + QW, unit(cn)); }
  int64_t rows_for(int64_t R) const { return std::min(H, (R - 1) + (kh - 1) * dh + 1); }
  uint64_t bytes(int64_t R, int64_t cn) const {
    return ocm_round(rows_for(R) * W * C * eb) + ocm_round((lead_h + R) * block_cols(cn) * cn * eb) +
           ocm_round(cn * weights_per_oc * wb) + (bias ? ocm_round(cn * bb) : 0);
  }
};

PhasePass pass_of(const Geo& g, const Phase& ph, const Phase& pw, bool bias, bool q8) {
  PhasePass p{g.x[2], g.x[3], g.x[1], pw.count, static_cast<int64_t>(ph.taps.size()), ph.dil,
              std::max<int64_t>(0, ph.count - 1 + ph.first - (g.x[2] - 1)), std::max<int64_t>(0, pw.first),
              static_cast<int64_t>(ph.taps.size() * pw.taps.size()) * (g.x[1] / g.groups), bias};
  if (q8) {
    p.eb = p.wb = 1;
    p.bb = MLIP_REQUANT_RECORD_BYTES;
    p.bias = true;
  }
  return p;
}

std::string geo_reason(const Geo& g, const SupportLimits& lim, bool bias, bool q8) {
  for (int64_t p : g.g.pads)
    if (p < 0) return "negative pads (an output_shape beyond the kernel's reach)";
  for (const std::vector<Phase>* axis : {&g.ph, &g.pw})
    for (const Phase& p : *axis) {
      if (p.count > 0 && p.taps.empty())
        return fmt::format("output phase {} of the stride has no kernel tap (kernel smaller than the stride)", p.r);
      if (static_cast<int64_t>(p.taps.size()) > lim.target.max_kernel)
        return fmt::format("kernel {} exceeds the {} maximum of {}", p.taps.size(), lim.target.mcpu,
                           lim.target.max_kernel);
      if (p.dil != 1 && !lim.target.dilation)
        return fmt::format("dilation {} is not supported on {}", p.dil, lim.target.mcpu);
    }
  const uint64_t limit = lim.work_bytes;
  for (const Phase& ph : g.ph)
    for (const Phase& pw : g.pw) {
      if (ph.count == 0 || pw.count == 0) continue;
      const uint64_t need = pass_of(g, ph, pw, bias, q8).bytes(1, 1);
      if (need > limit)
        return fmt::format("one output row needs {} bytes of OCM, more than the {} available", need, limit);
    }
  return "";
}

// mlipc.QLinearConvTranspose (x, x_scale, x_zp, w, w_scale, w_zp, y_scale,
// y_zp, B): int8 weights with zero points 0, constants, bounded sums.
std::string q8_support(const Graph& g, const Node& n, const SupportLimits& lim) {
  if (!lim.int8) return "int8 transposed convolution needs -quantize=int8";
  const Shape& x = g.value(n.inputs[0]).shape;
  if (x.size() != 3 && x.size() != 4)
    return "only 1-D and 2-D int8 transposed convolution (3-D and 4-D tensors) runs on the MLIP";
  if (std::string r = batch_reason(x[0]); !r.empty()) return r;
  for (size_t i : {1, 3, 4, 6})
    if (!is_const(g, n, i)) return fmt::format("input #{} is not constant", i);
  for (size_t i : {2, 5, 7, 8})
    if (n.has_input(i) && !is_const(g, n, i)) return fmt::format("input #{} is not constant", i);
  if (g.value(n.inputs[3]).dtype != DType::Int8) return "only int8 weights run on the MLIP";
  if (n.has_input(5))
    for (int64_t z : g.value(n.inputs[5]).constant->as_int64())
      if (z != 0) return "only symmetric weights (zero point 0) run on the MLIP";
  if (g.value(n.inputs[0]).dtype != g.value(n.outputs[0]).dtype) return "input and output of different types";
  const Geo geo = geo_of(g, n, 3);
  return geo_reason(geo, lim, true, true);
}

std::string support(const Graph& g, const Node& n, const SupportLimits& lim) {
  if (n.op != "ConvTranspose") return q8_support(g, n, lim);
  const Value& xv = g.value(n.inputs[0]);
  if (xv.dtype != DType::Float32 || (xv.shape.size() != 3 && xv.shape.size() != 4))
    return "only 1-D and 2-D float32 transposed convolution (3-D and 4-D tensors) runs on the MLIP";
  if (std::string r = batch_reason(xv.shape[0]); !r.empty()) return r;
  if (!is_const(g, n, 1)) return "weights are not constant";
  if (n.has_input(2) && !is_const(g, n, 2)) return "bias is not constant";
  const Geo geo = geo_of(g, n, 1);
  return geo_reason(geo, lim, n.has_input(2), false);
}

// A padding element between phase blocks (the value 0).
constexpr size_t kPadElem = static_cast<size_t>(-1);

// The weights of every phase, OHWI ([M][taps_h][taps_w][C/g], the taps in
// the phase's order), phase after phase, each block starting 128-byte
// aligned (so that pinned, each is an aligned OCM operand): element k of
// the list is source element src[k] of the ONNX weights [C, M/g, kh, kw]
// (its flat index), or kPadElem.
std::vector<size_t> phase_weights(const Geo& g, std::vector<int64_t>& rel, int64_t elem_bytes) {
  const int64_t C = g.w[0], ocg = g.w[1], KH = g.w[2], KW = g.w[3];
  const int64_t cg = C / g.groups, M = ocg * g.groups;
  std::vector<size_t> src;
  for (const Phase& ph : g.ph)
    for (const Phase& pw : g.pw) {
      rel.push_back(static_cast<int64_t>(src.size()) * elem_bytes);
      for (int64_t m = 0; m < M; ++m)
        for (int64_t th : ph.taps)
          for (int64_t tw : pw.taps)
            for (int64_t ic = 0; ic < cg; ++ic) {
              const int64_t c = (m / ocg) * cg + ic;
              src.push_back(static_cast<size_t>(((c * ocg + m % ocg) * KH + th) * KW + tw));
            }
      while (static_cast<int64_t>(src.size()) * elem_bytes % MLIP_OCM_ALIGN != 0) src.push_back(kPadElem);
    }
  return src;
}

RLayer& new_layer(LowerContext& ctx, const Node& n, const Geo& geo) {
  const int in_t = ctx.nhwc_of(n.inputs[0]);  // before the layer: it may add a relayout layer
  RLayer& l = ctx.new_layer(MLIP_LAYER_CONV_TRANSPOSE, n);
  l.inputs = {in_t};
  ConvTParams p;
  p.ph = geo.ph;
  p.pw = geo.pw;
  p.groups = geo.groups;
  l.params = p;
  l.macs = node_macs(ctx.graph(), n);
  return l;
}

void lower_q8(LowerContext& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  const Geo geo = geo_of(g, n, 3);
  RLayer& l = new_layer(ctx, n, geo);
  ConvTParams& p = params_of<ConvTParams>(l);
  const std::vector<int64_t> w = ctx.any_constant(n, 3).as_int64();
  const std::vector<size_t> src = phase_weights(geo, p.w_rel, 1);
  std::vector<uint8_t> bytes(src.size());
  std::vector<float> shown(src.size());
  for (size_t k = 0; k < src.size(); ++k) {
    const int64_t v = src[k] == kPadElem ? 0 : w[src[k]];
    bytes[k] = static_cast<uint8_t>(v & 0xff);
    shown[k] = static_cast<float>(v);
  }
  l.weight_offset = ctx.add_bytes(bytes);
  l.weight_bytes = static_cast<int64_t>(bytes.size());
  l.weight_name = g.value(n.inputs[3]).name;
  ctx.add_const({l.weight_name, {static_cast<int64_t>(shown.size())}, shown});
  // Output channel m's weight column is m % (M / group): its scale's (q, shift).
  const int64_t ocg = geo.w[1], M = geo.y[1];
  const std::vector<ops::Requant> rq =
      ops::conv_requant(ctx.any_constant(n, 1), ctx.any_constant(n, 4), ctx.any_constant(n, 6), ops::requant_mode(n.attrs));
  add_requant_records(ctx, l, rq, n.has_input(8) ? ctx.any_constant(n, 8).as_int64() : std::vector<int64_t>{}, M, ocg,
                      n.has_input(8) ? g.value(n.inputs[8]).name : l.name + ":requant");
  const DType yt = g.value(n.outputs[0]).dtype;
  l.dtype = mlip_dtype(yt);
  p.x_zp = n.has_input(2) ? static_cast<int32_t>(ctx.any_constant(n, 2).as_int64()[0]) : 0;
  p.y_zp = n.has_input(7) ? static_cast<int32_t>(ctx.any_constant(n, 7).as_int64()[0]) : 0;
  p.lo = ops::clamp_lo(n.attrs, yt);
  p.hi = ops::clamp_hi(n.attrs, yt);
  l.output = ctx.nhwc_output(n);
}

void lower(LowerContext& ctx, const Node& n) {
  if (n.op != "ConvTranspose") return lower_q8(ctx, n);
  const Graph& g = ctx.graph();
  const Geo geo = geo_of(g, n, 1);
  RLayer& l = new_layer(ctx, n, geo);
  ConvTParams& p = params_of<ConvTParams>(l);
  const float* w = ctx.constant(n, 1).data<float>();
  const std::vector<size_t> src = phase_weights(geo, p.w_rel, kF16Bytes);
  std::vector<float> v(src.size());
  for (size_t k = 0; k < src.size(); ++k) v[k] = src[k] == kPadElem ? 0.0f : w[src[k]];
  l.weight_offset = ctx.add_f16(v);
  l.weight_bytes = static_cast<int64_t>(v.size()) * kF16Bytes;
  l.weight_name = g.value(n.inputs[1]).name;
  ctx.add_const({l.weight_name, {static_cast<int64_t>(v.size())}, v});
  if (n.has_input(2)) {
    const TensorData& b = ctx.constant(n, 2);
    add_f32_bias(ctx, l, std::vector<float>(b.data<float>(), b.data<float>() + b.numel()), g.value(n.inputs[2]).name);
  }
  l.output = ctx.nhwc_output(n);
}

std::vector<Split> splits(const RTensor& out) {
  if (out.c > 1) return {Split::Rows, Split::Channels};
  return {Split::Rows};
}

// Images one after another; the output rows (or channels) split across
// tiles; per tile, each phase's share in groups of channels that fit OCM,
// each group in passes of the phase's output rows. Pinned weights: split by
// rows, each phase's channels in one group (otherwise they stream).
void plan(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const ConvTParams& cp = params_of<ConvTParams>(l);
  const RTensor& x = p.in();
  const RTensor& y = p.out();
  const int64_t H = x.h, W = x.w, C = x.c, OH = y.h, OW = y.w, OC = y.c;
  const int64_t cg = C / cp.groups, ocpg = OC / cp.groups;
  const int64_t sh = static_cast<int64_t>(cp.ph.size()), sw = static_cast<int64_t>(cp.pw.size());
  const bool by_channels = p.split() == Split::Channels;
  const auto parts = split_range(by_channels ? OC : OH, p.num_tiles());
  p.set_split(p.split(), parts);
  const uint64_t limit = p.work_limit();
  Geo shapes;
  shapes.x = {x.n, C, H, W};
  shapes.groups = cp.groups;
  // Channels per group of each phase (the same on every tile): the block's
  // bytes are not monotone in them (its row padding), so the largest count
  // whose groups, the last one too, fit one output row.
  std::vector<int64_t> spans = {OC};  // the channels a tile computes
  if (by_channels)
    for (const auto& r : parts) spans.push_back(r.second - r.first);
  std::vector<int64_t> occ_of;
  bool one_group = true;
  for (const Phase& ph : cp.ph)
    for (const Phase& pw : cp.pw) {
      const PhasePass pass = pass_of(shapes, ph, pw, l.has_bias(), l.q8());
      int64_t occ = 0;
      for (int64_t v = OC; v >= 1 && occ == 0; --v) {
        bool fits = pass.bytes(1, v) <= limit;
        for (int64_t span : spans) fits = fits && (span % v == 0 || pass.bytes(1, span % v) <= limit);
        if (fits) occ = v;
      }
      if (occ == 0) fail("layer '{}' does not fit OCM even one row and channel at a time", l.name);
      occ_of.push_back(occ);
      one_group = one_group && occ >= OC;
    }
  // Pinned (the whole layer's weights on every tile: a split by rows), each
  // phase's block is read in place, one group of all the channels.
  bool pinned = false;
  for (size_t t = 0; t < parts.size(); ++t) pinned = pinned || p.pinned(static_cast<int>(t));
  if (pinned && (by_channels || !one_group)) {
    p.refuse_pinned(by_channels ? "a transposed convolution's phases are not slices by output channel"
                                : "a phase's channels need several passes of OCM");
    return;
  }
  for (int64_t img = 0; img < x.n; ++img) {
    const int64_t eb = l.q8() ? 1 : kF16Bytes;
    const int64_t xb = p.ddr_base(x) + img * H * W * C * eb;
    const int64_t yb = p.ddr_base(y) + img * OH * OW * OC * eb;
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      const int64_t a = by_channels ? 0 : parts[t].first, b = by_channels ? OH : parts[t].second;
      const int64_t c0 = by_channels ? parts[t].first : 0, c1 = by_channels ? parts[t].second : OC;
      for (size_t ih = 0; ih < cp.ph.size(); ++ih)
        for (size_t iw = 0; iw < cp.pw.size(); ++iw) {
          const Phase& ph = cp.ph[ih];
          const Phase& pw = cp.pw[iw];
          // the phase's output rows r + sh * q inside [a, b)
          const int64_t q0 = std::max<int64_t>(0, (a - ph.r + sh - 1) / sh);
          const int64_t q1 = std::min(ph.count, std::max<int64_t>(0, (b - ph.r + sh - 1) / sh));
          if (q0 >= q1 || pw.count == 0) continue;
          const PhasePass pass = pass_of(shapes, ph, pw, l.has_bias(), l.q8());
          const int64_t wper = pass.weights_per_oc, wb = pass.wb, bb = pass.bb;
          const int64_t occ = std::min(occ_of[ih * cp.pw.size() + iw], c1 - c0);
          const int64_t w_rel = cp.w_rel[ih * cp.pw.size() + iw];
          const bool pin = p.pinned(tile);
          for (int64_t cs = c0; cs < c1; cs += occ) {
            const int64_t cn = std::min(occ, c1 - cs);
            const int64_t R = largest(q1 - q0, [&](int64_t v) { return pass.bytes(v, cn) <= limit; });
            if (R == 0) fail("layer '{}': {} channels do not fit OCM one row at a time", l.name, cn);
            const int64_t LW = pass.lead_cols(cn), OWB = pass.block_cols(cn);  // output block columns
            Ocm ocm(limit);
            uint32_t w_off = 0, b_off = MLIP_NO_OFFSET;
            if (pin) {  // one group (cs = 0): the phase's aligned block, the bias's start
              w_off = u32(p.pinned_weights(tile) + w_rel);
              if (l.has_bias()) b_off = u32(p.pinned_bias(tile));
            } else {
              w_off = ocm.take(cn * wper * wb);
              p.dma_in(tile, p.weights_binding(), l.weight_offset + w_rel + cs * wper * wb, w_off, cn * wper * wb);
              if (l.has_bias()) {
                b_off = ocm.take(cn * bb);
                p.dma_in(tile, p.weights_binding(), l.bias_offset + cs * bb, b_off, cn * bb);
              }
            }
            const uint32_t in_off = ocm.take(pass.rows_for(R) * W * C * eb);
            const uint32_t out_off = ocm.take((pass.lead_h + R) * OWB * cn * eb);
            p.note_ocm(tile, ocm);
            for (int64_t p0 = q0; p0 < q1; p0 += R) {
              const int64_t p1 = std::min(q1, p0 + R);
              const int64_t top = p0 + ph.first;  // input row of the pass's first window
              const int64_t ir0 = std::min(std::max<int64_t>(0, top), H - 1);
              const int64_t ir1 = std::max(std::min(H, (p1 - 1) + ph.first + (pass.kh - 1) * ph.dil + 1), ir0 + 1);
              // rows computed and dropped when the first window starts past the input
              const int64_t lead = std::max<int64_t>(0, top - ir0);
              p.count_pass();
              p.dma_in(tile, p.binding(x), xb + ir0 * W * C * eb, in_off, (ir1 - ir0) * W * C * eb);
              mlip_conv2d_args c{};
              c.in = in_off;
              c.in_h = u32(ir1 - ir0);
              c.in_w = u32(W);
              c.in_c = u32(C);
              c.weights = w_off;
              c.bias = b_off;
              c.out = out_off;
              c.out_h = u32(lead + p1 - p0);
              c.out_w = u32(OWB);
              c.out_c = u32(cn);
              c.kh = u32(static_cast<int64_t>(ph.taps.size()));
              c.kw = u32(static_cast<int64_t>(pw.taps.size()));
              c.stride_h = 1;
              c.stride_w = 1;
              c.dil_h = u32(ph.dil);
              c.dil_w = u32(pw.dil);
              c.pad_top = u32(lead - (top - ir0));
              c.pad_left = u32(LW - pw.first);
              c.groups = u32(cp.groups);
              c.ic_per_group = u32(cg);
              c.oc_per_group = u32(ocpg);
              c.oc_base = u32(cs);
              c.ic_base = 0;
              p.fused(c);
              if (l.q8()) {
                c.clamp_lo = cp.lo;
                c.clamp_hi = cp.hi;
                c.x_zp = cp.x_zp;
                c.y_zp = cp.y_zp;
                c.requant = l.requant;
              }
              p.emit(MLIP_OP_CONV2D, tile, c, pin);
              for (int64_t q = p0; q < p1; ++q) {  // each output row's columns at stride sw
                const int64_t oh = ph.r + sh * q;
                const uint32_t src = u32(out_off + ((lead + q - p0) * OWB + LW) * cn * eb);
                const int64_t dst = yb + ((oh * OW + pw.r) * OC + cs) * eb;
                if (sw == 1 && cn == OC)
                  p.dma_out(tile, p.binding(y), dst, src, pw.count * OC * eb);
                else
                  p.dma_out(tile, p.binding(y), dst, src, pw.count, cn * eb, sw * OC * eb, cn * eb);
              }
            }
          }
        }
    }
  }
}

void json(const RLayer& l, nlohmann::json& a) {
  const ConvTParams& cp = params_of<ConvTParams>(l);
  json_weights(l, "phases of OHWI", a);
  a["strides"] = {cp.ph.size(), cp.pw.size()};
  a["groups"] = cp.groups;
}

}  // namespace conv_transpose_layer

extern const LayerKind kConvTranspose = {MLIP_LAYER_CONV_TRANSPOSE, "conv_transpose", "Conv2DTranspose",
                                         "mrvl.conv2d_transpose_nhwc2nhwc", {"ConvTranspose", ops::kQConvTransposeOp},
                                         /*fuses_activation=*/true, conv_transpose_layer::support,
                                         conv_transpose_layer::lower, conv_transpose_layer::plan,
                                         conv_transpose_layer::splits, conv_transpose_layer::json};

}  // namespace mlipc::mlip::layers
