// MatMul's numpy semantics, shared by the reference and the C kernel.
#pragma once

#include <vector>

#include "ir/tensor_data.h"

namespace mlipc::ops {

// A [..., M, K] times B [..., K, N] after promoting a 1-D A to [1, K] and a
// 1-D B to [K, 1]; the batch axes broadcast.
struct MatMulDims {
  int64_t m = 1, k = 1, n = 1;
  Shape batch;                          // broadcast batch shape
  std::vector<int64_t> a_batch_stride;  // per batch axis, in elements (0 when broadcast)
  std::vector<int64_t> b_batch_stride;
  Shape out;                            // output shape (the promoted 1s removed again)
};

// Throws when the shapes do not multiply.
MatMulDims matmul_dims(const Shape& a, const Shape& b);

}  // namespace mlipc::ops
