// GatherND: with b = batch_dims, each tuple of the last axis of `indices`
// (int64 or int32, negative counting from the end) addresses a slice of one
// batch of `data`; output shape indices.shape[:-1] + data.shape[b + k:].
// Any element type.
#include "ops/gather_nd.h"

#include <cstring>

#include "ops/indexing.h"
#include "ops/ops.h"

namespace mlipc::ops {

NdGeometry nd_geometry(const Shape& data, const Shape& indices, int64_t b) {
  const int r = static_cast<int>(data.size()), q = static_cast<int>(indices.size());
  if (r < 1 || q < 1) fail("data {} and indices {} must have rank 1 or more", shape_str(data), shape_str(indices));
  if (b < 0 || b >= std::min(r, q))
    fail("batch_dims {} must be in [0, {}) for data of rank {} and indices of rank {}", b, std::min(r, q), r, q);
  for (int d = 0; d < b; ++d)
    if (data[d] != indices[d])
      fail("batch axis {} differs: data {} vs indices {}; the first batch_dims axes must match", d, shape_str(data),
           shape_str(indices));
  const int64_t k = indices.back();
  if (k < 1 || k > r - b)
    fail("indices' last axis has length {}; it must be in [1, {}] (data rank {} minus batch_dims {})", k, r - b, r, b);
  NdGeometry g;
  g.k = static_cast<int>(k);
  const std::vector<int64_t> strides = strides_of(data);
  for (int d = 0; d < b; ++d) g.batches *= data[d];
  for (int d = static_cast<int>(b); d < q - 1; ++d) g.tuples *= indices[d];
  for (int d = static_cast<int>(b + k); d < r; ++d) g.chunk *= data[d];
  g.batch_stride = b < r ? (b == 0 ? numel(data) : strides[b - 1]) : 1;
  for (int j = 0; j < g.k; ++j) {
    g.dims.push_back(data[b + j]);
    g.strides.push_back(strides[b + j]);
  }
  return g;
}

namespace {
int64_t batch_dims(const Attrs& a) { return a.get_int("batch_dims", 0); }
}  // namespace

void infer_GatherND(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  ctx.expect_dtype(1, {DType::Int64, DType::Int32});
  const Shape& data = ctx.in_shape(0);
  const Shape& indices = ctx.in_shape(1);
  const int64_t b = batch_dims(ctx.attrs());
  const NdGeometry g = nd_geometry(data, indices, b);
  if (const TensorData* idx = ctx.in_const(1)) {
    const std::vector<int64_t> v = idx->as_int64();
    for (size_t i = 0; i < v.size(); ++i) wrap_index(v[i], g.dims[i % g.k]);
  }
  Shape out(indices.begin(), indices.end() - 1);
  out.insert(out.end(), data.begin() + b + g.k, data.end());
  ctx.set_output(0, ctx.in_dtype(0), out);
}

void eval_GatherND(EvalContext& ctx) {
  const TensorData& x = ctx.in(0);
  const NdGeometry g = nd_geometry(x.shape(), ctx.in(1).shape(), batch_dims(ctx.attrs()));
  const std::vector<int64_t> idx = ctx.in(1).as_int64();
  const size_t esize = dtype_size(x.dtype());
  uint8_t* y = ctx.outputs[0].raw();
  for (int64_t bi = 0; bi < g.batches; ++bi)
    for (int64_t t = 0; t < g.tuples; ++t) {
      const int64_t tuple = bi * g.tuples + t;
      int64_t off = bi * g.batch_stride;
      for (int j = 0; j < g.k; ++j) off += wrap_index(idx[tuple * g.k + j], g.dims[j]) * g.strides[j];
      if (g.chunk > 0)
        std::memcpy(y + tuple * g.chunk * esize, x.raw() + off * esize, static_cast<size_t>(g.chunk) * esize);
    }
}

}  // namespace mlipc::ops
