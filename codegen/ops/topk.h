// TopK: the k largest (or smallest) elements along `axis` with their int64
// indices. The order, in the reference and the C kernel alike, is total:
// by value (NaN above every number), equal values by lower index, as
// onnxruntime breaks ties. Outputs are sorted in that order also when
// sorted = 0 (the spec leaves that order open).
#pragma once

#include <cmath>
#include <type_traits>

#include "ir/attrs.h"
#include "ir/tensor_data.h"

namespace mlipc::ops {

struct TopKDims {
  int64_t outer = 1, n = 1, inner = 1, k = 0;
  Shape out;
};

// Reads `axis` (default -1) and checks 0 <= k <= the axis' size.
TopKDims topk_dims(const Attrs& attrs, const Shape& in, const TensorData& k);

// Whether v ranks strictly before w (ties are not "before").
template <class T>
bool topk_before(T v, T w, bool largest) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v) || std::isnan(w)) return largest ? std::isnan(v) && !std::isnan(w) : std::isnan(w) && !std::isnan(v);
  }
  return largest ? v > w : v < w;
}

}  // namespace mlipc::ops
