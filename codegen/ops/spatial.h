// Window geometry shared by Conv and the pooling operators: kernel, strides,
// dilations, pads, auto_pad and ceil_mode, resolved into one explicit form.
// The shape rule resolves a node's attributes once and stores the result
// back (explicit `pads`, no `auto_pad`), so the reference kernel and the C
// kernel read the same numbers; resolving the stored form again is the
// identity.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "ir/attrs.h"

namespace mlipc::ops {

// Largest number of spatial axes the nn kernels handle (1-D, 2-D, 3-D).
constexpr int kMaxSpatial = 3;

struct Geometry {
  std::vector<int64_t> in;         // spatial input extents
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads;       // ONNX order: begin of each axis, then end of each axis
  std::vector<int64_t> out;        // spatial output extents
  bool ceil_mode = false;

  int rank() const { return static_cast<int>(in.size()); }
  int64_t pad_begin(int i) const { return pads[static_cast<size_t>(i)]; }
  int64_t pad_end(int i) const { return pads[in.size() + static_cast<size_t>(i)]; }
};

struct GeometryRules {
  bool dilations = true;  // the operator has a `dilations` attribute
  bool ceil_mode = false; // the operator has a `ceil_mode` attribute
  // Pooling: every pad must be smaller than the (dilated) window, so that no
  // window lies in the padding alone. With dilation 1 this is onnxruntime's
  // "Pad should be smaller than kernel"; auto_pad pads always satisfy it.
  bool pads_below_window = false;
};

// Output extent of one axis. In ceil mode the last window must start inside
// the input or the left padding; a window that would start in the right
// padding is dropped (ONNX, as PyTorch and onnxruntime). Throws when no
// window fits, and when the window or the padded input does not fit in
// int64 (the message gives the operands, never a wrapped value).
int64_t window_output_size(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_begin,
                           int64_t pad_end, bool ceil_mode);

// The {begin, end} pads auto_pad SAME_UPPER (`upper`) or SAME_LOWER gives one
// axis: the output is ceil(in / stride); an odd total puts the extra cell at
// the end for SAME_UPPER and at the beginning for SAME_LOWER.
std::array<int64_t, 2> same_pads(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, bool upper);

// Reads and checks kernel_shape (or takes `kernel` from the weights when the
// attribute is absent and `kernel` is not empty), strides, dilations, pads,
// auto_pad and ceil_mode for an input with spatial extents `in`.
Geometry resolve_geometry(const Attrs& attrs, const std::vector<int64_t>& in, const std::vector<int64_t>& kernel,
                          const GeometryRules& rules);

// Writes the explicit form back: kernel_shape, strides, dilations (when the
// operator has them), pads; removes auto_pad.
void store_geometry(Attrs& attrs, const Geometry& g, const GeometryRules& rules);

// The geometry as three axes (depth, height, width) with leading size-1
// axes, so that one loop nest serves 1-D, 2-D and 3-D.
struct Geometry3 {
  int64_t in[kMaxSpatial], out[kMaxSpatial], kernel[kMaxSpatial], stride[kMaxSpatial], dilation[kMaxSpatial],
      pad_begin[kMaxSpatial], pad_end[kMaxSpatial];
};
Geometry3 to_3d(const Geometry& g);

// The spatial extents of a [N, C, spatial...] shape.
std::vector<int64_t> spatial_of(const std::vector<int64_t>& shape);

}  // namespace mlipc::ops
