// ConvInteger (int32 output) and QLinearConv (requantized int8/uint8
// output, optional int32 bias, per-tensor or per-output-channel weight
// scale and zero point; and mlipc's 16x8 form: int16 x or y with int8
// weights, an int32 or int64 bias, summed in int64).
#include "ops/conv_integer.h"

#include <algorithm>
#include <cstdint>

#include "ops/ops.h"
#include "ops/window.h"
#include "mlip/requant.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

const GeometryRules kRules{/*dilations=*/true, /*ceil_mode=*/false};

// Conv's shape checks on x (input xi) and w (input wi); the output shape.
// A 16x8 convolution (`wide`) sums in int64: no tap count overflows it.
Shape conv_shape(InferContext& ctx, int xi, int wi, bool wide = false) {
  const Shape& x = ctx.in_shape(xi);
  const Shape& w = ctx.in_shape(wi);
  if (x.size() < 3 || x.size() > 2 + kMaxSpatial)
    fail("input x has shape {}; supported: 1-D to 3-D data [N, C, D1 (, D2 (, D3))]", shape_str(x));
  if (w.size() != x.size())
    fail("weights w have shape {}; for input {} they must have rank {}", shape_str(w), shape_str(x), x.size());
  const int64_t group = ctx.attrs().get_int("group", 1);
  const int64_t c = x[1], m = w[0];
  if (group < 1 || c % group != 0 || m % group != 0)
    fail("group {} must be positive and divide both the input channels ({}) and the output channels ({})", group, c,
         m);
  if (w[1] != c / group)
    fail("weights w {} have {} input channels per group; input x {} with group {} needs {}", shape_str(w), w[1],
         shape_str(x), group, c / group);
  Geometry g = int_conv_geometry(ctx.attrs(), x, w);
  int64_t products = w[1];
  for (int64_t k : g.kernel) products *= k;
  if (!wide && products > kMaxAccumulatedProducts)
    fail("{} products per output could overflow the int32 accumulator (at most {})", products,
         kMaxAccumulatedProducts);
  store_geometry(ctx.attrs(), g, kRules);
  ctx.attrs().set("group", group);
  Shape out = {x[0], m};
  out.insert(out.end(), g.out.begin(), g.out.end());
  return out;
}

// A weight zero point (or scale): one value, or one per output channel.
void expect_per_channel(const Shape& s, int64_t m, std::string_view name,
                        std::string_view channels = "output channel") {
  if (numel(s) == 1 && s.size() <= 1) return;
  if (s != Shape{m}) fail("{} has shape {}; it must be one value or one per {} ([{}])", name, shape_str(s), channels, m);
}

// y[k] = v, y of an integer activation type (int8, uint8, int16).
void store_int(TensorData& y, int64_t k, int32_t v) {
  switch (y.dtype()) {
    case DType::Int8: y.data<int8_t>()[k] = static_cast<int8_t>(v); break;
    case DType::Int16: y.data<int16_t>()[k] = static_cast<int16_t>(v); break;
    default: y.data<uint8_t>()[k] = static_cast<uint8_t>(v); break;
  }
}

std::vector<int32_t> zero_points(const EvalContext& ctx, int i) {
  return ctx.has_input(i) ? int32_values(ctx.in(i)) : std::vector<int32_t>(1, 0);
}

