// ScatterElements (and the deprecated Scatter, its opset 9-10 name): the
// output is `data` with, for every position p of `indices` in row-major
// order, the element at p with its `axis` coordinate replaced by indices[p]
// set to (or, with `reduction`, combined with) updates[p]. Duplicate
// indices apply in that order.
#include "ops/broadcast.h"
#include "ops/indexing.h"
#include "ops/ops.h"

namespace mlipc::ops {

namespace {

void infer_scatter(InferContext& ctx, bool reductions) {
  ctx.expect_inputs(3, 3);
  ctx.expect_dtype(1, {DType::Int64, DType::Int32});
  const Shape& data = ctx.in_shape(0);
  const int axis = elements_axis(ctx.attrs(), data, ctx.in_shape(1));
  if (ctx.in_shape(2) != ctx.in_shape(1))
    fail("updates {} must have the shape of indices {}", shape_str(ctx.in_shape(2)), shape_str(ctx.in_shape(1)));
  if (ctx.in_dtype(2) != ctx.in_dtype(0))
    fail("updates has element type {} but data has {}; they must match", dtype_name(ctx.in_dtype(2)),
         dtype_name(ctx.in_dtype(0)));
  if (reductions) reduction_of(ctx.attrs(), ctx.in_dtype(0));
  else if (ctx.attrs().has("reduction")) fail("Scatter has no 'reduction'; use ScatterElements");
  if (const TensorData* idx = ctx.in_const(1))
    for (int64_t i : idx->as_int64()) wrap_index(i, data[axis]);
  ctx.set_output(0, ctx.in_dtype(0), data);
}

template <class T, class F>
void scatter(EvalContext& ctx, F combine) {
  const TensorData& x = ctx.in(0);
  const Shape& ishape = ctx.in(1).shape();
  const int axis = elements_axis(ctx.attrs(), x.shape(), ishape);
  const std::vector<int64_t> idx = ctx.in(1).as_int64();
  const int64_t dim = x.shape()[axis], axis_stride = strides_of(x.shape())[axis];
  const T* upd = ctx.in(2).raw_as<T>();
  ctx.outputs[0] = x;
  T* y = ctx.outputs[0].raw_as<T>();
  for_each_broadcast(ishape, {elements_strides(x.shape(), axis)}, [&](int64_t o, const std::vector<int64_t>& offs) {
    T& dst = y[offs[0] + wrap_index(idx[o], dim) * axis_stride];
    dst = combine(dst, upd[o]);
  });
}

void eval_scatter(EvalContext& ctx) {
  const DType t = ctx.in(0).dtype();
  const Reduction r = reduction_of(ctx.attrs(), t);
  if (r == Reduction::None)
    return visit_bytes(t, [&](auto tag) { scatter<typename decltype(tag)::type>(ctx, [](auto, auto u) { return u; }); });
  visit_numeric(t, "ScatterElements", [&](auto tag) {
    using T = typename decltype(tag)::type;
    scatter<T>(ctx, [r](T y, T u) { return reduce_one(r, y, u); });
  });
}

}  // namespace

void infer_ScatterElements(InferContext& ctx) { infer_scatter(ctx, true); }
void eval_ScatterElements(EvalContext& ctx) { eval_scatter(ctx); }
void infer_Scatter(InferContext& ctx) { infer_scatter(ctx, false); }
void eval_Scatter(EvalContext& ctx) { eval_scatter(ctx); }

}  // namespace mlipc::ops
