// LAYERNORM: LayerNormalization over the trailing axes from `axis` (opset
// 17), and the decomposition exporters write for opsets 13 to 16,
// ReduceMean, Sub, Pow 2, ReduceMean, Add epsilon, Sqrt, Div, then Mul by a
// constant scale and Add of a constant shift (both optional), recognized as
// one pattern: its nodes are chosen together (mlip/support.cpp) and the
// lowering makes the layer at its last node (the others make none). One
// NORM command per chunk of rows: fp32 mean and variance, the epsilon added
// in fp32 (so a 1e-12 that binary16 cannot hold keeps its meaning), one
// rounding (docs/mlip-spec.md section 4). Split across tiles by rows.
// int8 (docs/mlip-spec.md 4a): a DequantizeLinear, LayerNormalization,
// QuantizeLinear chain of the CPU's int8 build (the LayerNormalization stays
// float between its QDQ pairs there) is one 8-bit NORM layer that repeats
// the kernels' fp32 operations in their order, so it gives their bits; the
// opset-13 decomposition in onnxruntime's QDQ layout (its variance
// quantized, the epsilon added by a QLinearAdd) is the 8-bit NORM's mode 1,
// its divisors a table of the quantized variance computed by the reference
// evaluator (the CPU kernels' arithmetic).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ops/evaluator.h"
#include "ops/layer_norm.h"
#include "mlip/layer_kind.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "mlip/plan.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace layernorm_layer {

// A LAYERNORM layer's own parameters (RLayer::params): rows, their length,
// epsilon, the fp32 scale and shift in WEIGHTS (-1: none).
struct NormParams {
  int64_t rows = 1, len = 1;
  float eps = 1e-5f;
  int64_t gamma = -1, beta = -1;
  // 8-bit (RLayer::q8()): the input's and the output's scale and zero point
  float x_scale = 0.0f, y_scale = 0.0f;
  int32_t x_zp = 0, y_zp = 0;
  // 8-bit mode 1 (the decomposition with a quantized variance): gamma holds
  // the 256 divisors; the variance's scale and zero point
  uint32_t mode = 0;
  float v_scale = 0.0f;
  int32_t v_zp = 0;
};

// In and out (in place) of rows x len elements of eb bytes, the scale and
// shift in fp32.
uint64_t pass_bytes(int64_t rows, int64_t len, int64_t eb = kF16Bytes) {
  return ocm_round(rows * len * eb) + 2 * ocm_round(len * kF32Bytes);
}

// A constant scalar's value, or NaN.
double scalar(const Graph& g, ValueId v) {
  const Value& c = g.value(v);
  if (!c.is_constant() || c.constant->numel() != 1) return NAN;
  return c.constant->at(0);
}

// ReduceMean n over the last axis alone, keeping it (axes an input since
// opset 18's form, which every node reaches the IR in).
bool mean_of_last(const Graph& g, const Node& n) {
  if (n.op != "ReduceMean" || n.attrs.get_int("keepdims", 1) != 1 || !n.has_input(1)) return false;
  const Value& a = g.value(n.inputs[1]);
  if (!a.is_constant() || a.constant->numel() != 1) return false;
  const int64_t r = static_cast<int64_t>(g.value(n.inputs[0]).shape.size());
  int64_t axis = static_cast<int64_t>(a.constant->at(0));
  if (axis < 0) axis += r;
  return axis == r - 1;
}

// The operand of binary node b that is not v (or kNoValue).
ValueId other(const Node& b, ValueId v) {
  if (b.inputs.size() != 2) return kNoValue;
  return b.inputs[0] == v ? b.inputs[1] : b.inputs[1] == v ? b.inputs[0] : kNoValue;
}

