// InstanceNormalization: X of shape [N, C, D1, ...], scale and B of shape
// [C], `epsilon` (default 1e-5); each (n, c) plane normalized over its
// spatial elements as ops/normalize.h says, then scale[c] and B[c].
// Float32.
#include "ops/normalize.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_InstanceNormalization(InferContext& ctx) {
  ctx.expect_inputs(3, 3);
  for (int i = 0; i < 3; ++i) ctx.expect_dtype(i, {DType::Float32});
  const Shape& x = ctx.in_shape(0);
  if (x.size() < 3) fail("the input must have rank >= 3 ([N, C, D1, ...]), got {}", shape_str(x));
  for (int i = 1; i < 3; ++i)
    if (ctx.in_shape(i) != Shape{x[1]})
      fail("input #{} ('{}') has shape {}; it must be [C] = [{}]", i, ctx.input(i).name, shape_str(ctx.in_shape(i)),
           x[1]);
  ctx.set_output(0, DType::Float32, x);
}

void eval_InstanceNormalization(EvalContext& ctx) {
  const TensorData& x = ctx.in(0);
  const int64_t c = x.shape()[1];
  int64_t spatial = 1;
  for (size_t i = 2; i < x.shape().size(); ++i) spatial *= x.shape()[i];
  const float* scale = ctx.in(1).data<float>();
  const float* bias = ctx.in(2).data<float>();
  normalize_rows(
      x.data<float>(), ctx.outputs[0].data<float>(), x.shape()[0] * c, spatial,
      ctx.attrs().get_float("epsilon", 1e-5f), [&](int64_t r, int64_t) { return scale[r % c]; },
      [&](int64_t r, int64_t) { return bias[r % c]; }, true, nullptr, nullptr);
}

}  // namespace mlipc::ops
