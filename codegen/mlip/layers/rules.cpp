#include "mlip/layers/rules.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "mlip/kmath.h"
#include "mlip/kq4_format.h"
#include "mlip/lower.h"
#include "ops/op.h"
#include "ops/quant.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

bool is_float4d(const Graph& g, ValueId v) {
  return v != kNoValue && g.value(v).dtype == DType::Float32 && g.value(v).shape.size() == 4;
}

int only_consumer(const Graph& g, const std::vector<std::vector<int>>& consumers, ValueId v) {
  if (g.is_graph_output(v) || consumers[v].size() != 1) return -1;
  return consumers[v][0];
}

bool is_const(const Graph& g, const Node& n, size_t i) { return n.has_input(i) && g.value(n.inputs[i]).is_constant(); }

namespace rules_layer {

// A per-tensor scale and zero point of Q/DQ node n (inputs 1 and 2).
bool per_tensor_qparams(const Graph& g, const Node& n) {
  if (!is_const(g, n, 1) || numel(g.value(n.inputs[1]).shape) != 1) return false;
  return !n.has_input(2) || (is_const(g, n, 2) && numel(g.value(n.inputs[2]).shape) == 1);
}

// The float operators an int8 chain may hold: each has an 8-bit form of its
// layer that repeats the CPU kernel's fp32 operations (docs/mlip-spec.md 4a).
bool q8_chain_op(const std::string& op) {
  return op == "Softmax" || op == "LayerNormalization" || op == "LSTM" || op == "GRU" || op == "ReduceMean" ||
         op == "ReduceSum";
}

}  // namespace rules_layer

bool q8_per_tensor(const Graph& g, const Node& n) { return rules_layer::per_tensor_qparams(g, n); }

float q8_scale_of(const Graph& g, const Node& qdq) { return static_cast<float>(g.value(qdq.inputs[1]).constant->at(0)); }

int32_t q8_zero_point_of(const Graph& g, const Node& qdq) {
  return qdq.has_input(2) ? static_cast<int32_t>(g.value(qdq.inputs[2]).constant->as_int64()[0]) : 0;
}

std::optional<Q8Chain> q8_chain_at(const Graph& g, const std::vector<std::vector<int>>& consumers,
                                   const std::vector<int>& producers, int node) {
  const Node& m = g.nodes[static_cast<size_t>(node)];
  if (!rules_layer::q8_chain_op(m.op) || m.inputs.empty() || m.outputs.empty()) return std::nullopt;
  // LayerNormalization's Mean or InvStdDev is used; an LSTM's or GRU's Y_h
  // or Y_c is read (the exporters name them whether read or not).
  const bool recurrent = m.op == "LSTM" || m.op == "GRU";
  for (size_t i = 1; i < m.outputs.size(); ++i)
    if (m.outputs[i] != kNoValue &&
        (!recurrent || g.is_graph_output(m.outputs[i]) || !consumers[m.outputs[i]].empty()))
      return std::nullopt;
  const ValueId y = m.outputs[0], x = m.inputs[0];
  if (g.is_graph_output(y) || consumers[y].size() != 1 || g.is_graph_output(x) || consumers[x].size() != 1)
    return std::nullopt;
  const int qi = consumers[y][0], di = producers[x];
  if (di < 0) return std::nullopt;
  const Node& q = g.nodes[static_cast<size_t>(qi)];
  const Node& dq = g.nodes[static_cast<size_t>(di)];
  if (q.op != "QuantizeLinear" || q.inputs[0] != y || dq.op != "DequantizeLinear") return std::nullopt;
  const Value& xq = g.value(dq.inputs[0]);
  if (xq.is_constant() || !is_q8_type(xq.dtype) || g.value(q.outputs[0]).dtype != xq.dtype) return std::nullopt;
  if (!rules_layer::per_tensor_qparams(g, dq) || !rules_layer::per_tensor_qparams(g, q)) return std::nullopt;
  return Q8Chain{di, node, qi};
}

