// CONV2D: Conv (groups, depthwise, strides, dilations, padding) with its
// bias and fused activation, on NHWC tensors with OHWI fp16 weights. Split
// across tiles by output rows or by output channels (the cycle model picks),
// each tile's share in passes of output rows that fit OCM. A 1-D
// convolution ([N, C, W], kernel K) is the 2-D one over [N, C, 1, W] with a
// 1 x K kernel: its tensors are NHWC with h = 1 (LowerContext::nhwc_of).
// A strided kernel wider than the target's (an audio CNN's first Conv1d,
// kernel 80 stride 16) runs as the kernel it is over the space-to-depth form
// of its input (Fold below): a view and reordered weights, the same
// products summed in the same order, so no rounding the original lacks.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ops/conv_integer.h"
#include "ops/quant.h"
#include "ops/spatial.h"
#include "mlip/kq4_format.h"
#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace conv2d_layer {

constexpr ops::GeometryRules kConvRules{/*dilations=*/true, /*ceil_mode=*/false};

// A CONV2D layer's own parameters (RLayer::params): its window and groups,
// and in the 8-bit form the zero points and the output clamp (a folded
// Relu/Clip) its commands carry.
struct ConvParams {
  Window win;
  int64_t col0 = 0;  // the input column the layer's block starts at (a wide kernel's later chunk)
  int64_t groups = 1;
  int32_t x_zp = 0, y_zp = 0, lo = 0, hi = 0;
};

// What one pass of one image works on, and the OCM it needs: the planner
// sizes its passes with it and the support rule asks whether the smallest
// pass (one output row of one output channel) fits.
struct ConvPass {
  int64_t H, W, C;         // input image (NHWC)
  int64_t OW;              // output width
  int64_t kh, sh, dh;      // vertical window
  int64_t weights_per_oc;  // kh * kw * C / groups
  bool bias;
  // Bytes of an activation and of a weight, and per output channel of the
  // bias: fp16, fp16, fp32; int8: 1, 1 and a requantization record.
  int64_t eb = kF16Bytes, wb = kF16Bytes, bb = kF32Bytes;
  // 4-bit weights (RLayer::w4_block): the bytes of a channel's packed row.
  int64_t w4row = 0;
  int64_t row_bytes() const { return w4row != 0 ? w4row : weights_per_oc * wb; }

  // Input rows that R output rows read.
  int64_t rows_for(int64_t R) const { return std::min(H, (R - 1) * sh + (kh - 1) * dh + 1); }
  // R output rows of occ output channels: every input channel in, the
  // output block, and the weights and bias unless they are pinned.
  uint64_t bytes(int64_t R, int64_t occ, bool pinned) const {
    uint64_t b = ocm_round(rows_for(R) * W * C * eb) + ocm_round(R * OW * occ * eb);
    if (!pinned) b += ocm_round(occ * row_bytes()) + (bias ? ocm_round(occ * bb) : 0);
    return b;
  }
};


// The window of a 1-D or 2-D convolution as a 2-D one (a 1-D one's first
// axis of extent 1: kernel 1, stride 1, no padding).
ops::Geometry conv_geometry(const Attrs& attrs, const Shape& x, const Shape& w) {
  return geometry_2d(ops::resolve_geometry(attrs, ops::spatial_of(x), ops::spatial_of(w), kConvRules));
}

// Space-to-depth of a convolution along W by a factor f: input column
// p * f + r, channel c is column p, channel r * C + c of the same bytes (an
// NHWC row of W * C elements is one of W / f * f * C), so a kernel of K
// columns with stride s reads, over that view, K / f columns with stride
// s / f, weight [m][r * C + c][y][j] being [m][c][y][j * f + r]: the
// products of each output in the original's order (column, then channel).
// It applies to a kernel wider or a stride longer than the target's (only
// there: every other convolution keeps its form) with group 1, no dilation along W, and f
// dividing the stride, the kernel, both pads and the input width.
struct Fold {
  int64_t f = 1;  // 1: none
  ops::Geometry geo;  // the folded window (2-D form)
  int64_t W = 0, C = 0;  // the folded input's width and channels
};

