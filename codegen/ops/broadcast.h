// Numpy (multidirectional) and ONNX unidirectional broadcasting: the shape
// rule, per-input strides with 0 on broadcast axes, and the loop helpers the
// reference kernels (odometer walk) and the C kernels (baked nested loops)
// share, so both read the inputs in the same order.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/tensor_data.h"

namespace mlipc::ops {

// The numpy broadcast of two shapes; throws when a dimension pair is neither
// equal nor has a 1.
Shape broadcast_shapes(const Shape& a, const Shape& b);

// True when `in` broadcasts to `out` without changing `out` (unidirectional:
// Gemm's C, PRelu's slope).
bool broadcasts_to(const Shape& in, const Shape& out);

// Element strides of a row-major tensor of shape `in` read at each axis of
// `out` (rank(out) entries): 0 on axes `in` lacks or has size 1.
// `in` must broadcast to `out`.
std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out);

// Nested loops over an output in row-major order, with the stride of each
// input on each loop. simplify_loops drops size-1 axes and merges adjacent
// axes that are contiguous for every input, so that e.g. [3,4,5] + [5]
// becomes a 2-deep loop and same-shape operands a single loop.
struct Loops {
  Shape dims;                                // loop trip counts, outermost first
  std::vector<std::vector<int64_t>> strides;  // strides[k][d]: input k's stride on loop d
};
Loops simplify_loops(const Shape& out, const std::vector<std::vector<int64_t>>& strides);

// Calls f(o, offs) for every output element in row-major order, where o is
// its flat index and offs[k] the element offset in input k.
template <class F>
void for_each_broadcast(const Shape& out, const std::vector<std::vector<int64_t>>& strides, F&& f) {
  const Loops l = simplify_loops(out, strides);
  const size_t rank = l.dims.size(), k = l.strides.size();
  const int64_t n = numel(out);
  std::vector<int64_t> idx(rank, 0), offs(k, 0);
  for (int64_t o = 0; o < n; ++o) {
    f(o, static_cast<const std::vector<int64_t>&>(offs));
    for (size_t d = rank; d-- > 0;) {  // odometer increment
      if (++idx[d] < l.dims[d]) {
        for (size_t j = 0; j < k; ++j) offs[j] += l.strides[j][d];
        break;
      }
      for (size_t j = 0; j < k; ++j) offs[j] -= l.strides[j][d] * (l.dims[d] - 1);
      idx[d] = 0;
    }
  }
}

}  // namespace mlipc::ops
