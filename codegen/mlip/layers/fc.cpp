// FC: Gemm and MatMul with a constant weight matrix (alpha, beta, transB, a
// bias per output), any number of rows, with its fused activation. A
// flatten before it (and a transpose to NHWC before that) costs nothing: the
// weights are reordered into the NHWC order of the flattened tensor. Split
// across tiles by output channels; when even one output's weights do not fit
// OCM, the reduction runs in passes with fp32 partial sums.
// int8 (docs/mlip-spec.md 4a): QLinearMatMul with constant int8 weights, and
// the 1x1 QLinearConv that passes/fold_qdq makes of a QDQ Gemm or MatMul
// (conv_is_dense), as an FC with one requantization record per output and
// the whole reduction in one command, of any number of rows that fits OCM
// (a quantized transformer's Linear on 49 tokens; the command has no batch
// bound); a QLinearMatMul of two computed operands goes to MATMUL as well.
// fp16 takes any number of rows too (attention's out-projection, a Gemm on
// [tokens, d]): in chunks of rows when they do not all fit OCM; each output
// is its own row's sum, so the chunks do not change a bit.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ops/conv_integer.h"
#include "ops/matmul_integer.h"
#include "ops/op.h"
#include "ops/quant.h"
#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace fc_layer {

// An 8-bit FC's own parameters (RLayer::params): the zero points and the
// output clamp its commands carry. An fp16 FC has none.
struct FcQ8Params {
  int32_t x_zp = 0, y_zp = 0, lo = 0, hi = 0;
};

// The OCM a pass needs: N rows of kc inputs, occ outputs' weights and bias
// (unless pinned), the fp32 accumulator and the fp16 output. int8: one-byte
// inputs, weights and outputs, a requantization record per output, and no
// accumulator (the reduction is one command).
struct FcPass {
  int64_t N;
  bool bias;
  bool q8 = false;
  bool wide = false;  // 16x8: two-byte inputs and outputs, one-byte weights, 16-byte records
  int64_t w4row = 0;   // 4-bit weights (RLayer::w4_block): the bytes of an output's packed row of all K
  int64_t eb() const { return wide ? 2 : q8 ? 1 : kF16Bytes; }
  int64_t wb() const { return q8 ? 1 : kF16Bytes; }
  int64_t bb() const {
    return wide ? static_cast<int64_t>(MLIP_REQUANT16_RECORD_BYTES)
                : q8 ? static_cast<int64_t>(MLIP_REQUANT_RECORD_BYTES) : kF32Bytes;
  }
  uint64_t bytes(int64_t occ, int64_t kc, bool pinned) const {
    const int64_t wrow = w4row != 0 ? w4row : kc * wb();
    return ocm_round(N * kc * eb()) + (pinned ? 0 : ocm_round(occ * wrow) + (bias ? ocm_round(occ * bb()) : 0)) +
           (q8 ? 0 : ocm_round(N * occ * kF32Bytes)) + ocm_round(N * occ * eb());
  }
};

// An int8 FC's rule once its operands are known: batch, K bound, and one
// output's whole reduction in OCM.
std::string q8_fit(int64_t n, int64_t k, const SupportLimits& lim, bool wide = false) {
  if (!lim.int8) return "int8 dense layers need -quantize=int8";
  if (k > static_cast<int64_t>(MLIP_INT8_MAX_TAPS))
    return fmt::format("{} products per output, above the int8 bound of {}", k, MLIP_INT8_MAX_TAPS);
  const uint64_t need = FcPass{n, true, true, wide}.bytes(1, k, false);
  if (need > lim.work_bytes)
    return fmt::format("one output needs {} bytes of OCM, more than the {} available", need, lim.work_bytes);
  return "";
}