// The fold of a convolution of 2-D geometry `geo` over an input of width W
// and C channels: the largest f whose folded stride the target takes (it
// gives the narrowest kernel, which may still need chunks); f = 1 when
// kernel and stride fit or none applies.
Fold fold_of(const ops::Geometry& geo, int64_t W, int64_t C, int64_t groups, const TargetInfo& t) {
  Fold fo{1, geo, W, C};
  const int64_t k = geo.kernel[1], s = geo.strides[1];
  if ((k <= t.max_kernel && s <= t.max_stride) || groups != 1 || geo.dilations[1] != 1) return fo;
  for (int64_t f = s; f > 1; --f) {
    if (s % f != 0 || k % f != 0 || geo.pad_begin(1) % f != 0 || geo.pad_end(1) % f != 0 || W % f != 0) continue;
    if (s / f > t.max_stride) continue;
    fo.f = f;
    fo.W = W / f;
    fo.C = C * f;
    fo.geo.in[1] = W / f;
    fo.geo.kernel[1] = k / f;
    fo.geo.strides[1] = s / f;
    fo.geo.pads[1] /= f;
    fo.geo.pads[3] /= f;
    return fo;
  }
  return fo;
}

// Why a kernel wider or a stride longer than the target's has no fold
// (after window_reason's own words).
constexpr const char* kNoFold =
    ", and no space-to-depth form: that needs group 1, no dilation along the width, and a factor of the stride "
    "dividing the kernel, both pads and the input width that brings the stride within the maximum";

// A kernel still wider than the target's after its fold, in fp16: chunks
// of at most the limit along W, each a CONV2D over the input from the
// column its first tap reads, their partial sums added by ADD layers
// (docs/mlip-spec.md, wide windows). Chunk i's taps: [first, first + k).
struct Chunk {
  int64_t first, k;
};
std::vector<Chunk> chunks_of(int64_t kernel, int64_t max_kernel) {
  std::vector<Chunk> c;
  for (int64_t t = 0; t < kernel; t += max_kernel) c.push_back({t, std::min(max_kernel, kernel - t)});
  return c;
}
// Chunk c's window over input columns from col0 (its pads, and col0).
std::pair<ops::Geometry, int64_t> chunk_geometry(const ops::Geometry& geo, const Chunk& c) {
  ops::Geometry g = geo;
  g.kernel[1] = c.k;
  const int64_t shift = c.first * geo.dilations[1] - geo.pad_begin(1);  // column of output 0's first tap
  const int64_t col0 = std::max<int64_t>(0, shift);
  g.pads[1] = std::max<int64_t>(0, -shift);
  g.in[1] = geo.in[1] - col0;
  return {g, col0};
}
// "" or why an fp16 wide kernel cannot run in chunks (an int8 one never
// does: q8_support).
std::string chunk_reason(const ops::Geometry& geo, const SupportLimits& lim) {
  for (const Chunk& c : chunks_of(geo.kernel[1], lim.target.max_kernel)) {
    const auto [g, col0] = chunk_geometry(geo, c);
    if (col0 >= geo.in[1]) return "a chunk of the kernel reads only padding";
    if (std::string r = window_reason(g, lim.target, true); !r.empty()) return r;
  }
  return "";
}

}  // namespace conv2d_layer

template <class T>
std::vector<T> fold_weights(const std::vector<T>& w, const Shape& w4, int64_t f) {
  const int64_t m = w4[0], c = w4[1], kh = w4[2], kw = w4[3], kf = kw / f;
  if (f < 1 || kw % f != 0 || static_cast<int64_t>(w.size()) != m * c * kh * kw)
    fail("internal: weights {} do not fold by {}", shape_str(w4), f);
  std::vector<T> out(w.size());
  for (int64_t o = 0; o < m; ++o)
    for (int64_t r = 0; r < f; ++r)
      for (int64_t i = 0; i < c; ++i)
        for (int64_t y = 0; y < kh; ++y)
          for (int64_t j = 0; j < kf; ++j)
            out[static_cast<size_t>(((o * f * c + r * c + i) * kh + y) * kf + j)] =
                w[static_cast<size_t>(((o * c + i) * kh + y) * kw + j * f + r)];
  return out;
}
template std::vector<float> fold_weights(const std::vector<float>&, const Shape&, int64_t);
template std::vector<int64_t> fold_weights(const std::vector<int64_t>&, const Shape&, int64_t);

