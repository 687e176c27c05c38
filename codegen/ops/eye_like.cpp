// EyeLike: a 2-D tensor of the input's shape with ones on diagonal k (j - i
// == k; k > 0 above the main diagonal) and zeros elsewhere. Only the input's
// shape and type are read, never its values. `dtype` (a TensorProto code)
// sets the output type, by default the input's; any numeric type or bool.
#include <cstring>

#include "ops/cast.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_EyeLike(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  if (ctx.in_rank(0) != 2) fail("the input {} must be 2-D", shape_str(ctx.in_shape(0)));
  const DType in = ctx.in_dtype(0);
  if (in == DType::Undefined) fail("input #0 ('{}') has no element type", ctx.input(0).name);
  const DType out = ctx.attrs().has("dtype") ? dtype_of_code(ctx.attrs().get_int("dtype"), "dtype") : in;
  ctx.set_output(0, out, ctx.in_shape(0));
}

void eval_EyeLike(EvalContext& ctx) {
  TensorData& y = ctx.outputs[0];
  const int64_t k = ctx.attrs().get_int("k", 0);
  const int64_t rows = y.shape()[0], cols = y.shape()[1];
  // One in the output's type, with Cast's rules (float16/bfloat16 bits).
  const TensorData one = TensorData::scalar<float>(1.0f).cast(y.dtype());
  const size_t esize = dtype_size(y.dtype());
  std::memset(y.raw(), 0, y.nbytes());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      if (j - i == k) std::memcpy(y.raw() + (i * cols + j) * esize, one.raw(), esize);
}

}  // namespace mlipc::ops
