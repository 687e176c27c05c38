// com.microsoft QLinearGlobalAveragePool (channels_last 0): per plane, the
// int32 sum of (x - x_zero_point), requantized by x_scale / (y_scale * n)
// (n the plane size): one rounding, as templates/kernels/qlinear_global_avgpool.c.
// Its 16x8 form (int16 X and Y, what fold_qdq makes of a 16x8 model's
// GlobalAveragePool): the sum in int64, mlip_requantize64
// (qlinear_global_avgpool16.c).
// com.microsoft QLinearAveragePool: AveragePool's windows (ops/averagepool.cpp),
// the int32 sum of x - x_zero_point over the taps inside x, requantized by
// x_scale / (y_scale * count) with the window's count (taps inside x, or
// inside the padded extent with count_include_pad): one (q, shift) per
// possible count, so still one rounding (templates/kernels/qlinear_averagepool.c).
// Its 16x8 form (int16 X and Y): the sum in int64 and mlip_requantize64, as
// QLinearGlobalAveragePool's, so that a window holding the whole input gives
// the bits of the global form (the MLIP runs such a window as GLOBAL_AVGPOOL).
#include "ops/ops.h"
#include "ops/spatial.h"
#include "ops/window.h"
#include "ops/qlinear.h"
#include "mlip/requant.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

// What both pools check first: one output, NCHW, X quantized, and the
// input's and the output's scale and zero point.
struct PoolQParams {
  QParam x, y;
};

PoolQParams check_pool_io(InferContext& ctx, bool allow_int16 = false) {
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  if (ctx.attrs().get_int("channels_last", 0) != 0) fail("channels_last 1 is not supported (only NCHW input)");
  if (!allow_int16 || ctx.in_dtype(0) != DType::Int16) expect_quant_type(ctx, 0, "X");
  const DType t = ctx.in_dtype(0);
  return {read_qparam(ctx, 1, 2, t, "x"), read_qparam(ctx, 3, 4, t, "y")};
}

}  // namespace

// Inputs: X, x_scale, x_zero_point, y_scale, y_zero_point.
void infer_QLinearGlobalAveragePool(InferContext& ctx) {
  ctx.expect_inputs(5, 5);
  const auto [x, y] = check_pool_io(ctx, /*allow_int16=*/true);
  const Shape& s = ctx.in_shape(0);
  if (s.size() < 3) fail("input X has shape {}; it needs [N, C, D1, ...] with at least one spatial axis", shape_str(s));
  const int64_t n = numel(s) / (s[0] * s[1] == 0 ? 1 : s[0] * s[1]);
  if (ctx.in_dtype(0) != DType::Int16 && n > 2147483647LL / 255)  // int16: an int64 sum
    fail("{} elements per plane could overflow the int32 sum", n);
  if (n > 0) mean_requant(x.scale, y.scale, n, requant_mode(ctx.attrs()), "the mean");
  Shape out(s.size(), 1);
  out[0] = s[0];
  out[1] = s[1];
  ctx.set_output(0, ctx.in_dtype(0), out);
}

void eval_QLinearGlobalAveragePool(EvalContext& ctx) {
  const TensorData& xt = ctx.in(0);
  const DType t = xt.dtype();
  const QParam x = eval_qparam(ctx, 1, 2, t), y = eval_qparam(ctx, 3, 4, t);
  const int64_t planes = xt.shape()[0] * xt.shape()[1];
  const int64_t n = planes == 0 ? 0 : xt.numel() / planes;
  if (n == 0) return;
  const Requant r = mean_requant(x.scale, y.scale, n, requant_mode(ctx.attrs()), "the mean");
  const std::vector<int32_t> v = int32_values(xt);
  TensorData& yt = ctx.outputs[0];
  if (t == DType::Int16) {
    for (int64_t p = 0; p < planes; ++p) {
      int64_t acc = 0;
      for (int64_t i = 0; i < n; ++i) acc += v[static_cast<size_t>(p * n + i)] - x.zero_point;
      yt.data<int16_t>()[p] = static_cast<int16_t>(mlip_requantize64(acc, r.q, r.shift, y.zero_point, y.lo(), y.hi()));
    }
    return;
  }
  for (int64_t p = 0; p < planes; ++p) {
    int32_t acc = 0;
    for (int64_t i = 0; i < n; ++i) acc += v[static_cast<size_t>(p * n + i)] - x.zero_point;
    const int32_t q = mlip_requantize(acc, r.q, r.shift, y.zero_point, y.lo(), y.hi());
    if (t == DType::Int8)
      yt.data<int8_t>()[p] = static_cast<int8_t>(q);
    else
      yt.data<uint8_t>()[p] = static_cast<uint8_t>(q);
  }
}

