#include "memory/schedule.h"

#include <algorithm>
#include <functional>

#include "ops/op.h"
#include "support/error.h"

namespace mlipc::memory {

namespace {

// What the proposals look at: who waits for whom, and the arena bytes each
// node makes and reads.
struct OrderDeps {
  std::vector<std::vector<int>> readers;  // node -> nodes reading one of its outputs (once each)
  std::vector<int> waits;                 // node -> distinct nodes computing its inputs
  std::vector<std::vector<ValueId>> makes;  // node -> arena roots it computes
  std::vector<std::vector<ValueId>> reads;  // node -> distinct arena roots it reads
  std::vector<size_t> bytes;                // per value: its bytes if an arena root, else 0
  std::vector<int> users;                   // per value: nodes reading the root (once each)
};

OrderDeps order_deps(const Graph& g) {
  const size_t n = g.nodes.size();
  OrderDeps d;
  d.readers.resize(n);
  d.waits.assign(n, 0);
  d.makes.resize(n);
  d.reads.resize(n);
  d.bytes.assign(g.num_values(), 0);
  d.users.assign(g.num_values(), 0);
  const std::vector<int> producer = g.producers();
  std::vector<ValueId> root(g.num_values(), kNoValue);
  for (size_t i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    for (ValueId v : node.outputs) {
      if (v == kNoValue) continue;
      if (is_view(node) && node.has_input(0)) {
        root[static_cast<size_t>(v)] = root[static_cast<size_t>(node.inputs[0])];
      } else if (!g.value(v).is_constant() && !g.is_graph_output(v)) {
        root[static_cast<size_t>(v)] = v;
        d.bytes[static_cast<size_t>(v)] = g.value(v).nbytes();
        d.makes[i].push_back(v);
      }
    }
    std::vector<int> from;
    for (ValueId v : node.inputs) {
      if (v == kNoValue) continue;
      const int p = producer[static_cast<size_t>(v)];
      if (p >= 0) from.push_back(p);
      const ValueId r = root[static_cast<size_t>(v)];
      if (r != kNoValue) d.reads[i].push_back(r);
    }
    std::sort(from.begin(), from.end());
    from.erase(std::unique(from.begin(), from.end()), from.end());
    d.waits[i] = static_cast<int>(from.size());
    for (int p : from) d.readers[static_cast<size_t>(p)].push_back(static_cast<int>(i));
    auto& r = d.reads[i];
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    for (ValueId v : r) ++d.users[static_cast<size_t>(v)];
  }
  return d;
}

// A list schedule: each step runs the ready node `pick` prefers.
// pick(ready, scheduled_at, users_left) returns an index into ready.
using OrderPick = std::function<size_t(const std::vector<int>& ready, const std::vector<int>& position,
                                  const std::vector<int>& users_left)>;

std::vector<int> list_schedule(const Graph& g, const OrderDeps& d, const OrderPick& pick) {
  const size_t n = g.nodes.size();
  std::vector<int> waits = d.waits, users_left = d.users, position(n, -1), order, ready;
  for (size_t i = 0; i < n; ++i)
    if (waits[i] == 0) ready.push_back(static_cast<int>(i));
  while (!ready.empty()) {
    const size_t k = pick(ready, position, users_left);
    const int node = ready[k];
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(k));
    position[static_cast<size_t>(node)] = static_cast<int>(order.size());
    order.push_back(node);
    for (ValueId v : d.reads[static_cast<size_t>(node)]) --users_left[static_cast<size_t>(v)];
    for (int r : d.readers[static_cast<size_t>(node)])
      if (--waits[static_cast<size_t>(r)] == 0) ready.push_back(r);
  }
  if (order.size() != n) fail("internal: the graph's nodes have a cycle");
  return order;
}

}  // namespace

std::vector<std::vector<int>> candidate_orders(const Graph& g) {
  const OrderDeps d = order_deps(g);
  const auto producer = g.producers();

  const OrderPick net_bytes = [&](const std::vector<int>& ready, const std::vector<int>&, const std::vector<int>& left) {
    size_t best = 0;
    long long best_net = 0;
    for (size_t k = 0; k < ready.size(); ++k) {
      const size_t i = static_cast<size_t>(ready[k]);
      long long net = 0;
      for (ValueId v : d.makes[i]) net += d.users[static_cast<size_t>(v)] > 0 ? static_cast<long long>(d.bytes[static_cast<size_t>(v)]) : 0;
      for (ValueId v : d.reads[i])
        if (left[static_cast<size_t>(v)] == 1) net -= static_cast<long long>(d.bytes[static_cast<size_t>(v)]);
      if (k == 0 || net < best_net || (net == best_net && ready[k] < ready[best])) {
        best = k;
        best_net = net;
      }
    }
    return best;
  };
  const OrderPick depth_first = [&](const std::vector<int>& ready, const std::vector<int>& position,
                               const std::vector<int>&) {
    size_t best = 0;
    int best_recent = -2;
    for (size_t k = 0; k < ready.size(); ++k) {
      int recent = -1;  // the latest position among the nodes it waited for
      for (ValueId v : g.nodes[static_cast<size_t>(ready[k])].inputs)
        if (v != kNoValue && producer[static_cast<size_t>(v)] >= 0)
          recent = std::max(recent, position[static_cast<size_t>(producer[static_cast<size_t>(v)])]);
      if (recent > best_recent || (recent == best_recent && ready[k] < ready[best])) {
        best = k;
        best_recent = recent;
      }
    }
    return best;
  };

  std::vector<int> source(g.nodes.size());
  for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<int>(i);
  std::vector<std::vector<int>> out;
  for (const OrderPick* p : {&net_bytes, &depth_first}) {
    std::vector<int> order = list_schedule(g, d, *p);
    if (order != source && std::find(out.begin(), out.end(), order) == out.end()) out.push_back(std::move(order));
  }
  return out;
}

bool is_topological(const Graph& g, const std::vector<int>& order) {
  const size_t n = g.nodes.size();
  if (order.size() != n) return false;
  std::vector<int> position(n, -1);
  for (size_t k = 0; k < n; ++k) {
    const int i = order[k];
    if (i < 0 || static_cast<size_t>(i) >= n || position[static_cast<size_t>(i)] >= 0) return false;
    position[static_cast<size_t>(i)] = static_cast<int>(k);
  }
  const auto producer = g.producers();
  for (size_t i = 0; i < n; ++i)
    for (ValueId v : g.nodes[i].inputs)
      if (v != kNoValue && producer[static_cast<size_t>(v)] >= 0 &&
          position[static_cast<size_t>(producer[static_cast<size_t>(v)])] > position[i])
        return false;
  return true;
}

void reorder(Graph& g, const std::vector<int>& order) {
  if (!is_topological(g, order)) fail("internal: a node order that is not a topological order of the graph");
  std::vector<Node> nodes;
  nodes.reserve(order.size());
  for (int i : order) nodes.push_back(std::move(g.nodes[static_cast<size_t>(i)]));
  g.nodes = std::move(nodes);
}

}  // namespace mlipc::memory
