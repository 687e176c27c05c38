// From the IR schedule to the planner's buffers: which values share bytes
// (views), where each value lives (caller's input/output buffer, constant,
// or the arena), and the live range of every arena buffer.
#pragma once

#include <vector>

#include "ir/graph.h"
#include "memory/planner.h"

namespace mlipc::memory {

struct Storage {
  enum Kind { Unused, Input, Output, Constant, Arena };
  Kind kind = Unused;
  int index = -1;   // graph input/output index, or buffer index for Arena
  ValueId root = kNoValue;  // the value that owns the bytes (itself unless a view)
};

struct Liveness {
  std::vector<Storage> storage;  // per ValueId
  std::vector<Buffer> buffers;   // arena buffers, steps are node indices
  std::vector<ValueId> buffer_root;  // per buffer, the value owning it
};

// Requires materialize_outputs to have run (each graph output is computed by
// its own node). Throws Error on an internal inconsistency.
Liveness analyze_liveness(const Graph& g);

}  // namespace mlipc::memory
