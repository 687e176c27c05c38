#include "mesh/stage_graph.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>

#include "support/error.h"
#include "support/text.h"

namespace mlipc::mesh {

std::vector<int> node_stages(const Graph& g, const std::vector<int>& node_unit, const std::vector<int>& unit_stage) {
  const size_t n = g.nodes.size();
  const auto consumers = g.consumers();
  const auto producers = g.producers();
  std::vector<int> st(n, -1);
  for (size_t i = 0; i < n; ++i)
    if (node_unit[i] >= 0) st[i] = unit_stage[static_cast<size_t>(node_unit[i])];
  // A node that is no layer of its own (a view) goes with its first reader.
  for (size_t k = n; k-- > 0;) {
    if (st[k] >= 0) continue;
    int m = INT_MAX;
    for (ValueId v : g.nodes[k].outputs)
      if (v != kNoValue)
        for (int c : consumers[static_cast<size_t>(v)])
          if (st[static_cast<size_t>(c)] >= 0) m = std::min(m, st[static_cast<size_t>(c)]);
    if (m != INT_MAX) st[k] = m;
  }
  for (size_t k = 0; k < n; ++k) {
    if (st[k] >= 0) continue;
    int m = 0;
    for (ValueId v : g.nodes[k].inputs)
      if (v != kNoValue && producers[static_cast<size_t>(v)] >= 0) m = std::max(m, st[static_cast<size_t>(producers[static_cast<size_t>(v)])]);
    st[k] = m;
  }
  for (size_t k = 0; k < n; ++k)
    for (ValueId v : g.nodes[k].inputs)
      if (v != kNoValue && producers[static_cast<size_t>(v)] >= 0 && st[static_cast<size_t>(producers[static_cast<size_t>(v)])] > st[k])
        return {};
  return st;
}

std::vector<ValueId> crossing(const Graph& g, const std::vector<int>& st) {
  const auto producers = g.producers();
  std::set<ValueId> out;
  for (size_t k = 0; k < g.nodes.size(); ++k)
    for (ValueId v : g.nodes[k].inputs)
      if (v != kNoValue && producers[static_cast<size_t>(v)] >= 0 && st[static_cast<size_t>(producers[static_cast<size_t>(v)])] < st[k])
        out.insert(v);
  return {out.begin(), out.end()};
}


std::vector<PipeTensor> pipe_tensors(const Graph& g, const std::vector<int>& st, std::vector<ValueId>& values) {
  const auto producers = g.producers();
  const auto consumers = g.consumers();
  std::vector<PipeTensor> tensors;
  auto readers = [&](ValueId v, int after) {
    std::set<int> s;
    for (int c : consumers[static_cast<size_t>(v)])
      if (st[static_cast<size_t>(c)] > after) s.insert(st[static_cast<size_t>(c)]);
    return std::vector<int>(s.begin(), s.end());
  };
  for (const GraphIO& io : g.inputs) {
    PipeTensor t;
    const Value& v = g.value(io.value);
    t.name = io.name;
    t.dtype = v.dtype;
    t.shape = v.shape;
    t.bytes = v.nbytes();
    t.producer = kHost;
    t.consumers = readers(io.value, -1);
    if (t.consumers.empty()) t.consumers = {0};  // read by nothing: the first stage takes it
    tensors.push_back(t);
    values.push_back(io.value);
  }
  std::vector<ValueId> candidates = crossing(g, st);
  for (const GraphIO& io : g.outputs) candidates.push_back(io.value);
  std::set<ValueId> seen;
  // In schedule order of their producers, each once.
  std::vector<std::pair<int, ValueId>> order;
  for (ValueId v : candidates) {
    if (!seen.insert(v).second) continue;
    const int p = producers[static_cast<size_t>(v)];
    if (p < 0)
      fail("--pes: output '{}' is not computed by any node (an input or a constant); such a model runs on one PE only",
           printable(g.value(v).name));
    order.emplace_back(p, v);
  }
  std::sort(order.begin(), order.end());
  for (const auto& [p, v] : order) {
    PipeTensor t;
    const Value& val = g.value(v);
    t.name = val.name;
    for (const GraphIO& io : g.outputs)
      if (io.value == v) t.name = io.name;  // a model output keeps the model's name
    t.dtype = val.dtype;
    t.shape = val.shape;
    t.bytes = val.nbytes();
    t.producer = st[static_cast<size_t>(p)];
    t.consumers = readers(v, t.producer);
    if (g.is_graph_output(v)) t.consumers.push_back(kHost);
    tensors.push_back(t);
    values.push_back(v);
  }
  return tensors;
}

Graph stage_graph(const Graph& g, const std::vector<int>& st, int s, const std::vector<PipeTensor>& tensors,
                  const std::vector<ValueId>& values) {
  Graph out;
  out.opset = g.opset;
  out.model_name = g.model_name;
  out.source_nodes = g.source_nodes;
  out.source_origins = g.source_origins;
  std::map<ValueId, ValueId> map;
  std::map<ValueId, std::string> rename;  // a model output another stage reads arrives under its model name
  for (size_t t = 0; t < tensors.size(); ++t)
    if (tensors[t].producer != s && tensors[t].producer != kHost) rename[values[t]] = tensors[t].name;
  auto value = [&](ValueId v) {
    if (v == kNoValue) return kNoValue;
    auto it = map.find(v);
    if (it != map.end()) return it->second;
    const Value& src = g.value(v);
    const ValueId id = out.add_value(rename.count(v) ? rename[v] : src.name, src.dtype);
    Value& dst = out.value(id);
    dst.shape = src.shape;
    dst.shape_known = src.shape_known;
    dst.constant = src.constant;
    dst.declared_shape = src.declared_shape;
    map[v] = id;
    return id;
  };
  auto graph_io = [&](size_t t, const std::vector<GraphIO>& model_ios) {
    GraphIO io;
    io.name = tensors[t].name;
    io.value = value(values[t]);
    for (const GraphIO& m : model_ios)
      if (m.value == values[t] && m.name == tensors[t].name) {
        io.quantized = m.quantized;
        io.scale = m.scale;
        io.zero_point = m.zero_point;
      }
    return io;
  };
  for (size_t t = 0; t < tensors.size(); ++t)
    if (std::find(tensors[t].consumers.begin(), tensors[t].consumers.end(), s) != tensors[t].consumers.end())
      out.inputs.push_back(graph_io(t, g.inputs));
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    if (st[k] != s) continue;
    Node n = g.nodes[k];
    for (ValueId& v : n.inputs) v = value(v);
    for (ValueId& v : n.outputs) v = value(v);
    out.nodes.push_back(std::move(n));
  }
  for (size_t t = 0; t < tensors.size(); ++t)
    if (tensors[t].producer == s) out.outputs.push_back(graph_io(t, g.outputs));
  return out;
}

}  // namespace mlipc::mesh
