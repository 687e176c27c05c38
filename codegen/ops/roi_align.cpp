// RoiAlign (opsets 10 and 16): for each roi r (x1, y1, x2, y2 in input
// coordinates, scaled by spatial_scale) of image batch_indices[r], each
// output bin (ph, pw) of an output_height x output_width grid over the roi
// pools a grid of bilinear samples, as the ONNX reference implementation
// (and onnxruntime) compute it:
// - half_pixel shifts the scaled roi by -0.5 pixel; output_half_pixel (the
//   only behaviour of opset 10; frontend/opset.cpp sets it) does not, and
//   makes a roi at least 1 x 1;
// - the samples per bin are sampling_ratio x sampling_ratio, or with
//   sampling_ratio 0 ceil(roi height / output_height) x ceil(roi width /
//   output_width), at y = start + ph * bin + (iy + 0.5) * bin / grid;
// - a sample outside [-1, H] x [-1, W] is 0; else it is clamped at 0, and
//   its four neighbours (the last row and column repeated at the edge) get
//   the weights hy * hx, hy * lx, ly * hx and ly * lx;
// - avg: the mean over the samples of w1 v1 + w2 v2 + w3 v3 + w4 v4;
//   max: the maximum over the samples of max(w1 v1, w2 v2, w3 v3, w4 v4),
//   the largest weighted neighbour, not the interpolated value: this is the
//   ONNX reference's (and onnxruntime's) definition, which mlipc follows.
// Float32 arithmetic in the reference's order; the C kernel
// (templates/kernels/roi_align.c) writes the same operations, so the two
// agree bit for bit. rois and batch_indices may be run-time tensors: a batch
// index outside [0, N) and an adaptive sampling grid above
// roi_align_max_grid (a roi far larger than the map, or non-finite) stop the
// run (the C kernel returns MLIP_ERR_INVALID_ARG before writing).
#include "ops/roi_align.h"

#include <cmath>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

RoiAlignOptions roi_align_options(const Attrs& a) {
  RoiAlignOptions o;
  const std::string mode = a.get_string("mode", "avg");
  if (mode != "avg" && mode != "max") fail("mode '{}' is not supported (supported: avg, max)", mode);
  o.max = mode == "max";
  const std::string coord = a.get_string("coordinate_transformation_mode", "half_pixel");
  if (coord != "half_pixel" && coord != "output_half_pixel")
    fail("coordinate_transformation_mode '{}' is not supported (supported: half_pixel, output_half_pixel)", coord);
  o.half_pixel = coord == "half_pixel";
  o.out_h = a.get_int("output_height", 1);
  o.out_w = a.get_int("output_width", 1);
  if (o.out_h < 1 || o.out_w < 1)
    fail("output_height {} and output_width {} must be at least 1", o.out_h, o.out_w);
  o.sampling_ratio = a.get_int("sampling_ratio", 0);
  if (o.sampling_ratio < 0 || o.sampling_ratio > 1024)
    fail("sampling_ratio is {}; it must be 0 (adaptive) or 1 to 1024", o.sampling_ratio);
  o.spatial_scale = a.get_float("spatial_scale", 1.0f);
  return o;
}

void infer_RoiAlign(InferContext& ctx) {
  ctx.expect_inputs(3, 3);
  ctx.expect_dtype(0, {DType::Float32});
  ctx.expect_dtype(1, {DType::Float32});
  ctx.expect_dtype(2, {DType::Int64});
  const RoiAlignOptions o = roi_align_options(ctx.attrs());
  const Shape& x = ctx.in_shape(0);
  const Shape& rois = ctx.in_shape(1);
  const Shape& idx = ctx.in_shape(2);
  if (x.size() != 4) fail("input X has shape {}; RoiAlign takes 4-D data [N, C, H, W]", shape_str(x));
  if (x[2] < 1 || x[3] < 1) fail("input X has shape {}; H and W must be at least 1", shape_str(x));
  if (rois.size() != 2 || rois[1] != 4) fail("input rois has shape {}; it must be [num_rois, 4]", shape_str(rois));
  if (idx.size() != 1 || idx[0] != rois[0])
    fail("input batch_indices has shape {}; it must be [num_rois] = [{}]", shape_str(idx), rois[0]);
  if (const TensorData* b = ctx.in_const(2)) {
    const std::vector<int64_t> v = b->as_int64();
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] < 0 || v[i] >= x[0]) fail("batch_indices[{}] is {}; it must be in [0, {})", i, v[i], x[0]);
  }
  ctx.set_output(0, DType::Float32, {rois[0], x[1], o.out_h, o.out_w});
}

