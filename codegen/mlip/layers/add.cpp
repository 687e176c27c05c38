// ADD: Add of two computed tensors of the same shape, with its fused
// activation (an Add that broadcasts or adds a constant is an ELTWISE layer,
// eltwise.cpp). Split across tiles by elements (64 at a time), each
// tile's share in chunks that fit OCM.
#include <algorithm>

#include <fmt/format.h>

#include "mlip/requant.h"
#include "ops/broadcast.h"
#include "ops/qlinear.h"
#include "ops/quant.h"
#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace add_layer {

// An 8-bit ADD's own parameters (RLayer::params): QLinearAdd's zero
// points, each operand's and the sum's requantization, the output range.
struct AddQ8Params {
  int32_t a_zp = 0, b_zp = 0, y_zp = 0, qa = 0, sa = 0, qb = 0, sb = 0, qy = 0, sy = 0, lo = 0, hi = 0;
  // a constant operand (a position embedding, a bias; torch writes a
  // Linear's as Add(bias, x)): its bytes in WEIGHTS, in the computed
  // operand's layout; -1: both are computed (the layer's inputs 0 and 1)
  int64_t k_const = -1;
  // the constant broadcast to the computed operand repeats every k_period
  // elements in that layout (a bias over the last axis: its length); the
  // WEIGHTS hold one period, which the DMA repeats (ddr_stride 0)
  int64_t k_period = 0;
  // the constant is QLinearAdd's first operand: the command's `a` buffer
  // holds it and `b` the computed one (ORT mode adds a first, then b)
  bool k_first = false;
};

// Both operands and the sum of `elems` elements.
uint64_t pass_bytes(int64_t elems, int64_t eb) { return 3 * ocm_round(elems * eb); }

// QLinearAdd (com.microsoft: a, a_scale, a_zp, b, b_scale, b_zp, y_scale,
// y_zp) of two tensors of one shape, the first computed, the second
// computed or constant (read from WEIGHTS): the int8 ADD, or its 16x8 form
// (int16, mlip_qadd16_sum's left shift of 15; computed operands only).
std::string q8_support(const Graph& g, const Node& n, const SupportLimits& lim) {
  if (!lim.int8) return "int8 addition needs -quantize=int8";
  if (n.op != "QLinearAdd") return "Add on int8 tensors";
  const Value& a = g.value(n.inputs[0]);
  const Value& b = g.value(n.inputs[3]);
  // The computed operand (x) and the other (k); a constant k must
  // broadcast to x.
  const bool a_computed = !a.is_constant();
  const Value& x = a_computed ? a : b;
  const Value& k = a_computed ? b : a;
  if (x.is_constant()) return "an int8 addition of two constants";
  if (x.shape != k.shape && !(k.is_constant() && ops::broadcasts_to(k.shape, x.shape)))
    return "only int8 additions of two equal shapes or of a constant that broadcasts to the other operand";
  // 16x8: int16 on all three (ops/qlinear_binary.cpp has them symmetric).
  if (b.dtype != a.dtype || g.value(n.outputs[0]).dtype != a.dtype) return "a QLinearAdd of mixed types";
  // A constant operand's bytes are one per element (const_bytes).
  if (k.is_constant() && a.dtype == DType::Int16) return "a 16x8 addition of a constant";
  for (size_t i : {1, 4, 6})
    if (!is_const(g, n, i)) return fmt::format("input #{} is not constant", i);
  for (size_t i : {2, 5, 7})
    if (n.has_input(i) && !is_const(g, n, i)) return fmt::format("input #{} is not constant", i);
  // Images per layer bound 4-D tensors; a 2-D or 3-D one's leading axes are
  // rows or tokens (attention's [tokens, 1, d]), which the element-by-element
  // sum does not see, as the int8 and fp16 FC take any number of rows.
  if (x.shape.size() == 4)
    if (std::string r = batch_reason(x.shape[0]); !r.empty()) return r;
  // 3-D: a 1-D convolution's [N, C, W] (NHWC, lower_q8 makes both operands so) or row-major
  if (x.shape.size() < 2 || x.shape.size() > 4) return "only 2-D, 3-D and 4-D tensors";
  return "";
}

