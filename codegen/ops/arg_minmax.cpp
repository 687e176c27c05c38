// ArgMax, ArgMin: int64 indices along `axis` (default 0), `keepdims`
// (default 1), `select_last_index` (opset 12, default 0); float32, int32,
// int64, int8 and uint8 input. The axis must not be empty.
#include "ops/arg_minmax.h"

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

ArgDims arg_dims(const Attrs& attrs, const Shape& in, int64_t default_axis) {
  const int rank = static_cast<int>(in.size());
  if (rank == 0) fail("the input must have rank >= 1, got a scalar");
  ArgDims d;
  d.axis = normalize_axis(attrs.get_int("axis", default_axis), rank);
  const bool keep = attrs.get_int("keepdims", 1) != 0;
  for (int i = 0; i < rank; ++i) {
    if (i < d.axis) d.outer *= in[i];
    else if (i == d.axis) d.n = in[i];
    else d.inner *= in[i];
    if (i != d.axis) d.out.push_back(in[i]);
    else if (keep) d.out.push_back(1);
  }
  return d;
}

namespace {

void infer_arg(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  ctx.expect_dtype(0, {DType::Float32, DType::Int32, DType::Int64, DType::Int8, DType::UInt8});
  const ArgDims d = arg_dims(ctx.attrs(), ctx.in_shape(0), 0);
  if (d.n == 0) fail("axis {} has size 0; {} over an empty axis has no index to return", d.axis, ctx.node().op);
  ctx.set_output(0, DType::Int64, d.out);
}

// Same order as templates/kernels/arg_minmax.c: start at index 0, then each
// later element replaces the pick when arg_better says so.
void eval_arg(EvalContext& ctx, bool max) {
  const TensorData& xt = ctx.in(0);
  const ArgDims d = arg_dims(ctx.attrs(), xt.shape(), 0);
  const bool last = ctx.attrs().get_int("select_last_index", 0) != 0;
  int64_t* y = ctx.outputs[0].data<int64_t>();
  visit_numeric(xt.dtype(), ctx.node.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = xt.data<T>();
    for (int64_t o = 0; o < d.outer; ++o)
      for (int64_t i = 0; i < d.inner; ++i) {
        const T* p = x + o * d.n * d.inner + i;
        T best = p[0];
        int64_t at = 0;
        for (int64_t k = 1; k < d.n; ++k)
          if (arg_better(p[k * d.inner], best, max, last)) {
            best = p[k * d.inner];
            at = k;
          }
        y[o * d.inner + i] = at;
      }
  });
}

}  // namespace

void infer_ArgMax(InferContext& ctx) { infer_arg(ctx); }
void eval_ArgMax(EvalContext& ctx) { eval_arg(ctx, true); }
void infer_ArgMin(InferContext& ctx) { infer_arg(ctx); }
void eval_ArgMin(EvalContext& ctx) { eval_arg(ctx, false); }

}  // namespace mlipc::ops
