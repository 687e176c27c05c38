// com.microsoft QLinearGlobalAveragePool (channels_last 0): per plane, the
// int32 sum of (x - x_zero_point), requantized by x_scale / (y_scale * n)
// (n the plane size): one rounding, as templates/kernels/qlinear_global_avgpool.c.
#include "ir/ops/ops.h"
#include "ir/ops/qlinear.h"
#include "mlip/requant.h"
#include "support/error.h"

namespace mlipc::ops {

// Inputs: X, x_scale, x_zero_point, y_scale, y_zero_point.
void infer_QLinearGlobalAveragePool(InferContext& ctx) {
  ctx.expect_inputs(5, 5);
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  if (ctx.attrs().get_int("channels_last", 0) != 0) fail("channels_last 1 is not supported (only NCHW input)");
  expect_quant_type(ctx, 0, "X");
  const DType t = ctx.in_dtype(0);
  const QParam x = read_qparam(ctx, 1, 2, t, "x");
  const QParam y = read_qparam(ctx, 3, 4, t, "y");
  const Shape& s = ctx.in_shape(0);
  if (s.size() < 3) fail("input X has shape {}; it needs [N, C, D1, ...] with at least one spatial axis", shape_str(s));
  const int64_t n = numel(s) / (s[0] * s[1] == 0 ? 1 : s[0] * s[1]);
  if (n > 2147483647LL / 255) fail("{} elements per plane could overflow the int32 sum", n);
  if (n > 0) requant_of(static_cast<double>(x.scale) / (static_cast<double>(y.scale) * static_cast<double>(n)), "the mean");
  Shape out(s.size(), 1);
  out[0] = s[0];
  out[1] = s[1];
  ctx.set_output(0, t, out);
}

void eval_QLinearGlobalAveragePool(EvalContext& ctx) {
  const TensorData& xt = ctx.in(0);
  const DType t = xt.dtype();
  const QParam x = eval_qparam(ctx, 1, 2, t), y = eval_qparam(ctx, 3, 4, t);
  const int64_t planes = xt.shape()[0] * xt.shape()[1];
  const int64_t n = planes == 0 ? 0 : xt.numel() / planes;
  if (n == 0) return;
  const Requant r =
      requant_of(static_cast<double>(x.scale) / (static_cast<double>(y.scale) * static_cast<double>(n)), "the mean");
  const std::vector<int32_t> v = int32_values(xt);
  TensorData& yt = ctx.outputs[0];
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

}  // namespace mlipc::ops