// The pattern whose first ReduceMean is node m, or nullopt.
std::optional<NormPattern> pattern_from(const Graph& g, const std::vector<std::vector<int>>& consumers, int m) {
  const Node& mean = g.nodes[static_cast<size_t>(m)];
  if (!mean_of_last(g, mean)) return std::nullopt;
  NormPattern p;
  p.x = mean.inputs[0];
  const int sub = only_consumer(g, consumers, mean.outputs[0]);
  if (sub < 0) return std::nullopt;
  const Node& sn = g.nodes[static_cast<size_t>(sub)];
  if (sn.op != "Sub" || sn.inputs.size() != 2 || sn.inputs[0] != p.x || sn.inputs[1] != mean.outputs[0])
    return std::nullopt;
  const ValueId d = sn.outputs[0];
  if (g.is_graph_output(d) || consumers[d].size() != 2) return std::nullopt;
  int pow = -1, div = -1;
  for (int c : consumers[d]) {
    const Node& cn = g.nodes[static_cast<size_t>(c)];
    if (cn.op == "Pow" && cn.inputs[0] == d && scalar(g, cn.inputs[1]) == 2.0) pow = c;
    if (cn.op == "Div" && cn.inputs.size() == 2 && cn.inputs[0] == d) div = c;
  }
  if (pow < 0 || div < 0) return std::nullopt;
  const int mean2 = only_consumer(g, consumers, g.nodes[static_cast<size_t>(pow)].outputs[0]);
  if (mean2 < 0 || !mean_of_last(g, g.nodes[static_cast<size_t>(mean2)])) return std::nullopt;
  const int add = only_consumer(g, consumers, g.nodes[static_cast<size_t>(mean2)].outputs[0]);
  if (add < 0 || g.nodes[static_cast<size_t>(add)].op != "Add") return std::nullopt;
  const double eps = scalar(g, other(g.nodes[static_cast<size_t>(add)], g.nodes[static_cast<size_t>(mean2)].outputs[0]));
  if (!(eps >= 0.0)) return std::nullopt;
  const int sq = only_consumer(g, consumers, g.nodes[static_cast<size_t>(add)].outputs[0]);
  if (sq < 0 || g.nodes[static_cast<size_t>(sq)].op != "Sqrt") return std::nullopt;
  const Node& dn = g.nodes[static_cast<size_t>(div)];
  if (dn.inputs[1] != g.nodes[static_cast<size_t>(sq)].outputs[0] || only_consumer(g, consumers, dn.inputs[1]) != div)
    return std::nullopt;
  p.nodes = {m, sub, pow, mean2, add, sq, div};
  p.eps = static_cast<float>(eps);
  p.len = g.value(p.x).shape.back();
  ValueId y = dn.outputs[0];
  // The optional scale (a Mul by a constant of one value per column) and shift.
  auto per_column = [&](ValueId c) {
    const Value& v = g.value(c);
    return v.is_constant() && v.dtype == DType::Float32 && v.constant->numel() == p.len && !v.shape.empty() &&
           v.shape.back() == p.len;
  };
  for (const char* op : {"Mul", "Add"}) {
    const int r = only_consumer(g, consumers, y);
    if (r < 0) break;
    const Node& rn = g.nodes[static_cast<size_t>(r)];
    const ValueId c = other(rn, y);
    if (rn.op != op || c == kNoValue || !per_column(c) || g.value(rn.outputs[0]).shape != g.value(y).shape) break;
    (std::string(op) == "Mul" ? p.gamma : p.beta) = c;
    p.nodes.push_back(r);
    y = rn.outputs[0];
    if (std::string(op) == "Mul") continue;
  }
  p.y = y;
  p.last = p.nodes.back();
  return p;
}

std::string support(const Graph& g, const Node& n, const SupportLimits& lim) {
  if (lim.int8) return "LayerNormalization on int8 tensors has no MLIP layer yet";
  const Value& x = g.value(n.inputs[0]);
  if (std::string r = rowmajor_reason(x); !r.empty()) return r;
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (n.outputs[i] != kNoValue) return "the Mean or InvStdDev output is used";
  if (!is_const(g, n, 1) || (n.has_input(2) && !is_const(g, n, 2))) return "scale or bias is not constant";
  const ops::LayerNormDims d = ops::layer_norm_dims(n.attrs, x.shape, g.value(n.inputs[1]).shape,
                                                    n.has_input(2) ? &g.value(n.inputs[2]).shape : nullptr);
  if (d.scale_n != d.n || (n.has_input(2) && d.bias_n != d.n)) return "a scale or bias that repeats along the row";
  if (pass_bytes(1, d.n) > lim.work_bytes)
    return fmt::format("a row of {} elements does not fit the {} bytes of OCM", d.n, lim.work_bytes);
  return "";
}

