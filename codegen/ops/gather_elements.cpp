// GatherElements: y[p] = data[p with its `axis` coordinate replaced by
// indices[p]] for every position p of `indices` (int32/int64, negative
// counting from the end). Any element type.
#include "ops/broadcast.h"
#include "ops/indexing.h"
#include "ops/ops.h"

namespace mlipc::ops {

void infer_GatherElements(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  ctx.expect_dtype(1, {DType::Int64, DType::Int32});
  const int axis = elements_axis(ctx.attrs(), ctx.in_shape(0), ctx.in_shape(1));
  if (const TensorData* idx = ctx.in_const(1))
    for (int64_t i : idx->as_int64()) wrap_index(i, ctx.in_shape(0)[axis]);
  ctx.set_output(0, ctx.in_dtype(0), ctx.in_shape(1));
}

void eval_GatherElements(EvalContext& ctx) {
  const TensorData& x = ctx.in(0);
  const Shape& ishape = ctx.in(1).shape();
  const int axis = elements_axis(ctx.attrs(), x.shape(), ishape);
  const std::vector<int64_t> idx = ctx.in(1).as_int64();
  const int64_t dim = x.shape()[axis], axis_stride = strides_of(x.shape())[axis];
  visit_bytes(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = x.raw_as<T>();
    T* dst = ctx.outputs[0].raw_as<T>();
    for_each_broadcast(ishape, {elements_strides(x.shape(), axis)}, [&](int64_t o, const std::vector<int64_t>& offs) {
      dst[o] = src[offs[0] + wrap_index(idx[o], dim) * axis_stride];
    });
  });
}

}  // namespace mlipc::ops
