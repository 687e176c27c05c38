// ArgMax and ArgMin (and Hardmax, the one-hot of ArgMax) view the input as
// [outer, n, inner] around `axis` and pick one index along n per (outer,
// inner). Which element wins, in the reference and the C kernels alike:
// NaN wins over every number (as numpy's argmax/argmin); among equal values
// the first, or the last with select_last_index = 1.
#pragma once

#include <cmath>
#include <type_traits>

#include "ir/attrs.h"
#include "ir/tensor_data.h"

namespace mlipc::ops {

struct ArgDims {
  int axis = 0;
  int64_t outer = 1, n = 1, inner = 1;
  Shape out;  // the output shape for `keepdims`
};

// Reads `axis` (default `default_axis`) and `keepdims` (default 1).
ArgDims arg_dims(const Attrs& attrs, const Shape& in, int64_t default_axis);

// Whether v replaces the current pick `best` (found at a lower index).
template <class T>
bool arg_better(T v, T best, bool max, bool last) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) return last || !std::isnan(best);
    if (std::isnan(best)) return false;
  }
  if (v == best) return last;
  return max ? v > best : v < best;
}

}  // namespace mlipc::ops
