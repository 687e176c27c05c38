// ReduceMean (opset 13-17 form: `axes` attribute, `keepdims`; no axes means
// every axis) on float32. Sums in float over the reduced axes in row-major
// order, then divides by the count.
#include "ir/ops/reduce_mean.h"

#include "ir/ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {
// Appends an axis to a loop nest, merging it into the previous loop when one
// step there equals a full sweep of this axis.
void push_loop(Shape& dims, std::vector<int64_t>& strides, int64_t dim, int64_t stride) {
  if (dim == 1) return;
  if (!dims.empty() && strides.back() == stride * dim) {
    dims.back() *= dim;
    strides.back() = stride;
    return;
  }
  dims.push_back(dim);
  strides.push_back(stride);
}
}  // namespace

ReduceLoops reduce_loops(const Attrs& attrs, const Shape& in) {
  const int rank = static_cast<int>(in.size());
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  const std::vector<int64_t> axes = attrs.get_ints("axes", {});
  for (int64_t a : axes) {
    const int ax = normalize_axis(a, rank, "axis");
    if (reduced[ax]) fail("axes {} repeats axis {}", shape_str(axes), ax);
    reduced[ax] = true;
  }
  if (axes.empty()) reduced.assign(static_cast<size_t>(rank), true);
  const bool keep = attrs.get_int("keepdims", 1) != 0;
  const std::vector<int64_t> strides = strides_of(in);
  ReduceLoops l;
  for (int i = 0; i < rank; ++i) {
    if (reduced[i]) {
      l.count *= in[i];
      push_loop(l.reduced_dims, l.reduced_strides, in[i], strides[i]);
      if (keep) l.out.push_back(1);
    } else {
      push_loop(l.kept_dims, l.kept_strides, in[i], strides[i]);
      l.out.push_back(in[i]);
    }
  }
  return l;
}

void infer_ReduceMean(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  ctx.expect_dtype(0, {DType::Float32});
  ctx.set_output(0, DType::Float32, reduce_loops(ctx.attrs(), ctx.in_shape(0)).out);
}

namespace {
// Calls f(offset) for every index of a loop nest, in row-major order.
template <class F>
void walk(const Shape& dims, const std::vector<int64_t>& strides, F&& f) {
  const int64_t n = numel(dims);
  std::vector<int64_t> idx(dims.size(), 0);
  int64_t off = 0;
  for (int64_t i = 0; i < n; ++i) {
    f(off);
    for (size_t d = dims.size(); d-- > 0;) {
      if (++idx[d] < dims[d]) {
        off += strides[d];
        break;
      }
      off -= strides[d] * (dims[d] - 1);
      idx[d] = 0;
    }
  }
}
}  // namespace

void eval_ReduceMean(EvalContext& ctx) {
  const ReduceLoops l = reduce_loops(ctx.attrs(), ctx.in(0).shape());
  const float* x = ctx.in(0).data<float>();
  float* y = ctx.outputs[0].data<float>();
  int64_t o = 0;
  // Same order as templates/kernels/reduce_mean.c.
  walk(l.kept_dims, l.kept_strides, [&](int64_t base) {
    float acc = 0.0f;
    walk(l.reduced_dims, l.reduced_strides, [&](int64_t off) { acc += x[base + off]; });
    y[o++] = acc / static_cast<float>(l.count);
  });
}

}  // namespace mlipc::ops
