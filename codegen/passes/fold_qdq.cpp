// Folds QDQ groups into integer operators: DequantizeLinear -> op (-> Relu
// or Clip) -> QuantizeLinear becomes the op's integer form reading the
// quantized tensors and writing the QuantizeLinear's output, with the
// requantization fused (ops/qlinear.h, include/mlip/requant.h):
//   Conv                       -> QLinearConv (per-channel weights, int32 bias)
//   ConvTranspose              -> mlipc.QLinearConvTranspose (weights per channel on axis 1)
//   Gemm, MatMul (const 2-D B; MatMul's A of any rank from 2: its leading
//     dimensions are the rows, a transformer's Linear on [1, T, d])
//                              -> Reshape, QLinearConv 1x1, Reshape (from
//     3-D: a Reshape to the rows [rows, K] first, and one back after)
//   MatMul (both computed)     -> QLinearMatMul (16x8 too: int16 sides,
//     an int64 sum; and a 16x8 MatMul of a constant B of rank 3 or more)
//   Add, Mul                   -> QLinearAdd, QLinearMul (com.microsoft's)
//   GlobalAveragePool          -> QLinearGlobalAveragePool
//   MaxPool, Flatten, Reshape, Transpose, Squeeze, Unsqueeze, Pad, nearest
//   Resize with the same scale and zero point in and out -> the op on the integers
//   Relu, Clip, Sigmoid, Tanh, HardSigmoid, HardSwish, LeakyRelu -> a 256-entry table
//   Concat                     -> tables for inputs of another scale, then Concat
// int16 activations (16x8, with int8 weights) fold for Conv, Gemm and
// MatMul with constant weights (QLinearConv's 16x8 form: int64 bias and
// sum), MatMul of two computed tensors or of a constant batch of matrices
// (QLinearMatMul's 16x8 form), GlobalAveragePool and AveragePool (int64
// sums), Add and Mul (zero points 0: Add with 2^15 of headroom, TFLite's),
// Concat (an input of another scale rescaled by a QLinearMul by 1), the
// same-scale ops, Relu and Clip keeping the scale (a Clip on the
// integers), and the other activations as a 513-entry interpolated table
// (mlip/lut16.h; a 65,536-entry one would be 128 KiB); the others stay
// float between their DequantizeLinear and QuantizeLinear
// (docs/user-guide.md "16x8 quantization").
// A Relu or Clip between the op and the QuantizeLinear becomes the output's
// clamp (quantization is monotone, so clamping before or after it gives the
// same integer). The com.microsoft QLinearSigmoid, QLinearLeakyRelu and
// QLinearConcat of QOperator models become the same tables.
// What does not match stays a float computation between its DequantizeLinear
// and QuantizeLinear; the pass says why, one note per such DequantizeLinear.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "ops/evaluator.h"
#include "ops/matmul_integer.h"
#include "ops/infer.h"
#include "ops/conv_transpose.h"
#include "ops/op.h"
#include "ops/qlinear.h"
#include "passes/passes.h"
#include "support/error.h"

namespace mlipc::passes {

namespace {

using ops::QParam;

// A DequantizeLinear's input and parameters.
struct Dq {
  ValueId q = kNoValue, scale = kNoValue, zp = kNoValue;
  const TensorData* scale_c = nullptr;
  const TensorData* zp_c = nullptr;
  int axis = 1;
  bool per_tensor() const { return scale_c->numel() == 1; }
  QParam param() const {
    QParam p;
    p.scale = scale_c->data<float>()[0];
    p.zero_point = zp_c ? static_cast<int32_t>(zp_c->as_int64()[0]) : 0;
    return p;
  }
};

class Folder {
 public:
  explicit Folder(Graph& g) : g_(g) {}

  std::vector<FloatNote> run() {
    // Rewrite one group at a time: each rewrite changes producers and consumers.
    for (bool changed = true; changed;) {
      changed = false;
      const auto producers = g_.producers();
      const auto consumers = g_.consumers();
      for (size_t i = 0; i < g_.nodes.size() && !changed; ++i) changed = try_fold(i, producers, consumers);
      if (changed) {
        g_.remove_dead_nodes();
        infer_shapes(g_);
      }
    }
    fold_constant_dequantize();
    return notes();
  }

 private:
  Graph& g_;
  std::map<std::string, std::string> why_;  // float node name -> why it was not folded

  std::optional<Dq> dq_of(ValueId v, const std::vector<int>& producers) const {
    if (v == kNoValue || producers[static_cast<size_t>(v)] < 0) return std::nullopt;
    const Node& d = g_.nodes[static_cast<size_t>(producers[static_cast<size_t>(v)])];
    if (d.op != "DequantizeLinear" || !d.has_input(1)) return std::nullopt;
    Dq r;
    r.q = d.inputs[0];
    r.scale = d.inputs[1];
    r.scale_c = g_.value(d.inputs[1]).constant.get();
    if (d.has_input(2)) {
      r.zp = d.inputs[2];
      r.zp_c = g_.value(d.inputs[2]).constant.get();
      if (!r.zp_c) return std::nullopt;
    }
    if (!r.scale_c) return std::nullopt;
    r.axis = static_cast<int>(d.attrs.get_int("axis", 1));
    const int rank = static_cast<int>(g_.value(r.q).shape.size());
    if (r.axis < 0) r.axis += rank;
    return r;
  }

