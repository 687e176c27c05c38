// RoiAlign's attributes, read once for the shape rule, the reference and the
// C kernel (ops/roi_align.cpp).
#pragma once

#include <cstdint>

#include "ir/attrs.h"

namespace mlipc::ops {

struct RoiAlignOptions {
  bool max = false;         // mode "max" (else "avg")
  bool half_pixel = true;   // coordinate_transformation_mode (opset 10 is output_half_pixel)
  int64_t out_h = 1, out_w = 1;
  int64_t sampling_ratio = 0;  // 0: adaptive, ceil(roi size / output size) per axis
  float spatial_scale = 1.0f;
};

// Throws on attribute values outside the spec's.
RoiAlignOptions roi_align_options(const Attrs& attrs);

// The largest adaptive sampling grid along an axis of the feature map of
// length `len` (sampling_ratio 0): a bigger one, from a roi far larger than
// the map or a non-finite one, is refused at run time rather than looped over.
inline int64_t roi_align_max_grid(int64_t len) { return 4 * len + 16; }

}  // namespace mlipc::ops