// QLinearMatMul (a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp) with
// constant int8 B, symmetric (zero points 0), per tensor or per column, and
// A per tensor.
std::string q8_matmul_support(const Graph& g, const Node& n, const SupportLimits& lim) {
  const Value& a = g.value(n.inputs[0]);
  if (a.shape.size() != 2) return "only 2-D int8 dense layers run on the MLIP";
  for (size_t i : {1, 3, 4, 6})
    if (!is_const(g, n, i)) return fmt::format("input #{} is not constant", i);
  for (size_t i : {2, 5, 7})
    if (n.has_input(i) && !is_const(g, n, i)) return fmt::format("input #{} is not constant", i);
  const Value& b = g.value(n.inputs[3]);
  if (b.dtype != DType::Int8 || b.shape.size() != 2) return "only a constant int8 2-D weight matrix runs on the MLIP";
  if (n.has_input(5))
    for (int64_t z : g.value(n.inputs[5]).constant->as_int64())
      if (z != 0) return "only symmetric weights (zero point 0) run on the MLIP";
  if (numel(g.value(n.inputs[1]).shape) != 1 || (n.has_input(2) && numel(g.value(n.inputs[2]).shape) != 1))
    return "A's scale or zero point varies along its rows";
  if (g.value(n.outputs[0]).dtype != a.dtype) return "input and output types differ";
  return q8_fit(a.shape[0], a.shape[1], lim);
}

// A MatMul of a 2-D float32 tensor and a constant matrix: a dense layer;
// the other MatMuls are MATMUL layers (layers/matmul.cpp).
bool dense_matmul(const Graph& g, const Node& n) {
  return g.value(n.inputs[0]).shape.size() == 2 && is_const(g, n, 1) && g.value(n.inputs[1]).shape.size() == 2;
}

std::string support(const Graph& g, const Node& n, const SupportLimits& lim) {
  if (n.op == "QLinearMatMul")  // of two computed operands (16x8: or a batch of weights): a MATMUL (layers/matmul.cpp)
    return is_const(g, n, 3) && !matmul_q16_weights(g, n) ? q8_matmul_support(g, n, lim) : matmul_q8_reason(g, n, lim);
  if (n.op == "MatMul" && !dense_matmul(g, n)) return matmul_reason(g, n, lim);
  const Value& a = g.value(n.inputs[0]);
  if (a.dtype != DType::Float32 || a.shape.size() != 2) return "only float32 2-D dense layers run on the MLIP";
  if (!is_const(g, n, 1) || g.value(n.inputs[1]).shape.size() != 2) return "weights are not a constant matrix";
  bool bias = false;
  if (n.op == "Gemm") {
    if (n.attrs.get_int("transA", 0) != 0) return "transA=1";
    if (n.has_input(2)) {
      if (!is_const(g, n, 2)) return "bias is not constant";
      const Shape& c = g.value(n.inputs[2]).shape;
      if (numel(c) != g.value(n.outputs[0]).shape[1] && numel(c) != 1) return "bias varies along the batch";
      bias = true;
    }
  }
  // The smallest pass: one row, one output, one input element (rows are
  // planned in chunks, plan()).
  const uint64_t need = FcPass{1, bias}.bytes(1, 1, false);
  if (need > lim.work_bytes)
    return fmt::format("one output needs {} bytes of OCM, more than the {} available", need, lim.work_bytes);
  return "";
}

// Where input element kk of a dense row is in the region tensor x: a
// flattened NHWC input holds element (c, h, w) of the ONNX (NCHW)
// flattening at position (h, w, c).
int64_t dense_index(const RTensor& x, int64_t kk) {
  if (!x.flat) return kk;
  const int64_t c = kk / (x.h * x.w), hw = kk % (x.h * x.w);
  return hw * x.c + c;
}

// The FC layer of node n reading input 0 (and the views before it).
RLayer& new_fc_layer(LowerContext& ctx, const Node& n) {
  const int in = ctx.tensor_of(n.inputs[0]);  // before the layer: it may add a relayout layer
  RLayer& l = ctx.new_layer(MLIP_LAYER_FC, n);
  l.inputs = {in};
  const std::vector<std::string> views = ctx.view_origins(in);
  l.origins.insert(l.origins.begin(), views.begin(), views.end());
  return l;
}

