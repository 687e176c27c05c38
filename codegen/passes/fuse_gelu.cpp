// GELU as ONNX exporters write it (before opset 20's Gelu) -> one Gelu node,
// one pass over x with mlip/kmath_f.h's float functions instead of five to
// nine operators. Two forms:
//   exact ("none"): d = Div(x, sqrt 2) or Mul(x, 1/sqrt 2), f = Erf(d);
//   tanh: c = Mul(x, Mul(x, x)) or Pow(x, 3), k = Mul(c, 0.044715),
//     a = Add(x, k), u = Mul(a, sqrt(2/pi)), f = Tanh(u)
//     (torch's F.gelu(approximate="tanh") and Hugging Face's "gelu_new");
// then s = Add(f, 1), y = Mul(Mul(x, s), 0.5) or Mul(Mul(x, 0.5), s),
// each commutative node's operands in either order. Matched by the
// constants' values: float32 scalars (one element, rank <= x's) of exactly
// those values as floats; every intermediate read by the next node alone
// and not a graph output; x itself may have other readers.
// The bits: the exact form's Gelu is mlip_gelu_f, within the bound
// include/mlip/kmath_f.h states of the five operators' bits. The tanh form's
// mlip_gelu_tanh_f computes the torch form's operations in the same order
// (x*x*x, the tanh of the Tanh operator), so it gives their bits; a Pow's
// correctly rounded cube differs from x*x*x by at most 3 2^-24 |x|^3, which
// the tanh and the rest carry (tests/unit/passes/fuse_gelu_test.cpp derives
// the bound). At x = -inf the operators give NaN (-inf * 0), the Gelu -0.
#include "passes/passes.h"

#include <algorithm>

namespace mlipc::passes {

namespace {

// The float32 scalar constant `v` holds, if it is one whose broadcast
// leaves a tensor of rank `rank` unchanged.
bool scalar_is(const Graph& g, ValueId v, float want, size_t rank) {
  if (v == kNoValue) return false;  // no such operand: not the pattern's node
  const Value& c = g.value(v);
  if (!c.is_constant() || c.dtype != DType::Float32 || numel(c.shape) != 1 || c.shape.size() > rank) return false;
  return c.constant->data<float>()[0] == want;
}

// Walks the pattern over the graph; `parts` collects the matched nodes.
struct Matcher {
  const Graph& g;
  const std::vector<std::vector<int>>& consumers;
  const std::vector<int>& producers;
  const std::vector<bool>& dead;
  size_t rank = 0;
  std::vector<int> parts;
  int front = -1;  // the node that reads x first on the way to Erf or Tanh: where the Gelu goes

  bool plain(const Node& n, const char* op, size_t inputs) const {
    return n.op == op && n.inputs.size() == inputs && n.outputs.size() == 1 && !n.attrs.has("activation");
  }

  // The node reading v, when v is read by that node alone (not a graph output).
  const Node* sole_reader(ValueId v) {
    if (v == kNoValue || consumers[v].size() != 1 || g.is_graph_output(v)) return nullptr;
    const int k = consumers[v][0];
    if (dead[static_cast<size_t>(k)]) return nullptr;
    parts.push_back(k);
    return &g.nodes[static_cast<size_t>(k)];
  }

  // The node writing v, when that node's only reader is the pattern's next node.
  const Node* sole_producer(ValueId v) {
    if (v == kNoValue || consumers[v].size() != 1 || g.is_graph_output(v) || producers[v] < 0) return nullptr;
    const int k = producers[v];
    if (dead[static_cast<size_t>(k)]) return nullptr;
    parts.push_back(k);
    return &g.nodes[static_cast<size_t>(k)];
  }

  // The operand of a two-input `op` node that is not `v`, or kNoValue.
  ValueId other(const Node* n, const char* op, ValueId v) const {
    if (!n || !plain(*n, op, 2)) return kNoValue;
    if (n->inputs[0] == v) return n->inputs[1];
    if (n->inputs[1] == v) return n->inputs[0];
    return kNoValue;
  }

  // The non-constant operand of a two-input `op` node whose other operand is the scalar `c`, or kNoValue.
  ValueId by_scalar(const Node* n, const char* op, float c) const {
    if (!n || !plain(*n, op, 2)) return kNoValue;
    if (scalar_is(g, n->inputs[1], c, rank)) return n->inputs[0];
    if (scalar_is(g, n->inputs[0], c, rank)) return n->inputs[1];
    return kNoValue;
  }

  // Erf's input d = x / sqrt 2 (Div, or Mul by 1/sqrt 2): x, or kNoValue.
  ValueId erf_front(const Node& erf) {
    const Node* d = sole_producer(erf.inputs[0]);
    if (!d) return kNoValue;
    front = parts.back();
    if (plain(*d, "Div", 2) && scalar_is(g, d->inputs[1], 1.41421354f, rank)) return d->inputs[0];
    return by_scalar(d, "Mul", 0.707106769f);
  }

