// LayerNormalization's opset-13 decomposition, as exporters write it before
// opset 17 gave the operator:
//   mean = ReduceMean(x) over the last axis, d = Sub(x, mean),
//   var = ReduceMean(Pow(d, 2) or Mul(d, d)), s = Sqrt(Add(var, eps)),
//   n = Div(d, s), then optionally Mul(n, gamma), then optionally Add(., beta)
// -> LayerNormalization(x, gamma or ones, beta) on axis -1 with epsilon eps
// and mlipc_divide = 1 (ops/normalize.h: d / s, as the Div does, not
// d * (1 / s)). Matched by semantics: the reductions by their shapes (x's
// shape with the last axis 1: they reduce the last axis, keeping it), eps a
// float32 scalar constant, gamma and beta float32 constants with one value
// per element of the last axis ([N] or [1, ..., N]), the binary nodes'
// operands in either order where the operator commutes; every
// intermediate read by the pattern alone and not a graph output (d by the
// Pow and the Div). The fused kernel computes the same operations in the
// same order (sequential sums, sum / n, d * d: mlip_powf(d, 2) gives d * d's
// bits wherever d^2 is a normal float), so it gives the decomposition's bits
// (tests/unit/passes/fuse_layer_norm_test.cpp).
#include "passes/passes.h"

namespace mlipc::passes {

namespace {

bool is_scalar_const(const Graph& g, ValueId v, size_t rank) {
  if (v == kNoValue) return false;
  const Value& c = g.value(v);
  return c.is_constant() && c.dtype == DType::Float32 && numel(c.shape) == 1 && c.shape.size() <= rank;
}

float scalar_of(const Graph& g, ValueId v) { return g.value(v).constant->data<float>()[0]; }

// One value per element of the last axis of a tensor of shape `x`.
bool is_row_const(const Graph& g, ValueId v, const Shape& x) {
  if (v == kNoValue) return false;
  const Value& c = g.value(v);
  if (!c.is_constant() || c.dtype != DType::Float32 || c.shape.empty() || c.shape.size() > x.size()) return false;
  if (c.shape.back() != x.back()) return false;
  for (size_t i = 0; i + 1 < c.shape.size(); ++i)
    if (c.shape[i] != 1) return false;
  return true;
}

struct Ctx {
  const Graph& g;
  const std::vector<std::vector<int>>& consumers;
  const std::vector<bool>& dead;

