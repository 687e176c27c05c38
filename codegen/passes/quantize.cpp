// Post-training quantization of an fp32 graph: calibration, mixed precision,
// and the QuantizeLinear/DequantizeLinear pairs that passes/fold_qdq turns
// into integer operators.
//   1. The reference evaluator runs the samples; every float tensor's range
//      (and, for the percentile and entropy methods, its histogram) is
//      recorded (ptq/calibration.h turns them into ranges).
//   2. Layers: Conv, Gemm, MatMul, Add, Mul, AveragePool, GlobalAveragePool,
//      Concat and the activations fold_qdq makes tables of are compute
//      layers (a Relu or Clip after a Conv, Gemm, MatMul or Add is part of
//      it: the output is quantized after it, so its range narrows the
//      output's); MaxPool, Pad, nearest Resize and the views keep their
//      input's scale and zero point.
//   3. Each compute layer alone is quantized and folded in a graph of its
//      own and run on the fp32 reference inputs: its SQNR decides whether
//      it stays int8 (options.min_sqnr_db), and a layer fold_qdq cannot
//      fold stays float with fold_qdq's reason.
//   4. The pairs go into the graph: activations per tensor, asymmetric
//      (ops::range_qparam), int8; weights per output channel, symmetric
//      (max |w| / 127, values in [-127, 127]); biases int32 at x_scale *
//      w_scale. A tensor an int8 layer writes is read through its
//      DequantizeLinear by everyone; one a float layer writes is quantized
//      only for the int8 layers that read it.
//   5. The quantized model (folded as the driver will fold it) runs the
//      samples once more beside the fp32 model: per-layer and per-output
//      errors for the report.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "ptq/calibration.h"
#include "ops/evaluator.h"
#include "ops/infer.h"
#include "ops/op.h"
#include "ops/qlinear.h"
#include "passes/passes.h"
#include "support/error.h"