  // An activation Dq: per tensor, int8 or uint8 (or int16 when `int16`: 16x8).
  std::optional<Dq> act_dq(ValueId v, const std::vector<int>& producers, bool int16 = false) const {
    auto d = dq_of(v, producers);
    if (!d || !d->per_tensor()) return std::nullopt;
    const DType t = g_.value(d->q).dtype;
    if (!ops::is_quant_type(t) && !(int16 && t == DType::Int16)) return std::nullopt;
    return d;
  }
  bool int16_act(ValueId q) const { return g_.value(q).dtype == DType::Int16; }

  // The QuantizeLinear that quantizes v, through at most one Relu or Clip:
  // its node index, the clamp [lo, hi] the activation adds, the dropped activation's index.
  struct OutQ {
    int q = -1, act = -1;
    QParam param;
    ValueId y = kNoValue, ys = kNoValue, yz = kNoValue;
    int32_t lo = 0, hi = 0;
  };
  std::optional<OutQ> out_q(ValueId v, const std::vector<std::vector<int>>& consumers, bool allow_act) {
    if (g_.is_graph_output(v) || consumers[static_cast<size_t>(v)].size() != 1) return std::nullopt;
    OutQ o;
    int c = consumers[static_cast<size_t>(v)][0];
    const Node* n = &g_.nodes[static_cast<size_t>(c)];
    double lo = -INFINITY, hi = INFINITY;
    if (allow_act && op_traits(n->op).clamps) {
      if (n->op == "Relu") {
        lo = 0.0;
      } else {
        for (int k : {1, 2}) {
          if (!n->has_input(static_cast<size_t>(k))) continue;
          const TensorData* b = g_.value(n->inputs[static_cast<size_t>(k)]).constant.get();
          if (!b) return std::nullopt;
          (k == 1 ? lo : hi) = b->at(0);
        }
        if (n->attrs.has("min")) lo = n->attrs.get_float("min");
        if (n->attrs.has("max")) hi = n->attrs.get_float("max");
      }
      o.act = c;
      ValueId a = n->outputs[0];
      if (g_.is_graph_output(a) || consumers[static_cast<size_t>(a)].size() != 1) return std::nullopt;
      c = consumers[static_cast<size_t>(a)][0];
      n = &g_.nodes[static_cast<size_t>(c)];
    }
    if (n->op != "QuantizeLinear" || !n->has_input(1)) return std::nullopt;
    const TensorData* s = g_.value(n->inputs[1]).constant.get();
    const TensorData* z = n->has_input(2) ? g_.value(n->inputs[2]).constant.get() : nullptr;
    if (!s || s->numel() != 1 || (n->has_input(2) && !z)) return std::nullopt;
    o.q = c;
    o.y = n->outputs[0];
    o.param.dtype = g_.value(o.y).dtype;
    if (!ops::is_act_type(o.param.dtype)) return std::nullopt;
    o.param.scale = s->data<float>()[0];
    o.param.zero_point = z ? static_cast<int32_t>(z->as_int64()[0]) : 0;
    o.ys = n->inputs[1];
    o.yz = n->has_input(2) ? n->inputs[2] : zero_point(o.param.dtype);
    o.lo = o.param.lo();
    o.hi = o.param.hi();
    auto q = [&](double r) {
      return ops::quantize_value(static_cast<float>(r), o.param.scale, o.param.zero_point, o.param.lo(), o.param.hi());
    };
    if (lo > -INFINITY) o.lo = std::max(o.lo, q(lo));
    if (hi < INFINITY) o.hi = std::min(o.hi, q(hi));
    // Clip with min > max gives max everywhere (ONNX applies min, then max):
    // an empty range is the one value hi.
    if (o.lo > o.hi) o.lo = o.hi;
    return o;
  }

  ValueId zero_point(DType t) {
    TensorData z(t, {});
    return g_.add_constant("zero_point", std::move(z));
  }
  ValueId dq_zp(const Dq& d) { return d.zp != kNoValue ? d.zp : zero_point(g_.value(d.q).dtype); }

  static void set_clamp(Node& n, const OutQ& o) {
    if (o.lo != o.param.lo()) n.attrs.set("mlipc_clamp_lo", static_cast<int64_t>(o.lo));
    if (o.hi != o.param.hi()) n.attrs.set("mlipc_clamp_hi", static_cast<int64_t>(o.hi));
  }

  // Replaces node i by `repl`, drops the QuantizeLinear (and activation) it absorbed.
  void replace(size_t i, const OutQ& o, std::vector<Node> repl) {
    std::vector<bool> dead(g_.nodes.size(), false);
    dead[static_cast<size_t>(o.q)] = true;
    if (o.act >= 0) dead[static_cast<size_t>(o.act)] = true;
    const std::vector<std::string> origins = g_.nodes[i].origins;
    for (Node& n : repl) {
      n.origins = origins;
      for (const std::string& s : g_.nodes[static_cast<size_t>(o.q)].origins) n.origins.push_back(s);
      if (o.act >= 0)
        for (const std::string& s : g_.nodes[static_cast<size_t>(o.act)].origins) n.origins.push_back(s);
    }
    g_.nodes[i] = std::move(repl[0]);
    g_.nodes.insert(g_.nodes.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::make_move_iterator(repl.begin() + 1),
                    std::make_move_iterator(repl.end()));
    dead.resize(g_.nodes.size(), false);
    // The absorbed nodes come after i; their indices moved by the inserted nodes.
    std::vector<bool> shifted(g_.nodes.size(), false);
    for (size_t k = 0; k < dead.size(); ++k)
      if (dead[k]) shifted[k > i ? k + repl.size() - 1 : k] = true;
    g_.erase_nodes(shifted);
  }

