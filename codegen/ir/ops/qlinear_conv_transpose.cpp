// mlipc.QLinearConvTranspose (ir/ops/conv_transpose.h): ConvTranspose on
// int8/uint8 values minus their zero points, summed in int32, with
// QLinearConv's int32 bias and per-channel requantization. Output channel m
// of group g reads weight column j = m % (M / group) of the input channels
// of g, and its weight scale is w_scale[j].
#include "ir/ops/conv_integer.h"
#include "ir/ops/conv_transpose.h"
#include "ir/ops/ops.h"
#include "mlip/requant.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

std::vector<int32_t> zero_points(const EvalContext& ctx, int i) {
  return ctx.has_input(i) ? int32_values(ctx.in(i)) : std::vector<int32_t>(1, 0);
}

// A weight scale or zero point: one value, or one per output channel of a group.
void expect_per_column(const Shape& s, int64_t ocg, std::string_view name) {
  if (numel(s) == 1 && s.size() <= 1) return;
  if (s != Shape{ocg})
    fail("{} has shape {}; it must be one value or one per output channel of a group ([{}], the weights' axis 1)",
         name, shape_str(s), ocg);
}

}  // namespace

void infer_QLinearConvTranspose(InferContext& ctx) {
  ctx.expect_inputs(8, 9);
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  expect_quant_type(ctx, 0, "x");
  expect_quant_type(ctx, 3, "w");
  expect_quant_type(ctx, 7, "y_zero_point");
  expect_same_type(ctx, 2, "x_zero_point", ctx.in_dtype(0), "x");
  expect_same_type(ctx, 5, "w_zero_point", ctx.in_dtype(3), "w");
  for (int i : {1, 4, 6}) ctx.expect_dtype(i, {DType::Float32});
  const Shape& x = ctx.in_shape(0);
  const Shape& w = ctx.in_shape(3);
  if (x.size() < 3 || x.size() > 2 + kMaxSpatial)
    fail("input x has shape {}; supported: 1-D to 3-D data [N, C, D1 (, D2 (, D3))]", shape_str(x));
  if (w.size() != x.size())
    fail("weights w have shape {}; for input {} they must be [C, M/group, k...] of rank {}", shape_str(w), shape_str(x),
         x.size());
  const int64_t group = ctx.attrs().get_int("group", 1);
  if (group < 1 || x[1] % group != 0) fail("group {} must be positive and divide the input channels ({})", group, x[1]);
  if (w[0] != x[1]) fail("weights w {} have {} input channels; input x {} has {}", shape_str(w), w[0], shape_str(x), x[1]);
  const int64_t ocg = w[1], m = ocg * group;
  expect_one_value(ctx.in_shape(1), "x_scale");
  expect_one_value(ctx.in_shape(2), "x_zero_point");
  expect_per_column(ctx.in_shape(4), ocg, "w_scale");
  expect_per_column(ctx.in_shape(5), ocg, "w_zero_point");
  expect_one_value(ctx.in_shape(6), "y_scale");
  expect_one_value(ctx.in_shape(7), "y_zero_point");
  if (ctx.has_input(8)) {
    ctx.expect_dtype(8, {DType::Int32});
    if (ctx.in_shape(8) != Shape{m})
      fail("bias B has shape {}; it must be [{}] (one int32 per output channel)", shape_str(ctx.in_shape(8)), m);
  }
  const TransposeGeometry g = resolve_transpose_geometry(ctx.attrs(), spatial_of(x), spatial_of(w));
  int64_t products = x[1] / group;  // an output takes at most one product per tap and input channel
  for (int64_t k : g.kernel) products *= k;
  if (products > kMaxAccumulatedProducts)
    fail("{} products per output could overflow the int32 accumulator (at most {})", products,
         kMaxAccumulatedProducts);
  const TensorData& xs = ctx.require_const(1, "x_scale");
  const TensorData& ws = ctx.require_const(4, "w_scale");
  const TensorData& ys = ctx.require_const(6, "y_scale");
  check_scale_values(xs, "x_scale");
  check_scale_values(ws, "w_scale");
  check_scale_values(ys, "y_scale");
  conv_requant(xs, ws, ys);  // throws when a multiplier is out of range
  store_transpose_geometry(ctx.attrs(), g, group);
  Shape out = {x[0], m};
  out.insert(out.end(), g.out.begin(), g.out.end());
  ctx.set_output(0, ctx.in_dtype(7), out);
}

