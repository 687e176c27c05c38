#include "ir/graph.h"

#include <algorithm>

#include <fmt/format.h>

#include "support/error.h"

namespace mlipc {

std::string Node::describe() const { return fmt::format("node '{}' ({})", name, op); }

ValueId Graph::add_value(const std::string& name, DType dtype) {
  if (by_name_.count(name)) fail("internal: value '{}' defined twice", name);
  ValueId id = static_cast<ValueId>(values_.size());
  Value v;
  v.name = name;
  v.dtype = dtype;
  values_.push_back(std::move(v));
  by_name_[name] = id;
  return id;
}

ValueId Graph::add_constant(const std::string& base, TensorData data) {
  ValueId id = add_value(unique_name(base), data.dtype());
  set_constant(id, std::move(data));
  return id;
}

void Graph::set_constant(ValueId id, TensorData data) {
  Value& v = value(id);
  v.dtype = data.dtype();
  v.shape = data.shape();
  v.shape_known = true;
  v.constant = std::make_shared<const TensorData>(std::move(data));
}

ValueId Graph::find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? kNoValue : it->second;
}

std::string Graph::unique_name(const std::string& base) const {
  if (!by_name_.count(base)) return base;
  for (int k = 1;; ++k) {
    std::string n = fmt::format("{}_{}", base, k);
    if (!by_name_.count(n)) return n;
  }
}

std::vector<std::vector<int>> Graph::consumers() const {
  std::vector<std::vector<int>> c(values_.size());
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n)
    for (ValueId in : nodes[n].inputs)
      if (in != kNoValue && (c[in].empty() || c[in].back() != n)) c[in].push_back(n);
  return c;
}

std::vector<int> Graph::producers() const {
  std::vector<int> p(values_.size(), -1);
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n)
    for (ValueId out : nodes[n].outputs)
      if (out != kNoValue) p[out] = n;
  return p;
}

bool Graph::is_graph_output(ValueId id) const {
  return std::any_of(outputs.begin(), outputs.end(), [&](const GraphIO& o) { return o.value == id; });
}

bool Graph::is_graph_input(ValueId id) const {
  return std::any_of(inputs.begin(), inputs.end(), [&](const GraphIO& o) { return o.value == id; });
}

void Graph::replace_uses(ValueId from, ValueId to) {
  for (Node& n : nodes)
    for (ValueId& in : n.inputs)
      if (in == from) in = to;
}

void Graph::erase_nodes(const std::vector<bool>& dead) {
  std::vector<Node> kept;
  kept.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i)
    if (!dead[i]) kept.push_back(std::move(nodes[i]));
  nodes = std::move(kept);
}

void Graph::remove_dead_nodes() {
  std::vector<bool> live_value(values_.size(), false);
  for (const GraphIO& o : outputs) live_value[o.value] = true;
  std::vector<bool> dead(nodes.size(), true);
  for (int n = static_cast<int>(nodes.size()) - 1; n >= 0; --n) {
    bool live = false;
    for (ValueId out : nodes[n].outputs) live = live || (out != kNoValue && live_value[out]);
    if (!live) continue;
    dead[n] = false;
    for (ValueId in : nodes[n].inputs)
      if (in != kNoValue) live_value[in] = true;
  }
  erase_nodes(dead);
}

std::string graph_to_text(const Graph& g) {
  auto val = [&](ValueId id) -> std::string {
    if (id == kNoValue) return "<none>";
    const Value& v = g.value(id);
    return fmt::format("%{}: {}{}{}", v.name, dtype_name(v.dtype), shape_str(v.shape), v.is_constant() ? " const" : "");
  };
  std::string s = fmt::format("graph {} (opset {})\n", g.model_name, g.opset);
  for (const GraphIO& io : g.inputs) s += fmt::format("  input  {} = {}\n", io.name, val(io.value));
  for (const GraphIO& io : g.outputs) s += fmt::format("  output {} = {}\n", io.name, val(io.value));
  for (const Node& n : g.nodes) {
    s += fmt::format("  node {} {}\n", n.name, n.op);
    for (ValueId in : n.inputs) s += fmt::format("    in  {}\n", val(in));
    for (ValueId out : n.outputs) s += fmt::format("    out {}\n", val(out));
    for (const auto& [k, v] : n.attrs.all()) s += fmt::format("    attr {} = {}\n", k, attr_str(v));
    for (const std::string& o : n.origins) s += fmt::format("    from {}\n", o);
  }
  return s;
}

}  // namespace mlipc