// The int8 FC of n: weights w[o * k + kk] (int8, symmetric), one
// requantization per output or one for all (rq), int32 bias per output
// (empty: zeros), the zero points and the output clamp.
void lower_q8_common(LowerContext& ctx, const Node& n, int64_t o, int64_t k, const std::vector<int64_t>& w,
                     const std::vector<ops::Requant>& rq, const std::vector<int64_t>& bias, int32_t zx, int32_t zy,
                     int32_t lo, int32_t hi, const std::string& weight_name, const std::string& bias_name) {
  const Graph& g = ctx.graph();
  const DType xt = g.value(n.inputs[0]).dtype, yt = g.value(n.outputs[0]).dtype;
  if (xt != yt) fail("int8 dense layer with input {} and output {} types", dtype_name(xt), dtype_name(yt));
  RLayer& l = new_fc_layer(ctx, n);
  l.dtype = mlip_dtype(yt);  // before the records: a 16x8 layer's are 16 bytes
  const RTensor x = ctx.tensor(l.inputs[0]);  // a copy: output_tensor() grows the list
  if (k != x.image_elems()) fail("dense input has {} elements per row, weights expect {}", x.image_elems(), k);
  std::vector<int64_t> rows(static_cast<size_t>(o * k));
  std::vector<float> shown(rows.size());
  for (int64_t oo = 0; oo < o; ++oo)
    for (int64_t kk = 0; kk < k; ++kk) {
      const size_t dst = static_cast<size_t>(oo * k + dense_index(x, kk));
      const int64_t v = w[static_cast<size_t>(oo * k + kk)];
      rows[dst] = v;
      shown[dst] = static_cast<float>(v);
    }
  const std::vector<uint8_t> bytes = q8_weight_bytes(n, l, rows, o, k);  // int8, or 4-bit rows
  l.weight_offset = ctx.add_bytes(bytes);
  l.weight_bytes = static_cast<int64_t>(bytes.size());
  l.weight_name = weight_name;
  ctx.add_const({l.weight_name, {o, k}, shown});
  add_requant_records(ctx, l, rq, bias, o, o, bias_name);
  l.dtype = mlip_dtype(yt);
  l.params = FcQ8Params{zx, zy, lo, hi};
  l.output = ctx.output_tensor(n);
  l.macs = static_cast<uint64_t>(x.n * k * o);
}

int32_t zero_point_of(LowerContext& ctx, const Node& n, size_t i) {
  return n.has_input(i) ? static_cast<int32_t>(ctx.any_constant(n, i).as_int64()[0]) : 0;
}

void lower_q8_matmul(LowerContext& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  const TensorData& b = ctx.any_constant(n, 3);  // [K, O] int8
  const int64_t k = b.shape()[0], o = b.shape()[1];
  const std::vector<int64_t> src = b.as_int64();
  std::vector<int64_t> w(src.size());
  for (int64_t oo = 0; oo < o; ++oo)
    for (int64_t kk = 0; kk < k; ++kk) w[static_cast<size_t>(oo * k + kk)] = src[static_cast<size_t>(kk * o + oo)];
  const ops::MatMulRequant q =
      ops::matmul_requant(ctx.any_constant(n, 1), ctx.any_constant(n, 4), ctx.any_constant(n, 6), 1, o,
                          ops::requant_mode(n.attrs));
  const DType yt = g.value(n.outputs[0]).dtype;
  lower_q8_common(ctx, n, o, k, w, q.r, {}, zero_point_of(ctx, n, 2), zero_point_of(ctx, n, 7), ops::quant_min(yt),
                  ops::quant_max(yt), g.value(n.inputs[3]).name, n.name + ":requant");
}

