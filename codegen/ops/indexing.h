// Index rules shared by the gather and scatter operators' shape rules,
// reference kernels and C kernels.
#pragma once

#include "ir/graph.h"
#include "support/error.h"

namespace mlipc::ops {

// An index in [-dim, dim) made non-negative; throws (naming `what`) otherwise.
inline int64_t wrap_index(int64_t i, int64_t dim, const char* what = "index") {
  if (i < -dim || i >= dim)
    fail("{} {} is out of range for an axis of size {} (allowed: [{}, {}])", what, i, dim, -dim, dim - 1);
  return i < 0 ? i + dim : i;
}

// GatherElements / ScatterElements: `indices` has the rank of `data` and is
// no larger on every axis but `axis` (normalized and returned).
int elements_axis(const Attrs& attrs, const Shape& data, const Shape& indices);

// The element offset in `data` of each position of `indices` with the axis
// coordinate left out (axis stride 0), in row-major order of `indices`: the
// loop strides that GatherElements / ScatterElements walk.
std::vector<int64_t> elements_strides(const Shape& data, int axis);

// ScatterElements / ScatterND `reduction`.
enum class Reduction { None, Add, Mul, Max, Min };
Reduction reduction_of(const Attrs& attrs, DType data);
// y = reduce(y, u) for one element, as the C kernels compute it (integers
// wrap around; max/min propagate NaN).
template <class T>
T reduce_one(Reduction r, T y, T u);

}  // namespace mlipc::ops
