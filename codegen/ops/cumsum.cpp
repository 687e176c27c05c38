// CumSum: running sums along `axis` (a scalar int32/int64 input; it does not
// change the shape, so it may be computed at run time). exclusive = 1 leaves
// each element out of its own sum; reverse = 1 sums from the end. The sums
// run in the input type, in order (integers wrap around).
#include "ops/indexing.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_CumSum(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  ctx.expect_dtype(0, {DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::UInt32, DType::UInt64});
  ctx.expect_dtype(1, {DType::Int32, DType::Int64});
  if (numel(ctx.in_shape(1)) != 1) fail("axis must be a scalar, got shape {}", shape_str(ctx.in_shape(1)));
  if (ctx.in_rank(0) == 0) fail("the input is a scalar; CumSum needs rank 1 or more");
  if (const TensorData* axis = ctx.in_const(1)) normalize_axis(axis->as_int64()[0], ctx.in_rank(0));
  ctx.set_output(0, ctx.in_dtype(0), ctx.in_shape(0));
}

void eval_CumSum(EvalContext& ctx) {
  const TensorData& x = ctx.in(0);
  const int axis = normalize_axis(ctx.in(1).as_int64()[0], x.rank());
  const bool exclusive = ctx.attrs().get_int("exclusive", 0) != 0, reverse = ctx.attrs().get_int("reverse", 0) != 0;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= x.shape()[d];
  for (int d = axis + 1; d < x.rank(); ++d) inner *= x.shape()[d];
  const int64_t len = x.shape()[axis];
  visit_numeric(x.dtype(), "CumSum", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = x.data<T>();
    T* y = ctx.outputs[0].data<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        T acc = 0;
        for (int64_t t = 0; t < len; ++t) {
          const int64_t at = (o * len + (reverse ? len - 1 - t : t)) * inner + i;
          if (exclusive) y[at] = acc;
          acc = reduce_one(Reduction::Add, acc, src[at]);
          if (!exclusive) y[at] = acc;
        }
      }
  });
}

}  // namespace mlipc::ops