// A per-tensor (scale, zero point) of QLinearAdd's inputs s and z.
ops::QParam q8_param(const LowerContext& ctx, const Node& n, size_t s, size_t z, DType t) {
  ops::QParam p;
  p.dtype = t;
  p.scale = ctx.any_constant(n, s).data<float>()[0];
  p.zero_point = n.has_input(z) ? static_cast<int32_t>(ctx.any_constant(n, z).as_int64()[0]) : 0;
  return p;
}

// A constant operand's bytes, broadcast to the first operand's shape `s`, in
// the layout that one has: [N, C, W] -> [N, W, C] when it is a 3-D NHWC one
// (n3), NCHW -> NHWC when 4-D (tensor_of), ONNX order otherwise.
std::vector<uint8_t> const_bytes(const TensorData& c, const Shape& s, bool n3) {
  const std::vector<int64_t> given = c.as_int64();
  std::vector<int64_t> v(static_cast<size_t>(numel(s)));
  ops::for_each_broadcast(s, {ops::broadcast_strides(c.shape(), s)},
                          [&](int64_t o, const std::vector<int64_t>& offs) { v[static_cast<size_t>(o)] = given[static_cast<size_t>(offs[0])]; });
  std::vector<uint8_t> out(v.size());
  const bool nhwc4 = s.size() == 4;
  if (!n3 && !nhwc4) {
    for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<uint8_t>(v[i]);
    return out;
  }
  const int64_t N = s[0], C = s[1], H = nhwc4 ? s[2] : 1, W = s.back();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ch = 0; ch < C; ++ch)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w)
          out[static_cast<size_t>(((n * H + h) * W + w) * C + ch)] =
              static_cast<uint8_t>(v[static_cast<size_t>(((n * C + ch) * H + h) * W + w)]);
  return out;
}

// The shortest period, in elements, of `bytes` (elem_bytes each) among the
// products of the layout's trailing axes (`dims`, outermost first): what a
// broadcast constant needs stored. Checked on the bytes themselves, so it is
// exact whatever the shapes.
int64_t trailing_period(const std::vector<uint8_t>& bytes, const Shape& dims) {
  const int64_t total = static_cast<int64_t>(bytes.size());
  int64_t p = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    p *= dims[d];
    if (p >= total) break;
    bool repeats = true;
    for (int64_t i = p; i < total && repeats; ++i) repeats = bytes[static_cast<size_t>(i)] == bytes[static_cast<size_t>(i % p)];
    if (repeats) return p;
  }
  return total;
}