  Node make(const std::string& op, const std::string& name, std::vector<ValueId> in, std::vector<ValueId> out) const {
    Node n;
    n.op = op;
    n.name = name;
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    return n;
  }

  ValueId table_const(const std::vector<int32_t>& t, DType dt) {
    return g_.add_constant("lookup_table", ops::lookup_tensor(t, dt));
  }

  bool note(const Node& n, const std::string& why) {
    why_[n.name] = why;
    return false;
  }

  bool try_fold(size_t i, const std::vector<int>& producers, const std::vector<std::vector<int>>& consumers) {
    const Node& n = g_.nodes[i];
    const std::string& op = n.op;
    const OpTraits& t = op_traits(op);
    if (t.qdq == QdqFold::QOperatorTable) return lower_activation(i);
    if (t.qdq == QdqFold::QOperatorConcat) return lower_concat(i);
    if (op == "QuantizeLinear" || op == "DequantizeLinear" || n.inputs.empty()) return false;
    // Only nodes reading a DequantizeLinear's output are candidates.
    bool reads_dq = false;
    for (ValueId v : n.inputs) reads_dq = reads_dq || dq_of(v, producers).has_value();
    if (!reads_dq) return false;
    const bool known = t.qdq != QdqFold::None;
    // MaxPool's second output (Indices) is optional; an unused one is no output.
    if (n.outputs.size() != 1 && op != "MaxPool") return note(n, "it has more than one output");
    // An op without an integer form may be followed by a Relu or Clip too
    // (LpPool -> Relu -> QuantizeLinear): the note then names the op.
    auto o = out_q(n.outputs[0], consumers, t.qdq_absorbs_clamp || !known);
    if (!o) return note(n, "its output is not quantized by a QuantizeLinear alone");
    switch (t.qdq) {
      case QdqFold::Conv: return fold_conv(i, producers, *o);
      case QdqFold::Dense: return fold_fc(i, producers, *o);
      case QdqFold::Binary: return fold_binary(i, producers, *o);
      case QdqFold::GlobalAveragePool: return fold_gap(i, producers, *o);
      case QdqFold::AveragePool: return fold_avgpool(i, producers, *o);
      case QdqFold::SameScale: return fold_same_scale(i, producers, *o);
      case QdqFold::Concat: return fold_concat(i, producers, *o);
      case QdqFold::Table: return fold_table(i, producers, *o);
      case QdqFold::None:
      case QdqFold::QOperatorTable:
      case QdqFold::QOperatorConcat: break;
    }
    return note(n, fmt::format("no int8 kernel for {}", op));
  }

  // Conv -> QLinearConv, ConvTranspose -> mlipc.QLinearConvTranspose. The
  // weights' output channels: Conv's [M, C/group, k...] on axis 0;
  // ConvTranspose's [C, M/group, k...] on axis 1, as onnxruntime's quantizer
  // scales them, so output channel c uses scale c % (M/group).
  bool fold_conv(size_t i, const std::vector<int>& producers, const OutQ& o) {
    const Node& n = g_.nodes[i];
    const bool transpose = n.op == "ConvTranspose";
    const int64_t axis = op_traits(n.op).weight_axis(n);
    auto x = act_dq(n.inputs[0], producers, true);
    auto w = dq_of(n.inputs[1], producers);
    if (!x) return note(n, "input X is not a per-tensor int8/uint8/int16 DequantizeLinear");
    if (!w || !g_.value(w->q).is_constant() || !ops::is_quant_type(g_.value(w->q).dtype))
      return note(n, "weights W are not a constant int8/uint8 DequantizeLinear");
    const bool wide = int16_act(x->q) || o.param.dtype == DType::Int16;
    if (wide && (transpose || g_.value(w->q).dtype != DType::Int8))
      return note(n, transpose ? "no 16x8 kernel for ConvTranspose" : "16x8 needs int8 weights");
    const Shape ws = g_.value(w->q).shape;
    if (static_cast<int64_t>(ws.size()) <= axis) return note(n, "weights W have too few axes");
    if (!w->per_tensor() && (w->axis != axis || w->scale_c->numel() != ws[static_cast<size_t>(axis)]))
      return note(n, fmt::format("weight scales are not per tensor or per output channel (axis {})", axis));
    std::vector<ValueId> in = {x->q, x->scale, dq_zp(*x), w->q, w->scale, dq_zp(*w), o.ys, o.yz};
    if (n.has_input(2)) {
      const int64_t m = transpose ? ws[1] * n.attrs.get_int("group", 1) : ws[0];
      auto b = bias(n, producers, *x, *w, m, wide);
      if (b == kNoValue) return note(n, "bias B is not a constant (or its DequantizeLinear)");
      in.push_back(b);
    }
    Node q = make(transpose ? ops::kQConvTransposeOp : "QLinearConv", n.name, in, {o.y});
    q.attrs = n.attrs;
    set_clamp(q, o);
    replace(i, o, {std::move(q)});
    return true;
  }

