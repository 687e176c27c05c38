// MaxUnpool: scatters X into a zero tensor at the flat positions I (as
// MaxPool's Indices, row-major positions) of the scatter shape
// (ops/maxunpool.h); with output_shape (a constant) the result is padded
// with zeros at the end of each axis, as the ONNX reference does. Positions
// repeated in I keep the last element written; a position outside the
// scatter shape is an error (at run time the C kernel returns
// MLIP_ERR_INVALID_ARG).
#include "ops/maxunpool.h"

#include <fmt/format.h>

#include "ops/ops.h"
#include "ops/spatial.h"
#include "support/error.h"

namespace mlipc::ops {

Shape maxunpool_scatter_shape(const Attrs& attrs, const Shape& x) {
  const size_t n = x.size() - 2;
  if (!attrs.has("kernel_shape")) fail("attribute kernel_shape is required");
  const std::vector<int64_t> kernel = attrs.get_ints("kernel_shape");
  const std::vector<int64_t> strides = attrs.get_ints("strides", std::vector<int64_t>(n, 1));
  const std::vector<int64_t> pads = attrs.get_ints("pads", std::vector<int64_t>(2 * n, 0));
  if (kernel.size() != n || strides.size() != n || pads.size() != 2 * n)
    fail("attributes kernel_shape [{}], strides [{}] and pads [{}] must have {}, {} and {} values for {} spatial axes",
         fmt::join(kernel, ","), fmt::join(strides, ","), fmt::join(pads, ","), n, n, 2 * n, n);
  for (size_t i = 0; i < n; ++i)
    if (kernel[i] < 1 || strides[i] < 1 || pads[i] < 0 || pads[n + i] < 0)
      fail("attributes kernel_shape [{}] and strides [{}] must be positive and pads [{}] non-negative",
           fmt::join(kernel, ","), fmt::join(strides, ","), fmt::join(pads, ","));
  Shape s = {x[0], x[1]};
  for (size_t i = 0; i < n; ++i) {
    const int64_t v = (x[2 + i] - 1) * strides[i] + kernel[i] - pads[i] - pads[n + i];
    if (v < 1) fail("output extent {} of spatial axis {} is not positive", v, i);
    s.push_back(v);
  }
  return s;
}

void infer_MaxUnpool(InferContext& ctx) {
  ctx.expect_inputs(2, 3);
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  ctx.expect_dtype(0, {DType::Float32, DType::Float64});
  ctx.expect_dtype(1, {DType::Int64});
  const Shape& x = ctx.in_shape(0);
  if (x.size() < 3 || x.size() > 2 + kMaxSpatial)
    fail("input X has shape {}; MaxUnpool supports 1-D to 3-D data: [N, C, D1 (, D2 (, D3))]", shape_str(x));
  if (ctx.in_shape(1) != x)
    fail("input I has shape {}; it must have X's shape {}", shape_str(ctx.in_shape(1)), shape_str(x));
  const Shape scatter = maxunpool_scatter_shape(ctx.attrs(), x);
  Shape out = scatter;
  if (ctx.num_inputs() > 2 && ctx.has_input(2)) {
    ctx.expect_dtype(2, {DType::Int64});
    out = ctx.require_const(2, "output_shape").as_int64();
    if (out.size() != x.size() || out[0] != x[0] || out[1] != x[1])
      fail("output_shape {} must be [{}, {}, spatial...] with {} spatial axes", shape_str(out), x[0], x[1],
           x.size() - 2);
    for (size_t i = 2; i < out.size(); ++i)
      if (out[i] < scatter[i])
        fail("output_shape {} is smaller than {}, the shape kernel_shape, strides and pads give", shape_str(out),
             shape_str(scatter));
  }
  if (const TensorData* idx = ctx.in_const(1))
    for (int64_t v : idx->as_int64())
      if (v < 0 || v >= numel(scatter))
        fail("input I holds {}; indices must lie in [0, {}) (positions in {})", v, numel(scatter),
             shape_str(scatter));
  ctx.set_output(0, ctx.in_dtype(0), out);
}

void eval_MaxUnpool(EvalContext& ctx) {
  const TensorData& xt = ctx.in(0);
  const int64_t* idx = ctx.in(1).data<int64_t>();
  TensorData& yt = ctx.outputs[0];
  const Shape scatter = maxunpool_scatter_shape(ctx.attrs(), xt.shape());
  const std::vector<int64_t> ystrides = strides_of(yt.shape());
  const int64_t total = numel(scatter);
  visit_bytes(xt.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = xt.raw_as<T>();
    T* y = yt.raw_as<T>();
    for (int64_t i = 0, n = yt.numel(); i < n; ++i) y[i] = T(0);  // +0.0 in either float type
    for (int64_t i = 0, n = xt.numel(); i < n; ++i) {
      if (idx[i] < 0 || idx[i] >= total)
        fail("I[{}] is {}; indices must lie in [0, {}) (positions in {})", i, idx[i], total, shape_str(scatter));
      // The position's coordinates in the scatter shape, placed in y.
      int64_t rest = idx[i], pos = 0;
      for (size_t d = scatter.size(); d-- > 0;) {
        pos += (rest % scatter[d]) * ystrides[d];
        rest /= scatter[d];
      }
      y[pos] = x[i];
    }
  });
}

}  // namespace mlipc::ops
