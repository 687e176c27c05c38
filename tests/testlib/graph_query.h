// What the pass tests ask of a compiled graph: how many nodes of an
// operator it has, and which node writes a value.
#pragma once

#include <string>

#include "ir/graph.h"

namespace mlipc::test {

inline int count_ops(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.op == op;
  return n;
}

// The node that writes the value named `value`, or nullptr.
inline const Node* producer(const Graph& g, const std::string& value) {
  for (const Node& n : g.nodes)
    for (ValueId v : n.outputs)
      if (v != kNoValue && g.value(v).name == value) return &n;
  return nullptr;
}

}  // namespace mlipc::test