  // The int32 bias (input 2 of n) at scale x_scale * w_scale[c]: round(b /
  // (x_scale * w_scale[c])), w_scale cycling when it has fewer values than
  // channels (ConvTranspose's groups); one beyond int32 fails naming n.
  // 16x8 (`wide`): int64, as the sum it joins.
  ValueId bias(const Node& n, const std::vector<int>& producers, const Dq& x, const Dq& w, int64_t m,
               bool wide = false) {
    const ValueId v = n.inputs[2];
    std::vector<double> real;
    if (auto b = dq_of(v, producers)) {
      const TensorData* q = g_.value(b->q).constant.get();
      if (!q || q->numel() != m) return kNoValue;
      const std::vector<int64_t> qs = q->as_int64();
      for (int64_t c = 0; c < m; ++c) {
        const float s = b->scale_c->data<float>()[b->per_tensor() ? 0 : c];
        const int64_t z = b->zp_c ? b->zp_c->as_int64()[b->zp_c->numel() == 1 ? 0 : c] : 0;
        real.push_back(static_cast<double>(qs[static_cast<size_t>(c)] - z) * s);
      }
    } else if (const TensorData* f = g_.value(v).constant.get(); f && f->numel() == m && f->dtype() == DType::Float32) {
      for (int64_t c = 0; c < m; ++c) real.push_back(f->data<float>()[c]);
    } else {
      return kNoValue;
    }
    const float* ws = w.scale_c->data<float>();
    return g_.add_constant(wide ? "bias_int64" : "bias_int32",
                           ops::bias_int32(real, x.param().scale, std::vector<float>(ws, ws + w.scale_c->numel()),
                                           n.describe(), wide ? DType::Int64 : DType::Int32));
  }

  bool fold_fc(size_t i, const std::vector<int>& producers, const OutQ& o) {
    const Node n = g_.nodes[i];
    auto x = act_dq(n.inputs[0], producers, true);
    if (!x) return note(n, "input A is not a per-tensor int8/uint8/int16 DequantizeLinear");
    auto w = dq_of(n.inputs[1], producers);
    const bool gemm = n.op == "Gemm";
    const bool wide = int16_act(x->q) || o.param.dtype == DType::Int16;
    // Two computed operands, or (16x8) a constant B that is no matrix (a
    // batch of them): QLinearMatMul, its 16x8 form when a side is int16.
    const bool computed_b = w && !g_.value(w->q).is_constant();
    const bool batched_b = wide && w && g_.value(w->q).is_constant() && g_.value(w->q).shape.size() > 2;
    if (!gemm && (computed_b || batched_b) && w->per_tensor()) {
      const DType at = g_.value(x->q).dtype, bt = g_.value(w->q).dtype;
      if (ops::qmatmul_wide(at, bt, o.param.dtype))
        for (DType t : {at, bt, o.param.dtype})
          if (t != DType::Int16 && t != DType::Int8) return note(n, "a 16x8 MatMul with a uint8 side");
      if (o.lo != o.param.lo() || o.hi != o.param.hi())
        return note(n, "a Relu or Clip after a MatMul of two computed operands");
      Node q = make("QLinearMatMul", n.name, {x->q, x->scale, dq_zp(*x), w->q, w->scale, dq_zp(*w), o.ys, o.yz}, {o.y});
      replace(i, o, {std::move(q)});
      return true;
    }
    if (!w || !g_.value(w->q).is_constant() || !ops::is_quant_type(g_.value(w->q).dtype))
      return note(n, "weights B are not a constant int8/uint8 DequantizeLinear");
    if (wide && g_.value(w->q).dtype != DType::Int8) return note(n, "16x8 needs int8 weights");
    // Copies: add_constant and add_value below grow the value list.
    const Shape xs = g_.value(x->q).shape;
    const Shape ws = g_.value(w->q).shape;
    // MatMul's A may have more dimensions: a batch of rows against the one
    // matrix B (numpy's broadcast of a 2-D B), the rows its leading ones.
    if (ws.size() != 2 || xs.size() < 2 || (gemm && xs.size() != 2))
      return note(n, gemm ? "A and B must be 2-D" : "B must be 2-D and A at least 2-D");
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < xs.size(); ++d) rows *= xs[d];
    const bool trans_b = gemm && n.attrs.get_int("transB", 0) != 0;
    if (gemm && (n.attrs.get_int("transA", 0) != 0 || n.attrs.get_float("alpha", 1.0f) != 1.0f ||
                 (n.has_input(2) && n.attrs.get_float("beta", 1.0f) != 1.0f)))
      return note(n, "transA, alpha or beta other than 0, 1, 1");
    const int64_t k = xs.back(), nout = trans_b ? ws[0] : ws[1];
    const int out_axis = op_traits(n.op).weight_axis(n);
    if (!w->per_tensor() && (w->axis != out_axis || w->scale_c->numel() != nout))
      return note(n, "weight scales are not per tensor or per output column");
    // Weights as [N, K, 1, 1] (transposed from [K, N] when needed).
    const TensorData& wq = *g_.value(w->q).constant;
    TensorData wt(wq.dtype(), {nout, k, 1, 1});
    const size_t es = dtype_size(wq.dtype());
    for (int64_t r = 0; r < nout; ++r)
      for (int64_t c = 0; c < k; ++c) {
        const int64_t src = trans_b ? r * k + c : c * nout + r;
        std::memcpy(wt.raw() + (r * k + c) * static_cast<int64_t>(es), wq.raw() + src * static_cast<int64_t>(es), es);
      }
    ValueId wv = g_.add_constant(n.name + "_weight_nk11", std::move(wt));
    Dq wd = *w;
    std::vector<ValueId> in = {kNoValue, x->scale, dq_zp(*x), wv, w->scale, dq_zp(*w), o.ys, o.yz};
    if (n.has_input(2)) {
      const Shape& cs = g_.value(n.inputs[2]).shape;
      if (numel(cs) != nout) return note(n, "bias C is not one value per output column");
      ValueId b = bias(n, producers, *x, wd, nout, wide);
      if (b == kNoValue) return note(n, "bias C is not a constant (or its DequantizeLinear)");
      in.push_back(b);
    }
    const DType xt = g_.value(x->q).dtype;
    auto shape_const = [&](std::vector<int64_t> s) {
      return g_.add_constant("shape", TensorData::from<int64_t>({static_cast<int64_t>(s.size())}, s));
    };
    ValueId x4 = g_.add_value(g_.unique_name(n.name + "_in_nk11"), xt);
    ValueId y4 = g_.add_value(g_.unique_name(n.name + "_out_nk11"), o.param.dtype);
    in[0] = x4;
    std::vector<Node> repl;
    // More than 2 dimensions: first the rows [rows, K] (a view of row-major
    // bytes, as onnxruntime's own Gemm fusion writes it), then the dense
    // layer's 1x1 view of them; and back the same way.
    ValueId x2 = x->q;
    if (xs.size() > 2) {
      x2 = g_.add_value(g_.unique_name(n.name + "_in_rows"), xt);
      repl.push_back(make("Reshape", n.name + "_to_rows", {x->q, shape_const({rows, k})}, {x2}));
    }
    repl.push_back(make("Reshape", n.name + "_to_nchw", {x2, shape_const({rows, k, 1, 1})}, {x4}));
    Node conv = make("QLinearConv", n.name, in, {y4});
    for (const char* a : {ops::kWeightBitsAttr, ops::kWeightBlockAttr})  // 4-bit weights (PTQ's mark)
      if (n.attrs.has(a)) conv.attrs.set(a, n.attrs.get_int(a));
    set_clamp(conv, o);
    repl.push_back(std::move(conv));
    if (xs.size() > 2) {
      const ValueId y2 = g_.add_value(g_.unique_name(n.name + "_out_rows"), o.param.dtype);
      repl.push_back(make("Reshape", n.name + "_from_nchw", {y4, shape_const({rows, nout})}, {y2}));
      std::vector<int64_t> ys(xs.begin(), xs.end() - 1);
      ys.push_back(nout);
      repl.push_back(make("Reshape", n.name + "_from_rows", {y2, shape_const(ys)}, {o.y}));
    } else {
      repl.push_back(make("Reshape", n.name + "_from_nchw", {y4, shape_const({xs[0], nout})}, {o.y}));
    }
    replace(i, o, std::move(repl));
    return true;
  }