// acc(n, oc, od, oh, ow) = sum over the taps inside x of (x - zx) * (w - zw[oc])
// in Acc (int32; int64 for 16x8); store(flat output index, oc, acc).
template <class Acc = int32_t, class F>
void int_conv(const Attrs& attrs, const TensorData& xt, const TensorData& wt, int32_t zx,
              const std::vector<int32_t>& zw, F&& store) {
  const Geometry3 g = to_3d(int_conv_geometry(attrs, xt.shape(), wt.shape()));
  const int64_t group = attrs.get_int("group", 1);
  const int64_t c = xt.shape()[1], m = wt.shape()[0];
  const int64_t icg = c / group, ksize = kernel_size(g);
  std::vector<int32_t> x = int32_values(xt);
  for (int32_t& v : x) v -= zx;
  std::vector<int32_t> w = int32_values(wt);
  for (int64_t oc = 0; oc < m; ++oc)
    for (int64_t i = 0; i < icg * ksize; ++i)
      w[static_cast<size_t>(oc * icg * ksize + i)] -= zw.size() > 1 ? zw[static_cast<size_t>(oc)] : zw[0];
  const auto w_at = [&](const auto& wv) {
    return [&wv, icg, ksize](int64_t oc, int64_t ic, int64_t k) { return wv[static_cast<size_t>((oc * icg + ic) * ksize + k)]; };
  };
  // 8-bit operands less their zero points (and 16x8's int16 activations,
  // zero point 0) fit int16, whose products x86's baseline SIMD forms in
  // 32 bits (it has no 32-bit multiply): the same sums, faster.
  const auto fits16 = [](const std::vector<int32_t>& v) {
    return std::all_of(v.begin(), v.end(), [](int32_t e) { return e >= INT16_MIN && e <= INT16_MAX; });
  };
  if (fits16(x) && fits16(w)) {
    const std::vector<int16_t> x16(x.begin(), x.end()), w16(w.begin(), w.end());
    conv_sums<Acc>(g, xt.shape()[0], c, m, group, x16.data(), w_at(w16), store);
  } else {
    conv_sums<Acc>(g, xt.shape()[0], c, m, group, x.data(), w_at(w), store);
  }
}

}  // namespace

Geometry int_conv_geometry(const Attrs& attrs, const Shape& x, const Shape& w) {
  return resolve_geometry(attrs, spatial_of(x), spatial_of(w), kRules);
}

std::vector<Requant> conv_requant(const TensorData& x_scale, const TensorData& w_scale, const TensorData& y_scale,
                                  RequantMode mode) {
  std::vector<Requant> r;
  for (int64_t i = 0; i < w_scale.numel(); ++i)
    r.push_back(requant_multiplier(x_scale.data<float>()[0], w_scale.data<float>()[i], y_scale.data<float>()[0], mode));
  return r;
}

// Inputs: x, w, x_zero_point (one value), w_zero_point (one or per channel).
void infer_ConvInteger(InferContext& ctx) {
  ctx.expect_inputs(2, 4);
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  expect_quant_type(ctx, 0, "x");
  expect_quant_type(ctx, 1, "w");
  expect_same_type(ctx, 2, "x_zero_point", ctx.in_dtype(0), "x");
  expect_same_type(ctx, 3, "w_zero_point", ctx.in_dtype(1), "w");
  if (ctx.has_input(2)) expect_one_value(ctx.in_shape(2), "x_zero_point");
  if (ctx.has_input(3)) expect_per_channel(ctx.in_shape(3), ctx.in_shape(1)[0], "w_zero_point");
  ctx.set_output(0, DType::Int32, conv_shape(ctx, 0, 1));
}

void eval_ConvInteger(EvalContext& ctx) {
  int32_t* y = ctx.outputs[0].data<int32_t>();
  int_conv(ctx.attrs(), ctx.in(0), ctx.in(1), zero_points(ctx, 2)[0], zero_points(ctx, 3),
           [&](int64_t k, int64_t, int32_t acc) { y[k] = acc; });
}

namespace {
bool is_16x8(DType x, DType y) { return x == DType::Int16 || y == DType::Int16; }
}  // namespace

bool qlinear_conv_16x8(const Graph& g, const Node& n) {
  return is_16x8(g.value(n.inputs[0]).dtype, g.value(n.outputs[0]).dtype);
}

void expect_qlinear_conv_types(InferContext& ctx, bool allow_16x8) {
  ctx.expect_inputs(8, 9);
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  const bool wide = allow_16x8 && is_16x8(ctx.in_dtype(0), ctx.in_dtype(7));
  if (!wide || ctx.in_dtype(0) != DType::Int16) expect_quant_type(ctx, 0, "x");
  if (!wide || ctx.in_dtype(7) != DType::Int16) expect_quant_type(ctx, 7, "y_zero_point");
  if (wide && ctx.in_dtype(3) != DType::Int8)
    fail("w is {}; with int16 x or y (16x8) the weights must be int8", dtype_name(ctx.in_dtype(3)));
  expect_quant_type(ctx, 3, "w");
  expect_same_type(ctx, 2, "x_zero_point", ctx.in_dtype(0), "x");
  expect_same_type(ctx, 5, "w_zero_point", ctx.in_dtype(3), "w");
  for (int i : {1, 4, 6}) ctx.expect_dtype(i, {DType::Float32});
}

