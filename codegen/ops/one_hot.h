// OneHot's parameters, shared by the reference and the C kernel.
#pragma once

#include "ir/graph.h"

namespace mlipc::ops {

struct OneHotParams {
  int64_t depth = 0;
  int axis = 0;         // of the new axis, in the output
  int64_t outer = 1;    // index elements before the new axis
  int64_t inner = 1;    // and after it
};

// The depth a `depth` tensor holds (one value, truncated); throws when negative.
int64_t one_hot_depth(const TensorData& depth);
OneHotParams one_hot_params(const Attrs& attrs, const Shape& indices, int64_t depth);

}  // namespace mlipc::ops