// The layer: rows of the normalized length, the scale and shift as fp32
// (values per column) in WEIGHTS.
void add_layer(LowerContext& ctx, const Node& at, ValueId x, ValueId gamma, ValueId beta, float eps, int64_t len,
               ValueId y) {
  const Graph& g = ctx.graph();
  const int in = ctx.rowmajor_of(x);  // before the layer: it may add a relayout layer
  RLayer& l = ctx.new_layer(MLIP_LAYER_LAYERNORM, at);
  l.inputs = {in};
  NormParams np;
  np.len = len;
  np.rows = numel(g.value(x).shape) / len;
  np.eps = eps;
  auto add = [&](ValueId v) {
    const TensorData& c = *g.value(v).constant;
    std::vector<float> f(static_cast<size_t>(len));
    for (int64_t i = 0; i < len; ++i) f[static_cast<size_t>(i)] = static_cast<float>(c.at(i));
    ctx.add_const({g.value(v).name, {len}, f});
    return ctx.add_f32(f);
  };
  if (gamma != kNoValue) np.gamma = add(gamma);
  if (beta != kNoValue) np.beta = add(beta);
  l.params = np;
  // the output: y (the pattern's last value), row-major
  for (size_t i = 0; i < at.outputs.size(); ++i)
    if (at.outputs[i] == y) {
      l.output = ctx.output_tensor(at, i, true);
      return;
    }
  fail("internal: the layer's node does not write its output");
}

// The 8-bit NORM of chain p: the DequantizeLinear's int8 input in, the
// QuantizeLinear's output out (the two make no layer of their own).
void lower_q8(LowerContext& ctx, const Q8Chain& p) {
  const Graph& g = ctx.graph();
  const Node& dq = g.nodes[static_cast<size_t>(p.dq)];
  const Node& n = g.nodes[static_cast<size_t>(p.node)];
  const Node& q = g.nodes[static_cast<size_t>(p.q)];
  const Value& x = g.value(dq.inputs[0]);
  const ops::LayerNormDims d = ops::layer_norm_dims(n.attrs, x.shape, g.value(n.inputs[1]).shape,
                                                    n.has_input(2) ? &g.value(n.inputs[2]).shape : nullptr);
  const int in = ctx.rowmajor_of(dq.inputs[0]);
  RLayer& l = ctx.new_layer(MLIP_LAYER_LAYERNORM, n);
  l.origins.insert(l.origins.begin(), dq.origins.begin(), dq.origins.end());
  l.origins.insert(l.origins.end(), q.origins.begin(), q.origins.end());
  l.inputs = {in};
  l.dtype = mlip_dtype(x.dtype);
  NormParams np;
  np.len = d.n;
  np.rows = numel(x.shape) / d.n;
  np.eps = n.attrs.get_float("epsilon", 1e-5f);
  np.x_scale = q8_scale_of(g, dq);
  np.x_zp = q8_zero_point_of(g, dq);
  np.y_scale = q8_scale_of(g, q);
  np.y_zp = q8_zero_point_of(g, q);
  auto add = [&](ValueId v) {
    std::vector<float> f(static_cast<size_t>(d.n), 0.0f);
    if (v == kNoValue) return ctx.add_f32(f);
    const TensorData& c = *g.value(v).constant;
    for (int64_t i = 0; i < d.n; ++i) f[static_cast<size_t>(i)] = static_cast<float>(c.at(i));
    ctx.add_const({g.value(v).name, {d.n}, f});
    return ctx.add_f32(f);
  };
  // the 8-bit form requires both: a missing shift is zeros (adding +0 may
  // turn -0 into +0 only, which quantizes to the same integer)
  np.gamma = add(n.inputs[1]);
  np.beta = add(n.has_input(2) ? n.inputs[2] : kNoValue);
  l.params = np;
  l.output = ctx.output_tensor(q, 0, true);
}