int64_t conv_fold_factor(const ops::Geometry& geo, int64_t width, int64_t channels, int64_t groups,
                         const TargetInfo& target) {
  return conv2d_layer::fold_of(geo, width, channels, groups, target).f;
}

namespace conv2d_layer {

// The integer form's sizes: int8 activations, or int16 ones (16x8, `wide`)
// with 16-byte records; int8 weights either way.
ConvPass q8_pass(ConvPass p, bool wide = false) {
  p.eb = wide ? 2 : 1;
  p.wb = 1;
  p.bb = wide ? MLIP_REQUANT16_RECORD_BYTES : MLIP_REQUANT_RECORD_BYTES;
  p.bias = true;
  return p;
}

// QLinearConv (inputs x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B):
// an int8 CONV2D when the weights are int8 with zero points 0 (symmetric,
// as the MLIP reads them), the scales constants, and the sums bounded.
std::string q8_support(const Graph& g, const Node& n, const SupportLimits& lim) {
  if (!lim.int8) return "int8 convolution needs -quantize=int8";
  const Value& xv = g.value(n.inputs[0]);
  if (xv.shape.size() != 4 && xv.shape.size() != 3)
    return "only 1-D and 2-D int8 convolution (3-D and 4-D NCHW tensors) runs on the MLIP";
  const Shape x = conv_shape_2d(xv.shape);
  // a dense 1x1 convolution on rows (a folded Gemm): an FC of any number of rows
  if (!conv_is_dense(g, n))
    if (std::string r = batch_reason(x[0]); !r.empty()) return r;
  for (size_t i : {1, 3, 4, 6})
    if (!is_const(g, n, i)) return fmt::format("input #{} is not constant", i);
  for (size_t i : {2, 5, 7, 8})
    if (n.has_input(i) && !is_const(g, n, i)) return fmt::format("input #{} is not constant", i);
  if (g.value(n.inputs[3]).dtype != DType::Int8) return "only int8 weights run on the MLIP";
  // 16x8: int16 in and out (a layer with int8 on one side stays on the CPU).
  const bool wide = xv.dtype == DType::Int16;
  if ((g.value(n.outputs[0]).dtype == DType::Int16) != wide)
    return "a 16x8 convolution with int8 on one side (mixed precision) runs on the CPU";
  if (n.has_input(5))
    for (int64_t z : g.value(n.inputs[5]).constant->as_int64())
      if (z != 0) return "only symmetric weights (zero point 0) run on the MLIP";
  const Shape w = conv_shape_2d(g.value(n.inputs[3]).shape);
  if (w.size() != 4) return "weights of another rank than the input";
  if (w[1] * w[2] * w[3] > static_cast<int64_t>(MLIP_INT8_MAX_TAPS))
    return fmt::format("{} products per output, above the int8 bound of {}", w[1] * w[2] * w[3], MLIP_INT8_MAX_TAPS);
  const ops::Geometry geo = conv_geometry(n.attrs, xv.shape, g.value(n.inputs[3]).shape);
  const Fold fo = fold_of(geo, x[3], x[1], n.attrs.get_int("group", 1), lim.target);
  if (std::string r = window_reason(fo.geo, lim.target, true); !r.empty()) {
    if (fo.geo.kernel[1] > lim.target.max_kernel)
      return r + ", and no space-to-depth form brings it within; in int8 its chunks would each requantize their "
                 "partial sums";
    return fo.f == 1 && geo.strides[1] > lim.target.max_stride ? r + kNoFold : r;
  }
  // The space-to-depth form is written for one-byte elements.
  if (wide && fo.f != 1)
    return "a 16x8 convolution in space-to-depth form (a kernel or stride above the target's) runs on the CPU";
  if (conv_is_dense(g, n)) return dense_q8_reason(x[0], x[1], lim, wide);
  const ConvPass pass = q8_pass({x[2], fo.W, fo.C, conv_shape_2d(g.value(n.outputs[0]).shape)[3], geo.kernel[0],
                                 geo.strides[0], geo.dilations[0], w[1] * w[2] * w[3], true},
                                wide);
  const uint64_t need = pass.bytes(1, 1, false);
  if (need > lim.work_bytes)
    return fmt::format("one output row needs {} bytes of OCM, more than the {} available", need, lim.work_bytes);
  return "";
}

std::string support(const Graph& g, const Node& n, const SupportLimits& lim) {
  if (n.op == "QLinearConv") return q8_support(g, n, lim);
  const Value& xv = g.value(n.inputs[0]);
  if (xv.dtype != DType::Float32 || (xv.shape.size() != 4 && xv.shape.size() != 3))
    return "only 1-D and 2-D float32 convolution (3-D and 4-D NCHW tensors) runs on the MLIP";
  const Shape x = conv_shape_2d(xv.shape);  // [N, C, H, W]
  if (std::string r = batch_reason(x[0]); !r.empty()) return r;
  if (!is_const(g, n, 1)) return "weights are not constant";
  if (n.has_input(2) && !is_const(g, n, 2)) return "bias is not constant";
  const Shape w = conv_shape_2d(g.value(n.inputs[1]).shape);  // [M, C/group, kh, kw]
  const ops::Geometry geo = conv_geometry(n.attrs, xv.shape, g.value(n.inputs[1]).shape);
  const Fold fo = fold_of(geo, x[3], x[1], n.attrs.get_int("group", 1), lim.target);
  // wide along W only (a kernel too tall is the plain reason)
  const bool chunked = fo.geo.kernel[1] > lim.target.max_kernel && fo.geo.kernel[0] <= lim.target.max_kernel;
  if (chunked) {
    if (std::string r = chunk_reason(fo.geo, lim); !r.empty())
      return fmt::format("kernel {} exceeds the {} maximum of {}, and its chunks cannot run: {}", fo.geo.kernel[1],
                         lim.target.mcpu, lim.target.max_kernel, r);
  } else if (std::string r = window_reason(fo.geo, lim.target, true); !r.empty()) {
    return fo.f == 1 && geo.strides[1] > lim.target.max_stride ? r + kNoFold : r;
  }
  const int64_t taps_w = chunked ? lim.target.max_kernel : fo.geo.kernel[1];
  const ConvPass pass{x[2], fo.W, fo.C, conv_shape_2d(g.value(n.outputs[0]).shape)[3], geo.kernel[0], geo.strides[0],
                      geo.dilations[0], w[2] * taps_w * w[1] * fo.f, n.has_input(2)};
  const uint64_t need = pass.bytes(1, 1, false);
  if (need > lim.work_bytes)
    return fmt::format("one output row needs {} bytes of OCM, more than the {} available", need, lim.work_bytes);
  return "";
}

// The tensor a CONV2D of node n reads: its input's NHWC form (a 1-D
// convolution's tensors are NHWC with h = 1), or the space-to-depth view of
// it when the node folds (Fold).
int conv_input(LowerContext& ctx, const Node& n, const Fold& fo) {
  const Value& xv = ctx.graph().value(n.inputs[0]);
  const int in_t = ctx.nhwc_of(n.inputs[0]);  // before the layer: it may add a relayout layer
  if (fo.f == 1) return in_t;
  Shape dims = xv.shape;
  dims[1] = fo.C;
  dims.back() = fo.W;
  return ctx.view_tensor(in_t, fmt::format("{}:fold{}", xv.name, fo.f), dims);
}

// A CONV2D layer of node n reading tensor in_t from column col0 with window
// geo (2-D form): its kernel, strides, dilations, pads and groups.
RLayer& new_conv_layer(LowerContext& ctx, const Node& n, int in_t, const ops::Geometry& geo, int64_t col0 = 0) {
  RLayer& l = ctx.new_layer(MLIP_LAYER_CONV2D, n);
  l.inputs = {in_t};
  ConvParams p;
  p.win = window_of(geo, geo.kernel[0], geo.kernel[1]);
  p.col0 = col0;
  p.groups = n.attrs.get_int("group", 1);
  l.params = p;
  return l;
}
RLayer& new_conv_layer(LowerContext& ctx, const Node& n, const Fold& fo) {
  const int in_t = conv_input(ctx, n, fo);
  return new_conv_layer(ctx, n, in_t, fo.geo);
}

// Node n's fold (weights of shape w).
Fold fold_of(const LowerContext& ctx, const Node& n, const Shape& w) {
  const Shape x = conv_shape_2d(ctx.graph().value(n.inputs[0]).shape);
  const ops::Geometry geo = conv_geometry(n.attrs, ctx.graph().value(n.inputs[0]).shape, w);
  return fold_of(geo, x[3], x[1], n.attrs.get_int("group", 1), ctx.target());
}

// The 4-D weight shape after fold fo.
Shape folded_shape(const Shape& w4, const Fold& fo) { return {w4[0], w4[1] * fo.f, w4[2], w4[3] / fo.f}; }

// For each element of OIHW weights of shape w, its index in the OHWI order
// the MLIP reads.
std::vector<size_t> ohwi_index(const Shape& w4) {
  const Shape w = conv_shape_2d(w4);
  const int64_t m = w[0], cg = w[1], kh = w[2], kw = w[3];
  std::vector<size_t> to(static_cast<size_t>(m * cg * kh * kw));
  size_t k = 0;
  for (int64_t o = 0; o < m; ++o)
    for (int64_t i = 0; i < cg; ++i)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t x = 0; x < kw; ++x) to[k++] = static_cast<size_t>(((o * kh + y) * kw + x) * cg + i);
  return to;
}

