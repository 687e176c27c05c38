#include "memory/liveness.h"

#include <algorithm>

#include "ops/op.h"
#include "ops/concat.h"
#include "support/error.h"

namespace mlipc::memory {

std::vector<int> concat_slices(const Graph& g, std::vector<Slice>& slices) {
  std::vector<int> elided;
  const auto producers = g.producers();
  const auto consumers = g.consumers();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.op != "Concat" || n.outputs.size() != 1) continue;
    const Shape& out = g.value(n.outputs[0]).shape;
    const int axis = ops::concat_axis(n.attrs, static_cast<int>(out.size()));
    bool contiguous = true;
    for (int d = 0; d < axis; ++d) contiguous = contiguous && out[static_cast<size_t>(d)] == 1;
    if (!contiguous) continue;
    std::vector<Slice> mine;
    size_t offset = 0;
    bool ok = true;
    for (size_t k = 0; k < n.inputs.size() && ok; ++k) {
      const ValueId v = n.inputs[k];
      const Value& val = g.value(v);
      const size_t bytes = val.nbytes();
      if (bytes == 0) continue;
      const int p = producers[v];
      ok = p >= 0 && !is_view(g.nodes[static_cast<size_t>(p)]) && g.nodes[static_cast<size_t>(p)].op != "Concat" &&
           !val.is_constant() && !g.is_graph_output(v) && consumers[v].size() == 1 &&
           std::count(n.inputs.begin(), n.inputs.end(), v) == 1;
      for (const GraphIO& io : g.inputs) ok = ok && io.value != v;
      mine.push_back({v, n.outputs[0], offset});
      offset += bytes;
    }
    if (!ok || mine.empty()) continue;
    slices.insert(slices.end(), mine.begin(), mine.end());
    elided.push_back(static_cast<int>(i));
  }
  return elided;
}

Liveness analyze_liveness(const Graph& g, const std::vector<InPlace>& in_place, const std::vector<Slice>& slices) {
  Liveness L;
  L.storage.resize(g.num_values());
  const auto producers = g.producers();
  std::vector<const Slice*> slice_of(g.num_values(), nullptr);
  for (const Slice& sl : slices) slice_of[static_cast<size_t>(sl.value)] = &sl;

  // Roots first: every value not produced by a view, and not a slice, owns its bytes.
  for (ValueId v = 0; v < static_cast<ValueId>(g.num_values()); ++v) {
    const Value& val = g.value(v);
    int p = producers[v];
    if ((p >= 0 && is_view(g.nodes[p])) || slice_of[static_cast<size_t>(v)]) continue;
    Storage& s = L.storage[v];
    s.root = v;
    if (val.is_constant()) s.kind = Storage::Constant;
    else if (p >= 0) s.kind = Storage::Arena;  // may become Output below
  }
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    Storage& s = L.storage[g.inputs[i].value];
    s.kind = Storage::Input;
    s.index = static_cast<int>(i);
  }
  // Views take their source's root, in schedule order so chains resolve;
  // slices their whole's, at their offset.
  for (const Slice& sl : slices) {
    const ValueId root = L.storage[sl.of].root;
    if (root == kNoValue || root != sl.of) fail("internal: slice of '{}', which is not a root", g.value(sl.of).name);
    L.storage[sl.value].root = root;
    L.storage[sl.value].offset = sl.offset;
  }
  for (const Node& n : g.nodes) {
    if (!is_view(n)) continue;
    ValueId root = L.storage[n.inputs[0]].root;
    if (root == kNoValue) fail("internal: view {} reads a value with no storage", n.describe());
    L.storage[n.outputs[0]].root = root;
    L.storage[n.outputs[0]].offset = L.storage[n.inputs[0]].offset;
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    ValueId root = L.storage[g.outputs[i].value].root;
    Storage& s = L.storage[root];
    if (s.kind != Storage::Arena)
      fail("internal: graph output '{}' is not computed by its own node", g.outputs[i].name);
    s.kind = Storage::Output;
    s.index = static_cast<int>(i);
  }

  // One buffer per arena root, live from its producer to its last reader.
  std::vector<int> buffer_of(g.num_values(), -1);
  for (ValueId v = 0; v < static_cast<ValueId>(g.num_values()); ++v) {
    Storage& s = L.storage[v];
    if (s.root != v || s.kind != Storage::Arena) continue;
    Buffer b;
    b.name = g.value(v).name;
    b.size = g.value(v).nbytes();
    b.first = b.last = producers[v];
    s.index = static_cast<int>(L.buffers.size());
    buffer_of[v] = s.index;
    L.buffers.push_back(b);
    L.buffer_root.push_back(v);
  }
  for (int step = 0; step < static_cast<int>(g.nodes.size()); ++step)
    for (ValueId in : g.nodes[step].inputs) {
      if (in == kNoValue) continue;
      int b = buffer_of[L.storage[in].root];
      if (b >= 0) L.buffers[b].last = std::max(L.buffers[b].last, step);
    }
  // A whole is live from its first slice's producer.
  for (const Slice& sl : slices) {
    const int b = buffer_of[L.storage[sl.value].root];
    if (b >= 0) L.buffers[b].first = std::min(L.buffers[b].first, producers[sl.value]);
  }
  // In place: the output's buffer merges into the input's, which then lives
  // on to the output's last reader. Merged buffers are dropped below.
  std::vector<int> merged_into(L.buffers.size(), -1);
  auto final_buffer = [&](int b) {
    while (merged_into[static_cast<size_t>(b)] >= 0) b = merged_into[static_cast<size_t>(b)];
    return b;
  };
  for (const InPlace& ip : in_place) {
    if (ip.input == kNoValue || ip.output == kNoValue || L.storage[ip.input].root == kNoValue) continue;
    const int bo = buffer_of[L.storage[ip.output].root];
    int bi = buffer_of[L.storage[ip.input].root];
    if (bi < 0 || bo < 0 || L.storage[ip.output].root != ip.output) continue;
    bi = final_buffer(bi);
    if (bi == bo || merged_into[static_cast<size_t>(bo)] >= 0) continue;
    Buffer& in = L.buffers[static_cast<size_t>(bi)];
    const Buffer& out = L.buffers[static_cast<size_t>(bo)];
    if (in.last != ip.step || out.first != ip.step || in.size != out.size) continue;
    in.last = out.last;  // named after its first tensor still
    merged_into[static_cast<size_t>(bo)] = bi;
  }
  if (!in_place.empty()) {
    std::vector<int> renumber(L.buffers.size(), -1);
    std::vector<Buffer> kept;
    std::vector<ValueId> kept_root;
    for (size_t b = 0; b < L.buffers.size(); ++b)
      if (merged_into[b] < 0) {
        renumber[b] = static_cast<int>(kept.size());
        kept.push_back(L.buffers[b]);
        kept_root.push_back(L.buffer_root[b]);
      }
    for (ValueId v = 0; v < static_cast<ValueId>(g.num_values()); ++v) {
      Storage& st = L.storage[v];
      if (st.root == v && st.kind == Storage::Arena) st.index = renumber[static_cast<size_t>(final_buffer(st.index))];
    }
    L.buffers = std::move(kept);
    L.buffer_root = std::move(kept_root);
  }
  // Views share their root's storage record (kind and index).
  for (ValueId v = 0; v < static_cast<ValueId>(g.num_values()); ++v) {
    Storage& s = L.storage[v];
    if (s.root != kNoValue && s.root != v) {
      ValueId r = s.root;
      s.kind = L.storage[r].kind;
      s.index = L.storage[r].index;
    }
  }
  return L;
}

}  // namespace mlipc::memory