  bool fold_binary(size_t i, const std::vector<int>& producers, const OutQ& o) {
    const Node& n = g_.nodes[i];
    auto a = act_dq(n.inputs[0], producers, true);
    auto b = act_dq(n.inputs[1], producers, true);
    if (!a || !b) return note(n, "an input is not a per-tensor int8/uint8/int16 DequantizeLinear");
    const DType t = g_.value(a->q).dtype;
    if (g_.value(b->q).dtype != t || o.param.dtype != t)
      return note(n, "its inputs and output are not all int8, all uint8 or all int16");
    if (t == DType::Int16 && (a->param().zero_point != 0 || b->param().zero_point != 0 || o.param.zero_point != 0))
      return note(n, "int16 (16x8) inputs or output with a zero point other than 0");
    Node q = make("QLinear" + n.op, n.name, {a->q, a->scale, dq_zp(*a), b->q, b->scale, dq_zp(*b), o.ys, o.yz}, {o.y});
    set_clamp(q, o);
    replace(i, o, {std::move(q)});
    return true;
  }

  bool fold_gap(size_t i, const std::vector<int>& producers, const OutQ& o) {
    const Node& n = g_.nodes[i];
    auto x = act_dq(n.inputs[0], producers, true);  // int16 too: an int64 sum
    if (!x || g_.value(x->q).dtype != o.param.dtype)
      return note(n, "input X is not a per-tensor DequantizeLinear of the output's type");
    Node q = make("QLinearGlobalAveragePool", n.name, {x->q, x->scale, dq_zp(*x), o.ys, o.yz}, {o.y});
    replace(i, o, {std::move(q)});
    return true;
  }

  bool fold_avgpool(size_t i, const std::vector<int>& producers, const OutQ& o) {
    const Node& n = g_.nodes[i];
    auto x = act_dq(n.inputs[0], producers, true);  // int16 too: an int64 sum
    if (!x || g_.value(x->q).dtype != o.param.dtype)
      return note(n, "input X is not a per-tensor DequantizeLinear of the output's type");
    Node q = make("QLinearAveragePool", n.name, {x->q, x->scale, dq_zp(*x), o.ys, o.yz}, {o.y});
    q.attrs = n.attrs;
    replace(i, o, {std::move(q)});
    return true;
  }

