// QuantizeLinear and DequantizeLinear (opsets 10, 13, 19 and 21): float32 to
// int8/uint8 (and int16, opset 21's, for 16x8 activations) and back, per tensor or per axis (the `axis` attribute, 13 on).
// Scales and zero points may be computed at run time; constant ones are
// checked here (a scale must be positive and finite).
#include "ops/ops.h"
#include "ops/quant.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

void check_params(InferContext& ctx, const char* scale_name, const char* zp_name, DType zp_type) {
  const QuantAxis q = quant_axis(ctx.in_shape(0), ctx.in_shape(1), ctx.attrs().get_int("axis", 1), scale_name);
  (void)q;
  if (const TensorData* s = ctx.in_const(1)) check_scale_values(*s, scale_name);
  if (ctx.has_input(2)) {
    expect_same_type(ctx, 2, zp_name, zp_type, ctx.in_dtype(0) == zp_type ? "x" : "the output");
    expect_zero_point_shape(ctx.in_shape(2), ctx.in_shape(1), zp_name, scale_name);
  }
}

QuantAxis axis_of(const EvalContext& ctx) {
  return quant_axis(ctx.in(0).shape(), ctx.in(1).shape(), ctx.attrs().get_int("axis", 1), "scale");
}

// One zero point per scale; without the input, zeros (as many as the
// scales: a per-axis scale indexes them per channel).
std::vector<int32_t> zero_points(const EvalContext& ctx, const QuantAxis& q) {
  if (ctx.has_input(2)) return int32_values(ctx.in(2));
  return std::vector<int32_t>(static_cast<size_t>(q.count), 0);
}

}  // namespace

void infer_QuantizeLinear(InferContext& ctx) {
  ctx.expect_inputs(2, 3);
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  if (ctx.in_dtype(0) != DType::Float32)
    fail("x is {}; QuantizeLinear supports float32 input", dtype_name(ctx.in_dtype(0)));
  ctx.expect_dtype(1, {DType::Float32});
  const DType out = ctx.has_input(2) ? ctx.in_dtype(2) : DType::UInt8;
  if (ctx.has_input(2) && !is_act_type(ctx.in_dtype(2))) expect_quant_type(ctx, 2, "y_zero_point");
  check_params(ctx, "y_scale", "y_zero_point", out);
  ctx.set_output(0, out, ctx.in_shape(0));
}

void eval_QuantizeLinear(EvalContext& ctx) {
  const QuantAxis q = axis_of(ctx);
  const float* x = ctx.in(0).data<float>();
  const float* s = ctx.in(1).data<float>();
  const std::vector<int32_t> zp = zero_points(ctx, q);
  TensorData& yt = ctx.outputs[0];
  const int32_t lo = quant_min(yt.dtype()), hi = quant_max(yt.dtype());
  for (int64_t o = 0; o < q.outer; ++o)
    for (int64_t c = 0; c < q.count; ++c)
      for (int64_t i = 0; i < q.inner; ++i) {
        const int64_t k = (o * q.count + c) * q.inner + i;
        const int32_t v = quantize_value(x[k], s[c], zp[static_cast<size_t>(c)], lo, hi);
        if (yt.dtype() == DType::Int8)
          yt.data<int8_t>()[k] = static_cast<int8_t>(v);
        else if (yt.dtype() == DType::Int16)
          yt.data<int16_t>()[k] = static_cast<int16_t>(v);
        else
          yt.data<uint8_t>()[k] = static_cast<uint8_t>(v);
      }
}

void infer_DequantizeLinear(InferContext& ctx) {
  ctx.expect_inputs(2, 3);
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  const DType t = ctx.in_dtype(0);
  if (!is_act_type(t) && t != DType::Int32)
    fail("x is {}; DequantizeLinear supports int8, uint8, int16 and int32 (int4 and float8 are not supported)",
         dtype_name(t));
  ctx.expect_dtype(1, {DType::Float32});
  check_params(ctx, "x_scale", "x_zero_point", t);
  if (t == DType::Int32 && ctx.in_const(2))
    for (int32_t z : int32_values(*ctx.in_const(2)))
      if (z != 0) fail("x_zero_point is {}; for int32 x it must be 0", z);
  ctx.set_output(0, DType::Float32, ctx.in_shape(0));
}

void eval_DequantizeLinear(EvalContext& ctx) {
  const QuantAxis q = axis_of(ctx);
  const std::vector<int32_t> x = int32_values(ctx.in(0));
  const float* s = ctx.in(1).data<float>();
  const std::vector<int32_t> zp = zero_points(ctx, q);
  float* y = ctx.outputs[0].data<float>();
  for (int64_t o = 0; o < q.outer; ++o)
    for (int64_t c = 0; c < q.count; ++c)
      for (int64_t i = 0; i < q.inner; ++i) {
        const int64_t k = (o * q.count + c) * q.inner + i;
        // The difference in int64 (an int32 x minus a run-time zero point
        // cannot overflow), converted to float once, times the scale.
        y[k] = static_cast<float>(static_cast<int64_t>(x[static_cast<size_t>(k)]) - zp[static_cast<size_t>(c)]) * s[c];
      }
}

}  // namespace mlipc::ops