  // The node reading v, when v is read by it alone and is no graph output.
  int sole_reader(ValueId v) const {
    if (consumers[v].size() != 1 || g.is_graph_output(v)) return -1;
    const int k = consumers[v][0];
    return dead[static_cast<size_t>(k)] ? -1 : k;
  }
  const Node& node(int k) const { return g.nodes[static_cast<size_t>(k)]; }
  bool plain(int k, const char* op, size_t inputs) const {
    const Node& n = node(k);
    return n.op == op && n.inputs.size() == inputs && n.outputs.size() == 1 && !n.attrs.has("activation");
  }
  // A ReduceMean of `in` over the last axis, keeping it: output shape x's with the last axis 1.
  bool reduces_last(int k, ValueId in, const Shape& x) const {
    const Node& n = node(k);
    if (n.op != "ReduceMean" || n.inputs.empty() || n.inputs[0] != in || n.outputs.size() != 1) return false;
    Shape want = x;
    want.back() = 1;
    return g.value(n.outputs[0]).shape == want;
  }
  // The other operand of binary node k, one of whose operands is v (either
  // side when `commutes`, else v must be the first).
  ValueId other(int k, ValueId v, bool commutes) const {
    const Node& n = node(k);
    if (n.inputs[0] == v) return n.inputs[1];
    if (commutes && n.inputs[1] == v) return n.inputs[0];
    return kNoValue;
  }
};

}  // namespace

void fuse_layer_norm(Graph& g) {
  const auto consumers = g.consumers();
  std::vector<bool> dead(g.nodes.size(), false);
  const Ctx c{g, consumers, dead};
  for (size_t ri = 0; ri < g.nodes.size(); ++ri) {
    if (dead[ri] || g.nodes[ri].op != "ReduceMean" || g.nodes[ri].inputs.empty()) continue;
    const ValueId x = g.nodes[ri].inputs[0];
    const Shape xs = g.value(x).shape;
    if (g.value(x).dtype != DType::Float32 || xs.empty() || xs.back() < 2) continue;
    const size_t rank = xs.size();
    if (!c.reduces_last(static_cast<int>(ri), x, xs)) continue;
    const ValueId mean = g.nodes[ri].outputs[0];
    const int si = c.sole_reader(mean);
    if (si < 0 || !c.plain(si, "Sub", 2) || c.node(si).inputs[0] != x || c.node(si).inputs[1] != mean) continue;
    const ValueId d = c.node(si).outputs[0];
    if (g.value(d).shape != xs || consumers[d].size() != 2 || g.is_graph_output(d)) continue;
    // d's two readers: the square and the Div.
    int qi = -1, di = -1;
    for (int k : consumers[d]) {
      if (dead[static_cast<size_t>(k)]) continue;
      const Node& n = c.node(k);
      if (c.plain(k, "Div", 2) && n.inputs[0] == d && n.inputs[1] != d) di = k;
      else if (c.plain(k, "Pow", 2) && n.inputs[0] == d && is_scalar_const(g, n.inputs[1], rank) &&
               scalar_of(g, n.inputs[1]) == 2.0f)
        qi = k;
      else if (c.plain(k, "Mul", 2) && n.inputs[0] == d && n.inputs[1] == d) qi = k;
    }
    if (qi < 0 || di < 0) continue;
    const int vi = c.sole_reader(c.node(qi).outputs[0]);
    if (vi < 0 || !c.reduces_last(vi, c.node(qi).outputs[0], xs)) continue;
    const int ai = c.sole_reader(c.node(vi).outputs[0]);
    if (ai < 0 || !c.plain(ai, "Add", 2)) continue;
    const ValueId eps = c.other(ai, c.node(vi).outputs[0], true);
    if (!is_scalar_const(g, eps, rank)) continue;
    const int qi2 = c.sole_reader(c.node(ai).outputs[0]);
    if (qi2 < 0 || !c.plain(qi2, "Sqrt", 1)) continue;
    const ValueId s = c.node(qi2).outputs[0];
    if (c.sole_reader(s) != di || c.node(di).inputs[1] != s) continue;
    // The affine part, if there is one: Mul by gamma, then Add beta.
    std::vector<int> parts = {static_cast<int>(ri), si, qi, vi, ai, qi2, di};
    ValueId out = c.node(di).outputs[0], gamma = kNoValue, beta = kNoValue;
    int k = c.sole_reader(out);
    if (k >= 0 && c.plain(k, "Mul", 2) && is_row_const(g, c.other(k, out, true), xs) &&
        g.value(c.node(k).outputs[0]).shape == xs) {
      gamma = c.other(k, out, true);
      parts.push_back(k);
      out = c.node(k).outputs[0];
      k = c.sole_reader(out);
    }
    if (k >= 0 && c.plain(k, "Add", 2) && is_row_const(g, c.other(k, out, true), xs) &&
        g.value(c.node(k).outputs[0]).shape == xs) {
      beta = c.other(k, out, true);
      parts.push_back(k);
      out = c.node(k).outputs[0];
    }
    if (gamma == kNoValue)
      gamma = g.add_constant(g.nodes[ri].name + "_ones",
                             TensorData::from<float>({xs.back()}, std::vector<float>(static_cast<size_t>(xs.back()), 1.0f)));
    Node ln;
    ln.op = "LayerNormalization";
    ln.name = g.nodes[ri].name;
    ln.inputs = {x, gamma};
    if (beta != kNoValue) ln.inputs.push_back(beta);
    ln.outputs = {out};
    ln.attrs.set("axis", int64_t{-1});
    ln.attrs.set("epsilon", scalar_of(g, eps));
    ln.attrs.set("mlipc_divide", int64_t{1});
    for (int p : parts) {
      const Node& n = c.node(p);
      ln.origins.insert(ln.origins.end(), n.origins.begin(), n.origins.end());
      dead[static_cast<size_t>(p)] = true;
    }
    // In the first ReduceMean's place: x exists there, and the output is
    // read only after the last part's place.
    dead[ri] = false;
    g.nodes[ri] = std::move(ln);
  }
  g.erase_nodes(dead);
}

}  // namespace mlipc::passes
