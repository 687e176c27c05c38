// Det: the determinant of each square matrix in the last two axes of
// [*, M, M], float32 or float64. Computed in double by Gaussian elimination
// with partial pivoting, as templates/kernels/det.c does step for step:
// at column k the pivot is the first row r >= k of largest |a[r][k]|; a zero
// pivot makes the determinant 0; a row swap negates it; the determinant is
// multiplied by each pivot in turn; rows below subtract f * pivot row with
// f = a[r][k] / a[k][k]. The result is rounded to the element type once.
#include <cmath>
#include <vector>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_Det(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  ctx.expect_dtype(0, {DType::Float32, DType::Float64});
  const Shape& x = ctx.in_shape(0);
  if (x.size() < 2 || x[x.size() - 1] != x[x.size() - 2])
    fail("input X has shape {}; Det needs square matrices in the last two axes: [*, M, M]", shape_str(x));
  ctx.set_output(0, ctx.in_dtype(0), Shape(x.begin(), x.end() - 2));
}

namespace {

double determinant(double* a, int64_t m) {
  double det = 1.0;
  for (int64_t k = 0; k < m; ++k) {
    int64_t p = k;
    double best = std::fabs(a[k * m + k]);
    for (int64_t r = k + 1; r < m; ++r)
      if (std::fabs(a[r * m + k]) > best) {
        best = std::fabs(a[r * m + k]);
        p = r;
      }
    if (best == 0.0) return 0.0;
    if (p != k) {
      for (int64_t c = k; c < m; ++c) std::swap(a[k * m + c], a[p * m + c]);
      det = -det;
    }
    const double pivot = a[k * m + k];
    det = det * pivot;
    for (int64_t r = k + 1; r < m; ++r) {
      const double f = a[r * m + k] / pivot;
      for (int64_t c = k + 1; c < m; ++c) a[r * m + c] = a[r * m + c] - f * a[k * m + c];
    }
  }
  return det;
}

}  // namespace

void eval_Det(EvalContext& ctx) {
  const TensorData& xt = ctx.in(0);
  const int64_t m = xt.shape().back();
  const int64_t count = ctx.outputs[0].numel();
  std::vector<double> work(static_cast<size_t>(m * m));
  visit_numeric(xt.dtype(), "Det", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = xt.data<T>();
    T* y = ctx.outputs[0].data<T>();
    for (int64_t b = 0; b < count; ++b) {
      for (int64_t i = 0; i < m * m; ++i) work[static_cast<size_t>(i)] = static_cast<double>(x[b * m * m + i]);
      y[b] = static_cast<T>(determinant(work.data(), m));
    }
  });
}

}  // namespace mlipc::ops
