// Pad's canonical parameters, read from its constant inputs by the shape
// rule, the reference kernel and the C kernel alike.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/attrs.h"
#include "ir/tensor_data.h"

namespace mlipc::ops {

enum class PadMode { Constant, Reflect, Edge };

struct PadParams {
  PadMode mode = PadMode::Constant;
  // Per input axis: elements added (positive) or cropped (negative) at each end.
  std::vector<int64_t> begin, end;
  // Per input axis: the kept input range [lo, lo + kept) after cropping.
  std::vector<int64_t> lo, kept;
  Shape out_shape;
  TensorData value;  // constant mode: a scalar of the input's element type
};

// Checks and combines the `mode` attribute, the pads input, the optional
// constant_value (cast to `dtype`; a float32 scalar comes from opset < 11
// models) and the optional axes input (nullptr when omitted).
PadParams pad_params(const Attrs& attrs, DType dtype, const Shape& in_shape, const TensorData& pads,
                     const TensorData* value, const TensorData* axes);

// The input index (in the cropped range, 0..kept-1) that output position `j`
// (relative to the cropped range's start, so j < 0 is in the leading pad)
// reads, or -1 for the constant value.
int64_t pad_source(int64_t j, int64_t kept, PadMode mode);

}  // namespace mlipc::ops
