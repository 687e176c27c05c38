// Cast's element conversion, shared by Cast and CastLike.
#pragma once

#include <string_view>

#include "ir/tensor_data.h"

namespace mlipc::ops {

// The element type of a TensorProto.DataType code (Cast's `to`, EyeLike's
// `dtype`, the windows' `output_datatype`); throws naming attribute `attr`
// for string, complex and unknown codes.
DType dtype_of_code(int64_t code, std::string_view attr);

// Converts every element of `x` into `y` (same shape, y's element type) by
// the rules of ops/cast.cpp.
void cast_into(const TensorData& x, TensorData& y);

}  // namespace mlipc::ops