void lower(LowerContext& ctx, const Node& n) {
  const Graph& g = ctx.graph();
  if (auto p = q8_chain_at(g, ctx.consumers(), ctx.producers(), ctx.index_of(n))) return lower_q8(ctx, *p);
  const Value& x = g.value(n.inputs[0]);
  const ops::LayerNormDims d = ops::layer_norm_dims(n.attrs, x.shape, g.value(n.inputs[1]).shape,
                                                    n.has_input(2) ? &g.value(n.inputs[2]).shape : nullptr);
  add_layer(ctx, n, n.inputs[0], n.inputs[1], n.has_input(2) ? n.inputs[2] : kNoValue,
            n.attrs.get_float("epsilon", 1e-5f), d.n, n.outputs[0]);
}

void plan(LayerPlanner& p) {
  const RLayer& l = p.layer();
  const NormParams& np = params_of<NormParams>(l);
  const RTensor& x = p.in();
  const RTensor& y = p.out();
  const int64_t len = np.len;
  const int64_t eb = l.q8() ? 1 : kF16Bytes;
  const auto parts = split_range(np.rows, p.num_tiles());
  p.set_split(Split::Rows, parts);
  const int64_t rc = largest(np.rows, [&](int64_t v) { return pass_bytes(v, len, eb) <= p.work_limit(); });
  if (rc == 0) fail("layer '{}' does not fit OCM", l.name);
  for (size_t t = 0; t < parts.size(); ++t) {
    const int tile = static_cast<int>(t);
    Ocm ocm(p.work_limit());
    const int64_t glen = np.mode ? 256 : len;  // mode 1: a divisor per quantized variance
    const uint32_t gamma = np.gamma >= 0 ? ocm.take(glen * kF32Bytes) : MLIP_NO_OFFSET;
    const uint32_t beta = np.beta >= 0 ? ocm.take(len * kF32Bytes) : MLIP_NO_OFFSET;
    const uint32_t off = ocm.take(std::min(rc, parts[t].second - parts[t].first) * len * eb);
    p.note_ocm(tile, ocm);
    if (np.gamma >= 0) p.dma_in(tile, p.weights_binding(), np.gamma, gamma, glen * kF32Bytes);
    if (np.beta >= 0) p.dma_in(tile, p.weights_binding(), np.beta, beta, len * kF32Bytes);
    for (int64_t r0 = parts[t].first; r0 < parts[t].second; r0 += rc) {
      const int64_t rn = std::min(rc, parts[t].second - r0);
      p.count_pass();
      p.dma_in(tile, p.binding(x), p.ddr_base(x) + r0 * len * eb, off, rn * len * eb);
      mlip_norm_args a{};
      a.in = off;
      a.out = off;
      a.gamma = gamma;
      a.beta = beta;
      a.rows = u32(rn);
      a.len = u32(len);
      a.eps = np.eps;
      a.dtype = l.dtype;
      if (l.q8()) {
        a.x_scale = np.x_scale;
        a.x_zp = np.x_zp;
        a.y_scale = np.y_scale;
        a.y_zp = np.y_zp;
        a.mode = np.mode;
        a.v_scale = np.v_scale;
        a.v_zp = np.v_zp;
      }
      p.emit(MLIP_OP_NORM, tile, a);
      p.dma_out(tile, p.binding(y), p.ddr_base(y) + r0 * len * eb, off, rn * len * eb);
    }
  }
}

void json(const RLayer& l, nlohmann::json& a) {
  const NormParams& np = params_of<NormParams>(l);
  a["rows"] = np.rows;
  a["axis_len"] = np.len;
  a["epsilon"] = np.eps;
  if (np.mode) a["variance_quantized"] = true;
}

