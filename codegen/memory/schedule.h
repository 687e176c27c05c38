// Memory-aware order of a graph's branches. The source order of an ONNX
// graph is one topological order among many; where the graph branches
// (a residual shortcut, squeeze-excitation, parallel convolutions) another
// may keep fewer bytes live. This module proposes other orders; the backend
// plans the arena for each and keeps the smallest (c/c_backend.cpp), so a
// proposal can only help. Results do not depend on the order: every node
// computes the same bits whichever runs first.
#pragma once

#include <vector>

#include "ir/graph.h"

namespace mlipc::memory {

// Topological orders of g's nodes, each a permutation (position -> node
// index), that differ from the source order and from each other:
// - net bytes: of the nodes ready to run, the one that adds the fewest
//   arena bytes net of what its run frees (its outputs minus the inputs it
//   reads last), ties to the earliest in the source;
// - depth first: the ready node that reads what ran most recently, so a
//   branch runs to its end before the next one starts.
// Arena bytes are the values a non-view node computes that are neither
// graph outputs nor constants; a view shares its source's bytes.
std::vector<std::vector<int>> candidate_orders(const Graph& g);

// Whether `order` is a permutation of g's nodes in which every node comes
// after the nodes computing its inputs.
bool is_topological(const Graph& g, const std::vector<int>& order);

// g's nodes permuted into `order` (a topological order; else Error).
void reorder(Graph& g, const std::vector<int>& order);

}  // namespace mlipc::memory
