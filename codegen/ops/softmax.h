// Softmax and LogSoftmax view the input as [outer, n, inner] and normalize
// over n: n is dims[axis] (opset >= 13), or everything from `axis` on when
// the frontend marked an opset < 13 node with coerce_2d = 1 (then inner = 1).
#pragma once

#include "ir/attrs.h"
#include "ir/tensor_data.h"

namespace mlipc::ops {

struct SoftmaxDims {
  int64_t outer = 1, n = 1, inner = 1;
};

SoftmaxDims softmax_dims(const Attrs& attrs, const Shape& shape);

}  // namespace mlipc::ops
