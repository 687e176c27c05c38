// Trilu: keeps the upper (upper = 1, default) or lower triangle of the last
// two axes, on or above (below) diagonal k, and zeroes the rest. k (an
// optional int64 scalar input, default 0) may be computed at run time: it
// does not change the shape. Any element type.
#include <cstring>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_Trilu(InferContext& ctx) {
  ctx.expect_inputs(1, 2);
  if (ctx.in_rank(0) < 2) fail("the input {} must have rank 2 or more", shape_str(ctx.in_shape(0)));
  if (ctx.has_input(1)) {
    ctx.expect_dtype(1, {DType::Int64});
    if (numel(ctx.in_shape(1)) != 1) fail("k must be a scalar, got shape {}", shape_str(ctx.in_shape(1)));
  }
  const int64_t upper = ctx.attrs().get_int("upper", 1);
  if (upper != 0 && upper != 1) fail("upper is {}; it must be 0 or 1", upper);
  ctx.set_output(0, ctx.in_dtype(0), ctx.in_shape(0));
}

void eval_Trilu(EvalContext& ctx) {
  const TensorData& x = ctx.in(0);
  const int64_t k = ctx.has_input(1) ? ctx.in(1).data<int64_t>()[0] : 0;
  const bool upper = ctx.attrs().get_int("upper", 1) != 0;
  const int64_t rows = x.shape()[x.rank() - 2], cols = x.shape()[x.rank() - 1];
  const size_t esize = dtype_size(x.dtype());
  uint8_t* y = ctx.outputs[0].raw();
  std::memset(y, 0, ctx.outputs[0].nbytes());
  for (int64_t b = 0, n = x.numel() / std::max<int64_t>(rows * cols, 1); b < n; ++b)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        // j - i cannot overflow; comparing with k in int64 covers every k.
        const bool keep = upper ? j - i >= k : j - i <= k;
        const int64_t at = (b * rows + i) * cols + j;
        if (keep) std::memcpy(y + at * esize, x.raw() + at * esize, esize);
      }
}

}  // namespace mlipc::ops