namespace mlipc::passes {

bool has_quantized_tensors(const Graph& g) {
  for (const Node& n : g.nodes)
    for (const std::vector<ValueId>* list : {&n.inputs, &n.outputs})
      for (ValueId v : *list)
        if (v != kNoValue && !g.value(v).is_constant() && ops::is_quant_type(g.value(v).dtype)) return true;
  return false;
}

namespace {

using ops::QParam;

// Activations are int8 (TFLite's scheme, the MLIP's int8 mode).
constexpr DType kActType = DType::Int8;

enum class Kind { Compute, SameScale };

struct Layer {
  int node = -1, act = -1;  // indices in the graph it was found in; act: a fused Relu or Clip
  Kind kind = Kind::Compute;
  std::string name, op;
  ValueId out = kNoValue;  // what it writes (after the activation)
  bool rearranges = false;  // Flatten, Reshape, Transpose, ...: data movement, not a row of the report
};

bool is_f32(const Graph& g, ValueId v) { return v != kNoValue && g.value(v).dtype == DType::Float32; }
bool computed(const Graph& g, ValueId v) { return v != kNoValue && !g.value(v).is_constant(); }

// The constant input k of n holds its weights (per output channel) or its bias.
bool is_weight(const Node& n, size_t k) { return op_traits(n.op).weight == static_cast<int>(k); }
bool is_bias(const Node& n, size_t k) { return op_traits(n.op).bias == static_cast<int>(k); }

bool compute_class(QdqFold f) {
  return f == QdqFold::Conv || f == QdqFold::Dense || f == QdqFold::Binary || f == QdqFold::AveragePool ||
         f == QdqFold::GlobalAveragePool || f == QdqFold::Concat || f == QdqFold::Table;
}

// Whether n's weights are a constant (fold_qdq folds a product on them).
bool constant_weights(const Graph& g, const Node& n) {
  const int8_t w = op_traits(n.op).weight;
  return w >= 0 && n.has_input(static_cast<size_t>(w)) && !computed(g, n.inputs[static_cast<size_t>(w)]);
}

// Why node n cannot be an int8 layer (empty: it can), before any folding.
std::string candidate_reason(const Graph& g, const Node& n) {
  const std::string& op = n.op;
  const OpTraits& t = op_traits(op);
  const bool same_scale = t.qdq == QdqFold::SameScale;
  const bool one_input = same_scale || t.qdq == QdqFold::Table;
  if (!compute_class(t.qdq) && !same_scale) return "-";  // not a layer fold_qdq has an integer form of
  if (t.qdq_refusal && !t.qdq_refusal(n).empty()) return "-";  // an interpolating Resize, ...: no integer form
  if (n.outputs.empty() || !is_f32(g, n.outputs[0])) return "its output is not float32";
  for (size_t k = 1; k < n.outputs.size(); ++k)
    if (n.outputs[k] != kNoValue) return "it has more than one output";
  bool any_computed = false;
  for (size_t k : data_inputs(n)) {
    const ValueId v = n.inputs[k];
    if (!is_f32(g, v)) return fmt::format("input {} is not float32", k);
    if (computed(g, v)) any_computed = true;
    else if (one_input) return "its input is a constant";
  }
  if (!any_computed) return "its inputs are constants";
  // A MatMul of two computed operands folds too (QLinearMatMul); every other
  // product needs constant weights.
  if (t.weight >= 0 && op != "MatMul" && !constant_weights(g, n)) return "its weights are computed";
  if (t.bias >= 0 && n.has_input(static_cast<size_t>(t.bias)) && computed(g, n.inputs[static_cast<size_t>(t.bias)]))
    return "its bias is computed";
  return "";
}

// Every layer of g that could be int8, in schedule order.
std::vector<Layer> find_layers(const Graph& g) {
  const auto consumers = g.consumers();
  std::vector<bool> absorbed(g.nodes.size(), false);
  std::vector<Layer> layers;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (absorbed[i]) continue;
    const Node& n = g.nodes[i];
    if (!candidate_reason(g, n).empty()) continue;
    const OpTraits& t = op_traits(n.op);
    Layer l;
    l.node = static_cast<int>(i);
    l.name = n.name;
    l.op = n.op;
    l.kind = t.qdq == QdqFold::SameScale ? Kind::SameScale : Kind::Compute;
    l.rearranges = t.rearranges;
    l.out = n.outputs[0];
    // A Relu or Clip (constant bounds) that alone reads the output rides
    // inside the pair; not after a MatMul of two computed operands, which
    // fold_qdq folds without a clamp.
    const bool fuses = t.qdq_absorbs_clamp && (t.qdq != QdqFold::Dense || constant_weights(g, n));
    const auto& users = consumers[static_cast<size_t>(l.out)];
    if (fuses && users.size() == 1 && !g.is_graph_output(l.out)) {
      const Node& a = g.nodes[static_cast<size_t>(users[0])];
      bool constant_bounds = true;
      for (size_t k = 1; k < a.inputs.size(); ++k) constant_bounds = constant_bounds && !computed(g, a.inputs[k]);
      if (op_traits(a.op).clamps && constant_bounds && is_f32(g, a.outputs[0])) {
        l.act = users[0];
        l.out = a.outputs[0];
        absorbed[static_cast<size_t>(users[0])] = true;
      }
    }
    layers.push_back(l);
  }
  return layers;
}

// The scale of a tensor that is all zeros (any positive scale holds 0).
QParam usable(QParam p) {
  if (!(p.scale > 0.0f) || !std::isfinite(p.scale)) {
    p.scale = 1.0f;
    p.zero_point = 0;
  }
  return p;
}

// Per output channel along `axis`, symmetric: scale max|w| / 127 (1 for a
// channel of zeros), values in [-127, 127] rounded as QuantizeLinear does.
struct QWeight {
  TensorData q;
  std::vector<float> scale;
};
QWeight quantize_weight(const TensorData& w, int axis) {
  const TensorData f = w.cast(DType::Float32);
  const Shape& s = f.shape();
  const int64_t count = s[static_cast<size_t>(axis)];
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < s.size(); ++d) inner *= s[d];
  const int64_t outer = f.numel() / std::max<int64_t>(1, count * inner);
  const float* x = f.data<float>();
  QWeight r{TensorData(DType::Int8, s), std::vector<float>(static_cast<size_t>(count), 0.0f)};
  auto at = [&](int64_t o, int64_t c, int64_t i) { return (o * count + c) * inner + i; };
  for (int64_t c = 0; c < count; ++c) {
    float amax = 0.0f;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) amax = std::max(amax, std::fabs(x[at(o, c, i)]));
    r.scale[static_cast<size_t>(c)] = amax > 0.0f && std::isfinite(amax) ? amax / 127.0f : 1.0f;
  }
  int8_t* q = r.q.data<int8_t>();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < count; ++c)
      for (int64_t i = 0; i < inner; ++i)
        q[at(o, c, i)] = static_cast<int8_t>(ops::quantize_value(x[at(o, c, i)], r.scale[static_cast<size_t>(c)], 0, -127, 127));
  return r;
}

