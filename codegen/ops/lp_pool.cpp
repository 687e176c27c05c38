// LpPool, GlobalLpPool: the p-norm of each window of [N, C, D1 (, D2 (, D3))],
// float32. Window taps are summed in window order (kd, kh, kw) from 0.0f,
// padding taps skipped (they add |0|^p = 0), then the 1/p-th power.
#include "ops/lp_pool.h"

#include <cmath>

#include "ops/ops.h"
#include "ops/window.h"
#include "mlip/kmath.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

const GeometryRules kLpRules{/*dilations=*/true, /*ceil_mode=*/true};

float lp_term(float v, int64_t p) {
  if (p == 1) return std::fabs(v);
  if (p == 2) return v * v;
  return mlip_powf(std::fabs(v), static_cast<float>(p));
}

float lp_root(float sum, int64_t p) {
  if (p == 1) return sum;
  if (p == 2) return std::sqrt(sum);
  return mlip_powf(sum, 1.0f / static_cast<float>(p));
}

void infer_lp(InferContext& ctx, bool global) {
  ctx.expect_inputs(1, 1);
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  ctx.expect_dtype(0, {DType::Float32});
  const Shape& x = ctx.in_shape(0);
  if (x.size() < 3 || x.size() > 2 + kMaxSpatial)
    fail("input X has shape {}; {} supports 1-D to 3-D data: [N, C, D1 (, D2 (, D3))]", shape_str(x),
         global ? "GlobalLpPool" : "LpPool");
  lp_pool_p(ctx.attrs());
  const Geometry g = lp_pool_geometry(ctx.attrs(), spatial_of(x), global);
  if (!global) store_geometry(ctx.attrs(), g, kLpRules);
  Shape out = {x[0], x[1]};
  out.insert(out.end(), g.out.begin(), g.out.end());
  ctx.set_output(0, DType::Float32, out);
}

void eval_lp(EvalContext& ctx, bool global) {
  const TensorData& xt = ctx.in(0);
  const int64_t p = lp_pool_p(ctx.attrs());
  const Geometry3 g = to_3d(lp_pool_geometry(ctx.attrs(), spatial_of(xt.shape()), global));
  const int64_t planes = xt.shape()[0] * xt.shape()[1];
  const int64_t isize = input_plane(g), osize = output_plane(g);
  const float* x = xt.data<float>();
  float* y = ctx.outputs[0].data<float>();
  for (int64_t pl = 0; pl < planes; ++pl) {
    const float* xp = x + pl * isize;
    for_each_output(g, [&](int64_t o, int64_t od, int64_t oh, int64_t ow) {
      float sum = 0.0f;
      for_each_tap(g, od, oh, ow, [&](const WindowTap& t) { sum += lp_term(xp[t.x], p); });
      y[pl * osize + o] = lp_root(sum, p);
    });
  }
}

}  // namespace

int64_t lp_pool_p(const Attrs& attrs) {
  const int64_t p = attrs.get_int("p", 2);
  if (p < 1) fail("attribute p is {}; it must be a positive integer", p);
  return p;
}

Geometry lp_pool_geometry(const Attrs& attrs, const std::vector<int64_t>& in, bool global) {
  if (!global) return resolve_geometry(attrs, in, {}, kLpRules);
  Attrs whole;  // one window over the whole input
  whole.set("kernel_shape", in);
  return resolve_geometry(whole, in, {}, kLpRules);
}

void infer_LpPool(InferContext& ctx) { infer_lp(ctx, false); }
void eval_LpPool(EvalContext& ctx) { eval_lp(ctx, false); }
void infer_GlobalLpPool(InferContext& ctx) { infer_lp(ctx, true); }
void eval_GlobalLpPool(EvalContext& ctx) { eval_lp(ctx, true); }

}  // namespace mlipc::ops
