// ReduceMean's loop structure, shared by the reference and the C kernel: the
// kept axes outside (in order, so the output is written sequentially), the
// reduced axes inside, each with its stride in the input.
#pragma once

#include "ir/attrs.h"
#include "ir/tensor_data.h"

namespace mlipc::ops {

struct ReduceLoops {
  Shape kept_dims, reduced_dims;  // simplified: size-1 axes dropped, contiguous ones merged
  std::vector<int64_t> kept_strides, reduced_strides;
  int64_t count = 1;              // elements averaged per output
  Shape out;
};

// Reads `axes` (absent or empty: all axes) and `keepdims` (default 1); throws
// on an out-of-range or repeated axis.
ReduceLoops reduce_loops(const Attrs& attrs, const Shape& in);

}  // namespace mlipc::ops
