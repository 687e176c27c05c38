// int8 elementwise chains as one TABLE layer (docs/mlip-spec.md 4a, "int8
// chains"): where passes/fold_qdq leaves float arithmetic between a
// DequantizeLinear and a QuantizeLinear (GELU's Div, Erf, Add, Mul, Mul in
// either exported form), together with the integer elementwise nodes around
// it (QLinearAdd, QLinearMul of a scalar or of two tensors of the chain,
// lookups), or where two or more such integer nodes follow each other
// (GELU's tanh form with QDQ pairs around every Mul and Add, a QDQ
// HardSwish's lookup and product), the chain's int8 output is a function of
// its int8 input's value alone, element by element. Its 256 entries are
// what the CPU int8 build computes for each input value: the reference
// evaluator runs the chain's own nodes (the same kernels' arithmetic as the
// C code: ops/ is their oracle) on every value of the type, so the TABLE
// command gives the CPU's bits by construction.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "ops/evaluator.h"
#include "ops/qlinear.h"
#include "mlip/layers/rules.h"
#include "mlip/lower.h"
#include "support/error.h"

namespace mlipc::mlip::layers {

namespace q8_lookup_layer {

// The operators a chain may hold: each computes every output element from
// the same element of its inputs (scalar constants broadcast; a lookup's
// table is its own), and its reference kernel is the C kernel's arithmetic.
const char* const kElementwise[] = {"DequantizeLinear", "QuantizeLinear", "Add",     "Sub",  "Mul",  "Div",
                                    "Pow",              "Erf",            "Tanh",    "Sigmoid", "Exp", "Sqrt",
                                    "Reciprocal",       "Neg",            "Abs",     "Relu", "Clip", "Gelu",
                                    "QLinearAdd",       "QLinearMul",     ops::kQLookupOp};

bool float_node(const Node& n) {
  return n.op != "DequantizeLinear" && n.op != "QuantizeLinear" && n.op != "QLinearAdd" && n.op != "QLinearMul" &&
         n.op != ops::kQLookupOp;
}

// Whether node n is elementwise over tensors of shape `s`: an operator of
// the list, one output of shape s, its computed inputs of shape s among
// `have` (values the chain holds), its constants scalars (but a lookup's
// table).
bool elementwise(const Graph& g, const Node& n, const Shape& s, const std::set<ValueId>& have) {
  if (std::find_if(std::begin(kElementwise), std::end(kElementwise), [&](const char* op) { return n.op == op; }) ==
      std::end(kElementwise))
    return false;
  if (n.outputs.size() != 1 || n.outputs[0] == kNoValue || g.value(n.outputs[0]).shape != s) return false;
  bool reads = false;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const ValueId v = n.inputs[i];
    if (v == kNoValue) continue;
    const Value& val = g.value(v);
    if (val.is_constant()) {
      if (val.constant->numel() != 1 && !(n.op == ops::kQLookupOp && i == 1)) return false;  // a lookup's table
      continue;
    }
    if (!have.count(v) || val.shape != s) return false;
    reads = true;
  }
  return reads;
}

}  // namespace q8_lookup_layer

