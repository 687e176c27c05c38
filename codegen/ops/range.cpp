// Range: start, start + delta, ... while short of limit (scalar inputs of
// one type: float32, float64, int16, int32, int64). Its length depends on all
// three values: with constants Range is folded; computed at run time, they
// are accepted when the model declares the output's length, which the kernel
// checks.
#include <cmath>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

int64_t range_length(const TensorData& start, const TensorData& limit, const TensorData& delta) {
  for (const TensorData* t : {&start, &limit, &delta})
    if (t->numel() != 1) fail("start, limit and delta must be scalars, got shape {}", shape_str(t->shape()));
  const double s = start.at(0), l = limit.at(0), d = delta.at(0);
  if (d == 0) fail("delta is 0; it must be non-zero");
  const double n = std::ceil((l - s) / d);
  if (!(n < 1e9)) fail("the range from {} to {} by {} has too many elements", s, l, d);
  return n > 0 ? static_cast<int64_t>(n) : 0;
}

}  // namespace

void infer_Range(InferContext& ctx) {
  ctx.expect_inputs(3, 3);
  const DType t = ctx.in_dtype(0);
  ctx.expect_dtype(0, {DType::Float32, DType::Float64, DType::Int16, DType::Int32, DType::Int64});
  for (int i = 1; i < 3; ++i)
    if (ctx.in_dtype(i) != t)
      fail("input #{} has element type {} but start has {}; they must match", i, dtype_name(ctx.in_dtype(i)),
           dtype_name(t));
  for (int i = 0; i < 3; ++i)
    if (numel(ctx.in_shape(i)) != 1) fail("start, limit and delta must be scalars, got shape {}", shape_str(ctx.in_shape(i)));
  if (ctx.in_const(0) && ctx.in_const(1) && ctx.in_const(2))
    return ctx.set_output(0, t, {range_length(*ctx.in_const(0), *ctx.in_const(1), *ctx.in_const(2))});
  // Computed at run time: the length is the declared output's (the kernel
  // checks the values give it).
  const Shape* declared = ctx.declared_output(0);
  if (!declared) {
    const char* names[] = {"start", "limit", "delta"};
    for (int i = 0; i < 3; ++i) ctx.require_shape_const(i, names[i]);
  }
  if (declared->size() != 1) fail("the model declares the output {}; Range's output is 1-D", shape_str(*declared));
  ctx.set_output(0, t, *declared);
}

void eval_Range(EvalContext& ctx) {
  const int64_t n = ctx.outputs[0].numel();
  const int64_t want = range_length(ctx.in(0), ctx.in(1), ctx.in(2));
  if (want != n) fail("the run-time start, limit and delta give {} elements but the model declares {}", want, n);
  visit_numeric(ctx.in(0).dtype(), "Range", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T start = ctx.in(0).data<T>()[0], delta = ctx.in(2).data<T>()[0];
    T* y = ctx.outputs[0].data<T>();
    // ONNX: output[i] = start + i * delta, in the input type.
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(start + static_cast<T>(i) * delta);
  });
}

}  // namespace mlipc::ops