void expect_qlinear_conv_params(InferContext& ctx, int64_t m, int64_t per_channel, std::string_view channels) {
  expect_one_value(ctx.in_shape(1), "x_scale");
  expect_one_value(ctx.in_shape(2), "x_zero_point");
  expect_per_channel(ctx.in_shape(4), per_channel, "w_scale", channels);
  expect_per_channel(ctx.in_shape(5), per_channel, "w_zero_point", channels);  // independently of w_scale's form
  expect_one_value(ctx.in_shape(6), "y_scale");
  expect_one_value(ctx.in_shape(7), "y_zero_point");
  if (ctx.has_input(8)) {
    // 16x8: the sum is int64, and so may the bias be (TFLite's rule).
    if (is_16x8(ctx.in_dtype(0), ctx.in_dtype(7)) && ctx.in_dtype(8) == DType::Int64)
      ctx.expect_dtype(8, {DType::Int64});
    else
      ctx.expect_dtype(8, {DType::Int32});
    if (ctx.in_shape(8) != Shape{m})
      fail("bias B has shape {}; it must be [{}] (one int32 per output channel)", shape_str(ctx.in_shape(8)), m);
  }
  const TensorData& xs = ctx.require_const(1, "x_scale");
  const TensorData& ws = ctx.require_const(4, "w_scale");
  const TensorData& ys = ctx.require_const(6, "y_scale");
  check_scale_values(xs, "x_scale");
  check_scale_values(ws, "w_scale");
  check_scale_values(ys, "y_scale");
  conv_requant(xs, ws, ys);  // throws when a multiplier is out of range
}

// Inputs: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
// y_zero_point, B (optional int32 bias). The scales must be constants.
void infer_QLinearConv(InferContext& ctx) {
  expect_qlinear_conv_types(ctx, /*allow_16x8=*/true);
  const Shape out = conv_shape(ctx, 0, 3, is_16x8(ctx.in_dtype(0), ctx.in_dtype(7)));
  const int64_t m = ctx.in_shape(3)[0];
  expect_qlinear_conv_params(ctx, m, m, "output channel");
  ctx.set_output(0, ctx.in_dtype(7), out);
}

void eval_QLinearConv(EvalContext& ctx) {
  const std::vector<Requant> q = conv_requant(ctx.in(1), ctx.in(4), ctx.in(6), requant_mode(ctx.attrs()));
  const int32_t zy = zero_points(ctx, 7)[0];
  TensorData& yt = ctx.outputs[0];
  const int32_t lo = clamp_lo(ctx.attrs(), yt.dtype()), hi = clamp_hi(ctx.attrs(), yt.dtype());
  if (is_16x8(ctx.in(0).dtype(), yt.dtype())) {  // 16x8: int64 sum and bias, mlip_requantize64
    const std::vector<int64_t> bias = ctx.has_input(8) ? ctx.in(8).as_int64() : std::vector<int64_t>();
    int_conv<int64_t>(ctx.attrs(), ctx.in(0), ctx.in(3), zero_points(ctx, 2)[0], zero_points(ctx, 5),
                      [&](int64_t k, int64_t oc, int64_t acc) {
                        const Requant& r = q[q.size() > 1 ? static_cast<size_t>(oc) : 0];
                        if (!bias.empty()) acc += bias[static_cast<size_t>(oc)];
                        store_int(yt, k, mlip_requantize64(acc, r.q, r.shift, zy, lo, hi));
                      });
    return;
  }
  const std::vector<int32_t> bias = ctx.has_input(8) ? int32_values(ctx.in(8)) : std::vector<int32_t>();
  int8_t* y8 = yt.dtype() == DType::Int8 ? yt.data<int8_t>() : nullptr;
  uint8_t* yu8 = y8 ? nullptr : yt.data<uint8_t>();
  int_conv(ctx.attrs(), ctx.in(0), ctx.in(3), zero_points(ctx, 2)[0], zero_points(ctx, 5),
           [&](int64_t k, int64_t oc, int32_t acc) {
             const Requant& r = q[q.size() > 1 ? static_cast<size_t>(oc) : 0];
             if (!bias.empty()) acc = mlip_add_sat_i32(acc, bias[static_cast<size_t>(oc)]);
             const int32_t v = mlip_requantize(acc, r.q, r.shift, zy, lo, hi);
             if (y8)
               y8[k] = static_cast<int8_t>(v);
             else
               yu8[k] = static_cast<uint8_t>(v);
           });
}

}  // namespace mlipc::ops