  // Data movement and MaxPool: exact on the integers when the scale and zero point are the output's.
  bool fold_same_scale(size_t i, const std::vector<int>& producers, const OutQ& o) {
    const Node& n = g_.nodes[i];
    auto x = act_dq(n.inputs[0], producers, true);
    if (!x) return note(n, "input 0 is not a per-tensor int8/uint8/int16 DequantizeLinear");
    const QParam p = x->param();
    if (g_.value(x->q).dtype != o.param.dtype || p.scale != o.param.scale || p.zero_point != o.param.zero_point)
      return note(n, "its output's scale or zero point differs from its input's");
    if (const QdqRefusalFn refusal = op_traits(n.op).qdq_refusal)  // an interpolating Resize, ...
      if (std::string why = refusal(n); !why.empty()) return note(n, why);
    Node q = n;
    q.inputs[0] = x->q;
    q.outputs = {o.y};
    if (n.op == "Pad") {  // constant padding: the pad value quantized to the tensor's scale
      double v = 0.0;
      if (n.has_input(2)) {
        const TensorData* c = g_.value(n.inputs[2]).constant.get();
        if (!c) return note(n, "its constant_value is computed at run time");
        v = c->at(0);
      }
      TensorData pv(o.param.dtype, {});
      const int32_t qv =
          ops::quantize_value(static_cast<float>(v), o.param.scale, o.param.zero_point, o.param.lo(), o.param.hi());
      if (o.param.dtype == DType::Int8)
        pv.data<int8_t>()[0] = static_cast<int8_t>(qv);
      else if (o.param.dtype == DType::Int16)
        pv.data<int16_t>()[0] = static_cast<int16_t>(qv);
      else
        pv.data<uint8_t>()[0] = static_cast<uint8_t>(qv);
      if (q.inputs.size() < 3) q.inputs.resize(3, kNoValue);
      q.inputs[2] = g_.add_constant("pad_value", std::move(pv));
    }
    replace(i, o, {std::move(q)});
    return true;
  }

  bool fold_table(size_t i, const std::vector<int>& producers, const OutQ& o) {
    const Node& n = g_.nodes[i];
    double lo = -INFINITY, hi = INFINITY;
    if (n.op == "Clip") {
      for (int k : {1, 2}) {
        if (!n.has_input(static_cast<size_t>(k))) continue;
        const TensorData* b = g_.value(n.inputs[static_cast<size_t>(k)]).constant.get();
        if (!b) return note(n, "its bounds are computed at run time");
        (k == 1 ? lo : hi) = b->at(0);
      }
    }
    if (auto x16 = act_dq(n.inputs[0], producers, true); x16 && (int16_act(x16->q) || o.param.dtype == DType::Int16)) {
      // A Relu or Clip keeping the scale: exact on the integers; any other
      // activation from int16 to int16: the interpolated table.
      const QParam p = x16->param();
      const bool keeps = op_traits(n.op).clamps && p.scale == o.param.scale && p.zero_point == o.param.zero_point;
      if (!keeps && int16_act(x16->q) && o.param.dtype == DType::Int16) return fold_lut16(i, *x16, o, lo, hi);
      return fold_clamp16(i, *x16, o, lo, hi);
    }
    auto x = act_dq(n.inputs[0], producers);
    if (!x || !ops::is_quant_type(o.param.dtype))
      return note(n, "input X or its output is not a per-tensor int8/uint8 tensor");
    QParam xp = x->param();
    xp.dtype = g_.value(x->q).dtype;
    const auto table = ops::lookup_table(xp, o.param, ops::activation_function(n.op, n.attrs, lo, hi));
    Node q = make(ops::kQLookupOp, n.name, {x->q, table_const(table, o.param.dtype)}, {o.y});
    replace(i, o, {std::move(q)});
    return true;
  }

  // 16x8: an activation from int16 to int16 (Sigmoid, Tanh, HardSwish,
  // LeakyRelu, ...; a Relu or Clip changing the scale) is a lookup in a
  // 513-entry int16 table interpolated between its knots (mlip/lut16.h,
  // TFLite's int16 LUT): 1 KiB where an exact table would take 128 KiB.
  bool fold_lut16(size_t i, const Dq& x, const OutQ& o, double lo, double hi) {
    const Node& n = g_.nodes[i];
    QParam xp = x.param();
    xp.dtype = DType::Int16;
    const auto f = ops::activation_function(n.op, n.attrs, lo, hi);
    const std::vector<int32_t> table = ops::lookup_table16(xp, o.param, f);
    Node q = make(ops::kQLookupOp, n.name, {x.q, table_const(table, DType::Int16)}, {o.y});
    replace(i, o, {std::move(q)});
    return true;
  }

  // 16x8: a Relu or Clip keeping its input's scale and zero point is a
  // Clip on the int16 values, at its bounds quantized (monotone, so exact);
  // the other activations, and one that changes the scale, stay float
  // between their DequantizeLinear and QuantizeLinear (a 65,536-entry
  // table would be 128 KiB per activation).
  bool fold_clamp16(size_t i, const Dq& x, const OutQ& o, double lo, double hi) {
    const Node& n = g_.nodes[i];
    const QParam p = x.param();
    if (!op_traits(n.op).clamps)
      return note(n, fmt::format("int16 activations: no 16x8 kernel for {} (it stays float)", n.op));
    if (g_.value(x.q).dtype != o.param.dtype || p.scale != o.param.scale || p.zero_point != o.param.zero_point)
      return note(n, "a 16x8 Relu or Clip whose output's scale or zero point differs from its input's");
    auto q = [&](double r) {
      return ops::quantize_value(static_cast<float>(r), o.param.scale, o.param.zero_point, o.param.lo(), o.param.hi());
    };
    if (n.op == "Relu") lo = 0.0;
    int32_t qlo = std::max(o.lo, lo > -INFINITY ? q(lo) : o.param.lo());
    const int32_t qhi = std::min(o.hi, hi < INFINITY ? q(hi) : o.param.hi());
    if (qlo > qhi) qlo = qhi;  // Clip with min > max gives max everywhere
    if (fuse_clamp16(i, x, o, qlo, qhi)) return true;
    const ValueId vlo = g_.add_constant("clip_lo", TensorData::scalar<int16_t>(static_cast<int16_t>(qlo)));
    const ValueId vhi = g_.add_constant("clip_hi", TensorData::scalar<int16_t>(static_cast<int16_t>(qhi)));
    Node c = make("Clip", n.name, {x.q, vlo, vhi}, {o.y});
    replace(i, o, {std::move(c)});
    return true;
  }