// The int8 form: weights int8 OHWI, one {bias, q, shift} record per output
// channel (the (q, shift) of the CPU kernel, ops::conv_requant), the
// zero points and the output clamp (a folded Relu/Clip) as command fields.
void lower_q8(LowerContext& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  const TensorData& w = ctx.any_constant(n, 3);  // [M, C/g, kh, kw] (1-D: [M, C/g, K]) int8
  const Fold fo = fold_of(ctx, n, w.shape());
  const Shape w4 = folded_shape(conv_shape_2d(w.shape()), fo);
  const int64_t m = w4[0], cg = w4[1], kh = w4[2], kw = w4[3];
  RLayer& l = new_conv_layer(ctx, n, fo);
  l.dtype = mlip_dtype(g.value(n.outputs[0]).dtype);  // before the records: a 16x8 layer's are 16 bytes
  const std::vector<int64_t> src = fold_weights(w.as_int64(), conv_shape_2d(w.shape()), fo.f);
  const std::vector<size_t> to = ohwi_index(w4);
  std::vector<int64_t> ohwi(src.size());
  std::vector<float> shown(src.size());
  for (size_t k = 0; k < src.size(); ++k) {
    ohwi[to[k]] = src[k];
    shown[to[k]] = static_cast<float>(src[k]);
  }
  const std::vector<uint8_t> bytes = q8_weight_bytes(n, l, ohwi, m, kh * kw * cg);  // int8, or 4-bit rows
  l.weight_offset = ctx.add_bytes(bytes);
  l.weight_bytes = static_cast<int64_t>(bytes.size());
  l.weight_name = g.value(n.inputs[3]).name;
  ctx.add_const({l.weight_name, {m, kh, kw, cg}, shown});
  const std::vector<ops::Requant> rq =
      ops::conv_requant(ctx.any_constant(n, 1), ctx.any_constant(n, 4), ctx.any_constant(n, 6), ops::requant_mode(n.attrs));
  add_requant_records(ctx, l, rq, n.has_input(8) ? ctx.any_constant(n, 8).as_int64() : std::vector<int64_t>{}, m, m,
                      n.has_input(8) ? g.value(n.inputs[8]).name : l.name + ":requant");
  const DType xt = g.value(n.inputs[0]).dtype, yt = g.value(n.outputs[0]).dtype;
  const int32_t zx = n.has_input(2) ? static_cast<int32_t>(ctx.any_constant(n, 2).as_int64()[0]) : 0;
  const int32_t zy = n.has_input(7) ? static_cast<int32_t>(ctx.any_constant(n, 7).as_int64()[0]) : 0;
  if (xt != yt) fail("int8 convolution with input {} and output {} types", dtype_name(xt), dtype_name(yt));
  l.dtype = mlip_dtype(yt);
  ConvParams& p = params_of<ConvParams>(l);
  p.x_zp = zx;
  p.y_zp = zy;
  p.lo = ops::clamp_lo(n.attrs, yt);
  p.hi = ops::clamp_hi(n.attrs, yt);
  l.output = ctx.nhwc_output(n);
  l.macs = static_cast<uint64_t>(ctx.tensor(l.output).elems() * kh * kw * cg);
}