// The nodes from vq (a value of shape s) to the Div's divisor: each reads
// one computed value (the previous one's) and scalar constants, writes one
// value of shape s read by the next alone; empty if not so.
std::vector<int> den_chain(const Graph& g, const std::vector<std::vector<int>>& consumers, ValueId vq, int div) {
  static const char* const kOps[] = {"DequantizeLinear", "QuantizeLinear", "Add", "Sub", "Mul", "Div", "Sqrt",
                                     "Reciprocal", "QLinearAdd", "QLinearMul"};
  const Shape& s = g.value(vq).shape;
  const ValueId den = g.nodes[static_cast<size_t>(div)].inputs[1];
  std::vector<int> chain;
  for (ValueId v = vq; v != den;) {
    const int c = only_consumer(g, consumers, v);
    if (c < 0 || c == div || chain.size() > 16) return {};
    const Node& n = g.nodes[static_cast<size_t>(c)];
    if (std::find_if(std::begin(kOps), std::end(kOps), [&](const char* op) { return n.op == op; }) == std::end(kOps))
      return {};
    if (n.outputs.size() != 1 || g.value(n.outputs[0]).shape != s) return {};
    for (ValueId i : n.inputs)
      if (i != kNoValue && i != v && !(g.value(i).is_constant() && g.value(i).constant->numel() == 1)) return {};
    chain.push_back(c);
    v = n.outputs[0];
  }
  return chain;
}

// The mode-1 pattern whose DequantizeLinear is node d, or nullopt.
std::optional<Q8NormDecomposed> q8_decomposed_from(const Graph& g, const std::vector<std::vector<int>>& consumers,
                                                   int d) {
  const Node& dq = g.nodes[static_cast<size_t>(d)];
  if (dq.op != "DequantizeLinear" || !q8_per_tensor(g, dq)) return std::nullopt;
  const Value& xq = g.value(dq.inputs[0]);
  const ValueId xf = dq.outputs[0];
  if (xq.is_constant() || !is_q8_type(xq.dtype) || xq.shape.empty() || g.is_graph_output(xf) ||
      consumers[xf].size() != 2)
    return std::nullopt;
  int mean = -1;
  for (int c : consumers[xf])
    if (mean_of_last(g, g.nodes[static_cast<size_t>(c)])) mean = c;
  if (mean < 0) return std::nullopt;
  // the float decomposition from its first ReduceMean, as the fp16 pattern finds it up to its Div
  const int sub = only_consumer(g, consumers, g.nodes[static_cast<size_t>(mean)].outputs[0]);
  if (sub < 0) return std::nullopt;
  const Node& sn = g.nodes[static_cast<size_t>(sub)];
  if (sn.op != "Sub" || sn.inputs.size() != 2 || sn.inputs[0] != xf || sn.inputs[1] != g.nodes[static_cast<size_t>(mean)].outputs[0])
    return std::nullopt;
  const ValueId dv = sn.outputs[0];
  if (g.is_graph_output(dv) || consumers[dv].size() != 2) return std::nullopt;
  int pow = -1, div = -1;
  for (int c : consumers[dv]) {
    const Node& cn = g.nodes[static_cast<size_t>(c)];
    if (cn.op == "Pow" && cn.inputs[0] == dv && scalar(g, cn.inputs[1]) == 2.0) pow = c;
    if (cn.op == "Div" && cn.inputs.size() == 2 && cn.inputs[0] == dv && cn.inputs[1] != dv) div = c;
  }
  if (pow < 0 || div < 0) return std::nullopt;
  const int mean2 = only_consumer(g, consumers, g.nodes[static_cast<size_t>(pow)].outputs[0]);
  if (mean2 < 0 || !mean_of_last(g, g.nodes[static_cast<size_t>(mean2)])) return std::nullopt;
  const int qv = only_consumer(g, consumers, g.nodes[static_cast<size_t>(mean2)].outputs[0]);
  if (qv < 0) return std::nullopt;
  const Node& qvn = g.nodes[static_cast<size_t>(qv)];
  if (qvn.op != "QuantizeLinear" || !q8_per_tensor(g, qvn) || g.value(qvn.outputs[0]).dtype != xq.dtype)
    return std::nullopt;
  Q8NormDecomposed p;
  p.vq = qvn.outputs[0];
  p.den_chain = den_chain(g, consumers, p.vq, div);
  if (p.den_chain.empty()) return std::nullopt;
  p.den = g.nodes[static_cast<size_t>(div)].inputs[1];
  if (g.value(p.den).dtype != DType::Float32) return std::nullopt;
  const int q = only_consumer(g, consumers, g.nodes[static_cast<size_t>(div)].outputs[0]);
  if (q < 0) return std::nullopt;
  const Node& qn = g.nodes[static_cast<size_t>(q)];
  if (qn.op != "QuantizeLinear" || !q8_per_tensor(g, qn) || g.value(qn.outputs[0]).dtype != xq.dtype ||
      g.value(qn.outputs[0]).shape != xq.shape)
    return std::nullopt;
  p.dq = d;
  p.qv = qv;
  p.div = div;
  p.q = q;
  p.len = xq.shape.back();
  p.nodes = {d, mean, sub, pow, mean2, qv, div, q};
  p.nodes.insert(p.nodes.end(), p.den_chain.begin(), p.den_chain.end());
  std::sort(p.nodes.begin(), p.nodes.end());
  return p;
}