void lower(LowerContext& ctx, const Node& n) {
  if (n.op == "QLinearMatMul")
    return is_const(ctx.graph(), n, 3) && !matmul_q16_weights(ctx.graph(), n) ? lower_q8_matmul(ctx, n)
                                                                               : lower_matmul(ctx, n);
  if (n.op == "MatMul" && !dense_matmul(ctx.graph(), n)) return lower_matmul(ctx, n);
  const Graph& g = ctx.graph();
  RLayer& l = new_fc_layer(ctx, n);
  const int in = l.inputs[0];
  // A copy: output_tensor() below grows the tensor list, which would leave a
  // reference dangling.
  const RTensor x = ctx.tensor(in);
  const TensorData& b = ctx.constant(n, 1);
  const bool trans_b = n.op == "Gemm" && n.attrs.get_int("transB", 0) != 0;
  const int64_t k = trans_b ? b.shape()[1] : b.shape()[0];
  const int64_t o = trans_b ? b.shape()[0] : b.shape()[1];
  if (k != x.image_elems()) fail("dense input has {} elements per row, weights expect {}", x.image_elems(), k);
  const float alpha = n.op == "Gemm" ? n.attrs.get_float("alpha", 1.0f) : 1.0f;
  std::vector<float> w(static_cast<size_t>(o * k));
  const float* src = b.data<float>();
  for (int64_t oo = 0; oo < o; ++oo)
    for (int64_t kk = 0; kk < k; ++kk)
      w[static_cast<size_t>(oo * k + dense_index(x, kk))] = alpha * (trans_b ? src[oo * k + kk] : src[kk * o + oo]);
  l.weight_offset = ctx.add_f16(w);
  l.weight_bytes = o * k * kF16Bytes;
  l.weight_name = g.value(n.inputs[1]).name;
  ctx.add_const({l.weight_name, {o, k}, w});
  if (n.op == "Gemm" && n.has_input(2)) {
    const TensorData& c = ctx.constant(n, 2);
    const float beta = n.attrs.get_float("beta", 1.0f);
    std::vector<float> bias(static_cast<size_t>(o));
    for (int64_t oo = 0; oo < o; ++oo) bias[static_cast<size_t>(oo)] = beta * c.data<float>()[c.numel() == 1 ? 0 : oo];
    add_f32_bias(ctx, l, bias, g.value(n.inputs[2]).name);
  }
  l.output = ctx.output_tensor(n);
  l.macs = static_cast<uint64_t>(x.n * k * o);
}

// Output channels split across tiles; each tile's share in groups of
// outputs whose weights fit OCM; each group's reduction in one pass, or in
// chunks of K (fp32 partial sums in OCM) when even one output does not fit.
// int8: the same split and groups of outputs, the whole reduction in each
// command (the support rule made sure one output fits).
void plan_q8(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const FcQ8Params& q = params_of<FcQ8Params>(l);
  const RTensor& x = p.in();
  const RTensor& y = p.out();
  const int64_t K = x.image_elems(), O = y.c, N = x.n;
  const bool wide = l.dtype == MLIP_DT_INT16;
  const int64_t wrow = l.weight_bytes / O;  // one output's weights: K bytes, or a packed 4-bit row
  const FcPass pass{N, true, true, wide, l.w4_block != 0 ? wrow : 0};
  const int64_t rb = pass.bb(), eb = pass.eb();
  const auto parts = split_range(O, p.num_tiles());
  p.set_split(Split::Channels, parts);
  for (size_t t = 0; t < parts.size(); ++t) {
    const int tile = static_cast<int>(t);
    const int64_t c0 = parts[t].first, c1 = parts[t].second;
    const bool pin = p.pinned(tile);
    const int64_t occ = largest(c1 - c0, [&](int64_t v) { return pass.bytes(v, K, pin) <= p.work_limit(); });
    if (occ == 0) fail("layer '{}' does not fit OCM even one output at a time", l.name);
    for (int64_t cs = c0; cs < c1; cs += occ) {
      const int64_t cn = std::min(occ, c1 - cs);
      Ocm ocm(p.work_limit());
      const uint32_t in_off = ocm.take(N * K * eb);
      const uint32_t w_off = pin ? u32(p.pinned_weights(tile) + (cs - c0) * wrow) : ocm.take(cn * wrow);
      const uint32_t b_off = pin ? u32(p.pinned_bias(tile) + (cs - c0) * rb) : ocm.take(cn * rb);
      const uint32_t out_off = ocm.take(N * cn * eb);
      p.note_ocm(tile, ocm);
      p.count_pass();
      if (!pin) {
        p.dma_in(tile, p.weights_binding(), l.bias_offset + cs * rb, b_off, cn * rb);
        p.dma_in(tile, p.weights_binding(), l.weight_offset + cs * wrow, w_off, cn * wrow);
      }
      p.dma_in(tile, p.binding(x), p.ddr_base(x), in_off, N * K * eb);
      mlip_fc_args a{};
      a.in = in_off;
      a.weights = w_off;
      a.bias = b_off;
      a.acc = MLIP_NO_OFFSET;
      a.out = out_off;
      a.n = u32(N);
      a.k = u32(K);
      a.out_c = u32(cn);
      a.first = 1;
      a.last = 1;
      p.fused(a);
      a.clamp_lo = q.lo;
      a.clamp_hi = q.hi;
      a.x_zp = q.x_zp;
      a.y_zp = q.y_zp;
      a.requant = l.requant;
      a.w4_block = u32(l.w4_block);
      p.emit(MLIP_OP_FC, tile, a, pin);
      p.dma_out(tile, p.binding(y), p.ddr_base(y) + cs * eb, out_off, N, cn * eb, O * eb, cn * eb);
    }
  }
}