// Each output sums, over the input channels of its group and the taps
// whose input position (o + pad_begin - k * dilation) / stride is whole and
// inside x, (x - zx) * (w - zw[j]) in int32 (the shape rule bounds the
// products, so the order does not matter); then QLinearConv's steps.
void eval_QLinearConvTranspose(EvalContext& ctx) {
  const TensorData& xt = ctx.in(0);
  const TensorData& wt = ctx.in(3);
  const Geometry3 g =
      transpose_to_3d(resolve_transpose_geometry(ctx.attrs(), spatial_of(xt.shape()), spatial_of(wt.shape())));
  const int64_t group = ctx.attrs().get_int("group", 1);
  const int64_t n_batch = xt.shape()[0], c = xt.shape()[1], ocg = wt.shape()[1];
  const int64_t icg = c / group, m = ocg * group;
  const int64_t isize = g.in[0] * g.in[1] * g.in[2];
  const int64_t ksize = g.kernel[0] * g.kernel[1] * g.kernel[2];
  const int64_t osize = g.out[0] * g.out[1] * g.out[2];
  const std::vector<int32_t> x = int32_values(xt), w = int32_values(wt);
  const int32_t zx = zero_points(ctx, 2)[0];
  const std::vector<int32_t> zw = zero_points(ctx, 5);
  const std::vector<Requant> q = conv_requant(ctx.in(1), ctx.in(4), ctx.in(6));
  const int32_t zy = zero_points(ctx, 7)[0];
  const std::vector<int32_t> bias = ctx.has_input(8) ? int32_values(ctx.in(8)) : std::vector<int32_t>();
  TensorData& yt = ctx.outputs[0];
  const int32_t lo = clamp_lo(ctx.attrs(), yt.dtype()), hi = clamp_hi(ctx.attrs(), yt.dtype());
  auto source = [&](int axis, int64_t o, int64_t k) { return transpose_source(g, axis, o, k); };
  for (int64_t n = 0; n < n_batch; ++n)
    for (int64_t oc = 0; oc < m; ++oc) {
      const int64_t grp = oc / ocg, j = oc % ocg;
      const int32_t zwj = zw[zw.size() > 1 ? static_cast<size_t>(j) : 0];
      const Requant& r = q[q.size() > 1 ? static_cast<size_t>(j) : 0];
      const int64_t ybase = (n * m + oc) * osize;
      for (int64_t od = 0; od < g.out[0]; ++od)
        for (int64_t oh = 0; oh < g.out[1]; ++oh)
          for (int64_t ow = 0; ow < g.out[2]; ++ow) {
            int32_t acc = 0;
            for (int64_t ic = 0; ic < icg; ++ic) {
              const int64_t cin = grp * icg + ic;
              const int32_t* xp = x.data() + (n * c + cin) * isize;
              const int32_t* wp = w.data() + (cin * ocg + j) * ksize;
              for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
                const int64_t id = source(0, od, kd);
                if (id < 0) continue;
                for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
                  const int64_t ih = source(1, oh, kh);
                  if (ih < 0) continue;
                  for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                    const int64_t iw = source(2, ow, kw);
                    if (iw < 0) continue;
                    acc += (xp[(id * g.in[1] + ih) * g.in[2] + iw] - zx) *
                           (wp[(kd * g.kernel[1] + kh) * g.kernel[2] + kw] - zwj);
                  }
                }
              }
            }
            if (!bias.empty()) acc = mlip_add_sat_i32(acc, bias[static_cast<size_t>(oc)]);
            const int32_t v = mlip_requantize(acc, r.q, r.shift, zy, lo, hi);
            const int64_t k = ybase + (od * g.out[1] + oh) * g.out[2] + ow;
            if (yt.dtype() == DType::Int8)
              yt.data<int8_t>()[k] = static_cast<int8_t>(v);
            else
              yt.data<uint8_t>()[k] = static_cast<uint8_t>(v);
          }
    }
}

}  // namespace mlipc::ops
