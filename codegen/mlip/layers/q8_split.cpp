// int8 Split between QDQ pairs (docs/mlip-spec.md 4a, "int8 chains"): the
// q, k, v Split of a quantized transformer's attention, which
// passes/fold_qdq leaves in float (a node of several outputs): the CPU int8
// build dequantizes x, splits the floats, moves them through views
// (Squeeze) and quantizes each output at its own scale and zero point.
// Quantization works element by element and moving changes no element, so
// each output is x's part (one PERMUTE copy of the int8 bytes, or a view)
// followed, where the output's parameters differ from x's, by one TABLE of
// q(dq(v)) for the 256 values v, computed as the CPU's DequantizeLinear and
// QuantizeLinear compute them (ops::quantize_value): the CPU's bits.
#include <algorithm>

#include <fmt/format.h>

#include "ops/op.h"
#include "ops/quant.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace q8_split_layer {

bool per_tensor(const Graph& g, const Node& n) {
  if (!is_const(g, n, 1) || numel(g.value(n.inputs[1]).shape) != 1) return false;
  return !n.has_input(2) || (is_const(g, n, 2) && numel(g.value(n.inputs[2]).shape) == 1);
}

// Split's axis in [0, rank).
int64_t axis_of(const Graph& g, const Node& split) {
  const int64_t r = static_cast<int64_t>(g.value(split.inputs[0]).shape.size());
  const int64_t a = split.attrs.get_int("axis", 0);
  return a < 0 ? a + r : a;
}

// The copy of output o from row-major x: its elements' offsets in x.
StridedCopy copy_of(const Graph& g, const Node& split, size_t o) {
  const Shape& x = g.value(split.inputs[0]).shape;
  std::vector<int64_t> st(x.size(), 1);
  for (size_t k = x.size(); k-- > 1;) st[k - 1] = st[k] * x[k];
  const size_t axis = static_cast<size_t>(axis_of(g, split));
  int64_t offset = 0;
  for (size_t p = 0; p < o; ++p) offset += g.value(split.outputs[p]).shape[axis];
  return strided_copy(g.value(split.outputs[o]).shape, st, offset * st[axis]);
}

// q(dq(v)) for every value v of the type: x's DequantizeLinear, then the
// output's QuantizeLinear, in float as the CPU kernels (quantize_linear.c,
// dequantize_linear.c); empty when it is the identity.
std::vector<int64_t> requant_table(const Graph& g, const Node& dq, const Node& q) {
  const DType t = g.value(dq.inputs[0]).dtype;
  const int32_t lo = t == DType::Int8 ? -128 : 0, hi = lo + 255;
  const float xs = q8_scale_of(g, dq), ys = q8_scale_of(g, q);
  const int32_t xz = q8_zero_point_of(g, dq), yz = q8_zero_point_of(g, q);
  std::vector<int64_t> table(256);
  bool identity = true;
  for (int32_t i = 0; i < 256; ++i) {
    const float d = static_cast<float>(static_cast<int64_t>(lo + i) - xz) * xs;
    table[static_cast<size_t>(i)] = ops::quantize_value(d, ys, yz, lo, hi);
    identity = identity && table[static_cast<size_t>(i)] == lo + i;
  }
  if (identity) table.clear();
  return table;
}

}  // namespace q8_split_layer

std::vector<Q8Split> q8_splits(const Graph& g, const std::vector<std::vector<int>>& consumers,
                               const std::vector<int>& producers) {
  (void)producers;
  std::vector<Q8Split> found;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& dq = g.nodes[i];
    if (dq.op != "DequantizeLinear" || !q8_split_layer::per_tensor(g, dq)) continue;
    const Value& x = g.value(dq.inputs[0]);
    if (x.is_constant() || !is_q8_type(x.dtype)) continue;
    const int si = only_consumer(g, consumers, dq.outputs[0]);
    if (si < 0 || g.nodes[static_cast<size_t>(si)].op != "Split") continue;
    const Node& split = g.nodes[static_cast<size_t>(si)];
    if (split.inputs[0] != dq.outputs[0]) continue;
    Q8Split s;
    s.dq = static_cast<int>(i);
    s.split = si;
    bool ok = true;
    for (ValueId v : split.outputs) {
      std::vector<int> chain;
      for (;;) {
        const int c = v == kNoValue ? -1 : only_consumer(g, consumers, v);
        if (c < 0) break;
        const Node& n = g.nodes[static_cast<size_t>(c)];
        if (n.inputs[0] != v) break;
        chain.push_back(c);
        if (n.op == "QuantizeLinear" || op_traits(n.op).view == View::None) break;
        v = n.outputs[0];
      }
      const Node* q = chain.empty() ? nullptr : &g.nodes[static_cast<size_t>(chain.back())];
      if (!q || q->op != "QuantizeLinear" || !q8_split_layer::per_tensor(g, *q) ||
          g.value(q->outputs[0]).dtype != x.dtype) {
        ok = false;
        break;
      }
      s.outputs.push_back(std::move(chain));
    }
    if (ok) found.push_back(std::move(s));
  }
  return found;
}