// The CPU kernel's constants (c/kernels/qlinear_binary.cpp).
void lower_q8(LowerContext& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  // A constant operand (either one): the computed one is the layer's input.
  const bool a_const = g.value(n.inputs[0]).is_constant();
  const bool k_const = a_const || g.value(n.inputs[3]).is_constant();
  const ValueId xi = n.inputs[a_const ? 3 : 0];
  // 3-D operands of which one is NHWC (a 1-D convolution's): both NHWC
  const bool n3 = ctx.is_nhwc3(xi) || (!k_const && ctx.is_nhwc3(n.inputs[3]));
  const int ta = n3 ? ctx.nhwc_of(xi) : ctx.tensor_of(xi);  // before the layer
  const int tb = k_const ? -1 : n3 ? ctx.nhwc_of(n.inputs[3]) : ctx.tensor_of(n.inputs[3]);
  RLayer& l = ctx.new_layer(MLIP_LAYER_ADD, n);
  l.inputs = k_const ? std::vector<int>{ta} : std::vector<int>{ta, tb};
  l.output = n3 ? ctx.nhwc_output(n) : ctx.output_tensor(n);
  const DType t = g.value(xi).dtype;
  const ops::QParam a = q8_param(ctx, n, 1, 2, t), b = q8_param(ctx, n, 4, 5, t), y = q8_param(ctx, n, 6, 7, t);
  l.dtype = mlip_dtype(t);
  AddQ8Params q;
  if (l.requant == MLIP_REQUANT_ORT) {  // mlip_qadd_f32's ra, rb, offset in qa, qb, qy
    const ops::AddF32 f = ops::add_f32(a.scale, a.zero_point, b.scale, b.zero_point, y.scale, y.zero_point);
    const int32_t s = MLIP_REQUANT_F32;
    q = AddQ8Params{a.zero_point, b.zero_point, y.zero_point, ops::f32_bits(f.ra), s,
                    ops::f32_bits(f.rb), s, ops::f32_bits(f.offset), s,
                    ops::clamp_lo(n.attrs, t), ops::clamp_hi(n.attrs, t)};
  } else {
    const ops::AddRequant r = ops::add_requant(a, b, y);
    q = AddQ8Params{a.zero_point, b.zero_point, y.zero_point, r.a.q, r.a.shift, r.b.q, r.b.shift, r.out.q,
                    r.out.shift, ops::clamp_lo(n.attrs, t), ops::clamp_hi(n.attrs, t)};
  }
  if (k_const) {
    const Shape& xs = g.value(xi).shape;
    std::vector<uint8_t> bytes = const_bytes(*g.value(n.inputs[a_const ? 0 : 3]).constant, xs, n3);
    // The layout's axes, outermost first (const_bytes' orders).
    const Shape dims = n3 ? Shape{xs[0], xs[2], xs[1]} : xs.size() == 4 ? Shape{xs[0], xs[2], xs[3], xs[1]} : xs;
    q.k_period = trailing_period(bytes, dims);
    bytes.resize(static_cast<size_t>(q.k_period));
    q.k_const = ctx.add_bytes(bytes);
    q.k_first = a_const;
  }
  l.params = q;
}

// Two computed tensors of the same shape; other Adds are ELTWISE layers.
bool same_shapes(const Graph& g, const Node& n) {
  const Value& a = g.value(n.inputs[0]);
  const Value& b = g.value(n.inputs[1]);
  return a.shape == b.shape && !a.is_constant() && !b.is_constant();
}

std::string support(const Graph& g, const Node& n, const SupportLimits& lim) {
  if (lim.int8 || n.op == "QLinearAdd") return q8_support(g, n, lim);
  if (n.attrs.has("legacy_axis")) return "legacy broadcasting";
  if (!same_shapes(g, n)) return eltwise_reason(g, n, lim);
  const Value& a = g.value(n.inputs[0]);
  const Value& b = g.value(n.inputs[1]);
  if (a.dtype != DType::Float32 || b.dtype != DType::Float32) return "only float32 additions";
  if (!a.shape.empty())
    if (std::string r = batch_reason(a.shape[0]); !r.empty()) return r;
  if (std::string r = rowmajor_reason(a); !r.empty()) return r;
  return "";  // one element of each fits any OCM
}

void lower(LowerContext& ctx, const Node& n) {
  if (n.op == "QLinearAdd") return lower_q8(ctx, n);
  if (fuse_matmul_bias(ctx, n)) return;
  if (!same_shapes(ctx.graph(), n)) return lower_eltwise(ctx, n);
  // Element by element: any layout, the two operands' the same (NHWC when
  // either is a 3-D NHWC tensor, a 1-D convolution's; row-major when both
  // are; 4-D NHWC otherwise), the output's that one.
  const bool n3 = ctx.is_nhwc3(n.inputs[0]) || ctx.is_nhwc3(n.inputs[1]);
  const bool rm = !n3 && ctx.is_rowmajor(n.inputs[0]) && ctx.is_rowmajor(n.inputs[1]);
  const int a = n3 ? ctx.nhwc_of(n.inputs[0]) : rm ? ctx.rowmajor_of(n.inputs[0]) : ctx.tensor_of(n.inputs[0]);
  const int b = n3 ? ctx.nhwc_of(n.inputs[1]) : rm ? ctx.rowmajor_of(n.inputs[1]) : ctx.tensor_of(n.inputs[1]);
  RLayer& l = ctx.new_layer(MLIP_LAYER_ADD, n);
  l.inputs = {a, b};
  l.output = n3 ? ctx.nhwc_output(n) : ctx.output_tensor(n, 0, rm);
}