// The divisor of each value of the quantized variance: the chain's nodes
// run by the reference evaluator on every value of the type.
std::vector<float> divisors(const Graph& g, const Q8NormDecomposed& p) {
  const Value& vv = g.value(p.vq);
  const int64_t n = numel(vv.shape);
  const int64_t lo = vv.dtype == DType::Int8 ? -128 : 0;
  std::vector<float> out(256);
  for (int64_t base = 0; base < 256; base += n) {
    TensorData t(vv.dtype, vv.shape);
    for (int64_t i = 0; i < n; ++i) t.raw()[i] = static_cast<uint8_t>((lo + (base + i) % 256) & 0xff);
    std::vector<TensorData> env(g.num_values());
    env[p.vq] = std::move(t);
    for (int k : p.den_chain) {
      const Node& node = g.nodes[static_cast<size_t>(k)];
      std::vector<TensorData> outs = eval_node(g, node, &env);
      env[node.outputs[0]] = std::move(outs[0]);
    }
    for (int64_t i = 0; i < n && base + i < 256; ++i)
      out[static_cast<size_t>(base + i)] = static_cast<float>(env[p.den].at(i));
  }
  return out;
}

}  // namespace layernorm_layer

std::vector<NormPattern> norm_patterns(const Graph& g, const std::vector<std::vector<int>>& consumers) {
  std::vector<NormPattern> out;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (std::optional<NormPattern> p = layernorm_layer::pattern_from(g, consumers, static_cast<int>(i)))
      out.push_back(*p);
  return out;
}

std::string norm_pattern_reason(const Graph& g, const NormPattern& p, const SupportLimits& lim) {
  if (lim.int8) return "LayerNormalization on int8 tensors has no MLIP layer yet";
  if (std::string r = rowmajor_reason(g.value(p.x)); !r.empty()) return r;
  if (layernorm_layer::pass_bytes(1, p.len) > lim.work_bytes)
    return fmt::format("a row of {} elements does not fit the {} bytes of OCM", p.len, lim.work_bytes);
  return "";
}

std::string q8_norm_reason(const Graph& g, const Q8Chain& p, const SupportLimits& lim) {
  if (!lim.int8) return "an int8 LayerNormalization needs -quantize=int8";
  const Node& n = g.nodes[static_cast<size_t>(p.node)];
  const Value& x = g.value(n.inputs[0]);  // the float tensor: the shape rules are the fp16 ones
  if (std::string r = rowmajor_reason(x); !r.empty()) return r;
  if (!is_const(g, n, 1) || (n.has_input(2) && !is_const(g, n, 2))) return "scale or bias is not constant";
  const ops::LayerNormDims d = ops::layer_norm_dims(n.attrs, x.shape, g.value(n.inputs[1]).shape,
                                                    n.has_input(2) ? &g.value(n.inputs[2]).shape : nullptr);
  if (d.scale_n != d.n || (n.has_input(2) && d.bias_n != d.n)) return "a scale or bias that repeats along the row";
  const float xs = q8_scale_of(g, g.nodes[static_cast<size_t>(p.dq)]);
  const float ys = q8_scale_of(g, g.nodes[static_cast<size_t>(p.q)]);
  if (!(xs > 0.0f) || !(ys > 0.0f) || std::isinf(xs) || std::isinf(ys)) return "a scale that is not positive and finite";
  if (layernorm_layer::pass_bytes(1, d.n, 1) > lim.work_bytes)
    return fmt::format("a row of {} elements does not fit the {} bytes of OCM", d.n, lim.work_bytes);
  return "";
}