bool q8_chain_member(const Graph& g, const std::vector<std::vector<int>>& consumers,
                     const std::vector<int>& producers, int node) {
  const Node& n = g.nodes[static_cast<size_t>(node)];
  if (n.op == "DequantizeLinear") {
    for (int c : consumers[n.outputs[0]])
      if (auto p = q8_chain_at(g, consumers, producers, c); p && p->dq == node) return true;
  } else if (n.op == "QuantizeLinear") {
    const int s = producers[n.inputs[0]];
    if (auto p = s >= 0 ? q8_chain_at(g, consumers, producers, s) : std::nullopt; p && p->q == node) return true;
  }
  return false;
}

std::string batch_reason(int64_t batch) {
  if (batch <= kMaxBatch) return "";
  return fmt::format("batch size {} above the MLIP's {}", batch, kMaxBatch);
}

std::string window_reason(const ops::Geometry& geo, const TargetInfo& t, bool dilation) {
  for (int64_t v : geo.kernel)
    if (v > t.max_kernel) return fmt::format("kernel {} exceeds the {} maximum of {}", v, t.mcpu, t.max_kernel);
  for (int64_t v : geo.strides)
    if (v > t.max_stride) return fmt::format("stride {} exceeds the {} maximum of {}", v, t.mcpu, t.max_stride);
  for (int64_t v : geo.dilations)
    if (v != 1 && !(dilation && t.dilation)) return fmt::format("dilation {} is not supported on {}", v, t.mcpu);
  return "";
}

void json_weights(const RLayer& l, const char* kernel_layout, nlohmann::json& a) {
  a["kernel_layout"] = kernel_layout;
  a["kernel_const_name"] = l.weight_name;
  if (l.w4_block != 0) {  // only then: other layers' JSON stays as it was
    a["weight_bits"] = 4;
    a["weight_block"] = l.w4_block;
  }
  if (l.has_bias()) {
    a["bias_const_name"] = l.bias_name;
    a["bias_layout"] = "-O";
  }
}

Window window_of(const ops::Geometry& geo, int64_t kh, int64_t kw) {
  Window w;
  w.kh = kh;
  w.kw = kw;
  w.sh = geo.strides[0];
  w.sw = geo.strides[1];
  w.dh = geo.dilations[0];
  w.dw = geo.dilations[1];
  w.pt = geo.pad_begin(0);
  w.pl = geo.pad_begin(1);
  w.pb = geo.pad_end(0);
  w.pr = geo.pad_end(1);
  return w;
}

void json_window(const Window& w, nlohmann::json& a) {
  a["padding"] = {w.pt, w.pl, w.pb, w.pr};
  a["strides"] = {w.sh, w.sw};
  a["pool_size"] = {w.kh, w.kw};
}

bool half_underflows(float v) { return v != 0.0f && (mlip_f32_to_f16(v) & 0x7FFFu) == 0; }

bool half_overflows(float v) { return std::isfinite(v) && (mlip_f32_to_f16(v) & 0x7FFFu) == 0x7C00u; }

std::string half_constant_reason(const Graph& g, const std::vector<ValueId>& inputs, bool underflow,
                                 int64_t max_elems) {
  for (ValueId v : inputs) {
    if (v == kNoValue) continue;
    const Value& c = g.value(v);
    if (!c.is_constant() || c.dtype != DType::Float32 || (max_elems >= 0 && c.constant->numel() > max_elems)) continue;
    const float* f = c.constant->data<float>();
    for (int64_t i = 0; i < c.constant->numel(); ++i)
      if (half_overflows(f[i]) || (underflow && half_underflows(f[i])))
        return fmt::format("constant '{}' holds {:g}, {} (it would become {}){}", c.name, f[i], kHalfConstantEnd,
                           std::fabs(f[i]) < 1.0f ? "0" : "infinity", kStaysInFloat);
  }
  return "";
}

