// Clip's bounds, shared by the reference and the C kernel.
#pragma once

#include "ir/tensor_data.h"

namespace mlipc::ops {

// A constant bound converted to the element type `t` of X. Opset < 11 bounds
// arrive as float32 scalars whatever X is: a float bound is saturated to t's
// range, and rounded inward for integer t (x >= 1.5 is x >= 2) so the
// comparison means the same. Returns false when the bound clips nothing
// (an infinity, or an integer type's limit), so kernels skip it.
bool clip_bound(const TensorData& bound, DType t, bool is_min, TensorData& out);

}  // namespace mlipc::ops
