// ConvTranspose geometry: kernel, strides, dilations, pads, output_padding,
// output_shape and auto_pad resolved into explicit begin pads and output
// extents. The shape rule stores the resolved form (pads, output_padding; no
// auto_pad, no output_shape), and resolving that form again is the identity,
// so the reference kernel and the C kernel read the same numbers.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/attrs.h"
#include "ops/spatial.h"

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

// The gather loop of both reference kernels, for x [N, C, spatial] and w
// [C, M/group, kernel] with geometry g: for each output element (image n,
// channel m, flat index yi of y), from acc = Acc{}, add(acc, xi, wi, m) for
// each product reaching it (flat indices of x and w), input channels of m's
// group outermost, then the taps kd, kh, kw whose input position
// (transpose_source) exists; then store(yi, m, acc).
template <class Acc, class Add, class Store>
void transpose_gather(const Geometry3& g, int64_t n_batch, int64_t c, int64_t group, int64_t ocg, Add add,
                      Store store) {
  const int64_t icg = c / group, m = ocg * group;
  const int64_t isize = g.in[0] * g.in[1] * g.in[2];
  const int64_t ksize = g.kernel[0] * g.kernel[1] * g.kernel[2];
  const int64_t osize = g.out[0] * g.out[1] * g.out[2];
  for (int64_t n = 0; n < n_batch; ++n)
    for (int64_t oc = 0; oc < m; ++oc) {
      const int64_t grp = oc / ocg, j = oc % ocg;
      for (int64_t od = 0; od < g.out[0]; ++od)
        for (int64_t oh = 0; oh < g.out[1]; ++oh)
          for (int64_t ow = 0; ow < g.out[2]; ++ow) {
            Acc acc{};
            for (int64_t ic = 0; ic < icg; ++ic) {
              const int64_t cin = grp * icg + ic;
              const int64_t xb = (n * c + cin) * isize, wb = (cin * ocg + j) * ksize;
              for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
                const int64_t id = transpose_source(g, 0, od, kd);
                if (id < 0) continue;
                for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
                  const int64_t ih = transpose_source(g, 1, oh, kh);
                  if (ih < 0) continue;
                  for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                    const int64_t iw = transpose_source(g, 2, ow, kw);
                    if (iw < 0) continue;
                    add(acc, xb + (id * g.in[1] + ih) * g.in[2] + iw, wb + (kd * g.kernel[1] + kh) * g.kernel[2] + kw,
                        oc);
                  }
                }
              }
            }
            store((n * m + oc) * osize + (od * g.out[1] + oh) * g.out[2] + ow, oc, acc);
          }
    }
}

// The integer ConvTranspose passes/fold_qdq makes of a QDQ ConvTranspose
// (an internal op, ops/qlinear_conv_transpose.cpp): inputs x, x_scale,
// x_zero_point, w ([C, M/group, k...], int8/uint8), w_scale and
// w_zero_point (one value, or one per output channel of a group: the
// weights' axis 1, as onnxruntime's quantizer writes them), y_scale,
// y_zero_point, B (optional int32 bias, one per output channel); the
// attributes and geometry of ConvTranspose. Each output sums (x - x_zp) *
// (w - w_zp) in int32 over the products the float kernel adds, then
// QLinearConv's bias and requantization (include/mlip/requant.h).
inline constexpr const char* kQConvTransposeOp = "mlipc.QLinearConvTranspose";

}  // namespace mlipc::ops