void lower_norm_pattern(LowerContext& ctx, const NormPattern& p) {
  const Node& last = ctx.graph().nodes[static_cast<size_t>(p.last)];
  layernorm_layer::add_layer(ctx, last, p.x, p.gamma, p.beta, p.eps, p.len, p.y);
  RLayer& l = ctx.region().layers.back();
  l.name = ctx.graph().nodes[static_cast<size_t>(p.nodes[0])].name;
  l.origins.clear();
  for (int i : p.nodes) {
    const auto& o = ctx.graph().nodes[static_cast<size_t>(i)].origins;
    l.origins.insert(l.origins.end(), o.begin(), o.end());
  }
}

std::vector<Q8NormDecomposed> q8_norms_decomposed(const Graph& g, const std::vector<std::vector<int>>& consumers,
                                                  const std::vector<int>& producers) {
  (void)producers;
  std::vector<Q8NormDecomposed> out;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (std::optional<Q8NormDecomposed> p = layernorm_layer::q8_decomposed_from(g, consumers, static_cast<int>(i)))
      out.push_back(*p);
  return out;
}

std::string q8_norm_decomposed_reason(const Graph& g, const Q8NormDecomposed& p, const SupportLimits& lim) {
  if (!lim.int8) return "an int8 LayerNorm decomposition needs -quantize=int8";
  const Node& dq = g.nodes[static_cast<size_t>(p.dq)];
  if (std::string r = rowmajor_reason(g.value(dq.outputs[0])); !r.empty()) return r;
  for (int k : {p.dq, p.qv, p.q}) {
    const float s = q8_scale_of(g, g.nodes[static_cast<size_t>(k)]);
    if (!(s > 0.0f) || std::isinf(s)) return "a scale that is not positive and finite";
  }
  if (layernorm_layer::pass_bytes(1, p.len, 1) + ocm_round(256 * kF32Bytes) > lim.work_bytes)
    return fmt::format("a row of {} elements does not fit the {} bytes of OCM", p.len, lim.work_bytes);
  return "";
}

void lower_q8_norm_decomposed(LowerContext& ctx, const Q8NormDecomposed& p) {
  const Graph& g = ctx.graph();
  const Node& dq = g.nodes[static_cast<size_t>(p.dq)];
  const Node& qv = g.nodes[static_cast<size_t>(p.qv)];
  const Node& q = g.nodes[static_cast<size_t>(p.q)];
  const Value& x = g.value(dq.inputs[0]);
  const int in = ctx.rowmajor_of(dq.inputs[0]);
  RLayer& l = ctx.new_layer(MLIP_LAYER_LAYERNORM, g.nodes[static_cast<size_t>(p.nodes.back())]);
  l.name = g.nodes[static_cast<size_t>(p.div)].name;
  l.origins.clear();
  for (int k : p.nodes) {
    const auto& o = g.nodes[static_cast<size_t>(k)].origins;
    l.origins.insert(l.origins.end(), o.begin(), o.end());
  }
  l.inputs = {in};
  l.dtype = mlip_dtype(x.dtype);
  layernorm_layer::NormParams np;
  np.len = p.len;
  np.rows = numel(x.shape) / p.len;
  np.eps = 0.0f;
  np.x_scale = q8_scale_of(g, dq);
  np.x_zp = q8_zero_point_of(g, dq);
  np.y_scale = q8_scale_of(g, q);
  np.y_zp = q8_zero_point_of(g, q);
  np.mode = 1;
  np.v_scale = q8_scale_of(g, qv);
  np.v_zp = q8_zero_point_of(g, qv);
  const std::vector<float> den = layernorm_layer::divisors(g, p);
  ctx.add_const({g.value(p.den).name + ":divisors", {256}, den});
  np.gamma = ctx.add_f32(den);
  l.params = np;
  l.output = ctx.output_tensor(q, 0, true);
}

extern const LayerKind kLayerNorm = {MLIP_LAYER_LAYERNORM, "layernorm", "LayerNorm", "mrvl.layernorm",
                                     {"LayerNormalization"}, /*fuses_activation=*/false, layernorm_layer::support,
                                     layernorm_layer::lower, layernorm_layer::plan, nullptr,
                                     layernorm_layer::json};

}  // namespace mlipc::mlip::layers
