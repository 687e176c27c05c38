// ConvInteger and QLinearConv: Conv's geometry (groups, strides, pads or
// auto_pad, dilations; 1-D to 3-D) on int8/uint8 values minus their zero
// points, summed in int32; QLinearConv adds an int32 bias and requantizes
// per output channel (include/mlip/requant.h). Padding taps hold the input
// zero point, i.e. a real 0, so they add nothing and are skipped. What the
// reference (ops/conv_integer.cpp) and the C kernel
// (c/kernels/conv_integer.cpp) both read.
#pragma once

#include <vector>

#include "ops/quant.h"
#include "ops/spatial.h"

namespace mlipc::ops {

// The window geometry, as Conv's (the shape rule stores the explicit form).
Geometry int_conv_geometry(const Attrs& attrs, const Shape& x, const Shape& w);

// QLinearConv's constants: one (q, shift) per output channel (or one for
// all when w_scale is one value).
std::vector<Requant> conv_requant(const TensorData& x_scale, const TensorData& w_scale, const TensorData& y_scale,
                                  RequantMode mode = RequantMode::Fixed);

// The checks QLinearConv's and mlipc.QLinearConvTranspose's shape rules
// share (inputs x, x_scale, x_zero_point, w, w_scale, w_zero_point,
// y_scale, y_zero_point, B): the input count and element types; then, for
// m output channels, the parameters' shapes (w_scale and w_zero_point one
// value or `per_channel` of them, one per `channels`), the bias, and the
// constant scales (positive, finite, multipliers in range).
// allow_16x8: x or y may be int16 (with int8 weights; QLinearConv's 16x8
// form, docs/user-guide.md "16x8 quantization"), the bias int32 or int64.
void expect_qlinear_conv_types(InferContext& ctx, bool allow_16x8 = false);
// Whether a QLinearConv is 16x8 (its x or y int16): it sums in int64 and
// requantizes with mlip_requantize64.
bool qlinear_conv_16x8(const Graph& g, const Node& n);
void expect_qlinear_conv_params(InferContext& ctx, int64_t m, int64_t per_channel, std::string_view channels);

}  // namespace mlipc::ops
