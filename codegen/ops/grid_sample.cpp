// GridSample (opset 16): Y[n, c, h, w] samples X[n, c] at the normalized
// position grid[n, h, w] = (x, y) in [-1, 1], with the rules of the ONNX
// reference implementation (which follows PyTorch's grid_sample):
// - denormalize: align_corners = 1 maps -1 and 1 to the centres of the edge
//   pixels, x' = (x + 1) / 2 * (W - 1); align_corners = 0 to their outer
//   edges, x' = ((x + 1) * W - 1) / 2;
// - nearest rounds x' half to even (rintf) first;
// - a coordinate outside [lo, hi] (align_corners: [0, W - 1], else
//   [-0.5, W - 0.5]) is clamped to [0, W - 1] (border) or reflected at lo and
//   hi until inside (reflection); zeros leaves it;
// - bilinear interpolates the 2 x 2 pixels around it, bicubic the 4 x 4
//   (Keys, a = -0.75), first along x for each row, then along y, each sum in
//   tap order; a pixel index outside the image reads 0 (zeros), the edge
//   (border) or its reflection (reflection).
// Float32 data and grid, 4-D (the 5-D form is opset 20's).
//
// The grid is a run-time tensor, so the C kernel (templates/kernels/
// grid_sample.c) does this arithmetic at run time: the two write the same
// float operations in the same order and agree bit for bit. Where the
// reference implementation would fail or read garbage, both define the
// result: a NaN coordinate reads as lo (border, reflection) or as far outside
// (zeros: 0); a reflection across a zero-length range (W = 1 with
// align_corners) gives 0.
#include "ops/grid_sample.h"

#include <cmath>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

GridSampleOptions grid_sample_options(const Attrs& a) {
  GridSampleOptions o;
  const std::string mode = a.get_string("mode", "bilinear");
  if (mode == "bilinear") o.mode = GridSampleOptions::Bilinear;
  else if (mode == "nearest") o.mode = GridSampleOptions::Nearest;
  else if (mode == "bicubic") o.mode = GridSampleOptions::Bicubic;
  else fail("mode '{}' is not supported (supported: bilinear, nearest, bicubic)", mode);
  const std::string pad = a.get_string("padding_mode", "zeros");
  if (pad == "zeros") o.padding = GridSampleOptions::Zeros;
  else if (pad == "border") o.padding = GridSampleOptions::Border;
  else if (pad == "reflection") o.padding = GridSampleOptions::Reflection;
  else fail("padding_mode '{}' is not supported (supported: zeros, border, reflection)", pad);
  const int64_t align = a.get_int("align_corners", 0);
  if (align != 0 && align != 1) fail("align_corners is {}; it must be 0 or 1", align);
  o.align_corners = align == 1;
  return o;
}

void infer_GridSample(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  ctx.expect_dtype(0, {DType::Float32});
  ctx.expect_dtype(1, {DType::Float32});
  grid_sample_options(ctx.attrs());
  const Shape& x = ctx.in_shape(0);
  const Shape& grid = ctx.in_shape(1);
  if (x.size() != 4) fail("input X has shape {}; GridSample supports 4-D data [N, C, H, W]", shape_str(x));
  if (grid.size() != 4 || grid[3] != 2 || grid[0] != x[0])
    fail("input grid has shape {}; it must be [N, H_out, W_out, 2] with X's N = {}", shape_str(grid), x[0]);
  if (x[2] < 1 || x[3] < 1) fail("input X has shape {}; H and W must be at least 1", shape_str(x));
  ctx.set_output(0, DType::Float32, {x[0], x[1], grid[1], grid[2]});
}

namespace {

// The arithmetic of one axis of length d, as the C kernel writes it.
struct Axis {
  int32_t d;
  float lo, hi;  // the reflection bounds

  Axis(int64_t len, bool align)
      : d(static_cast<int32_t>(len)),
        lo(align ? 0.0f : -0.5f),
        hi(align ? static_cast<float>(len) - 1.0f : static_cast<float>(len) - 0.5f) {}

  float denormalize(float g, bool align) const {
    if (align) return (g + 1.0f) / 2.0f * static_cast<float>(d - 1);
    return ((g + 1.0f) * static_cast<float>(d) - 1.0f) / 2.0f;
  }

  float reflect(float v) const {
    const float range = hi - lo;
    if (!(range > 0.0f)) return lo;
    if (v < lo) {
      const float dx = lo - v;
      const float k = std::trunc(dx / range);
      const float r = dx - k * range;
      return std::fmod(k, 2.0f) == 0.0f ? lo + r : hi - r;
    }
    if (v > hi) {
      const float dx = v - hi;
      const float k = std::trunc(dx / range);
      const float r = dx - k * range;
      return std::fmod(k, 2.0f) == 0.0f ? hi - r : lo + r;
    }
    return v;
  }

