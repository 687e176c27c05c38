// GELU's exact form as ONNX exporters write it (before opset 20's Gelu):
//   d = Div(x, sqrt 2) or Mul(x, 1/sqrt 2), e = Erf(d), s = Add(e, 1),
//   y = Mul(Mul(x, s), 0.5) or Mul(Mul(x, 0.5), s)
// (each binary node's operands in either order) -> y = Gelu(x), one pass
// over x with mlip/kmath_f.h's float-precision erf instead of five. Matched
// by the constants' values: float32 scalars (one element, rank <= x's) of
// exactly sqrt 2 or 1/sqrt 2 as floats, 1 and 0.5; every intermediate read
// by the next node alone and not a graph output; x itself may have other
// readers. The Gelu's bits are mlip_gelu_f's, within the bound
// include/mlip/kmath_f.h states of the five operators' bits.
#include "passes/passes.h"

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

struct Matcher {
  const Graph& g;
  const std::vector<std::vector<int>>& consumers;
  const std::vector<int>& producers;
  const std::vector<bool>& dead;

  // The node reading v, when v is read by that node alone (not a graph output).
  const Node* sole_reader(ValueId v, int* index) const {
    if (consumers[v].size() != 1 || g.is_graph_output(v)) return nullptr;
    *index = consumers[v][0];
    if (dead[static_cast<size_t>(*index)]) return nullptr;
    return &g.nodes[static_cast<size_t>(*index)];
  }

  // The operand of a two-input `op` node that is not `v`, or kNoValue.
  static ValueId other(const Node& n, const char* op, ValueId v) {
    if (n.op != op || n.inputs.size() != 2 || n.outputs.size() != 1 || n.attrs.has("activation")) return kNoValue;
    if (n.inputs[0] == v) return n.inputs[1];
    if (n.inputs[1] == v) return n.inputs[0];
    return kNoValue;
  }
};

}  // namespace

void fuse_gelu(Graph& g) {
  const auto consumers = g.consumers();
  const auto producers = g.producers();
  std::vector<bool> dead(g.nodes.size(), false);
  const Matcher m{g, consumers, producers, dead};
  for (size_t di = 0; di < g.nodes.size(); ++di) {
    const Node& div = g.nodes[di];
    if (dead[di] || (div.op != "Div" && div.op != "Mul") || div.inputs.size() != 2 || div.outputs.size() != 1 ||
        div.attrs.has("activation"))
      continue;
    const ValueId x = div.inputs[0];
    const Value& xv = g.value(x);
    if (xv.dtype != DType::Float32 || g.value(div.outputs[0]).shape != xv.shape) continue;
    const size_t rank = xv.shape.size();
    const bool scaled = (div.op == "Div" && scalar_is(g, div.inputs[1], 1.41421354f, rank)) ||
                        (div.op == "Mul" && scalar_is(g, div.inputs[1], 0.707106769f, rank));
    if (!scaled) continue;
    int ei = -1, ai = -1, m1 = -1, m2 = -1;
    const Node* erf = m.sole_reader(div.outputs[0], &ei);
    if (!erf || erf->op != "Erf" || erf->outputs.size() != 1) continue;
    const Node* add = m.sole_reader(erf->outputs[0], &ai);
    if (!add || !scalar_is(g, Matcher::other(*add, "Add", erf->outputs[0]), 1.0f, rank)) continue;
    const ValueId s = add->outputs[0];
    // Mul(x, s) then Mul(., 0.5), or Mul(x, 0.5) then Mul(., s).
    const Node* last = nullptr;
    const Node* first = m.sole_reader(s, &m1);
    if (first && Matcher::other(*first, "Mul", s) == x) {
      last = m.sole_reader(first->outputs[0], &m2);
      if (last && !scalar_is(g, Matcher::other(*last, "Mul", first->outputs[0]), 0.5f, rank)) last = nullptr;
    } else if (first) {
      const ValueId h = Matcher::other(*first, "Mul", s);
      const int hp = h == kNoValue ? -1 : producers[h];
      if (hp < 0 || dead[static_cast<size_t>(hp)] || consumers[h].size() != 1 || g.is_graph_output(h)) continue;
      const Node& half = g.nodes[static_cast<size_t>(hp)];
      if (!scalar_is(g, Matcher::other(half, "Mul", x), 0.5f, rank) || half.outputs[0] != h) continue;
      last = first;
      m2 = m1;
      m1 = hp;
    }
    if (!last || g.value(last->outputs[0]).shape != xv.shape) continue;
    // The Gelu takes the Div's place (x exists there; its output is read
    // only after the last Mul's place, which comes later).
    Node gelu;
    gelu.op = "Gelu";
    gelu.name = div.name;
    gelu.inputs = {x};
    gelu.outputs = last->outputs;
    gelu.attrs.set("approximate", std::string("none"));
    for (int k : {static_cast<int>(di), ei, ai, m1, m2}) {
      const Node& n = g.nodes[static_cast<size_t>(k)];
      gelu.origins.insert(gelu.origins.end(), n.origins.begin(), n.origins.end());
    }
    for (int k : {ei, ai, m1, m2}) dead[static_cast<size_t>(k)] = true;
    g.nodes[di] = std::move(gelu);
  }
  g.erase_nodes(dead);
}

}  // namespace mlipc::passes
