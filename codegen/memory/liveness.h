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

// A node whose output may take over the bytes of one of its inputs (an
// elementwise kernel reads each element before it writes the element at the
// same index).
struct InPlace {
  int step = -1;  // the node
  ValueId input = kNoValue, output = kNoValue;
};

// Requires materialize_outputs to have run (each graph output is computed by
// its own node). Each candidate in `in_place` whose input's buffer is read
// last by that node and has the output's size gives the output that buffer
// (in schedule order, so chains share one buffer). Throws Error on an
// internal inconsistency.
Liveness analyze_liveness(const Graph& g, const std::vector<InPlace>& in_place = {});

}  // namespace mlipc::memory
