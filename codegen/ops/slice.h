// Slice's canonical parameters, shared by the reference and the C kernel.
#pragma once

#include "ir/graph.h"

namespace mlipc::ops {

struct SliceParams {
  std::vector<int64_t> start, step;  // per data axis, start already clamped
  Shape out_shape;
};

// From the data shape and the starts/ends/axes/steps tensors (axes and steps
// may be null); throws on inconsistent or out-of-range values.
SliceParams slice_params(const Shape& in, const TensorData& starts, const TensorData& ends, const TensorData* axes,
                         const TensorData* steps);
// The same for a node whose bound inputs are constants (checked by the shape rule).
SliceParams slice_params(const Graph& g, const Node& n);
// True when starts, ends, axes and steps are all constants.
bool slice_bounds_constant(const Graph& g, const Node& n);

}  // namespace mlipc::ops