  // Tanh's input u = (x + 0.044715 x^3) sqrt(2/pi): x, or kNoValue.
  ValueId tanh_front(const Node& tanh) {
    const ValueId a = by_scalar(sole_producer(tanh.inputs[0]), "Mul", 0.797884583f);
    const Node* add = sole_producer(a);
    if (!add || !plain(*add, "Add", 2)) return kNoValue;
    const size_t mark = parts.size();
    for (int side = 0; side < 2; ++side) {  // which of the Add's operands is 0.044715 x^3
      parts.resize(mark);
      const ValueId x = add->inputs[static_cast<size_t>(1 - side)];
      const ValueId c = by_scalar(sole_producer(add->inputs[static_cast<size_t>(side)]), "Mul", 0.044715f);
      if (c != kNoValue && is_cube(c, x)) return x;
    }
    return kNoValue;
  }

  // c = x^3: Pow(x, 3), or Mul(x, Mul(x, x)) with either Mul's operands in either order.
  bool is_cube(ValueId c, ValueId x) {
    const Node* p = sole_producer(c);
    if (!p) return false;
    front = parts.back();
    if (plain(*p, "Pow", 2)) return p->inputs[0] == x && scalar_is(g, p->inputs[1], 3.0f, rank);
    const ValueId q = other(p, "Mul", x);
    if (q == kNoValue) return false;
    const Node* sq = sole_producer(q);
    if (sq) front = parts.back();
    return sq && plain(*sq, "Mul", 2) && sq->inputs[0] == x && sq->inputs[1] == x;
  }

  // From f = Erf(.) or Tanh(.): s = Add(f, 1), then Mul(x, s) and Mul(., 0.5), or Mul(x, 0.5) and Mul(., s).
  // The last Mul, or nullptr.
  const Node* tail(ValueId f, ValueId x) {
    const Node* add = sole_reader(f);
    if (!add || !scalar_is(g, other(add, "Add", f), 1.0f, rank)) return nullptr;
    const ValueId s = add->outputs[0];
    const Node* first = sole_reader(s);
    if (other(first, "Mul", s) == x) {
      const Node* last = sole_reader(first->outputs[0]);
      return scalar_is(g, other(last, "Mul", first->outputs[0]), 0.5f, rank) ? last : nullptr;
    }
    const Node* half = sole_producer(other(first, "Mul", s));
    return half && by_scalar(half, "Mul", 0.5f) == x ? first : nullptr;
  }
};

}  // namespace

void fuse_gelu(Graph& g) {
  const auto consumers = g.consumers();
  const auto producers = g.producers();
  std::vector<bool> dead(g.nodes.size(), false);
  std::vector<std::pair<size_t, Node>> fused;  // where each Gelu goes
  for (size_t fi = 0; fi < g.nodes.size(); ++fi) {
    const Node& f = g.nodes[fi];
    const bool erf = f.op == "Erf";
    if (dead[fi] || (!erf && f.op != "Tanh") || f.inputs.size() != 1 || f.outputs.size() != 1) continue;
    const Value& fv = g.value(f.inputs[0]);
    if (fv.dtype != DType::Float32) continue;
    Matcher m{g, consumers, producers, dead, fv.shape.size(), {static_cast<int>(fi)}};
    const ValueId x = erf ? m.erf_front(f) : m.tanh_front(f);
    if (x == kNoValue || g.value(x).dtype != DType::Float32 || g.value(x).shape != fv.shape) continue;
    const Node* last = m.tail(f.outputs[0], x);
    if (!last || g.value(last->outputs[0]).shape != fv.shape) continue;
    // The Gelu takes the front node's place (x exists there; its output is
    // read only after the last node's place, which comes later) and name.
    Node gelu;
    gelu.op = "Gelu";
    gelu.name = g.nodes[static_cast<size_t>(m.front)].name;
    gelu.inputs = {x};
    gelu.outputs = last->outputs;
    gelu.attrs.set("approximate", std::string(erf ? "none" : "tanh"));
    std::sort(m.parts.begin(), m.parts.end());
    for (int k : m.parts) {
      const Node& n = g.nodes[static_cast<size_t>(k)];
      gelu.origins.insert(gelu.origins.end(), n.origins.begin(), n.origins.end());
      dead[static_cast<size_t>(k)] = true;
    }
    fused.emplace_back(static_cast<size_t>(m.front), std::move(gelu));
  }
  for (auto& [at, gelu] : fused) {
    g.nodes[at] = std::move(gelu);
    dead[at] = false;
  }
  g.erase_nodes(dead);
}

}  // namespace mlipc::passes
