// Resize (and Upsample) planned at compile time: for every output index of
// every axis, the input indices it reads and their weights. The reference
// kernel and the C kernel both walk this plan, so they compute the same sums
// in the same order.
#pragma once

#include "ir/graph.h"

namespace mlipc::ops {

enum class ResizeMode { Nearest, Linear, Cubic };

struct ResizeAxis {
  bool resized = false;           // false: output index i reads input index i alone
  int64_t in = 0, out = 0;
  std::vector<int64_t> index;     // out * taps input indices, clamped into [0, in)
  std::vector<float> coeff;       // out * taps weights (linear and cubic)
  std::vector<uint8_t> outside;   // per output index: maps outside the input (tf_crop_and_resize)
};

struct ResizePlan {
  ResizeMode mode = ResizeMode::Nearest;
  int taps = 1;                   // 1 nearest, 2 linear, 4 cubic
  bool extrapolates = false;      // some output index maps outside the input
  float extrapolation_value = 0.0f;
  Shape out_shape;
  std::vector<ResizeAxis> axes;   // one per input axis
};

// A Resize node in opset-11+ form (X, roi, scales, sizes; frontend/opset.cpp
// rewrites opset 10), or an Upsample node (X, scales; asymmetric
// coordinates, nearest rounding down). roi, scales and sizes are the
// constant inputs or null when absent or empty.
ResizePlan resize_plan(const Node& n, const Shape& in, const TensorData* roi, const TensorData* scales,
                       const TensorData* sizes);
// The same for a node whose inputs past X are constants, or whose sizes are
// computed at run time and give the declared output (checked by the shape rule).
ResizePlan resize_plan(const Graph& g, const Node& n);
// True when the node's `sizes` are computed at run time.
bool resize_sizes_at_run_time(const Graph& g, const Node& n);
// The resized axes (opset 18's `axes`, default all), normalized.
std::vector<int> resize_axes(const Node& n, int rank);
// The sizes, along the resized axes, of an output of shape `out`.
TensorData declared_sizes(const Node& n, const Shape& out);

}  // namespace mlipc::ops