// The fp16 OHWI weights of taps [first, first + k) along W of OIHW weights
// src of shape w4 ([M, C/g, kh, kw]), added to the constants; sets l's
// weight fields and MACs (l.output set).
void set_f16_weights(LowerContext& ctx, RLayer& l, const std::vector<float>& src, const Shape& w4, int64_t first,
                     int64_t k, const std::string& name) {
  const int64_t m = w4[0], cg = w4[1], kh = w4[2], kw = w4[3];
  const Shape part{m, cg, kh, k};
  const std::vector<size_t> to = ohwi_index(part);
  std::vector<float> ohwi(to.size());
  size_t i = 0;
  for (int64_t o = 0; o < m * cg * kh; ++o)
    for (int64_t j = 0; j < k; ++j) ohwi[to[i++]] = src[static_cast<size_t>(o * kw + first + j)];
  l.weight_offset = ctx.add_f16(ohwi);
  l.weight_bytes = static_cast<int64_t>(ohwi.size()) * kF16Bytes;
  l.weight_name = name;
  ctx.add_const({name, {m, kh, k, cg}, ohwi});
  l.macs = static_cast<uint64_t>(ctx.tensor(l.output).elems() * kh * k * cg);
}

void lower(LowerContext& ctx, const Node& n) {
  if (n.op == "QLinearConv") return conv_is_dense(ctx.graph(), n) ? lower_dense_conv_q8(ctx, n) : lower_q8(ctx, n);
  const Graph& g = ctx.graph();
  const TensorData& w = ctx.constant(n, 1);  // [M, C/g, kh, kw] (1-D: [M, C/g, K])
  const Fold fo = fold_of(ctx, n, w.shape());
  const Shape w4 = folded_shape(conv_shape_2d(w.shape()), fo);
  const std::vector<float> src =
      fold_weights(std::vector<float>(w.data<float>(), w.data<float>() + w.numel()), conv_shape_2d(w.shape()), fo.f);
  const std::string wname = g.value(n.inputs[1]).name;
  std::vector<float> bias;
  if (n.has_input(2)) {
    const TensorData& b = ctx.constant(n, 2);
    bias.assign(b.data<float>(), b.data<float>() + b.numel());
  }
  const int in_t = conv_input(ctx, n, fo);
  const std::vector<Chunk> chunks = chunks_of(w4[3], ctx.target().max_kernel);
  if (chunks.size() == 1) {
    RLayer& l = new_conv_layer(ctx, n, in_t, fo.geo);
    l.output = ctx.nhwc_output(n);
    set_f16_weights(ctx, l, src, w4, 0, w4[3], wname);
    if (n.has_input(2)) add_f32_bias(ctx, l, bias, g.value(n.inputs[2]).name);
    return;
  }
  // A kernel wider than the target's: a CONV2D per chunk (the bias in the
  // first), each partial sum added to the ones before it in chunk order.
  const Shape& ys = g.value(n.outputs[0]).shape;
  int acc = -1;
  for (size_t i = 0; i < chunks.size(); ++i) {
    const Chunk& c = chunks[i];
    const auto [geo, col0] = chunk_geometry(fo.geo, c);
    const std::string part = fmt::format("{}:taps{}-{}", n.name, c.first, c.first + c.k);
    const int out = ctx.nhwc_scratch(part, ys);
    {
      RLayer& l = new_conv_layer(ctx, n, in_t, geo, col0);
      if (i > 0) l.name = part;
      l.output = out;
      set_f16_weights(ctx, l, src, w4, c.first, c.k, fmt::format("{}:taps{}-{}", wname, c.first, c.first + c.k));
      if (i == 0 && n.has_input(2)) add_f32_bias(ctx, l, bias, g.value(n.inputs[2]).name);
    }
    if (i == 0) {
      acc = out;
      continue;
    }
    const bool last = i + 1 == chunks.size();
    const int sum = last ? ctx.nhwc_output(n) : ctx.nhwc_scratch(fmt::format("{}:sum{}", n.name, i), ys);
    RLayer& a = ctx.new_layer(MLIP_LAYER_ADD, n);
    a.name = fmt::format("{}:sum{}", n.name, i);
    a.inputs = {acc, out};
    a.output = sum;
    acc = sum;
  }
}

