// DynamicQuantizeLinear: float32 to uint8 with the scale and zero point
// computed from the data's range (widened to include 0), in float32 as the
// ONNX spec writes it:
//   scale = (max(0, max x) - min(0, min x)) / 255
//   zero_point = saturate(round(0 - min(0, min x) / scale))
//   y = saturate(round(x / scale) + zero_point)       (round: half to even)
// An all-zero input (scale 0) gives scale 0, zero point 0 and y 0; a NaN
// in x is skipped by min/max and quantizes to the zero point.
// templates/kernels/dynamic_quantize_linear.c computes the same steps.
#include <cmath>

#include "ops/ops.h"
#include "ops/qlinear.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_DynamicQuantizeLinear(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  if (ctx.num_outputs() != 3) fail("expects 3 outputs (y, y_scale, y_zero_point), got {}", ctx.num_outputs());
  if (ctx.in_dtype(0) != DType::Float32)
    fail("x is {}; DynamicQuantizeLinear supports float32 input", dtype_name(ctx.in_dtype(0)));
  ctx.set_output(0, DType::UInt8, ctx.in_shape(0));
  ctx.set_output(1, DType::Float32, {});
  ctx.set_output(2, DType::UInt8, {});
}

void eval_DynamicQuantizeLinear(EvalContext& ctx) {
  const TensorData& xt = ctx.in(0);
  const float* x = xt.data<float>();
  float lo = 0.0f, hi = 0.0f;
  for (int64_t i = 0; i < xt.numel(); ++i) {
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
  }
  const QParam p = range_qparam(lo, hi, DType::UInt8);
  const float scale = p.scale;
  const int32_t zp = p.zero_point;
  uint8_t* y = ctx.outputs[0].data<uint8_t>();
  for (int64_t i = 0; i < xt.numel(); ++i)
    y[i] = scale > 0.0f ? static_cast<uint8_t>(quantize_value(x[i], scale, zp, 0, 255)) : 0;
  if (ctx.outputs.size() > 1 && ctx.outputs[1].dtype() == DType::Float32) ctx.outputs[1].data<float>()[0] = scale;
  if (ctx.outputs.size() > 2 && ctx.outputs[2].dtype() == DType::UInt8) ctx.outputs[2].data<uint8_t>()[0] = static_cast<uint8_t>(zp);
}

}  // namespace mlipc::ops
