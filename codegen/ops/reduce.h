// The Reduce* family (Max, Min, Sum, Prod, L1, L2, LogSum, LogSumExp,
// SumSquare, Mean): what each computes, and the loop structure shared by the
// reference and the C kernel: the kept axes outside (in order, so the output
// is written sequentially), the reduced axes inside, each with its stride in
// the input.
//
// Summation order (the reference's and the kernel's): every output folds its
// elements one at a time in row-major order of the reduced axes, into one
// accumulator (of the input's type for float32 and float64; for integers the
// input type, or its unsigned twin where the sum may wrap). LogSumExp makes
// two passes in that order: the maximum, then the sum of exp(x - max).
// Merging adjacent axes into one loop does not change that order.
#pragma once

#include <string_view>

#include "ir/attrs.h"
#include "ir/tensor_data.h"

namespace mlipc::ops {

enum class ReduceKind { Max, Min, Sum, Prod, L1, L2, LogSum, LogSumExp, SumSquare, Mean };

// "ReduceSum" -> ReduceKind::Sum; throws for other names.
ReduceKind reduce_kind(std::string_view op);
// Whether the kind is defined on integer tensors here (Sum, Prod, Max, Min,
// L1, SumSquare); the others are float only.
bool reduce_allows_integers(ReduceKind k);

struct ReduceLoops {
  Shape kept_dims, reduced_dims;  // simplified: size-1 axes dropped, contiguous ones merged
  std::vector<int64_t> kept_strides, reduced_strides;
  int64_t count = 1;              // elements folded into each output
  Shape out;
};

// The opset-18 form every Reduce* node has after frontend/opset.cpp: `axes`
// as optional input #1 (nullptr when omitted), `keepdims` (default 1) and
// `noop_with_empty_axes` (default 0). No or empty axes means every axis, or
// none with noop_with_empty_axes = 1 (then each output folds one element).
// Throws on an out-of-range or repeated axis.
ReduceLoops reduce_loops(const Attrs& attrs, const Shape& in, const TensorData* axes);
// The same from a list of axes (negative ones count from the end).
ReduceLoops reduce_loops(const Shape& in, const std::vector<int64_t>& axes, bool keepdims, bool noop_with_empty_axes);

// Calls f(offset) for every index of a loop nest, in row-major order.
template <class F>
void walk_loops(const Shape& dims, const std::vector<int64_t>& strides, F&& f) {
  const int64_t n = numel(dims);
  std::vector<int64_t> idx(dims.size(), 0);
  int64_t off = 0;
  for (int64_t i = 0; i < n; ++i) {
    f(off);
    for (size_t d = dims.size(); d-- > 0;) {
      if (++idx[d] < dims[d]) {
        off += strides[d];
        break;
      }
      off -= strides[d] * (dims[d] - 1);
      idx[d] = 0;
    }
  }
}

}  // namespace mlipc::ops
