// Split's canonical part sizes, shared by the reference and the C kernel.
#pragma once

#include "ir/graph.h"

namespace mlipc::ops {

struct SplitParams {
  int axis = 0;
  std::vector<int64_t> sizes;  // one per output, summing to the axis length
};

// From the attributes (`axis`, opset 18's `num_outputs`), the input shape,
// the constant `split` input (null when absent) and the output count.
SplitParams split_params(const Attrs& attrs, const Shape& in, const TensorData* split, int outputs);
// The same for a node whose `split` input, if any, is a constant.
SplitParams split_params(const Graph& g, const Node& n);

}  // namespace mlipc::ops
