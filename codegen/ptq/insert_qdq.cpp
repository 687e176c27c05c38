#include "ptq/insert_qdq.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "ops/infer.h"
#include "ops/op.h"
#include "ops/quant.h"
#include "ptq/ranges.h"
#include "ptq/weight_rounding.h"
#include "ptq/weight_scale.h"
#include "support/error.h"

namespace mlipc::ptq {

namespace {

using ops::QParam;

// The constant input k of n holds its weights (per output channel) or its bias.
bool is_weight(const Node& n, size_t k) { return op_traits(n.op).weight == static_cast<int>(k); }
bool is_bias(const Node& n, size_t k) { return op_traits(n.op).bias == static_cast<int>(k); }

class Inserter {
 public:
  Inserter(Graph& g, const std::vector<Layer>& layers, const std::vector<bool>& int8,
           const std::map<std::string, QParam>& ranges, const WeightBits& wb, const Act16& act16)
      : g_(g), layers_(layers), int8_(int8), ranges_(ranges), wb_(wb), act16_(act16) {}

  Inserted run() {
    const size_t n = g_.nodes.size();
    const auto producers = g_.producers();
    layer_of_node_.assign(n, -1);
    for (size_t k = 0; k < layers_.size(); ++k) {
      if (!int8_[k]) continue;
      layer_of_node_[static_cast<size_t>(layers_[k].node)] = static_cast<int>(k);
      if (layers_[k].act >= 0) layer_of_node_[static_cast<size_t>(layers_[k].act)] = static_cast<int>(k);
    }
    // The tensors a 16x8 layer reads or writes: int16.
    for (size_t k = 0; k < layers_.size(); ++k) {
      if (!int8_[k] || !act16_.of(k)) continue;
      const Node& node = g_.nodes[static_cast<size_t>(layers_[k].node)];
      for (size_t i : data_inputs(node))
        if (computed(g_, node.inputs[i])) int16_.insert(node.inputs[i]);
      int16_.insert(layers_[k].out);
    }
    // A same-scale layer's input and output share their parameters: int16
    // on one side makes both int16 (Flatten between a 16x8 Conv and a Gemm).
    for (bool grew = !int16_.empty(); grew;) {
      grew = false;
      for (size_t k = 0; k < layers_.size(); ++k) {
        if (!int8_[k] || layers_[k].kind != Kind::SameScale) continue;
        const ValueId in = g_.nodes[static_cast<size_t>(layers_[k].node)].inputs[0], out = layers_[k].out;
        if (int16_.count(in) != int16_.count(out)) {
          int16_.insert(in);
          int16_.insert(out);
          grew = true;
        }
      }
    }
    // The tensors to quantize and whether an int8 layer writes them.
    for (size_t k = 0; k < layers_.size(); ++k) {
      if (!int8_[k]) continue;
      const Layer& l = layers_[k];
      const Node& node = g_.nodes[static_cast<size_t>(l.node)];
      // A bracketed layer (LSTM, GRU): its X only; its weights stay float.
      const std::vector<size_t> data =
          l.kind == Kind::Bracketed ? std::vector<size_t>{0} : data_inputs(node);
      for (size_t i : data)
        if (computed(g_, node.inputs[i])) param_of(node.inputs[i], producers);
      param_of(l.out, producers);
      written_by_int8_.insert(l.out);
    }
    std::vector<Node> out;
    for (const GraphIO& in : g_.inputs)
      if (params_.count(in.value)) emit_pair(in.value, out);
    for (size_t i = 0; i < n; ++i) {
      Node node = g_.nodes[i];
      const int k = layer_of_node_[i];
      const bool int8_node = k >= 0 && layers_[static_cast<size_t>(k)].node == static_cast<int>(i);
      for (size_t j = 0; j < node.inputs.size(); ++j) {
        const ValueId v = node.inputs[j];
        if (v == kNoValue) continue;
        if (params_.count(v) && (written_by_int8_.count(v) || int8_node)) node.inputs[j] = dq_.at(v);
      }
      if (int8_node && layers_[static_cast<size_t>(k)].kind != Kind::Bracketed)
        quantize_constants(node, wb_.of(static_cast<size_t>(k)), act16_.of(static_cast<size_t>(k)), out);
      out.push_back(std::move(node));
      for (ValueId v : g_.nodes[i].outputs)
        if (v != kNoValue && params_.count(v)) emit_pair(v, out);
    }
    g_.nodes = std::move(out);
    for (GraphIO& o : g_.outputs)
      if (written_by_int8_.count(o.value)) o.value = dq_.at(o.value);
    infer_shapes(g_);
    Inserted r;
    for (const auto& [v, p] : params_) {
      r.quantized[g_.value(v).name] = g_.value(q_.at(v)).name;
      r.params[g_.value(v).name] = p;
    }
    r.bias_raised = raised_;
    return r;
  }

