// ScatterND: the output is `data` with, for each tuple of the last axis of
// `indices` in order, the slice it addresses set to (or, with `reduction`,
// combined with) the matching slice of `updates`, whose shape is
// indices.shape[:-1] + data.shape[k:].
#include "ops/gather_nd.h"
#include "ops/indexing.h"
#include "ops/ops.h"

namespace mlipc::ops {

void infer_ScatterND(InferContext& ctx) {
  ctx.expect_inputs(3, 3);
  ctx.expect_dtype(1, {DType::Int64, DType::Int32});
  const Shape& data = ctx.in_shape(0);
  const Shape& indices = ctx.in_shape(1);
  const NdGeometry g = nd_geometry(data, indices, 0);
  Shape want(indices.begin(), indices.end() - 1);
  want.insert(want.end(), data.begin() + g.k, data.end());
  if (ctx.in_shape(2) != want)
    fail("updates {} must have shape {} (indices.shape[:-1] + data.shape[{}:])", shape_str(ctx.in_shape(2)),
         shape_str(want), g.k);
  if (ctx.in_dtype(2) != ctx.in_dtype(0))
    fail("updates has element type {} but data has {}; they must match", dtype_name(ctx.in_dtype(2)),
         dtype_name(ctx.in_dtype(0)));
  reduction_of(ctx.attrs(), ctx.in_dtype(0));
  if (const TensorData* idx = ctx.in_const(1)) {
    const std::vector<int64_t> v = idx->as_int64();
    for (size_t i = 0; i < v.size(); ++i) wrap_index(v[i], g.dims[i % g.k]);
  }
  ctx.set_output(0, ctx.in_dtype(0), data);
}

namespace {

template <class T, class F>
void scatter_nd(EvalContext& ctx, F combine) {
  const TensorData& x = ctx.in(0);
  const NdGeometry g = nd_geometry(x.shape(), ctx.in(1).shape(), 0);
  const std::vector<int64_t> idx = ctx.in(1).as_int64();
  const T* upd = ctx.in(2).raw_as<T>();
  ctx.outputs[0] = x;
  T* y = ctx.outputs[0].raw_as<T>();
  for (int64_t t = 0; t < g.tuples; ++t) {
    int64_t off = 0;
    for (int j = 0; j < g.k; ++j) off += wrap_index(idx[t * g.k + j], g.dims[j]) * g.strides[j];
    for (int64_t e = 0; e < g.chunk; ++e) y[off + e] = combine(y[off + e], upd[t * g.chunk + e]);
  }
}

}  // namespace

void eval_ScatterND(EvalContext& ctx) {
  const DType t = ctx.in(0).dtype();
  const Reduction r = reduction_of(ctx.attrs(), t);
  if (r == Reduction::None)
    return visit_bytes(t, [&](auto tag) { scatter_nd<typename decltype(tag)::type>(ctx, [](auto, auto u) { return u; }); });
  visit_numeric(t, "ScatterND", [&](auto tag) {
    using T = typename decltype(tag)::type;
    scatter_nd<T>(ctx, [r](T y, T u) { return reduce_one(r, y, u); });
  });
}

}  // namespace mlipc::ops
