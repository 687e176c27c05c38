// mlipc.QLinearConvTranspose (ops/conv_transpose.h): ConvTranspose on
// int8/uint8 values minus their zero points, summed in int32, with
// QLinearConv's int32 bias and per-channel requantization. Output channel m
// of group g reads weight column j = m % (M / group) of the input channels
// of g, and its weight scale is w_scale[j].
#include "ops/conv_integer.h"
#include "ops/conv_transpose.h"
#include "ops/ops.h"
#include "mlip/requant.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

std::vector<int32_t> zero_points(const EvalContext& ctx, int i) {
  return ctx.has_input(i) ? int32_values(ctx.in(i)) : std::vector<int32_t>(1, 0);
}

}  // namespace

void infer_QLinearConvTranspose(InferContext& ctx) {
  expect_qlinear_conv_types(ctx);
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
  expect_qlinear_conv_params(ctx, m, ocg, "output channel of a group, on the weights' axis 1");
  const TransposeGeometry g = resolve_transpose_geometry(ctx.attrs(), spatial_of(x), spatial_of(w));
  int64_t products = x[1] / group;  // an output takes at most one product per tap and input channel
  for (int64_t k : g.kernel) products *= k;
  if (products > kMaxAccumulatedProducts)
    fail("{} products per output could overflow the int32 accumulator (at most {})", products,
         kMaxAccumulatedProducts);
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
  const int64_t ocg = wt.shape()[1];
  const std::vector<int32_t> x = int32_values(xt), w = int32_values(wt);
  const int32_t zx = zero_points(ctx, 2)[0];
  const std::vector<int32_t> zw = zero_points(ctx, 5);
  const std::vector<Requant> q = conv_requant(ctx.in(1), ctx.in(4), ctx.in(6), requant_mode(ctx.attrs()));
  const int32_t zy = zero_points(ctx, 7)[0];
  const std::vector<int32_t> bias = ctx.has_input(8) ? int32_values(ctx.in(8)) : std::vector<int32_t>();
  TensorData& yt = ctx.outputs[0];
  const int32_t lo = clamp_lo(ctx.attrs(), yt.dtype()), hi = clamp_hi(ctx.attrs(), yt.dtype());
  // Weight column j = m % ocg: its zero point and (q, shift) when per channel.
  auto column = [&](int64_t oc) { return static_cast<size_t>(oc % ocg); };
  transpose_gather<int32_t>(
      g, xt.shape()[0], xt.shape()[1], ctx.attrs().get_int("group", 1), ocg,
      [&](int32_t& acc, int64_t xi, int64_t wi, int64_t oc) {
        acc += (x[static_cast<size_t>(xi)] - zx) * (w[static_cast<size_t>(wi)] - zw[zw.size() > 1 ? column(oc) : 0]);
      },
      [&](int64_t yi, int64_t oc, int32_t acc) {
        const Requant& r = q[q.size() > 1 ? column(oc) : 0];
        if (!bias.empty()) acc = mlip_add_sat_i32(acc, bias[static_cast<size_t>(oc)]);
        const int32_t v = mlip_requantize(acc, r.q, r.shift, zy, lo, hi);
        if (yt.dtype() == DType::Int8)
          yt.data<int8_t>()[yi] = static_cast<int8_t>(v);
        else
          yt.data<uint8_t>()[yi] = static_cast<uint8_t>(v);
      });
}

}  // namespace mlipc::ops