 private:
  Graph& g_;
  const std::vector<Layer>& layers_;
  const std::vector<bool>& int8_;
  const std::map<std::string, QParam>& ranges_;
  const WeightBits& wb_;
  const Act16& act16_;
  std::set<ValueId> int16_;  // the tensors a 16x8 layer reads or writes
  std::vector<int> layer_of_node_;
  std::map<ValueId, QParam> params_;
  std::set<ValueId> written_by_int8_;
  std::map<ValueId, ValueId> q_, dq_;
  std::map<std::string, std::vector<int64_t>> raised_;  // node -> channels whose weight scale the bias raised

  // A tensor's parameters: its calibrated range's, or its input's when an
  // int8 layer that keeps the scale writes it.
  QParam param_of(ValueId v, const std::vector<int>& producers) {
    if (auto it = params_.find(v); it != params_.end()) return it->second;
    QParam p;
    const int prod = producers[static_cast<size_t>(v)];
    const int k = prod >= 0 ? layer_of_node_[static_cast<size_t>(prod)] : -1;
    if (k >= 0 && layers_[static_cast<size_t>(k)].kind == Kind::SameScale) {
      p = param_of(g_.nodes[static_cast<size_t>(prod)].inputs[0], producers);
    } else {
      const bool wide = int16_.count(v) > 0;
      if (wide && !act16_.ranges) fail("internal: quantize: 16x8 layers without int16 ranges");
      const std::map<std::string, QParam>& ranges = wide ? *act16_.ranges : ranges_;
      auto r = ranges.find(g_.value(v).name);
      if (r == ranges.end()) fail("internal: quantize: no calibrated range for '{}'", g_.value(v).name);
      p = r->second;
    }
    params_[v] = p;
    return p;
  }

  ValueId scalar(const std::string& base, TensorData t) { return g_.add_constant(base, std::move(t)); }

  void emit_pair(ValueId v, std::vector<Node>& out) {
    const QParam p = params_.at(v);
    const std::string name = g_.value(v).name;
    const ValueId s = scalar(name + "_scale", TensorData::scalar<float>(p.scale));
    const ValueId z = scalar(name + "_zero_point", p.dtype == DType::Int16
                                                       ? TensorData::scalar<int16_t>(static_cast<int16_t>(p.zero_point))
                                                       : TensorData::scalar<int8_t>(static_cast<int8_t>(p.zero_point)));
    const ValueId q = g_.add_value(g_.unique_name(name + "_quantized"), p.dtype);
    const ValueId dq = g_.add_value(g_.unique_name(name + "_dequantized"), DType::Float32);
    q_[v] = q;
    dq_[v] = dq;
    out.push_back(make("QuantizeLinear", name + "_QuantizeLinear", {v, s, z}, {q}, {}));
    out.push_back(make("DequantizeLinear", name + "_DequantizeLinear", {q, s, z}, {dq}, {}));
  }

  Node make(const std::string& op, const std::string& base, std::vector<ValueId> in, std::vector<ValueId> out,
            const std::vector<std::string>& origins) {
    Node n;
    n.op = op;
    n.name = unique_node_name(base);
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    n.origins = origins;
    return n;
  }

