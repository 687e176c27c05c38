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
  ValueId root = kNoValue;  // the value that owns the bytes (itself unless a view or a slice)
  size_t offset = 0;        // bytes from the root's first byte (a slice of a Concat's output)
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

// A value written straight into its place in another: an input of a Concat
// whose slices are contiguous, at `offset` bytes into the Concat's output
// (whose node then copies nothing).
struct Slice {
  ValueId value = kNoValue, of = kNoValue;
  size_t offset = 0;
};

// The Concats whose inputs can all be written straight into their output:
// the slices are contiguous (every axis before the concatenated one has
// extent 1) and each non-empty input is computed by a kernel for this Concat
// alone (not a graph input, output or constant, not a view, not read by
// anything else, not another Concat's output, not given twice). Appends their
// slices to `slices` and returns the Concat nodes' indices, which then run
// no code.
std::vector<int> concat_slices(const Graph& g, std::vector<Slice>& slices);

// Requires materialize_outputs to have run (each graph output is computed by
// its own node). Each candidate in `in_place` whose input's buffer is read
// last by that node and has the output's size gives the output that buffer
// (in schedule order, so chains share one buffer). Each slice shares the
// bytes of the value it is part of, whose buffer then lives from the first
// slice's producer. Throws Error on an internal inconsistency.
Liveness analyze_liveness(const Graph& g, const std::vector<InPlace>& in_place = {},
                          const std::vector<Slice>& slices = {});

}  // namespace mlipc::memory