  // The coordinate after the padding rule, inside a range where the taps'
  // indices are small integers (NaN included).
  float pad(float v, GridSampleOptions::Padding padding) const {
    if (padding == GridSampleOptions::Zeros) {
      const float far = static_cast<float>(d) + 3.0f;
      return v >= -4.0f ? (v <= far ? v : far) : -4.0f;
    }
    if (v < lo || v > hi) {
      if (padding == GridSampleOptions::Border) v = v < 0.0f ? 0.0f : (v > static_cast<float>(d - 1) ? static_cast<float>(d - 1) : v);
      else v = reflect(v);
    }
    return v >= lo ? (v <= hi ? v : hi) : lo;
  }

  // The pixel index tap i reads, or -1 for a zero.
  int32_t index(int32_t i, GridSampleOptions::Padding padding) const {
    if (padding == GridSampleOptions::Zeros) return i >= 0 && i < d ? i : -1;
    if (padding == GridSampleOptions::Reflection) i = static_cast<int32_t>(reflect(static_cast<float>(i)));
    return i < 0 ? 0 : (i >= d ? d - 1 : i);
  }
};

void cubic_coeffs(float t, float* c) {
  const float a = -0.75f;
  c[0] = ((a * (t + 1.0f) - 5.0f * a) * (t + 1.0f) + 8.0f * a) * (t + 1.0f) - 4.0f * a;
  c[1] = ((a + 2.0f) * t - (a + 3.0f)) * t * t + 1.0f;
  c[2] = ((a + 2.0f) * (1.0f - t) - (a + 3.0f)) * (1.0f - t) * (1.0f - t) + 1.0f;
  c[3] = ((a * (2.0f - t) - 5.0f * a) * (2.0f - t) + 8.0f * a) * (2.0f - t) - 4.0f * a;
}

}  // namespace

void eval_GridSample(EvalContext& ctx) {
  const GridSampleOptions o = grid_sample_options(ctx.attrs());
  const TensorData& xt = ctx.in(0);
  const Shape& xs = xt.shape();
  const float* x = xt.raw_as<float>();
  const float* grid = ctx.in(1).raw_as<float>();
  float* y = ctx.outputs[0].raw_as<float>();
  const Shape& ys = ctx.outputs[0].shape();
  const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], P = ys[2] * ys[3];
  const Axis ax(W, o.align_corners), ay(H, o.align_corners);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t p = 0; p < P; ++p) {
      const float* g = grid + (n * P + p) * 2;
      float fx = ax.denormalize(g[0], o.align_corners), fy = ay.denormalize(g[1], o.align_corners);
      if (o.mode == GridSampleOptions::Nearest) {
        fx = std::rint(fx);
        fy = std::rint(fy);
      }
      fx = ax.pad(fx, o.padding);
      fy = ay.pad(fy, o.padding);
      for (int64_t c = 0; c < C; ++c) {
        const float* plane = x + (n * C + c) * H * W;
        auto pixel = [&](int32_t i, int32_t j) {
          const int32_t r = ay.index(i, o.padding), q = ax.index(j, o.padding);
          return r < 0 || q < 0 ? 0.0f : plane[r * W + q];
        };
        float v;
        if (o.mode == GridSampleOptions::Nearest) {
          v = pixel(static_cast<int32_t>(fy), static_cast<int32_t>(fx));
        } else if (o.mode == GridSampleOptions::Bilinear) {
          const float x0 = std::floor(fx), y0 = std::floor(fy);
          const float tx = fx - x0, ty = fy - y0;
          const int32_t j = static_cast<int32_t>(x0), i = static_cast<int32_t>(y0);
          const float cx0 = 1.0f - tx, cy0 = 1.0f - ty;
          const float r0 = cx0 * pixel(i, j) + tx * pixel(i, j + 1);
          const float r1 = cx0 * pixel(i + 1, j) + tx * pixel(i + 1, j + 1);
          v = cy0 * r0 + ty * r1;
        } else {
          const float x0 = std::floor(fx), y0 = std::floor(fy);
          const int32_t j = static_cast<int32_t>(x0), i = static_cast<int32_t>(y0);
          float cx[4], cy[4], r[4];
          cubic_coeffs(fx - x0, cx);
          cubic_coeffs(fy - y0, cy);
          for (int32_t k = 0; k < 4; ++k)
            r[k] = cx[0] * pixel(i - 1 + k, j - 1) + cx[1] * pixel(i - 1 + k, j) + cx[2] * pixel(i - 1 + k, j + 1) +
                   cx[3] * pixel(i - 1 + k, j + 2);
          v = cy[0] * r[0] + cy[1] * r[1] + cy[2] * r[2] + cy[3] * r[3];
        }
        y[(n * C + c) * P + p] = v;
      }
    }
}

}  // namespace mlipc::ops
