// MaxUnpool's scatter shape: the shape the indices address,
// [N, C, (in - 1) * stride + kernel - pad_begin - pad_end ...]. The output is
// this shape, or output_shape when given (at least as large on every axis,
// the scatter shape's block at the start of each axis, zeros after it).
#pragma once

#include "ir/attrs.h"
#include "ir/tensor_data.h"

namespace mlipc::ops {

// Reads and checks kernel_shape, strides and pads for X of shape `x`.
Shape maxunpool_scatter_shape(const Attrs& attrs, const Shape& x);

}  // namespace mlipc::ops