std::string half_overflow_reason(const Graph& g, const Node& n) {
  std::vector<ValueId> data;
  for (size_t i : data_inputs(n)) data.push_back(n.inputs[i]);
  return half_constant_reason(g, data, false, -1);
}

void add_f32_bias(LowerContext& ctx, RLayer& l, const std::vector<float>& bias, const std::string& name) {
  const int64_t count = static_cast<int64_t>(bias.size());
  l.bias_offset = ctx.add_f32(bias);
  l.bias_bytes = count * kF32Bytes;
  l.bias_name = name;
  ctx.add_const({name, {count}, bias});
}

Shape conv_shape_2d(const Shape& s) { return s.size() == 3 ? Shape{s[0], s[1], 1, s[2]} : s; }

ops::Geometry geometry_2d(const ops::Geometry& geo) {
  if (geo.rank() != 1) return geo;
  return ops::Geometry{{1, geo.in[0]},      {1, geo.kernel[0]}, {1, geo.strides[0]}, {1, geo.dilations[0]},
                       {0, geo.pads[0], 0, geo.pads[1]}, {1, geo.out[0]},    geo.ceil_mode};
}

void add_requant_records(LowerContext& ctx, RLayer& l, const std::vector<ops::Requant>& rq,
                         const std::vector<int64_t>& bias, int64_t channels, int64_t period,
                         const std::string& bias_name) {
  const bool wide = l.dtype == MLIP_DT_INT16;
  std::vector<uint32_t> rec;
  for (int64_t m = 0; m < channels; ++m) {
    const ops::Requant& r = rq[rq.size() > 1 ? static_cast<size_t>(m % period) : 0];
    const int64_t b = bias.empty() ? 0 : bias[static_cast<size_t>(m)];
    if (wide) {
      const uint64_t u = static_cast<uint64_t>(b);
      for (uint64_t v : {u & 0xFFFFFFFFu, u >> 32}) rec.push_back(static_cast<uint32_t>(v));
    } else {
      rec.push_back(static_cast<uint32_t>(b));
    }
    for (int64_t v : {static_cast<int64_t>(r.q), static_cast<int64_t>(r.shift)}) rec.push_back(static_cast<uint32_t>(v));
  }
  l.bias_offset = ctx.add_u32(rec);
  l.bias_bytes = channels * static_cast<int64_t>(wide ? MLIP_REQUANT16_RECORD_BYTES : MLIP_REQUANT_RECORD_BYTES);
  l.bias_name = bias_name;
}

std::vector<uint8_t> q8_weight_bytes(const Node& n, RLayer& l, const std::vector<int64_t>& w, int64_t o, int64_t k) {
  std::vector<int8_t> v(w.size());
  for (size_t i = 0; i < w.size(); ++i) v[i] = static_cast<int8_t>(w[i]);
  l.w4_block = 0;
  if (n.attrs.get_int(ops::kWeightBitsAttr, 8) != 4) return std::vector<uint8_t>(v.begin(), v.end());
  const int32_t K = static_cast<int32_t>(k);
  for (int64_t block = std::min(k, n.attrs.get_int(ops::kWeightBlockAttr, k)); block >= 1; block /= 2) {
    const int32_t B = static_cast<int32_t>(block), rb = mlip_kq4_bytes(1, K, B);
    std::vector<uint8_t> out(static_cast<size_t>(o * rb));
    bool ok = true;
    for (int64_t r = 0; r < o && ok; ++r)
      ok = mlip_kq4_pack(v.data() + r * k, 1, K, B, out.data() + r * rb, nullptr) == 0;
    if (!ok) continue;
    l.w4_block = block;
    return out;
  }
  fail("{}: its weights are marked 4-bit but hold values no int4 times 2^0..2^{} gives", n.describe(),
       MLIP_KQ4_MAX_EXPONENT);
}

}  // namespace mlipc::mlip::layers
