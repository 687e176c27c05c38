// TopK (opset 11 form: K as input #1, a constant; `axis`, `largest`,
// `sorted`). Opset 1's `k` attribute becomes that input in frontend/opset.cpp.
// The output shape depends on K, so K must be known at compile time.
// The reference sorts each slice's indices with a stable sort on
// topk_before; the C kernel keeps a sorted list by insertion. Both give the
// order of ops/topk.h, so they agree element for element.
#include "ops/topk.h"

#include <algorithm>
#include <numeric>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

TopKDims topk_dims(const Attrs& attrs, const Shape& in, const TensorData& kt) {
  const int rank = static_cast<int>(in.size());
  if (rank == 0) fail("the input must have rank >= 1, got a scalar");
  const int axis = normalize_axis(attrs.get_int("axis", -1), rank);
  if (kt.numel() != 1) fail("K must hold one value, got shape {}", shape_str(kt.shape()));
  TopKDims d;
  d.k = kt.as_int64()[0];
  if (d.k < 0 || d.k > in[axis])
    fail("K = {} is out of range for axis {} of size {}", d.k, axis, in[axis]);
  for (int i = 0; i < rank; ++i) {
    if (i < axis) d.outer *= in[i];
    else if (i == axis) d.n = in[i];
    else d.inner *= in[i];
  }
  d.out = in;
  d.out[axis] = d.k;
  return d;
}

void infer_TopK(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  ctx.expect_dtype(0, {DType::Float32, DType::Int32, DType::Int64, DType::Int8, DType::UInt8});
  ctx.expect_dtype(1, {DType::Int64});
  const TopKDims d = topk_dims(ctx.attrs(), ctx.in_shape(0), ctx.require_const(1, "K"));
  ctx.set_output(0, ctx.in_dtype(0), d.out);
  if (ctx.num_outputs() > 1) ctx.set_output(1, DType::Int64, d.out);
}

void eval_TopK(EvalContext& ctx) {
  const TensorData& xt = ctx.in(0);
  const TopKDims d = topk_dims(ctx.attrs(), xt.shape(), ctx.in(1));
  const bool largest = ctx.attrs().get_int("largest", 1) != 0;
  TensorData* indices = ctx.outputs.size() > 1 ? &ctx.outputs[1] : nullptr;
  visit_numeric(xt.dtype(), "TopK", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = xt.data<T>();
    T* vals = ctx.outputs[0].data<T>();
    std::vector<int64_t> order(static_cast<size_t>(d.n));
    for (int64_t o = 0; o < d.outer; ++o)
      for (int64_t i = 0; i < d.inner; ++i) {
        const T* p = x + o * d.n * d.inner + i;
        std::iota(order.begin(), order.end(), int64_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](int64_t a, int64_t b) { return topk_before(p[a * d.inner], p[b * d.inner], largest); });
        for (int64_t j = 0; j < d.k; ++j) {
          const int64_t at = (o * d.k + j) * d.inner + i;
          vals[at] = p[order[static_cast<size_t>(j)] * d.inner];
          if (indices) indices->data<int64_t>()[at] = order[static_cast<size_t>(j)];
        }
      }
  });
}

}  // namespace mlipc::ops