  std::string unique_node_name(const std::string& base) {
    if (!node_names_) {
      node_names_ = std::make_unique<std::set<std::string>>();
      for (const Node& n : g_.nodes) node_names_->insert(n.name);
    }
    std::string name = base;
    for (int k = 1; node_names_->count(name); ++k) name = fmt::format("{}_{}", base, k);
    node_names_->insert(name);
    return name;
  }
  std::unique_ptr<std::set<std::string>> node_names_;

  // A DequantizeLinear of constant integers in front of `node`, reading
  // them in the place of input j.
  void dequantize_const(Node& node, size_t j, TensorData q, TensorData scale, TensorData zp, int axis,
                        std::vector<Node>& out) {
    const std::string base = g_.value(node.inputs[j]).name;
    const bool per_axis = scale.rank() == 1;
    const ValueId qv = g_.add_constant(base + "_quantized", std::move(q));
    const ValueId sv = g_.add_constant(base + "_scale", std::move(scale));
    const ValueId zv = g_.add_constant(base + "_zero_point", std::move(zp));
    const ValueId dq = g_.add_value(g_.unique_name(base + "_dequantized"), DType::Float32);
    Node d = make("DequantizeLinear", base + "_DequantizeLinear", {qv, sv, zv}, {dq}, node.origins);
    if (per_axis) d.attrs.set("axis", static_cast<int64_t>(axis));
    out.push_back(std::move(d));
    node.inputs[j] = dq;
  }

  // The constant inputs of an int8 layer's node: weights per channel (int8,
  // or int4 when bits is 4: a Conv's per channel at max |w| / 7, a dense
  // layer's in blocks at max |w| / 112 with power-of-two sub-scales),
  // biases int32, other constants (an Add's operand) per tensor. A 16x8
  // layer (`wide`) keeps its float bias (fold_qdq makes it int64), so its
  // weight scales need no raising.
  void quantize_constants(Node& node, int bits, bool wide, std::vector<Node>& out) {
    const bool four = bits == 4 && takes_4bit(g_, node);
    const bool blocks = four && node.op != "Conv";
    if (four) {
      node.attrs.set(ops::kWeightBitsAttr, int64_t{4});
      if (blocks) node.attrs.set(ops::kWeightBlockAttr, wb_.block);
    }
    std::vector<float> wscale;
    for (size_t j = 0; j < node.inputs.size(); ++j) {
      const ValueId v = node.inputs[j];
      if (v == kNoValue || computed(g_, v) || is_bias(node, j)) continue;
      const TensorData& c = *g_.value(v).constant;
      if (is_weight(node, j)) {
        // Output channels: Conv's weights are [M, C / group, ...], ConvTranspose's
        // [C, M / group, ...], MatMul's B [K, N], Gemm's [K, N] or [N, K] (transB).
        const int axis = op_traits(node.op).weight_axis(node);
        const std::vector<float> amax = channel_amax(c, axis);
        const std::vector<double> b = wide ? std::vector<double>{} : bias_of(node, static_cast<int64_t>(amax.size()));
        std::vector<int64_t> raised;
        const int qmax = blocks ? kBlockQMax : four ? kInt4Max : 127;
        wscale = weight_scales(amax, b, b.empty() ? 0.0f : params_.at(input_before_dq(node)).scale, &raised, qmax);
        if (!raised.empty()) raised_[node.name] = std::move(raised);
        const int64_t m = static_cast<int64_t>(wscale.size());
        const LayerHessian* h = wb_.gptq ? wb_.gptq->of(node.name) : nullptr;
        TensorData wq = h        ? quantize_weight_gptq(c, axis, wscale, qmax, *h, blocks ? wb_.block : 0)
                        : blocks ? quantize_weight_blocks(c, axis, wscale, wb_.block)
                                 : quantize_weight(c, axis, wscale, qmax);
        dequantize_const(node, j, std::move(wq), TensorData::from<float>({m}, wscale), TensorData(DType::Int8, {m}),
                         axis, out);
        continue;
      }
      const std::vector<size_t> data = data_inputs(node);
      if (std::find(data.begin(), data.end(), j) == data.end()) continue;
      if (c.dtype() != DType::Float32) continue;
      float lo = 0.0f, hi = 0.0f;
      const float* x = c.data<float>();
      for (int64_t i = 0; i < c.numel(); ++i)
        if (std::isfinite(x[i])) lo = std::min(lo, x[i]), hi = std::max(hi, x[i]);
      // A 16x8 layer's operand is int16 too (symmetric), as its other input.
      const QParam p = usable(wide ? symmetric_int16(lo, hi) : ops::range_qparam(lo, hi, kActType));
      TensorData q(p.dtype, c.shape());
      for (int64_t i = 0; i < c.numel(); ++i) {
        const int32_t v = ops::quantize_value(x[i], p.scale, p.zero_point, p.lo(), p.hi());
        if (wide)
          q.data<int16_t>()[i] = static_cast<int16_t>(v);
        else
          q.data<int8_t>()[i] = static_cast<int8_t>(v);
      }
      dequantize_const(node, j, std::move(q), TensorData::scalar<float>(p.scale),
                       wide ? TensorData::scalar<int16_t>(0)
                            : TensorData::scalar<int8_t>(static_cast<int8_t>(p.zero_point)),
                       0, out);
    }
    for (size_t j = 0; j < node.inputs.size(); ++j) {
      const ValueId v = node.inputs[j];
      if (v == kNoValue || !is_bias(node, j) || computed(g_, v) || wscale.empty() || wide) continue;
      const int64_t m = static_cast<int64_t>(wscale.size());
      const std::vector<double> real = bias_of(node, m);
      if (real.empty()) continue;  // fold_qdq says why
      // At the scale fold_qdq recomputes (ops::bias_int32 both), so that it
      // reads back the same integers.
      const float xs = params_.at(input_before_dq(node)).scale;
      const int64_t nb = static_cast<int64_t>(real.size());
      TensorData bq = ops::bias_int32(real, xs, wscale, node.describe());
      std::vector<float> s(static_cast<size_t>(nb));
      for (int64_t c = 0; c < nb; ++c) s[static_cast<size_t>(c)] = xs * wscale[static_cast<size_t>(c % m)];
      dequantize_const(node, j, std::move(bq), TensorData::from<float>({nb}, s), TensorData(DType::Int32, {nb}), 0,
                       out);
    }
  }

