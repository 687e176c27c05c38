// HannWindow, HammingWindow, BlackmanWindow (opset 17): the generalized
// cosine window w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N) for n in
// [0, size), with N = size (periodic = 1, the default) or size - 1
// (periodic = 0, symmetric). Hann: a0 = a1 = 0.5; Hamming: a0 = 25/46,
// a1 = 21/46; Blackman: 0.42, 0.5, 0.08. Computed in double and converted to
// output_datatype (default float32) by Cast's rules.
//
// The size sets the output's length, so it must be a constant: the node is
// then always folded, and these operators have no CPU kernel. A symmetric
// window of size 1 is [1] (N = 0 would divide by zero), as numpy's are.
#include <cmath>

#include "ops/cast.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

struct Cosines {
  double a0, a1, a2;
};

int64_t window_size(const TensorData& size) {
  if (size.numel() != 1) fail("size must be a scalar, got shape {}", shape_str(size.shape()));
  const int64_t n = size.as_int64()[0];
  if (n < 0) fail("size is {}; it must be 0 or more", n);
  return n;
}

void infer_window(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  ctx.expect_dtype(0, {DType::Int32, DType::Int64});
  const int64_t periodic = ctx.attrs().get_int("periodic", 1);
  if (periodic != 0 && periodic != 1) fail("periodic is {}; it must be 0 or 1", periodic);
  const DType out = dtype_of_code(ctx.attrs().get_int("output_datatype", 1), "output_datatype");
  if (out == DType::Bool) fail("'output_datatype' = 9 (bool) is not a numeric type");
  ctx.set_output(0, out, {window_size(ctx.require_shape_const(0, "size"))});
}

void eval_window(EvalContext& ctx, Cosines a) {
  const int64_t size = window_size(ctx.in(0));
  const bool periodic = ctx.attrs().get_int("periodic", 1) != 0;
  const double pi = 3.14159265358979323846;
  const double n_total = static_cast<double>(periodic ? size : size - 1);
  TensorData w(DType::Float64, {size});
  double* v = w.data<double>();
  for (int64_t n = 0; n < size; ++n) {
    if (n_total == 0) {
      v[n] = 1.0;
      continue;
    }
    const double x = 2.0 * pi * static_cast<double>(n) / n_total;
    v[n] = a.a0 - a.a1 * std::cos(x) + a.a2 * std::cos(2.0 * x);
  }
  cast_into(w, ctx.outputs[0]);
}

}  // namespace

void infer_HannWindow(InferContext& ctx) { infer_window(ctx); }
void infer_HammingWindow(InferContext& ctx) { infer_window(ctx); }
void infer_BlackmanWindow(InferContext& ctx) { infer_window(ctx); }

void eval_HannWindow(EvalContext& ctx) { eval_window(ctx, {0.5, 0.5, 0.0}); }
void eval_HammingWindow(EvalContext& ctx) { eval_window(ctx, {25.0 / 46.0, 21.0 / 46.0, 0.0}); }
void eval_BlackmanWindow(EvalContext& ctx) { eval_window(ctx, {0.42, 0.5, 0.08}); }

}  // namespace mlipc::ops
