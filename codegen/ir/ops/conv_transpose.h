// ConvTranspose geometry: kernel, strides, dilations, pads, output_padding,
// output_shape and auto_pad resolved into explicit begin pads and output
// extents. The shape rule stores the resolved form (pads, output_padding; no
// auto_pad, no output_shape), and resolving that form again is the identity,
// so the reference kernel and the C kernel read the same numbers.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/attrs.h"
#include "ir/ops/spatial.h"

namespace mlipc::ops {

struct TransposeGeometry {
  std::vector<int64_t> in, kernel, strides, dilations, output_padding, out;
  // ONNX order (begins, then ends). A pad may be negative when output_shape
  // asks for more cells than the kernel reaches: those cells hold the bias only.
  std::vector<int64_t> pads;
};

// Reads and checks the attributes for input spatial extents `in` and weight
// spatial extents `kernel` (W's shape from axis 2).
TransposeGeometry resolve_transpose_geometry(const Attrs& attrs, const std::vector<int64_t>& in,
                                             const std::vector<int64_t>& kernel);

// The geometry as depth, height, width with leading size-1 axes (as Conv's).
Geometry3 transpose_to_3d(const TransposeGeometry& g);

// Stores the resolved form in a node's attributes (pads, output_padding,
// group; no auto_pad, no output_shape): what the shape rules keep.
void store_transpose_geometry(Attrs& a, const TransposeGeometry& g, int64_t group);

// The input index output index o reads through tap k on axis `axis` (of
// the 3-D form), or -1: (o + pad_begin - k * dilation) / stride when that
// is whole and inside the input. The reference kernels' gather order.
int64_t transpose_source(const Geometry3& g, int axis, int64_t o, int64_t k);

// The integer ConvTranspose passes/fold_qdq makes of a QDQ ConvTranspose
// (an internal op, ir/ops/qlinear_conv_transpose.cpp): inputs x, x_scale,
// x_zero_point, w ([C, M/group, k...], int8/uint8), w_scale and
// w_zero_point (one value, or one per output channel of a group: the
// weights' axis 1, as onnxruntime's quantizer writes them), y_scale,
// y_zero_point, B (optional int32 bias, one per output channel); the
// attributes and geometry of ConvTranspose. Each output sums (x - x_zp) *
// (w - w_zp) in int32 over the products the float kernel adds, then
// QLinearConv's bias and requantization (include/mlip/requant.h).
inline constexpr const char* kQConvTransposeOp = "mlipc.QLinearConvTranspose";

}  // namespace mlipc::ops