std::vector<Q8Lookup> q8_lookups(const Graph& g, const std::vector<std::vector<int>>& consumers,
                                 const std::vector<int>& producers) {
  using q8_lookup_layer::elementwise;
  std::vector<Q8Lookup> found;
  std::set<int> taken;
  for (size_t xi = 0; xi < g.num_values(); ++xi) {
    const ValueId x = static_cast<ValueId>(xi);
    const Value& xv = g.value(x);
    if (xv.is_constant() || !is_q8_type(xv.dtype) || consumers[x].empty()) continue;
    // M: every node reachable from x that is elementwise on x-derived values.
    std::set<ValueId> have = {x};
    std::set<int> m;
    for (bool grew = true; grew;) {
      grew = false;
      for (ValueId v : std::vector<ValueId>(have.begin(), have.end()))
        for (int c : consumers[v]) {
          if (m.count(c) || taken.count(c) || !elementwise(g, g.nodes[static_cast<size_t>(c)], xv.shape, have))
            continue;
          m.insert(c);
          have.insert(g.nodes[static_cast<size_t>(c)].outputs[0]);
          grew = true;
        }
    }
    // The largest valid chain: y an 8-bit value of x's type written in M;
    // its nodes, M's ancestors of y; every value they write but y read by
    // them alone; a float node or two nodes at least (one integer node is
    // its own layer's).
    Q8Lookup best;
    for (int yi : m) {
      const ValueId y = g.nodes[static_cast<size_t>(yi)].outputs[0];
      if (g.value(y).dtype != xv.dtype) continue;
      std::set<int> s;
      std::vector<int> todo = {yi};
      while (!todo.empty()) {
        const int k = todo.back();
        todo.pop_back();
        if (!s.insert(k).second) continue;
        for (ValueId v : g.nodes[static_cast<size_t>(k)].inputs)
          if (v != kNoValue && v != x && !g.value(v).is_constant() && producers[v] >= 0 && m.count(producers[v]))
            todo.push_back(producers[v]);
      }
      bool ok = s.size() >= 2 || std::any_of(s.begin(), s.end(), [&](int k) {
                  return q8_lookup_layer::float_node(g.nodes[static_cast<size_t>(k)]);
                });
      for (int k : s) {
        const ValueId v = g.nodes[static_cast<size_t>(k)].outputs[0];
        if (v == y) continue;
        if (g.is_graph_output(v)) ok = false;
        for (int c : consumers[v])
          if (!s.count(c)) ok = false;
      }
      if (ok && s.size() > best.nodes.size()) {
        best.x = x;
        best.y = y;
        best.nodes.assign(s.begin(), s.end());  // a set of node indices: schedule order
      }
    }
    if (best.nodes.empty()) continue;
    taken.insert(best.nodes.begin(), best.nodes.end());
    found.push_back(std::move(best));
  }
  return found;
}

std::string q8_lookup_reason(const Graph& g, const Q8Lookup& c, const SupportLimits& lim) {
  if (!lim.int8) return "an int8 elementwise chain needs -quantize=int8";
  const Shape& s = g.value(c.x).shape;
  // element by element: the 8-bit lookup's rule (layers/activation.cpp)
  if (s.size() < 1 || s.size() > static_cast<size_t>(kMaxRank))
    return fmt::format("{} dimensions (the MLIP's layers take 1 to {})", s.size(), kMaxRank);
  if (s.size() == 4) return batch_reason(s[0]);
  return "";
}

std::vector<int64_t> q8_lookup_table(const Graph& g, const Q8Lookup& c) {
  const Value& xv = g.value(c.x);
  const int64_t n = numel(xv.shape);
  const int64_t lo = xv.dtype == DType::Int8 ? -128 : 0;
  std::vector<int64_t> table(256);
  // Every value of x's type, as many at a time as x has elements.
  for (int64_t base = 0; base < 256; base += n) {
    TensorData t(xv.dtype, xv.shape);
    for (int64_t i = 0; i < n; ++i) t.raw()[i] = static_cast<uint8_t>((lo + (base + i) % 256) & 0xff);
    std::vector<TensorData> env(g.num_values());
    env[c.x] = std::move(t);
    for (int k : c.nodes) {
      const Node& node = g.nodes[static_cast<size_t>(k)];
      std::vector<TensorData> outs = eval_node(g, node, &env);
      env[node.outputs[0]] = std::move(outs[0]);
    }
    const std::vector<int64_t> y = env[c.y].as_int64();
    for (int64_t i = 0; i < n && base + i < 256; ++i) table[static_cast<size_t>(base + i)] = y[static_cast<size_t>(i)];
  }
  return table;
}

void lower_q8_lookup(LowerContext& ctx, const Q8Lookup& c) {
  const Graph& g = ctx.graph();
  const Node& last = g.nodes[static_cast<size_t>(c.nodes.back())];
  const int in = ctx.tensor_as_is(c.x);  // elements: any layout
  RLayer& l = add_table_layer(ctx, last, in, q8_lookup_table(g, c), last.name + ":table");
  l.origins.clear();
  for (int k : c.nodes) {
    const Node& n = g.nodes[static_cast<size_t>(k)];
    l.origins.insert(l.origins.end(), n.origins.begin(), n.origins.end());
  }
  l.dtype = mlip_dtype(g.value(c.x).dtype);
  l.output = ctx.output_like(last, in);
}

}  // namespace mlipc::mlip::layers
