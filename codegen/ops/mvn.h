// MeanVarianceNormalization's loops: the reduce family's (ops/reduce.h),
// over `axes` (default [0, 2, 3]); the output has the input's layout.
#pragma once

#include "ops/reduce.h"

namespace mlipc::ops {

// The epsilon ONNX's function adds to the standard deviation.
constexpr float kMvnEpsilon = 1e-9f;

ReduceLoops mvn_loops(const Attrs& attrs, const Shape& x);

}  // namespace mlipc::ops