// fp16 rows per pass: all N when one output's whole reduction fits with
// them (any batch of images the other layers take); a longer list (a
// transformer's tokens) in chunks whose inputs take at most half the OCM,
// the rest for the outputs' weights and sums; when not even one row's
// whole reduction fits, as many rows as take one input element of one
// output (the reduction then runs in passes of K).
int64_t fp16_rows(const FcPass& pass, int64_t N, int64_t K, bool pin, uint64_t limit) {
  const auto with = [&](int64_t v, int64_t kc, bool pinned) {
    FcPass r = pass;
    r.N = v;
    return r.bytes(1, kc, pinned) <= limit;
  };
  if (with(N, K, pin)) return N;
  const int64_t half =
      largest(N, [&](int64_t v) { return ocm_round(v * K * kF16Bytes) <= limit / 2 && with(v, K, pin); });
  if (half > 0) return half;
  const int64_t whole = largest(N, [&](int64_t v) { return with(v, K, pin); });
  if (whole > 0) return whole;
  return largest(N, [&](int64_t v) { return with(v, 1, false); });
}

void plan(LayerPlanner& p) {
  if (p.layer().q8()) return plan_q8(p);
  const RLayer& l = p.layer();
  const RTensor& x = p.in();
  const RTensor& y = p.out();
  const int64_t K = x.image_elems(), O = y.c, N = x.n;
  const auto parts = split_range(O, p.num_tiles());
  p.set_split(Split::Channels, parts);
  for (size_t t = 0; t < parts.size(); ++t) {
    const int tile = static_cast<int>(t);
    const int64_t c0 = parts[t].first, c1 = parts[t].second;
    const bool pin = p.pinned(tile);
    const int64_t R = fp16_rows(FcPass{N, l.has_bias()}, N, K, pin, p.work_limit());
    if (R == 0) fail("layer '{}' does not fit OCM even one row at a time", l.name);
    const FcPass pass{R, l.has_bias()};
    int64_t occ = largest(c1 - c0, [&](int64_t v) { return pass.bytes(v, K, pin) <= p.work_limit(); });
    int64_t kc = K;
    if (occ == 0) {  // even one output needs the reduction split into passes
      if (pin) return p.refuse_pinned("pinned dense weights need the whole reduction in one pass");
      occ = 1;
      kc = largest(K, [&](int64_t v) { return pass.bytes(1, v, false) <= p.work_limit(); });
      if (kc == 0) fail("layer '{}' does not fit OCM", l.name);
    }
    for (int64_t cs = c0; cs < c1; cs += occ) {
      const int64_t cn = std::min(occ, c1 - cs);
      for (int64_t r0 = 0; r0 < N; r0 += R) {
        const int64_t rn = std::min(R, N - r0);
        Ocm ocm(p.work_limit());
        const uint32_t in_off = ocm.take(rn * kc * kF16Bytes);
        const uint32_t w_off = pin ? 0 : ocm.take(cn * kc * kF16Bytes);
        const uint32_t b_off = l.has_bias() && !pin ? ocm.take(cn * kF32Bytes) : MLIP_NO_OFFSET;
        const uint32_t acc_off = ocm.take(rn * cn * kF32Bytes);
        const uint32_t out_off = ocm.take(rn * cn * kF16Bytes);
        p.note_ocm(tile, ocm);
        if (l.has_bias() && !pin)
          p.dma_in(tile, p.weights_binding(), l.bias_offset + cs * kF32Bytes, b_off, cn * kF32Bytes);
        for (int64_t k0 = 0; k0 < K; k0 += kc) {
          const int64_t kn = std::min(kc, K - k0);
          p.count_pass();
          p.dma_in(tile, p.binding(x), p.ddr_base(x) + (r0 * K + k0) * kF16Bytes, in_off, rn, kn * kF16Bytes,
                   K * kF16Bytes, kn * kF16Bytes);
          if (!pin)
            p.dma_in(tile, p.weights_binding(), l.weight_offset + (cs * K + k0) * kF16Bytes, w_off, cn,
                     kn * kF16Bytes, K * kF16Bytes, kn * kF16Bytes);
          mlip_fc_args a{};
          a.in = in_off;
          a.weights = pin ? u32(p.pinned_weights(tile) + (cs - c0) * K * kF16Bytes) : w_off;
          a.bias = !l.has_bias() ? MLIP_NO_OFFSET
                   : pin         ? u32(p.pinned_bias(tile) + (cs - c0) * kF32Bytes)
                                 : b_off;
          a.acc = acc_off;
          a.out = out_off;
          a.n = u32(rn);
          a.k = u32(kn);
          a.out_c = u32(cn);
          a.first = k0 == 0;
          a.last = k0 + kn >= K;
          p.fused(a);
          p.emit(MLIP_OP_FC, tile, a, pin);
        }
        p.dma_out(tile, p.binding(y), p.ddr_base(y) + (r0 * O + cs) * kF16Bytes, out_off, rn, cn * kF16Bytes,
                  O * kF16Bytes, cn * kF16Bytes);
      }
    }
  }
}

