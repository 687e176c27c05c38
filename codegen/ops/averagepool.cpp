// AveragePool: 1-D to 3-D average pooling with strides, pads or auto_pad,
// ceil_mode and count_include_pad. float32 only. (Dilations, which ONNX adds
// in opset 19, use the same geometry and are accepted.)
#include "ops/ops.h"
#include "ops/spatial.h"
#include "ops/window.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {
const GeometryRules kAveragePoolRules{/*dilations=*/true, /*ceil_mode=*/true, /*pads_below_window=*/true};
}  // namespace

void infer_AveragePool(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  ctx.expect_dtype(0, {DType::Float32});
  const Shape& x = ctx.in_shape(0);
  if (x.size() < 3 || x.size() > 2 + kMaxSpatial)
    fail("input X has shape {}; AveragePool supports 1-D to 3-D data: [N, C, D1 (, D2 (, D3))]", shape_str(x));
  const int64_t cip = ctx.attrs().get_int("count_include_pad", 0);
  if (cip != 0 && cip != 1) fail("attribute count_include_pad is {}; it must be 0 or 1", cip);
  Geometry g = resolve_geometry(ctx.attrs(), spatial_of(x), {}, kAveragePoolRules);
  store_geometry(ctx.attrs(), g, kAveragePoolRules);
  Shape out = {x[0], x[1]};
  out.insert(out.end(), g.out.begin(), g.out.end());
  ctx.set_output(0, DType::Float32, out);
}

// Same loop nest and summation order as templates/kernels/averagepool.c.
// The divisor counts the window's taps inside the input, or with
// count_include_pad also those in the padding; taps beyond the right padding
// (a ceil_mode window) never count.
void eval_AveragePool(EvalContext& ctx) {
  const TensorData& xt = ctx.in(0);
  const Geometry3 g = to_3d(resolve_geometry(ctx.attrs(), spatial_of(xt.shape()), {}, kAveragePoolRules));
  const bool include_pad = ctx.attrs().get_int("count_include_pad", 0) == 1;
  const int64_t planes = xt.shape()[0] * xt.shape()[1];
  const int64_t isize = input_plane(g), osize = output_plane(g);
  const float* x = xt.data<float>();
  float* y = ctx.outputs[0].data<float>();
  for (int64_t p = 0; p < planes; ++p) {
    const float* xp = x + p * isize;
    for_each_output(g, [&](int64_t o, int64_t od, int64_t oh, int64_t ow) {
      float sum = 0.0f;
      int64_t valid = 0, padded = 0;
      for_each_padded_tap(g, od, oh, ow, [&](const WindowTap& t) {
        ++padded;
        if (t.inside) {
          sum += xp[t.x];
          ++valid;
        }
      });
      y[p * osize + o] = sum / static_cast<float>(include_pad ? padded : valid);
    });
  }
}

}  // namespace mlipc::ops