void plan(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const RTensor& a = p.in(0);
  const AddQ8Params none;
  const AddQ8Params& k = l.q8() ? params_of<AddQ8Params>(l) : none;
  const RTensor& b = k.k_const >= 0 ? a : p.in(1);  // a: unused with a constant
  const RTensor& y = p.out();
  const int64_t eb = y.elem_bytes();
  const int64_t E = y.elems();
  const auto parts = split_range(E, p.num_tiles(), 64);
  p.set_split(Split::Elements, parts);
  const int64_t chunk = largest(E, [&](int64_t v) { return pass_bytes(v, eb) <= p.work_limit(); });
  for (size_t t = 0; t < parts.size(); ++t) {
    const int tile = static_cast<int>(t);
    Ocm ocm(p.work_limit());
    const int64_t n = std::min(chunk, parts[t].second - parts[t].first);
    const uint32_t a_off = ocm.take(n * eb), b_off = ocm.take(n * eb), o_off = ocm.take(n * eb);
    // the computed operand's buffer and the constant's (QLinearAdd's order)
    const uint32_t x_off = k.k_first ? b_off : a_off, k_off = k.k_first ? a_off : b_off;
    p.note_ocm(tile, ocm);
    for (int64_t e0 = parts[t].first, en = 0; e0 < parts[t].second; e0 += en) {
      en = std::min(n, parts[t].second - e0);
      // A constant that repeats every `period` elements (WEIGHTS hold one
      // period): a pass reads within one period, or whole periods as rows of
      // one DMA that reads the same bytes again (ddr_stride 0), so every
      // buffer starts where OCM wants it. Without repetition (period: all
      // elements) this is the one DMA it always was.
      const int64_t period = k.k_const >= 0 ? k.k_period : E;
      const int64_t r = e0 % period;
      if (r != 0 || en < period)
        en = std::min(en, period - r);
      else
        en = en / period * period;
      p.count_pass();
      p.dma_in(tile, p.binding(a), p.ddr_base(a) + e0 * eb, x_off, en * eb);
      if (k.k_const >= 0 && en > period)
        p.dma_in(tile, p.weights_binding(), k.k_const, k_off, en / period, period * eb, 0, period * eb);
      else if (k.k_const >= 0)
        p.dma_in(tile, p.weights_binding(), k.k_const + r * eb, k_off, en * eb);
      else
        p.dma_in(tile, p.binding(b), p.ddr_base(b) + e0 * eb, b_off, en * eb);
      mlip_add_args c{};
      c.a = a_off;
      c.b = b_off;
      c.out = o_off;
      c.count = u32(en);
      p.fused(c);
      if (l.q8()) {
        const AddQ8Params& q = params_of<AddQ8Params>(l);
        c.a_zp = q.a_zp;
        c.b_zp = q.b_zp;
        c.y_zp = q.y_zp;
        c.qa = q.qa;
        c.sa = q.sa;
        c.qb = q.qb;
        c.sb = q.sb;
        c.qy = q.qy;
        c.sy = q.sy;
        c.lo = q.lo;
        c.hi = q.hi;
        c.requant = l.requant;
      }
      p.emit(MLIP_OP_ADD, tile, c);
      p.dma_out(tile, p.binding(y), p.ddr_base(y) + e0 * eb, o_off, en * eb);
    }
  }
}

}  // namespace add_layer

extern const LayerKind kAdd = {MLIP_LAYER_ADD, "add", "Sum", "mrvl.sum", {"Add", "QLinearAdd"},
                               /*fuses_activation=*/true, add_layer::support, add_layer::lower, add_layer::plan,
                               nullptr, nullptr};

}  // namespace mlipc::mlip::layers
