// C array literals for constant tensors, exact for every element type.
#pragma once

#include <string>

#include "ir/tensor_data.h"

namespace mlipc::c {

// "{1.5f, -2.0f, ...}" with a line break every few values; float16 and
// bfloat16 are written as their uint16_t bit patterns.
std::string c_array_literal(const TensorData& t);

}  // namespace mlipc::c
