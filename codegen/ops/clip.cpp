// Clip: y = min(max(x, min), max) on float32/float64 and the integer types,
// min and max optional scalar inputs (constant or computed). When min > max
// every element becomes max, as in numpy.clip and the ONNX reference.
#include "ops/clip.h"

#include <cmath>
#include <limits>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

bool clip_bound(const TensorData& bound, DType t, bool is_min, TensorData& out) {
  return visit_numeric(t, "Clip", [&](auto tag) {
    using T = typename decltype(tag)::type;
    // The values beyond which a bound clips nothing.
    using L = std::numeric_limits<T>;
    const T none_lo = L::has_infinity ? -L::infinity() : L::lowest();
    const T none_hi = L::has_infinity ? L::infinity() : L::max();
    T v;
    if (bound.dtype() == t) {
      v = bound.raw_as<T>()[0];
    } else if constexpr (std::is_integral_v<T>) {
      double d = bound.at(0);
      if (std::isnan(d)) fail("a NaN bound cannot clip integers");
      d = is_min ? std::ceil(d) : std::floor(d);
      // Compare in double: T's limits are exactly representable or just past them.
      if (d <= static_cast<double>(L::lowest())) v = L::lowest();
      else if (d >= static_cast<double>(L::max())) v = L::max();
      else v = static_cast<T>(d);
    } else {
      v = static_cast<T>(bound.at(0));
    }
    out = TensorData::scalar<T>(v);
    return is_min ? !(v <= none_lo) : !(v >= none_hi);
  });
}

void infer_Clip(InferContext& ctx) {
  ctx.expect_inputs(1, 3);
  ctx.expect_dtype(0, {DType::Float32, DType::Float64, DType::Int8, DType::Int16, DType::Int32, DType::Int64,
                       DType::UInt8, DType::UInt16, DType::UInt32, DType::UInt64});
  const DType t = ctx.in_dtype(0);
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    const char* what = i == 1 ? "min" : "max";
    if (numel(ctx.in_shape(i)) != 1) fail("{} must be a scalar, got shape {}", what, shape_str(ctx.in_shape(i)));
    // Constants of another type are opset < 11 float attributes: they are
    // converted; a computed bound must have X's type.
    if (!ctx.in_const(i) && ctx.in_dtype(i) != t)
      fail("{} has element type {} but the input is {}; they must be the same", what, dtype_name(ctx.in_dtype(i)),
           dtype_name(t));
    if (ctx.in_const(i) && !dtype_is_float(ctx.in_dtype(i)) && !dtype_is_integer(ctx.in_dtype(i)))
      fail("{} has element type {}; expected a number", what, dtype_name(ctx.in_dtype(i)));
  }
  ctx.set_output(0, t, ctx.in_shape(0));
}

void eval_Clip(EvalContext& ctx) {
  const TensorData& x = ctx.in(0);
  visit_numeric(x.dtype(), "Clip", [&](auto tag) {
    using T = typename decltype(tag)::type;
    TensorData lo, hi;
    const bool has_lo = ctx.has_input(1) && clip_bound(ctx.in(1), x.dtype(), true, lo);
    const bool has_hi = ctx.has_input(2) && clip_bound(ctx.in(2), x.dtype(), false, hi);
    const T l = has_lo ? lo.data<T>()[0] : T(0), h = has_hi ? hi.data<T>()[0] : T(0);
    const T* px = x.data<T>();
    T* py = ctx.outputs[0].data<T>();
    for (int64_t i = 0, n = x.numel(); i < n; ++i) {
      // Lower bound first, so min > max gives max; NaN stays NaN.
      T v = px[i];
      if (has_lo && v < l) v = l;
      if (has_hi && v > h) v = h;
      py[i] = v;
    }
  });
}

}  // namespace mlipc::ops