std::vector<Split> splits(const RTensor& out) {
  if (out.c > 1) return {Split::Rows, Split::Channels};
  return {Split::Rows};
}

// Images one after another; each image's output rows (or channels) split
// across tiles; each tile's share in groups of channels that fit OCM, each
// group in passes of output rows.
void plan(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const ConvParams& cp = params_of<ConvParams>(l);
  const Window& win = cp.win;
  const RTensor& x = p.in();
  const RTensor& y = p.out();
  // W: the block's columns, from column col0 of the input's XW
  const int64_t H = x.h, XW = x.w, W = x.w - cp.col0, C = x.c, OH = y.h, OW = y.w, OC = y.c;
  const int64_t cg = C / cp.groups, ocpg = OC / cp.groups;
  ConvPass pass{H, W, C, OW, win.kh, win.sh, win.dh, win.kh * win.kw * cg, l.has_bias()};
  if (l.q8()) pass = q8_pass(pass, l.dtype == MLIP_DT_INT16);
  if (l.w4_block != 0)
    pass.w4row = mlip_kq4_bytes(1, static_cast<int32_t>(pass.weights_per_oc), static_cast<int32_t>(l.w4_block));
  const int64_t eb = pass.eb, bb = pass.bb;
  const int64_t wrow = pass.row_bytes();  // bytes of one output channel's weights
  const bool by_channels = p.split() == Split::Channels;
  const auto parts = split_range(by_channels ? OC : OH, p.num_tiles());
  p.set_split(p.split(), parts);
  const uint64_t limit = p.work_limit();
  for (int64_t img = 0; img < x.n; ++img) {
    const int64_t xb = p.ddr_base(x) + (img * H * XW + cp.col0) * C * eb;
    const int64_t yb = p.ddr_base(y) + img * OH * OW * OC * eb;
    for (size_t t = 0; t < parts.size(); ++t) {
      const int tile = static_cast<int>(t);
      const int64_t r0 = by_channels ? 0 : parts[t].first, r1 = by_channels ? OH : parts[t].second;
      const int64_t c0 = by_channels ? parts[t].first : 0, c1 = by_channels ? parts[t].second : OC;
      const bool pin = p.pinned(tile);
      const int64_t occ = largest(c1 - c0, [&](int64_t v) { return pass.bytes(1, v, pin) <= limit; });
      if (occ == 0) fail("layer '{}' does not fit OCM even one row and channel at a time", l.name);
      const int64_t R = largest(r1 - r0, [&](int64_t v) { return pass.bytes(v, occ, pin) <= limit; });
      for (int64_t cs = c0; cs < c1; cs += occ) {
        const int64_t cn = std::min(occ, c1 - cs);
        Ocm ocm(p.work_limit());
        uint32_t w_off = 0, b_off = MLIP_NO_OFFSET;
        if (pin) {
          w_off = u32(p.pinned_weights(tile) + (cs - c0) * wrow);
          if (l.has_bias()) b_off = u32(p.pinned_bias(tile) + (cs - c0) * bb);
        } else {
          w_off = ocm.take(cn * wrow);
          p.dma_in(tile, p.weights_binding(), l.weight_offset + cs * wrow, w_off, cn * wrow);
          if (l.has_bias()) {
            b_off = ocm.take(cn * bb);
            p.dma_in(tile, p.weights_binding(), l.bias_offset + cs * bb, b_off, cn * bb);
          }
        }
        const uint32_t in_off = ocm.take(pass.rows_for(R) * W * C * eb);
        const uint32_t out_off = ocm.take(R * OW * cn * eb);
        p.note_ocm(tile, ocm);
        for (int64_t p0 = r0; p0 < r1; p0 += R) {
          const int64_t p1 = std::min(r1, p0 + R);
          const int64_t top = p0 * win.sh - win.pt;  // input row of the pass's first window
          int64_t ir0 = std::max<int64_t>(0, top);
          int64_t ir1 = std::min(H, (p1 - 1) * win.sh - win.pt + (win.kh - 1) * win.dh + 1);
          ir0 = std::min(ir0, H - 1);  // a pass whose windows are all padding still loads one real row
          ir1 = std::max(ir1, ir0 + 1);
          p.count_pass();
          if (W == XW)
            p.dma_in(tile, p.binding(x), xb + ir0 * W * C * eb, in_off, (ir1 - ir0) * W * C * eb);
          else
            p.dma_in(tile, p.binding(x), xb + ir0 * XW * C * eb, in_off, ir1 - ir0, W * C * eb, XW * C * eb,
                     W * C * eb);
          mlip_conv2d_args a{};
          a.in = in_off;
          a.in_h = u32(ir1 - ir0);
          a.in_w = u32(W);
          a.in_c = u32(C);
          a.weights = w_off;
          a.bias = b_off;
          a.out = out_off;
          a.out_h = u32(p1 - p0);
          a.out_w = u32(OW);
          a.out_c = u32(cn);
          a.kh = u32(win.kh);
          a.kw = u32(win.kw);
          a.stride_h = u32(win.sh);
          a.stride_w = u32(win.sw);
          a.dil_h = u32(win.dh);
          a.dil_w = u32(win.dw);
          a.pad_top = u32(ir0 - top);
          a.pad_left = u32(win.pl);
          a.groups = u32(cp.groups);
          a.ic_per_group = u32(cg);
          a.oc_per_group = u32(ocpg);
          a.oc_base = u32(cs);
          a.ic_base = 0;
          p.fused(a);
          if (l.q8()) {
            a.clamp_lo = cp.lo;
            a.clamp_hi = cp.hi;
            a.x_zp = cp.x_zp;
            a.y_zp = cp.y_zp;
            a.requant = l.requant;
            a.w4_block = u32(l.w4_block);
          }
          p.emit(MLIP_OP_CONV2D, tile, a, pin);
          if (cn == OC)
            p.dma_out(tile, p.binding(y), yb + p0 * OW * OC * eb, out_off, (p1 - p0) * OW * OC * eb);
          else
            p.dma_out(tile, p.binding(y), yb + (p0 * OW * OC + cs) * eb, out_off, (p1 - p0) * OW,
                      cn * eb, OC * eb, cn * eb);
        }
      }
    }
  }
}

