// GridSample's attributes, read once for the shape rule, the reference and
// the C kernel (ops/grid_sample.cpp).
#pragma once

#include "ir/attrs.h"

namespace mlipc::ops {

struct GridSampleOptions {
  enum Mode { Bilinear, Nearest, Bicubic } mode = Bilinear;
  enum Padding { Zeros, Border, Reflection } padding = Zeros;
  bool align_corners = false;
};

// Throws on a mode, padding_mode or align_corners outside the spec's values.
GridSampleOptions grid_sample_options(const Attrs& attrs);

}  // namespace mlipc::ops