  // 16x8: the Clip on the integers [lo, hi] of node i, reading through its
  // DequantizeLinear the int16 output of a QLinearConv (a dense layer's
  // too, through its Reshape), QLinearAdd or QLinearMul that nothing else
  // reads, becomes that op's output clamp, as
  // an int8 Relu or Clip between the op and its QuantizeLinear does
  // (out_q): the op saturates and clamps its requantized integer once, the
  // same integer as clamping it twice. So the MLIP's CONV2D, FC and ADD
  // apply it and no Clip layer is needed. An empty intersection of the two
  // ranges (a constant output) keeps the Clip.
  bool fuse_clamp16(size_t i, const Dq& x, const OutQ& o, int32_t lo, int32_t hi) {
    const auto producers = g_.producers();
    const auto consumers = g_.consumers();
    const int pi = producers[static_cast<size_t>(x.q)];
    const int di = producers[static_cast<size_t>(g_.nodes[i].inputs[0])];
    if (pi < 0 || di < 0 || g_.is_graph_output(x.q) || consumers[static_cast<size_t>(x.q)].size() != 1) return false;
    const ValueId dq_out = g_.nodes[static_cast<size_t>(di)].outputs[0];
    if (g_.is_graph_output(dq_out) || consumers[static_cast<size_t>(dq_out)].size() != 1) return false;
    // The writer of x.q: the op, or the Reshape after a dense layer's
    // QLinearConv 1x1 (fold_fc's Reshape, QLinearConv, Reshape) when only
    // that Reshape reads the convolution.
    Node& last = g_.nodes[static_cast<size_t>(pi)];
    int oi = pi;
    if (last.op == "Reshape" && last.outputs.size() == 1) {
      const ValueId r = last.inputs[0];
      oi = producers[static_cast<size_t>(r)];
      if (oi < 0 || g_.is_graph_output(r) || consumers[static_cast<size_t>(r)].size() != 1) return false;
    }
    Node& p = g_.nodes[static_cast<size_t>(oi)];
    if ((p.op != "QLinearConv" && p.op != "QLinearAdd" && p.op != "QLinearMul") || p.outputs.size() != 1) return false;
    const DType t = g_.value(x.q).dtype;
    const int32_t plo = ops::clamp_lo(p.attrs, t), phi = ops::clamp_hi(p.attrs, t);
    const int32_t flo = std::max(plo, lo), fhi = std::min(phi, hi);
    if (flo > fhi) return false;
    if (flo != ops::quant_min(t)) p.attrs.set("mlipc_clamp_lo", static_cast<int64_t>(flo));
    if (fhi != ops::quant_max(t)) p.attrs.set("mlipc_clamp_hi", static_cast<int64_t>(fhi));
    last.outputs[0] = o.y;
    std::vector<bool> dead(g_.nodes.size(), false);
    for (const int k : {static_cast<int>(i), o.q, o.act, di}) {
      if (k < 0) continue;
      if (k != di) p.origins.insert(p.origins.end(), g_.nodes[static_cast<size_t>(k)].origins.begin(),
                                    g_.nodes[static_cast<size_t>(k)].origins.end());
      dead[static_cast<size_t>(k)] = true;
    }
    g_.erase_nodes(dead);
    return true;
  }

  bool fold_concat(size_t i, const std::vector<int>& producers, const OutQ& o) {
    const Node n = g_.nodes[i];
    std::vector<Dq> xs;
    for (ValueId v : n.inputs) {
      auto d = act_dq(v, producers, true);  // int16 too: a rescale is a QLinearMul by 1
      if (!d || g_.value(d->q).dtype != o.param.dtype)
        return note(n, "an input is not a per-tensor DequantizeLinear of the output's type");
      if (o.param.dtype == DType::Int16 && (d->param().zero_point != 0 || o.param.zero_point != 0))
        return note(n, "int16 (16x8) inputs or output with a zero point other than 0");
      xs.push_back(*d);
    }
    std::vector<Node> repl;
    std::vector<ValueId> parts;
    for (size_t k = 0; k < xs.size(); ++k) parts.push_back(requantized(xs[k], o.param, n.name, repl));
    Node c = make("Concat", n.name, parts, {o.y});
    c.attrs = n.attrs;
    repl.push_back(std::move(c));
    replace(i, o, std::move(repl));
    return true;
  }

