// AveragePool: 1-D to 3-D average pooling with strides, pads or auto_pad,
// ceil_mode and count_include_pad. float32 only. (Dilations, which ONNX adds
// in opset 19, use the same geometry and are accepted.)
#include "ops/ops.h"
#include "ops/spatial.h"
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
  const int64_t isize = g.in[0] * g.in[1] * g.in[2];
  const int64_t osize = g.out[0] * g.out[1] * g.out[2];
  const float* x = xt.data<float>();
  float* y = ctx.outputs[0].data<float>();
  for (int64_t p = 0; p < planes; ++p) {
    const float* xp = x + p * isize;
    for (int64_t od = 0; od < g.out[0]; ++od)
      for (int64_t oh = 0; oh < g.out[1]; ++oh)
        for (int64_t ow = 0; ow < g.out[2]; ++ow) {
          float sum = 0.0f;
          int64_t valid = 0, padded = 0;
          for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
            const int64_t id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
            if (id >= g.in[0] + g.pad_end[0]) continue;
            const bool in_d = id >= 0 && id < g.in[0];
            for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
              const int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
              if (ih >= g.in[1] + g.pad_end[1]) continue;
              const bool in_h = ih >= 0 && ih < g.in[1];
              for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                const int64_t iw = ow * g.stride[2] - g.pad_begin[2] + kw * g.dilation[2];
                if (iw >= g.in[2] + g.pad_end[2]) continue;
                ++padded;
                if (in_d && in_h && iw >= 0 && iw < g.in[2]) {
                  sum += xp[(id * g.in[1] + ih) * g.in[2] + iw];
                  ++valid;
                }
              }
            }
          }
          y[p * osize + (od * g.out[1] + oh) * g.out[2] + ow] =
              sum / static_cast<float>(include_pad ? padded : valid);
        }
  }
}

}  // namespace mlipc::ops