namespace {

// One roi's geometry along one axis, computed as the C kernel does.
struct RoiAxis {
  float start, bin;
  float grid;  // samples per bin, a whole number (<= 0: none)
};

RoiAxis roi_axis(float lo, float hi, const RoiAlignOptions& o, int64_t out) {
  const float offset = o.half_pixel ? 0.5f : 0.0f;
  const float start = lo * o.spatial_scale - offset;
  const float end = hi * o.spatial_scale - offset;
  float size = end - start;
  if (!o.half_pixel) size = 1.0f > size ? 1.0f : size;
  const float bin = size / static_cast<float>(out);
  const float grid = o.sampling_ratio > 0 ? static_cast<float>(o.sampling_ratio) : std::ceil(size / static_cast<float>(out));
  return {start, bin, grid};
}

// The position of sample s of bin b along an axis.
float sample_at(const RoiAxis& a, int64_t b, int64_t s) {
  const float base = a.start + static_cast<float>(b) * a.bin;
  const float step = (static_cast<float>(s) + 0.5f) * a.bin / a.grid;
  return base + step;
}

}  // namespace

void eval_RoiAlign(EvalContext& ctx) {
  const RoiAlignOptions o = roi_align_options(ctx.attrs());
  const Shape& xs = ctx.in(0).shape();
  const float* x = ctx.in(0).raw_as<float>();
  const float* rois = ctx.in(1).raw_as<float>();
  const std::vector<int64_t> batch = ctx.in(2).as_int64();
  float* y = ctx.outputs[0].raw_as<float>();
  const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], R = ctx.in(1).shape()[0];
  for (int64_t r = 0; r < R; ++r) {
    if (batch[r] < 0 || batch[r] >= N) fail("batch_indices[{}] is {}; it must be in [0, {})", r, batch[r], N);
    const float* roi = rois + r * 4;
    const RoiAxis ah = roi_axis(roi[1], roi[3], o, o.out_h), aw = roi_axis(roi[0], roi[2], o, o.out_w);
    if (!(ah.grid <= static_cast<float>(roi_align_max_grid(H))) || !(aw.grid <= static_cast<float>(roi_align_max_grid(W))))
      fail("roi {} ({}, {}, {}, {}) needs a sampling grid of {} x {} per output bin; at most {} x {} (a roi far "
           "larger than the feature map, or not finite)",
           r, roi[0], roi[1], roi[2], roi[3], ah.grid, aw.grid, roi_align_max_grid(H), roi_align_max_grid(W));
    const int64_t gh = ah.grid > 0 ? static_cast<int64_t>(ah.grid) : 0, gw = aw.grid > 0 ? static_cast<int64_t>(aw.grid) : 0;
    const float count = static_cast<float>(gh * gw);
    for (int64_t c = 0; c < C; ++c) {
      const float* plane = x + (batch[r] * C + c) * H * W;
      for (int64_t ph = 0; ph < o.out_h; ++ph)
        for (int64_t pw = 0; pw < o.out_w; ++pw) {
          float acc = 0.0f;
          bool first = true;
          for (int64_t iy = 0; iy < gh; ++iy)
            for (int64_t ix = 0; ix < gw; ++ix) {
              float yy = sample_at(ah, ph, iy), xx = sample_at(aw, pw, ix);
              float val = 0.0f;
              if (yy >= -1.0f && yy <= static_cast<float>(H) && xx >= -1.0f && xx <= static_cast<float>(W)) {
                if (yy < 0.0f) yy = 0.0f;
                if (xx < 0.0f) xx = 0.0f;
                int64_t y0 = static_cast<int64_t>(yy), x0 = static_cast<int64_t>(xx), y1, x1;
                if (y0 >= H - 1) {
                  y0 = y1 = H - 1;
                  yy = static_cast<float>(y0);
                } else {
                  y1 = y0 + 1;
                }
                if (x0 >= W - 1) {
                  x0 = x1 = W - 1;
                  xx = static_cast<float>(x0);
                } else {
                  x1 = x0 + 1;
                }
                const float ly = yy - static_cast<float>(y0), lx = xx - static_cast<float>(x0);
                const float hy = 1.0f - ly, hx = 1.0f - lx;
                const float w1 = hy * hx, w2 = hy * lx, w3 = ly * hx, w4 = ly * lx;
                const float v1 = w1 * plane[y0 * W + x0], v2 = w2 * plane[y0 * W + x1];
                const float v3 = w3 * plane[y1 * W + x0], v4 = w4 * plane[y1 * W + x1];
                if (o.max) {
                  val = v1;
                  if (v2 > val) val = v2;
                  if (v3 > val) val = v3;
                  if (v4 > val) val = v4;
                } else {
                  val = v1 + v2 + v3 + v4;
                }
              }
              if (!o.max) acc = acc + val;
              else if (first || val > acc) acc = val;
              first = false;
            }
          y[((r * C + c) * o.out_h + ph) * o.out_w + pw] = o.max ? acc : (gh > 0 && gw > 0 ? acc / count : 0.0f);
        }
    }
  }
}

}  // namespace mlipc::ops