std::string q8_split_reason(const Graph& g, const Q8Split& s, const SupportLimits& lim) {
  if (!lim.int8) return "an int8 Split needs -quantize=int8";
  const Node& split = g.nodes[static_cast<size_t>(s.split)];
  Value x = g.value(split.inputs[0]);  // the float tensor: the row-major kinds' shape rules
  if (std::string r = rowmajor_reason(x); !r.empty()) return r;
  for (size_t o = 0; o < split.outputs.size(); ++o) {
    const StridedCopy c = q8_split_layer::copy_of(g, split, o);
    if (!c.ok)
      return fmt::format("the copy needs {} dimensions after merging, PERMUTE has {}", c.dims.size(), MLIP_PERMUTE_RANK);
    // one step of the outermost dimension: the source span it reads, the elements it writes (PERMUTE's pass)
    int64_t span = 1, inner = 1;
    for (size_t k = 1; k < c.dims.size(); ++k) {
      span += (c.dims[k] - 1) * c.strides[k];
      inner *= c.dims[k];
    }
    if (ocm_round(span) + ocm_round(inner) + ocm_round(MLIP_TABLE_BYTES) > lim.work_bytes)
      return fmt::format("one step of the copy does not fit the {} bytes of OCM", lim.work_bytes);
  }
  return "";
}

void lower_q8_split(LowerContext& ctx, const Q8Split& s) {
  const Graph& g = ctx.graph();
  const Node& dq = g.nodes[static_cast<size_t>(s.dq)];
  const Node& split = g.nodes[static_cast<size_t>(s.split)];
  const DType t = g.value(dq.inputs[0]).dtype;
  const int src = ctx.rowmajor_of(dq.inputs[0]);
  for (size_t o = 0; o < split.outputs.size(); ++o) {
    const std::vector<int>& chain = s.outputs[o];
    const Node& q = g.nodes[static_cast<size_t>(chain.back())];
    std::vector<std::string> moved = dq.origins;  // the nodes the copy stands for
    moved.insert(moved.end(), split.origins.begin(), split.origins.end());
    for (size_t k = 0; k + 1 < chain.size(); ++k) {
      const Node& v = g.nodes[static_cast<size_t>(chain[k])];
      moved.insert(moved.end(), v.origins.begin(), v.origins.end());
    }
    const std::vector<int64_t> table = q8_split_layer::requant_table(g, dq, q);
    const StridedCopy c = q8_split_layer::copy_of(g, split, o);
    const Shape& y = g.value(q.outputs[0]).shape;
    int part = src;
    if (!c.identity()) {
      RLayer& l = ctx.new_layer(MLIP_LAYER_PERMUTE, split);
      l.name = fmt::format("{}:{}", split.name, o);
      l.origins = moved;
      l.inputs = {src};
      l.params = c;
      l.output = table.empty() ? ctx.output_tensor(q, 0, true)
                               : ctx.rowmajor_scratch(g.value(split.outputs[o]).name, g.value(split.outputs[o]).shape, t);
      l.dtype = mlip_dtype(t);
      if (table.empty()) {
        l.origins.insert(l.origins.end(), q.origins.begin(), q.origins.end());
        continue;
      }
      part = l.output;
    } else if (table.empty()) {
      ctx.alias_output(q, src, y, true);
      continue;
    }
    RLayer& l = add_table_layer(ctx, q, part, table, q.name + ":requant");
    l.dtype = mlip_dtype(t);
    l.output = ctx.output_tensor(q, 0, true);
  }
}

}  // namespace mlipc::mlip::layers