namespace {
const GeometryRules kQPoolRules{/*dilations=*/true, /*ceil_mode=*/true, /*pads_below_window=*/true};
}  // namespace

Requant mean_requant(float x_scale, float y_scale, int64_t count, RequantMode mode, std::string_view what) {
  if (mode == RequantMode::Ort) return requant_f32(x_scale / (y_scale * static_cast<float>(count)));
  return requant_of(static_cast<double>(x_scale) / (static_cast<double>(y_scale) * static_cast<double>(count)), what);
}

std::vector<Requant> average_requant(float x_scale, float y_scale, int64_t max_count, RequantMode mode) {
  std::vector<Requant> r(1);  // a count of 0 never happens
  for (int64_t c = 1; c <= max_count; ++c) r.push_back(mean_requant(x_scale, y_scale, c, mode, "the average"));
  return r;
}

// Inputs: X, x_scale, x_zero_point, y_scale, y_zero_point.
void infer_QLinearAveragePool(InferContext& ctx) {
  ctx.expect_inputs(4, 5);
  const auto [x, y] = check_pool_io(ctx, /*allow_int16=*/true);
  const Shape& s = ctx.in_shape(0);
  if (s.size() < 3 || s.size() > 2 + kMaxSpatial)
    fail("input X has shape {}; supported: 1-D to 3-D data [N, C, D1 (, D2 (, D3))]", shape_str(s));
  const int64_t cip = ctx.attrs().get_int("count_include_pad", 0);
  if (cip != 0 && cip != 1) fail("attribute count_include_pad is {}; it must be 0 or 1", cip);
  Geometry g = resolve_geometry(ctx.attrs(), spatial_of(s), {}, kQPoolRules);
  store_geometry(ctx.attrs(), g, kQPoolRules);
  int64_t taps = 1;
  for (int64_t k : g.kernel) taps *= k;
  if (ctx.in_dtype(0) != DType::Int16 && taps > 2147483647LL / 255)  // int16: an int64 sum
    fail("a window of {} taps could overflow the int32 sum", taps);
  average_requant(x.scale, y.scale, taps, requant_mode(ctx.attrs()));
  Shape out = {s[0], s[1]};
  out.insert(out.end(), g.out.begin(), g.out.end());
  ctx.set_output(0, ctx.in_dtype(0), out);
}

void eval_QLinearAveragePool(EvalContext& ctx) {
  const TensorData& xt = ctx.in(0);
  const DType t = xt.dtype();
  const QParam xq = eval_qparam(ctx, 1, 2, t), yq = eval_qparam(ctx, 3, 4, t);
  const Geometry3 g = to_3d(resolve_geometry(ctx.attrs(), spatial_of(xt.shape()), {}, kQPoolRules));
  const std::vector<Requant> r = average_requant(xq.scale, yq.scale, kernel_size(g), requant_mode(ctx.attrs()));
  const bool include_pad = ctx.attrs().get_int("count_include_pad", 0) == 1;
  const int64_t planes = xt.shape()[0] * xt.shape()[1];
  const int64_t isize = input_plane(g), osize = output_plane(g);
  const std::vector<int32_t> x = int32_values(xt);
  TensorData& yt = ctx.outputs[0];
  for (int64_t p = 0; p < planes; ++p) {
    const int32_t* xp = x.data() + p * isize;
    for_each_output(g, [&](int64_t o, int64_t od, int64_t oh, int64_t ow) {
      int64_t sum = 0;  // int8: within int32 (the taps bound), so the same bits as an int32 sum
      int64_t valid = 0, padded = 0;
      for_each_padded_tap(g, od, oh, ow, [&](const WindowTap& tap) {
        ++padded;
        if (tap.inside) {
          sum += xp[tap.x] - xq.zero_point;
          ++valid;
        }
      });
      const Requant& m = r[static_cast<size_t>(include_pad ? padded : valid)];
      const int32_t q = t == DType::Int16
                            ? mlip_requantize64(sum, m.q, m.shift, yq.zero_point, yq.lo(), yq.hi())
                            : mlip_requantize(static_cast<int32_t>(sum), m.q, m.shift, yq.zero_point, yq.lo(), yq.hi());
      const int64_t k = p * osize + o;
      if (t == DType::Int16)
        yt.data<int16_t>()[k] = static_cast<int16_t>(q);
      else if (t == DType::Int8)
        yt.data<int8_t>()[k] = static_cast<int8_t>(q);
      else
        yt.data<uint8_t>()[k] = static_cast<uint8_t>(q);
    });
  }
}

}  // namespace mlipc::ops