// What insert_qdq made: the int8 value standing for each quantized float
// tensor (by name) and its parameters.
struct Inserted {
  std::map<std::string, std::string> quantized;  // float tensor -> its QuantizeLinear's output
  std::map<std::string, QParam> params;          // float tensor -> its scale and zero point
};

class Inserter {
 public:
  Inserter(Graph& g, const std::vector<Layer>& layers, const std::vector<bool>& int8,
           const std::map<std::string, QParam>& ranges)
      : g_(g), layers_(layers), int8_(int8), ranges_(ranges) {}

  Inserted run() {
    const size_t n = g_.nodes.size();
    const auto producers = g_.producers();
    layer_of_node_.assign(n, -1);
    for (size_t k = 0; k < layers_.size(); ++k) {
      if (!int8_[k]) continue;
      layer_of_node_[static_cast<size_t>(layers_[k].node)] = static_cast<int>(k);
      if (layers_[k].act >= 0) layer_of_node_[static_cast<size_t>(layers_[k].act)] = static_cast<int>(k);
    }
    // The tensors to quantize and whether an int8 layer writes them.
    for (size_t k = 0; k < layers_.size(); ++k) {
      if (!int8_[k]) continue;
      const Layer& l = layers_[k];
      const Node& node = g_.nodes[static_cast<size_t>(l.node)];
      for (size_t i : data_inputs(node))
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
      if (int8_node) quantize_constants(node, out);
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
    return r;
  }

 private:
  Graph& g_;
  const std::vector<Layer>& layers_;
  const std::vector<bool>& int8_;
  const std::map<std::string, QParam>& ranges_;
  std::vector<int> layer_of_node_;
  std::map<ValueId, QParam> params_;
  std::set<ValueId> written_by_int8_;
  std::map<ValueId, ValueId> q_, dq_;

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
      auto r = ranges_.find(g_.value(v).name);
      if (r == ranges_.end()) fail("internal: quantize: no calibrated range for '{}'", g_.value(v).name);
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
    const ValueId z = scalar(name + "_zero_point", TensorData::scalar<int8_t>(static_cast<int8_t>(p.zero_point)));
    const ValueId q = g_.add_value(g_.unique_name(name + "_quantized"), kActType);
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

  // The constant inputs of an int8 layer's node: weights per channel,
  // biases int32, other constants (an Add's operand) per tensor.
  void quantize_constants(Node& node, std::vector<Node>& out) {
    std::vector<float> wscale;
    for (size_t j = 0; j < node.inputs.size(); ++j) {
      const ValueId v = node.inputs[j];
      if (v == kNoValue || computed(g_, v) || is_bias(node, j)) continue;
      const TensorData& c = *g_.value(v).constant;
      if (is_weight(node, j)) {
        // Output channels: Conv's weights are [M, C / group, ...], ConvTranspose's
        // [C, M / group, ...], MatMul's B [K, N], Gemm's [K, N] or [N, K] (transB).
        const int axis = op_traits(node.op).weight_axis(node);
        QWeight w = quantize_weight(c, axis);
        wscale = w.scale;
        const int64_t m = static_cast<int64_t>(w.scale.size());
        dequantize_const(node, j, std::move(w.q), TensorData::from<float>({m}, w.scale), TensorData(DType::Int8, {m}),
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
      const QParam p = usable(ops::range_qparam(lo, hi, kActType));
      TensorData q(kActType, c.shape());
      for (int64_t i = 0; i < c.numel(); ++i)
        q.data<int8_t>()[i] = static_cast<int8_t>(ops::quantize_value(x[i], p.scale, p.zero_point, p.lo(), p.hi()));
      dequantize_const(node, j, std::move(q), TensorData::scalar<float>(p.scale),
                       TensorData::scalar<int8_t>(static_cast<int8_t>(p.zero_point)), 0, out);
    }
    for (size_t j = 0; j < node.inputs.size(); ++j) {
      const ValueId v = node.inputs[j];
      if (v == kNoValue || !is_bias(node, j) || computed(g_, v) || wscale.empty()) continue;
      const TensorData b = g_.value(v).constant->cast(DType::Float32);
      const int64_t m = static_cast<int64_t>(wscale.size());
      // (ConvTranspose with groups: the scales repeat for each group)
      if (b.numel() != m && !(node.op == "ConvTranspose" && b.numel() % m == 0)) continue;  // fold_qdq says why
      // At the scale fold_qdq recomputes (ops::bias_int32 both), so that it
      // reads back the same integers.
      const float xs = params_.at(input_before_dq(node)).scale;
      const int64_t nb = b.numel();
      std::vector<double> real(b.data<float>(), b.data<float>() + nb);
      TensorData bq = ops::bias_int32(real, xs, wscale);
      std::vector<float> s(static_cast<size_t>(nb));
      for (int64_t c = 0; c < nb; ++c) s[static_cast<size_t>(c)] = xs * wscale[static_cast<size_t>(c % m)];
      dequantize_const(node, j, std::move(bq), TensorData::from<float>({nb}, s), TensorData(DType::Int32, {nb}), 0,
                       out);
    }
  }

  // The float tensor behind input 0 of a node whose input was re-pointed to a DequantizeLinear.
  ValueId input_before_dq(const Node& node) const {
    for (const auto& [v, d] : dq_)
      if (d == node.inputs[0]) return v;
    fail("internal: quantize: {}: input 0 is not quantized", node.describe());
  }
};

// Sums of one comparison over the samples.
struct ErrorSum {
  double signal = 0.0, noise = 0.0, max_abs = 0.0;
  void add(const TensorData& ref, const TensorData& got) {
    const std::vector<double> r = ref.as_double(), q = got.as_double();
    for (size_t i = 0; i < r.size() && i < q.size(); ++i) {
      const double e = q[i] - r[i];
      signal += r[i] * r[i];
      noise += e * e;
      max_abs = std::max(max_abs, std::fabs(e));
    }
  }
  double sqnr() const { return calib::sqnr_db(signal, noise); }
};

TensorData dequantize(const TensorData& q, const QParam& p) {
  TensorData f(DType::Float32, q.shape());
  const std::vector<int64_t> v = q.as_int64();
  for (size_t i = 0; i < v.size(); ++i)
    f.data<float>()[i] = static_cast<float>(v[i] - p.zero_point) * p.scale;
  return f;
}

// A graph of one layer of g: its node (and fused activation) with the
// values it reads and writes; the computed inputs are graph inputs.
Graph extract(const Graph& g, const Layer& l) {
  Graph m;
  m.opset = g.opset;
  m.model_name = l.name;
  std::map<ValueId, ValueId> remap;
  auto map = [&](ValueId v) {
    if (v == kNoValue) return kNoValue;
    if (auto it = remap.find(v); it != remap.end()) return it->second;
    const Value& src = g.value(v);
    const ValueId nv = m.add_value(src.name, src.dtype);
    m.value(nv).shape = src.shape;
    m.value(nv).shape_known = src.shape_known;
    m.value(nv).constant = src.constant;
    remap[v] = nv;
    return nv;
  };
  std::vector<int> members = {l.node};
  if (l.act >= 0) members.push_back(l.act);
  std::set<ValueId> written;
  for (int i : members)
    for (ValueId o : g.nodes[static_cast<size_t>(i)].outputs) written.insert(o);
  for (int i : members) {
    Node n = g.nodes[static_cast<size_t>(i)];
    for (ValueId& v : n.inputs) {
      if (v != kNoValue && !g.value(v).is_constant() && !written.count(v) && !remap.count(v))
        m.inputs.push_back({g.value(v).name, map(v)});
      v = map(v);
    }
    for (ValueId& v : n.outputs) v = map(v);
    m.nodes.push_back(std::move(n));
  }
  m.outputs.push_back({g.value(l.out).name, remap.at(l.out)});
  return m;
}

// Whether fold_qdq turned layer `name` into an integer operator in g.
bool folded(const Graph& g, const std::string& name) {
  for (const Node& n : g.nodes)
    if (n.name == name && !n.outputs.empty() && n.outputs[0] != kNoValue && ops::is_quant_type(g.value(n.outputs[0]).dtype))
      return true;
  return false;
}

// fold_qdq's reason for layer `name` (node or op) staying float, if it gave one.
std::string fold_reason(const std::vector<FloatNote>& notes, const std::string& name) {
  const std::string key = fmt::format("node '{}'", name);
  for (const FloatNote& f : notes)
    if (size_t at = f.why.find(key); at != std::string::npos) {
      std::string why = f.why.substr(at);
      if (size_t colon = why.find(": "); colon != std::string::npos) why = why.substr(colon + 2);
      if (size_t semi = why.find("; feeds "); semi != std::string::npos) why = why.substr(0, semi);
      return why;
    }
  return "fold_qdq does not fold it";
}

std::string db_str(double db) { return std::isinf(db) ? (db > 0 ? "inf" : "-inf") : fmt::format("{:.1f}", db); }

class Quantizer {
 public:
  Quantizer(Graph& g, const std::vector<std::vector<TensorData>>& samples, const QuantizeOptions& o)
      : g_(g), samples_(samples), o_(o) {}

  QuantizeReport run() {
    if (samples_.empty()) fail("the calibration set holds no sample");
    const Graph fp32 = g_;
    collect_ranges();
    layers_ = find_layers(g_);
    std::vector<bool> int8(layers_.size(), false);
    measure_layers(fp32, int8);
    decide_same_scale(int8);
    // The final insertion; a layer the whole graph's folding leaves float
    // (it does not meet a neighbour's condition) is taken out and the
    // insertion made again.
    Inserted ins;
    Graph qdq;
    for (int attempt = 0;; ++attempt) {
      qdq = g_;
      ins = Inserter(qdq, layers_, int8, ranges_).run();
      Graph f = qdq;
      const std::vector<FloatNote> notes = fold_qdq(f);
      bool again = false;
      for (size_t k = 0; k < layers_.size(); ++k) {
        if (!int8[k] || folded(f, layers_[k].name)) continue;
        int8[k] = false;
        why_[k] = fold_reason(notes, layers_[k].name);
        again = true;
      }
      if (!again || attempt > static_cast<int>(layers_.size())) {
        folded_ = std::move(f);
        break;
      }
      decide_same_scale(int8);
    }
    g_ = qdq;
    QuantizeReport r;
    r.options = o_;
    r.options.progress = nullptr;
    r.samples = samples_.size();
    r.qdq = std::move(qdq);
    measure_model(fp32, ins, int8, r);
    return r;
  }

 private:
  Graph& g_;
  const std::vector<std::vector<TensorData>>& samples_;
  const QuantizeOptions& o_;
  std::map<std::string, QParam> ranges_;  // every float tensor's calibrated parameters
  std::vector<Layer> layers_;
  std::vector<std::string> why_;          // per layer: why float
  std::vector<ErrorSum> alone_;           // per layer: the layer alone
  std::vector<bool> measured_;            // per layer: alone_ holds its figures
  Graph folded_;

  void progress(std::string_view phase, size_t done) const {
    if (o_.progress) o_.progress(phase, done, samples_.size());
  }

  std::vector<TensorData> run_fp32(const Graph& g, size_t s) const {
    try {
      return evaluate_values(g, samples_[s]);
    } catch (const Error& e) {
      fail("calibration sample {}: {}", s, e.what());
    }
  }

  // Pass 1 (and 2): ranges, then histograms when the method needs them.
  void collect_ranges() {
    std::vector<calib::TensorStats> stats(g_.num_values());
    auto each_float = [&](const std::vector<TensorData>& env, auto f) {
      for (size_t v = 0; v < env.size(); ++v)
        if (env[v].dtype() == DType::Float32) f(stats[v], env[v]);
    };
    progress("ranges", 0);
    for (size_t s = 0; s < samples_.size(); ++s) {
      each_float(run_fp32(g_, s), [](calib::TensorStats& st, const TensorData& t) { st.add_range(t.data<float>(), t.numel()); });
      progress("ranges", s + 1);
    }
    if (o_.method != calib::Method::MinMax) {
      for (calib::TensorStats& st : stats)
        if (st.seen()) st.start_histogram(o_.method);
      progress("histograms", 0);
      for (size_t s = 0; s < samples_.size(); ++s) {
        each_float(run_fp32(g_, s),
                   [](calib::TensorStats& st, const TensorData& t) { st.add_histogram(t.data<float>(), t.numel()); });
        progress("histograms", s + 1);
      }
    }
    for (size_t v = 0; v < stats.size(); ++v) {
      if (!stats[v].seen()) continue;
      const auto [lo, hi] = stats[v].range(o_.method, o_.percentile);
      ranges_[g_.value(static_cast<ValueId>(v)).name] =
          usable(ops::range_qparam(static_cast<float>(lo), static_cast<float>(hi), kActType));
    }
  }

  // Pass 3: each compute layer alone, int8 against fp32 on the reference
  // inputs; those below the threshold (or that do not fold) stay float.
  void measure_layers(const Graph& fp32, std::vector<bool>& int8) {
    const size_t n = layers_.size();
    why_.assign(n, "");
    alone_.assign(n, ErrorSum{});
    measured_.assign(n, false);
    struct Alone {
      size_t layer;
      Graph graph;
      std::vector<ValueId> inputs;  // fp32's values feeding the graph's inputs
      ValueId ref;                  // fp32's value of the output
    };
    std::vector<Alone> alone;
    for (size_t k = 0; k < n; ++k) {
      const Layer& l = layers_[k];
      if (l.kind == Kind::SameScale) continue;
      Graph m = extract(g_, l);
      std::vector<Layer> ml = find_layers(m);
      if (ml.size() != 1) {
        why_[k] = "internal: the layer alone is not one layer";
        continue;
      }
      try {
        Inserter(m, ml, {true}, ranges_).run();
        const std::vector<FloatNote> notes = fold_qdq(m);
        if (!folded(m, l.name)) {
          why_[k] = fold_reason(notes, l.name);
          continue;
        }
      } catch (const Error& e) {
        why_[k] = e.what();
        continue;
      }
      Alone a{k, std::move(m), {}, fp32.find(g_.value(l.out).name)};
      for (const GraphIO& in : a.graph.inputs) a.inputs.push_back(fp32.find(in.name));
      alone.push_back(std::move(a));
    }
    progress("layer errors", 0);
    for (size_t s = 0; s < samples_.size(); ++s) {
      const std::vector<TensorData> env = run_fp32(fp32, s);
      for (Alone& a : alone) {
        std::vector<TensorData> in;
        for (ValueId v : a.inputs) in.push_back(env[static_cast<size_t>(v)]);
        const std::vector<TensorData> out = evaluate(a.graph, in);
        alone_[a.layer].add(env[static_cast<size_t>(a.ref)], out[0]);
      }
      progress("layer errors", s + 1);
    }
    for (const Alone& a : alone) {
      measured_[a.layer] = true;
      const double db = alone_[a.layer].sqnr();
      if (db >= o_.min_sqnr_db) {
        int8[a.layer] = true;
      } else {
        why_[a.layer] = fmt::format("its int8 SQNR {} dB is below {} dB", db_str(db), db_str(o_.min_sqnr_db));
      }
    }
  }

  // A layer that keeps the scale is int8 when an int8 layer writes its
  // input or reads its output: alone it would only add a rounding.
  void decide_same_scale(std::vector<bool>& int8) {
    const auto producers = g_.producers();
    const auto consumers = g_.consumers();
    std::vector<int> layer_of(g_.nodes.size(), -1);
    for (size_t k = 0; k < layers_.size(); ++k) {
      layer_of[static_cast<size_t>(layers_[k].node)] = static_cast<int>(k);
      if (layers_[k].act >= 0) layer_of[static_cast<size_t>(layers_[k].act)] = static_cast<int>(k);
    }
    auto int8_node = [&](int i) { return i >= 0 && layer_of[static_cast<size_t>(i)] >= 0 && int8[static_cast<size_t>(layer_of[static_cast<size_t>(i)])]; };
    for (size_t k = 0; k < layers_.size(); ++k)
      if (layers_[k].kind == Kind::SameScale && why_[k].empty()) int8[k] = false;
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t k = 0; k < layers_.size(); ++k) {
        const Layer& l = layers_[k];
        if (l.kind != Kind::SameScale || int8[k] || !why_[k].empty()) continue;
        const ValueId in = g_.nodes[static_cast<size_t>(l.node)].inputs[0];
        bool yes = int8_node(producers[static_cast<size_t>(in)]);
        for (int c : consumers[static_cast<size_t>(l.out)]) yes = yes || int8_node(c);
        if (yes) int8[k] = changed = true;
      }
    }
  }

  // Pass 4: the quantized model (folded) beside the fp32 model.
  void measure_model(const Graph& fp32, const Inserted& ins, const std::vector<bool>& int8, QuantizeReport& r) {
    struct Cmp {
      ValueId ref, got;
      bool dequantize;
      QParam p;
    };
    std::vector<Cmp> cmp;
    for (size_t k = 0; k < layers_.size(); ++k) {
      const Layer& l = layers_[k];
      const std::string& name = g_.value(l.out).name;
      Cmp c{fp32.find(name), kNoValue, false, {}};
      if (int8[k]) {
        c.got = folded_.find(ins.quantized.at(name));
        c.dequantize = true;
        c.p = ins.params.at(name);
      } else {
        c.got = folded_.find(name);
      }
      cmp.push_back(c);
    }
    std::vector<ErrorSum> model(cmp.size());
    std::vector<ErrorSum> outputs(g_.outputs.size());
    progress("model error", 0);
    for (size_t s = 0; s < samples_.size(); ++s) {
      const std::vector<TensorData> ref = run_fp32(fp32, s);
      std::vector<TensorData> got;
      try {
        got = evaluate_values(folded_, samples_[s]);
      } catch (const Error& e) {
        fail("calibration sample {} on the int8 model: {}", s, e.what());
      }
      for (size_t k = 0; k < cmp.size(); ++k) {
        const Cmp& c = cmp[k];
        if (c.ref == kNoValue || c.got == kNoValue || got[static_cast<size_t>(c.got)].dtype() == DType::Undefined) continue;
        const TensorData& v = got[static_cast<size_t>(c.got)];
        model[k].add(ref[static_cast<size_t>(c.ref)], c.dequantize ? dequantize(v, c.p) : v);
      }
      for (size_t o = 0; o < g_.outputs.size(); ++o) {
        const ValueId rv = fp32.outputs[o].value, gv = folded_.outputs[o].value;
        const TensorData& a = fp32.value(rv).is_constant() ? *fp32.value(rv).constant : ref[static_cast<size_t>(rv)];
        const TensorData& b = folded_.value(gv).is_constant() ? *folded_.value(gv).constant : got[static_cast<size_t>(gv)];
        if (a.dtype() != DType::Undefined && b.dtype() != DType::Undefined) outputs[o].add(a, b);
      }
      progress("model error", s + 1);
    }
    for (size_t k = 0; k < layers_.size(); ++k) {
      const Layer& l = layers_[k];
      if (l.rearranges) continue;
      LayerQuantization q;
      q.node = l.name;
      q.op = l.op;
      q.origins = fp32.nodes[static_cast<size_t>(l.node)].origins;
      if (l.act >= 0)
        for (const std::string& s : fp32.nodes[static_cast<size_t>(l.act)].origins) q.origins.push_back(s);
      q.int8 = int8[k];
      q.why = int8[k] ? "" : why_[k].empty() ? "no int8 layer reads or writes it" : why_[k];
      if (l.kind == Kind::Compute && !measured_[k]) {  // it did not fold alone: no int8 figure
        q.sqnr_db = q.max_abs_error = std::nan("");
      } else if (l.kind == Kind::Compute) {
        q.sqnr_db = alone_[k].sqnr();
        q.max_abs_error = alone_[k].max_abs;
      } else {  // a layer that keeps the scale adds no error of its own
        q.sqnr_db = model[k].sqnr();
        q.max_abs_error = model[k].max_abs;
      }
      q.model_sqnr_db = model[k].sqnr();
      q.model_max_abs_error = model[k].max_abs;
      r.layers.push_back(std::move(q));
    }
    for (size_t o = 0; o < g_.outputs.size(); ++o)
      r.outputs.push_back({g_.outputs[o].name, outputs[o].sqnr(), outputs[o].max_abs});
  }
};

}  // namespace

QuantizeReport quantize(Graph& g, const std::vector<std::vector<TensorData>>& samples, const QuantizeOptions& options) {
  return Quantizer(g, samples, options).run();
}

}  // namespace mlipc::passes