  // x at scale and zero point y: x itself, or a table lookup appended to
  // `repl`; int16 (16x8, zero points 0): a QLinearMul by an int16 1 of
  // scale 1 (one rounding of x * x_scale / y_scale, on the CPU and the MLIP
  // alike: no 65,536-entry table).
  ValueId requantized(const Dq& x, const QParam& y, const std::string& name, std::vector<Node>& repl) {
    QParam p = x.param();
    p.dtype = g_.value(x.q).dtype;
    if (p.dtype == y.dtype && p.scale == y.scale && p.zero_point == y.zero_point) return x.q;
    ValueId out = g_.add_value(g_.unique_name(g_.value(x.q).name + "_requantized"), y.dtype);
    if (y.dtype == DType::Int16) {
      const ValueId one = g_.add_constant("one", TensorData::scalar<int16_t>(1));
      const ValueId one_scale = g_.add_constant("one_scale", TensorData::scalar<float>(1.0f));
      const ValueId zero = g_.add_constant("zero_point", TensorData::scalar<int16_t>(0));
      const ValueId ys = g_.add_constant("requantize_scale", TensorData::scalar<float>(y.scale));
      repl.push_back(make("QLinearMul", g_.unique_name(name + "_requantize"),
                          {x.q, x.scale, dq_zp(x), one, one_scale, zero, ys, zero}, {out}));
      return out;
    }
    repl.push_back(make(ops::kQLookupOp, g_.unique_name(name + "_requantize"),
                        {x.q, table_const(ops::lookup_table(p, y, [](double v) { return v; }), y.dtype)}, {out}));
    return out;
  }

  // com.microsoft QLinearSigmoid / QLinearLeakyRelu -> one lookup.
  bool lower_activation(size_t i) {
    Node& n = g_.nodes[i];
    const std::vector<int32_t> table = ops::activation_table(g_, n);
    const DType t = g_.value(n.outputs[0]).dtype;
    n.inputs = {n.inputs[0], table_const(table, t)};
    n.op = ops::kQLookupOp;
    n.attrs = Attrs();
    infer_shapes(g_);
    return true;
  }

  // com.microsoft QLinearConcat -> lookups for the inputs of another scale, then Concat.
  bool lower_concat(size_t i) {
    const Node n = g_.nodes[i];
    auto c = [&](size_t k) { return n.has_input(k) ? g_.value(n.inputs[k]).constant.get() : nullptr; };
    QParam y;
    y.dtype = g_.value(n.outputs[0]).dtype;
    y.scale = c(0)->data<float>()[0];
    y.zero_point = c(1) ? static_cast<int32_t>(c(1)->as_int64()[0]) : 0;
    std::vector<Node> repl;
    std::vector<ValueId> parts;
    for (size_t k = 2; k + 2 < n.inputs.size(); k += 3) {
      Dq d;
      d.q = n.inputs[k];
      d.scale_c = c(k + 1);
      d.zp_c = c(k + 2);
      parts.push_back(requantized(d, y, n.name, repl));
    }
    Node cat = make("Concat", n.name, parts, n.outputs);
    cat.attrs = n.attrs;
    cat.origins = n.origins;
    for (Node& r : repl) r.origins = n.origins;
    repl.push_back(std::move(cat));
    g_.nodes[i] = std::move(repl.back());
    repl.pop_back();
    g_.nodes.insert(g_.nodes.begin() + static_cast<std::ptrdiff_t>(i), std::make_move_iterator(repl.begin()),
                    std::make_move_iterator(repl.end()));
    infer_shapes(g_);
    return true;
  }

  // The DequantizeLinear nodes of constants nothing folded: float constants,
  // as the frontend folds every other constant computation.
  void fold_constant_dequantize() {
    std::vector<bool> dead(g_.nodes.size(), false);
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      if (n.op != "DequantizeLinear") continue;
      bool constant = true;
      for (ValueId v : n.inputs) constant = constant && (v == kNoValue || g_.value(v).is_constant());
      if (!constant) continue;
      std::vector<TensorData> out = eval_node(g_, n);
      g_.set_constant(n.outputs[0], std::move(out[0]));
      dead[i] = true;
    }
    g_.erase_nodes(dead);
    infer_and_fold(g_);  // what read them (a Transpose of weights) folds now too
  }

  // One note per DequantizeLinear that still feeds a float computation.
  std::vector<FloatNote> notes() const {
    std::vector<FloatNote> out;
    const auto consumers = g_.consumers();
    for (const Node& d : g_.nodes) {
      if (d.op != "DequantizeLinear") continue;
      std::vector<std::string> why;
      for (int c : consumers[static_cast<size_t>(d.outputs[0])]) {
        const Node& n = g_.nodes[static_cast<size_t>(c)];
        if (n.op == "QuantizeLinear" || n.op == "DequantizeLinear") continue;
        auto it = why_.find(n.name);
        why.push_back(fmt::format("feeds {}: {}", n.describe(),
                                  it != why_.end() ? it->second : fmt::format("no int8 kernel for {}", n.op)));
      }
      if (!why.empty()) out.push_back({d.name, d.op, fmt::format("{}", fmt::join(why, "; "))});
    }
    return out;
  }
};

}  // namespace

std::vector<FloatNote> fold_qdq(Graph& g) { return Folder(g).run(); }

QuantizedNodes quantized_nodes(const Graph& g) {
  QuantizedNodes q;
  for (const Node& n : g.nodes) {
    if (!is_quantization_op(n.op)) continue;
    bool computed8 = false;
    for (const std::vector<ValueId>* list : {&n.inputs, &n.outputs})
      for (ValueId v : *list)
        computed8 = computed8 || (v != kNoValue && !g.value(v).is_constant() && ops::is_act_type(g.value(v).dtype));
    if (!computed8) continue;
    if (n.op == "QuantizeLinear" || n.op == "DequantizeLinear") ++q.qdq;
    else ++q.qoperator;
  }
  return q;
}

bool has_quantized_tensors(const Graph& g) { return quantized_nodes(g).any(); }

}  // namespace mlipc::passes