void json(const RLayer& l, nlohmann::json& a) { json_weights(l, "OI", a); }

}  // namespace fc_layer

std::string dense_q8_reason(int64_t n, int64_t k, const SupportLimits& limits, bool wide) {
  return fc_layer::q8_fit(n, k, limits, wide);
}

bool row_shape(const Shape& s) { return (s.size() == 2 || s.size() == 4) && numel(s) == s[0] * s[1]; }

bool q8_dense_readers(const Graph& g, const std::vector<std::vector<int>>& consumers, const std::vector<bool>* chosen,
                      ValueId v) {
  if (g.is_graph_output(v) || consumers[v].empty()) return false;
  return std::all_of(consumers[v].begin(), consumers[v].end(), [&](int c) {
    const Node& cn = g.nodes[static_cast<size_t>(c)];
    if (cn.inputs.empty() || cn.inputs[0] != v) return false;
    if (cn.op == "QLinearMatMul" || cn.op == "QLinearConv")
      return (!chosen || (*chosen)[static_cast<size_t>(c)]) && (cn.op == "QLinearMatMul" || conv_is_dense(g, cn));
    return op_traits(cn.op).view == View::Reshape && row_shape(g.value(cn.outputs[0]).shape) &&
           q8_dense_readers(g, consumers, chosen, cn.outputs[0]);
  });
}

void lower_dense_conv_q8(LowerContext& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  const TensorData& wt = ctx.any_constant(n, 3);  // [M, K, 1, 1] int8
  const int64_t o = wt.shape()[0], k = wt.shape()[1];
  const std::vector<ops::Requant> rq =
      ops::conv_requant(ctx.any_constant(n, 1), ctx.any_constant(n, 4), ctx.any_constant(n, 6), ops::requant_mode(n.attrs));
  const DType yt = g.value(n.outputs[0]).dtype;
  fc_layer::lower_q8_common(ctx, n, o, k, wt.as_int64(), rq,
                            n.has_input(8) ? ctx.any_constant(n, 8).as_int64() : std::vector<int64_t>{},
                            fc_layer::zero_point_of(ctx, n, 2), fc_layer::zero_point_of(ctx, n, 7),
                            ops::clamp_lo(n.attrs, yt), ops::clamp_hi(n.attrs, yt), g.value(n.inputs[3]).name,
                            n.has_input(8) ? g.value(n.inputs[8]).name : n.name + ":requant");
}

extern const LayerKind kFc = {MLIP_LAYER_FC, "fc", "FC", "mrvl.fc_ni2no", {"Gemm", "MatMul", "QLinearMatMul"},
                              /*fuses_activation=*/true, fc_layer::support, fc_layer::lower, fc_layer::plan, nullptr,
                              fc_layer::json};

}  // namespace mlipc::mlip::layers
