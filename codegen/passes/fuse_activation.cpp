#include <set>
#include <string>

#include "ir/activation.h"
#include "passes/passes.h"

namespace mlipc::passes {

namespace {

const std::set<std::string> kProducers = {"Conv", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "BatchNormalization"};

// The activation a node computes, or None when it is not fusable.
Activation activation_node(const Graph& g, const Node& n) {
  Activation a;
  if (g.value(n.inputs[0]).dtype != DType::Float32) return a;
  if (n.op == "Relu") a.kind = Activation::Relu;
  else if (n.op == "Sigmoid") a.kind = Activation::Sigmoid;
  else if (n.op == "Tanh") a.kind = Activation::Tanh;
  else if (n.op == "LeakyRelu") {
    a.kind = Activation::LeakyRelu;
    a.alpha = n.attrs.get_float("alpha", 0.01f);
  } else if (n.op == "Clip") {
    for (size_t i = 1; i < n.inputs.size(); ++i)
      if (n.inputs[i] != kNoValue && !g.value(n.inputs[i]).is_constant()) return a;
    a.kind = Activation::Clip;
    if (n.has_input(1)) a.lo = static_cast<float>(g.value(n.inputs[1]).constant->at(0));
    if (n.has_input(2)) a.hi = static_cast<float>(g.value(n.inputs[2]).constant->at(0));
  }
  return a;
}

}  // namespace

void fuse_activation(Graph& g) {
  auto consumers = g.consumers();
  auto producers = g.producers();
  std::vector<bool> dead(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& act_node = g.nodes[i];
    Activation act = activation_node(g, act_node);
    if (act.kind == Activation::None) continue;
    ValueId x = act_node.inputs[0];
    int pi = producers[x];
    if (pi < 0 || dead[pi] || consumers[x].size() != 1 || g.is_graph_output(x)) continue;
    Node& p = g.nodes[pi];
    if (!kProducers.count(p.op) || p.outputs.size() != 1 || p.attrs.has("activation")) continue;
    if (g.value(p.outputs[0]).dtype != DType::Float32) continue;
    set_activation(p.attrs, act);
    p.outputs[0] = act_node.outputs[0];
    p.origins.insert(p.origins.end(), act_node.origins.begin(), act_node.origins.end());
    dead[i] = true;
  }
  g.erase_nodes(dead);
}

}  // namespace mlipc::passes