  // The constant float bias of an int8 layer's node with m output channels
  // (ConvTranspose with groups: a multiple of m, the scales repeating for
  // each group); empty when it has none or another length.
  std::vector<double> bias_of(const Node& node, int64_t m) const {
    for (size_t j = 0; j < node.inputs.size(); ++j) {
      const ValueId v = node.inputs[j];
      if (v == kNoValue || !is_bias(node, j) || computed(g_, v) || m == 0) continue;
      const TensorData b = g_.value(v).constant->cast(DType::Float32);
      if (b.numel() != m && !(node.op == "ConvTranspose" && b.numel() % m == 0)) return {};
      return std::vector<double>(b.data<float>(), b.data<float>() + b.numel());
    }
    return {};
  }

  // The float tensor behind input 0 of a node whose input was re-pointed to a DequantizeLinear.
  ValueId input_before_dq(const Node& node) const {
    for (const auto& [v, d] : dq_)
      if (d == node.inputs[0]) return v;
    fail("internal: quantize: {}: input 0 is not quantized", node.describe());
  }
};

}  // namespace

bool takes_4bit(const Graph& g, const Node& n) {
  if (n.op != "Conv" && n.op != "Gemm" && n.op != "MatMul") return false;
  const ValueId w = weight_of(n);
  return w != kNoValue && g.value(w).is_constant() && (n.op == "Conv" || g.value(w).shape.size() == 2);
}

Inserted insert_qdq(Graph& g, const std::vector<Layer>& layers, const std::vector<bool>& int8,
                    const std::map<std::string, QParam>& ranges, const WeightBits& wb, const Act16& act16) {
  return Inserter(g, layers, int8, ranges, wb, act16).run();
}

}  // namespace mlipc::ptq
