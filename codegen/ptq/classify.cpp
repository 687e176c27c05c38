#include "ptq/classify.h"

#include <algorithm>

#include <fmt/format.h>

#include "ops/op.h"

namespace mlipc::ptq {

namespace {

bool compute_class(QdqFold f) {
  return f == QdqFold::Conv || f == QdqFold::Dense || f == QdqFold::Binary || f == QdqFold::AveragePool ||
         f == QdqFold::GlobalAveragePool || f == QdqFold::Concat || f == QdqFold::Table;
}

// Whether n's weights are a constant (fold_qdq folds a product on them).
bool constant_weights(const Graph& g, const Node& n) {
  const int8_t w = op_traits(n.op).weight;
  return w >= 0 && n.has_input(static_cast<size_t>(w)) && !computed(g, n.inputs[static_cast<size_t>(w)]);
}

bool bracketed(const std::string& op) { return op == "LSTM" || op == "GRU"; }

// A bracketed layer: float X and Y, computed X, no other output read.
std::string bracketed_reason(const Graph& g, const Node& n) {
  if (n.outputs.empty() || !is_f32(g, n.outputs[0])) return "its output Y is not float32";
  for (size_t k = 1; k < n.outputs.size(); ++k) {
    const ValueId v = n.outputs[k];
    if (v == kNoValue) continue;
    bool read = g.is_graph_output(v);
    for (const Node& m : g.nodes) read = read || std::find(m.inputs.begin(), m.inputs.end(), v) != m.inputs.end();
    if (read) return "its Y_h or Y_c is read";
  }
  if (n.inputs.empty() || !is_f32(g, n.inputs[0]) || !computed(g, n.inputs[0])) return "its X is not a computed float32";
  return "";
}

}  // namespace

std::string candidate_reason(const Graph& g, const Node& n) {
  const std::string& op = n.op;
  if (bracketed(op)) return bracketed_reason(g, n);
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
    l.kind = bracketed(n.op) ? Kind::Bracketed : t.qdq == QdqFold::SameScale ? Kind::SameScale : Kind::Compute;
    l.rearranges = t.rearranges;
    l.out = n.outputs[0];
    // A Relu or Clip (constant bounds) that alone reads the output rides
    // inside the pair; not after a MatMul of two computed operands, which
    // fold_qdq folds without a clamp.
    const bool fuses = l.kind != Kind::Bracketed && t.qdq_absorbs_clamp && (t.qdq != QdqFold::Dense || constant_weights(g, n));
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

}  // namespace mlipc::ptq