void json(const RLayer& l, nlohmann::json& a) {
  const ConvParams& cp = params_of<ConvParams>(l);
  json_weights(l, "OHWI", a);
  json_window(cp.win, a);
  a["dilation"] = {cp.win.dh, cp.win.dw};
  a["groups"] = cp.groups;
}

}  // namespace conv2d_layer

bool conv_is_dense(const Graph& g, const Node& n) {
  if (n.op != "QLinearConv" || !is_const(g, n, 3) || n.attrs.get_int("group", 1) != 1) return false;
  const Shape& x = g.value(n.inputs[0]).shape;
  const Shape& w = g.value(n.inputs[3]).shape;
  const Shape& y = g.value(n.outputs[0]).shape;
  if (x.size() != 4 || w.size() != 4 || y.size() != 4) return false;
  if (x[2] != 1 || x[3] != 1 || w[2] != 1 || w[3] != 1 || y[2] != 1 || y[3] != 1) return false;
  const ops::Geometry geo =
      ops::resolve_geometry(n.attrs, ops::spatial_of(x), ops::spatial_of(w), conv2d_layer::kConvRules);
  return geo.pad_begin(0) == 0 && geo.pad_begin(1) == 0 && geo.pad_end(0) == 0 && geo.pad_end(1) == 0;
}

extern const LayerKind kConv2D = {MLIP_LAYER_CONV2D, "conv2d", "Conv2D", "mrvl.conv2d_nhwc2nhwc", {"Conv", "QLinearConv"},
                                  /*fuses_activation=*/true, conv2d_layer::support, conv2d_layer::lower,
                                  conv2d_layer::plan, conv2d_layer::splits, conv2d_layer::json};

}  // namespace mlipc::mlip::layers
