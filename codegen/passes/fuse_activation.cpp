#include <string>

#include "ops/activation.h"
#include "ops/op.h"
#include "passes/passes.h"

namespace mlipc::passes {

namespace {

// The activation a node computes, or None when it is not fusable
// (HardSigmoid, HardSwish and Gelu only with `epilogues`).
Activation activation_node(const Graph& g, const Node& n, bool epilogues) {
  Activation a;
  if (n.inputs.empty() || g.value(n.inputs[0]).dtype != DType::Float32) return a;
  if (n.op == "Relu") a.kind = Activation::Relu;
  else if (n.op == "Sigmoid") a.kind = Activation::Sigmoid;
  else if (n.op == "Tanh") a.kind = Activation::Tanh;
  else if (n.op == "LeakyRelu") {
    a.kind = Activation::LeakyRelu;
    a.alpha = n.attrs.get_float("alpha", 0.01f);
  } else if (epilogues && (n.op == "HardSigmoid" || n.op == "HardSwish")) {
    // The shape rule wrote HardSigmoid's defaults; HardSwish's are the spec's.
    a.kind = n.op == "HardSigmoid" ? Activation::HardSigmoid : Activation::HardSwish;
    a.alpha = n.op == "HardSigmoid" ? n.attrs.get_float("alpha", 0.2f) : 1.0f / 6.0f;
    a.beta = n.op == "HardSigmoid" ? n.attrs.get_float("beta", 0.5f) : 0.5f;
  } else if (epilogues && n.op == "Gelu") {
    a.kind = n.attrs.get_string("approximate", "none") == "tanh" ? Activation::GeluTanh : Activation::Gelu;
  } else if (n.op == "Clip") {
    for (size_t i = 1; i < n.inputs.size(); ++i)
      if (n.inputs[i] != kNoValue && !g.value(n.inputs[i]).is_constant()) return a;
    a.kind = Activation::Clip;
    if (n.has_input(1)) a.lo = static_cast<float>(g.value(n.inputs[1]).constant->at(0));
    if (n.has_input(2)) a.hi = static_cast<float>(g.value(n.inputs[2]).constant->at(0));
  }
  return a;
}

// x * f(x), f Sigmoid or HardSigmoid: Mul(x, f(x)) or Mul(f(x), x), where
// f(x) is read by the Mul alone. Returns the Mul's index and sets `act`
// (Silu, HardSwish), or -1.
int product_of(const Graph& g, const std::vector<std::vector<int>>& consumers, const std::vector<bool>& dead,
               size_t fi, const Activation& f, Activation* act) {
  const Node& fn = g.nodes[fi];
  if (f.kind != Activation::Sigmoid && f.kind != Activation::HardSigmoid) return -1;
  const ValueId x = fn.inputs[0], fx = fn.outputs[0];
  if (consumers[fx].size() != 1 || g.is_graph_output(fx)) return -1;
  const int mi = consumers[fx][0];
  const Node& m = g.nodes[static_cast<size_t>(mi)];
  if (dead[static_cast<size_t>(mi)] || m.op != "Mul" || m.inputs.size() != 2 || m.attrs.has("activation")) return -1;
  if (!((m.inputs[0] == x && m.inputs[1] == fx) || (m.inputs[0] == fx && m.inputs[1] == x))) return -1;
  *act = f;
  act->kind = f.kind == Activation::Sigmoid ? Activation::Silu : Activation::HardSwish;
  return mi;
}

}  // namespace

void fuse_activation(Graph& g, bool epilogues) {
  auto consumers = g.consumers();
  auto producers = g.producers();
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (dead[i]) continue;
    Node& act_node = g.nodes[i];
    Activation act = activation_node(g, act_node, epilogues);
    if (act.kind == Activation::None) continue;
    ValueId x = act_node.inputs[0];
    int pi = producers[x];
    if (pi < 0 || dead[pi] || g.is_graph_output(x)) continue;
    Node& p = g.nodes[pi];
    if (!op_traits(p.op).fuses_activation || p.outputs.size() != 1 || p.attrs.has("activation")) continue;
    // GELU after a Linear (MatMul, Gemm): the other producers' kernels keep
    // it a node of its own (one vectorized pass, ops::eval_Gelu).
    if ((act.kind == Activation::Gelu || act.kind == Activation::GeluTanh) && p.op != "MatMul" && p.op != "Gemm")
      continue;
    if (g.value(p.outputs[0]).dtype != DType::Float32) continue;
    // x read by f(x) and by the product alone: the producer computes x * f(x).
    int mul = -1;
    Activation prod;
    if (epilogues && consumers[x].size() == 2) {
      mul = product_of(g, consumers, dead, i, act, &prod);
      const int other = consumers[x][0] == static_cast<int>(i) ? consumers[x][1] : consumers[x][0];
      if (mul != other) mul = -1;
    }
    if (mul < 0 && consumers[x].size() != 1) continue;
    const Node& last = mul < 0 ? act_node : g.nodes[static_cast<size_t>(mul)];
    set_activation(p.attrs, mul < 0 ? act : prod);
    p.outputs[0] = last.outputs[0];
    p.origins.insert(p.origins.end(), act_node.origins.begin(), act_node.origins.end());
    if (mul >= 0) p.origins.insert(p.origins.end(), last.origins.begin(), last.origins.end());
    dead[i] = true;
    if (mul >= 0) dead[static_cast<size_t>(mul)] = true;
  }
  g.erase_nodes(dead);
}

}  // namespace mlipc::passes
