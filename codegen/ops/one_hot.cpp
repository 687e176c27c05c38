// OneHot: output = indices.shape with a new axis of length `depth` at `axis`
// (default -1, counted in the output's rank); values[1] where the index
// equals the position on that axis, values[0] elsewhere. Indices of any
// numeric type (floats are truncated toward zero); negative ones count from
// the end; out-of-range ones give a row of values[0]. Indices and values may
// be computed at run time; `depth` sets the output shape, so it must be a
// constant unless the model declares the output's static shape (the kernel
// then checks the depth gives it).
#include "ops/one_hot.h"

#include <cmath>
#include <cstring>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

int64_t one_hot_depth(const TensorData& depth) {
  if (depth.numel() != 1) fail("depth must hold one value, got shape {}", shape_str(depth.shape()));
  const double d = depth.at(0);
  if (!(d >= 0) || d > 1e9) fail("depth {} must be a non-negative number", d);
  return static_cast<int64_t>(d);  // truncated, as a cast to int64
}

OneHotParams one_hot_params(const Attrs& attrs, const Shape& indices, int64_t depth) {
  OneHotParams p;
  p.depth = depth;
  const int rank = static_cast<int>(indices.size()) + 1;
  p.axis = normalize_axis(attrs.get_int("axis", -1), rank);
  for (int i = 0; i < p.axis; ++i) p.outer *= indices[i];
  for (int i = p.axis; i < rank - 1; ++i) p.inner *= indices[i];
  return p;
}

void infer_OneHot(InferContext& ctx) {
  ctx.expect_inputs(3, 3);
  if (!dtype_is_float(ctx.in_dtype(0)) && !dtype_is_integer(ctx.in_dtype(0)))
    fail("indices have element type {}; supported: numeric types", dtype_name(ctx.in_dtype(0)));
  if (ctx.in_dtype(0) == DType::Float16 || ctx.in_dtype(0) == DType::BFloat16)
    fail("indices of element type {} are not supported", dtype_name(ctx.in_dtype(0)));
  if (numel(ctx.in_shape(2)) != 2)
    fail("values must hold two elements (off, on), got shape {}", shape_str(ctx.in_shape(2)));
  if (const TensorData* depth = ctx.in_const(1)) {
    const OneHotParams p = one_hot_params(ctx.attrs(), ctx.in_shape(0), one_hot_depth(*depth));
    Shape out = ctx.in_shape(0);
    out.insert(out.begin() + p.axis, p.depth);
    return ctx.set_output(0, ctx.in_dtype(2), out);
  }
  // Depth computed at run time: the declared output gives it (the kernel
  // checks the value).
  const Shape* declared = ctx.declared_output(0);
  if (!declared) ctx.require_shape_const(1, "depth");
  if (numel(ctx.in_shape(1)) != 1) fail("depth must hold one value, got shape {}", shape_str(ctx.in_shape(1)));
  if (!dtype_is_float(ctx.in_dtype(1)) && !dtype_is_integer(ctx.in_dtype(1)))
    fail("depth has element type {}; supported: numeric types", dtype_name(ctx.in_dtype(1)));
  Shape out = ctx.in_shape(0);
  const int axis = normalize_axis(ctx.attrs().get_int("axis", -1), static_cast<int>(out.size()) + 1);
  out.insert(out.begin() + axis, declared->size() == out.size() + 1 ? (*declared)[axis] : 0);
  if (out != *declared)
    fail("the model declares the output {}, which no depth gives for indices {} (axis {})", shape_str(*declared),
         shape_str(ctx.in_shape(0)), axis);
  ctx.set_output(0, ctx.in_dtype(2), out);
}

namespace {

int64_t one_hot_index(double v, int64_t depth) {
  // Truncated toward zero, as a cast to int64 does; NaN and values outside
  // [-depth, depth) address nothing.
  if (!(v > -static_cast<double>(depth) - 1.0 && v < static_cast<double>(depth))) return -1;
  const int64_t k = static_cast<int64_t>(v);
  return k < 0 ? k + depth : k;
}

}  // namespace

void eval_OneHot(EvalContext& ctx) {
  const OneHotParams p = one_hot_params(ctx.attrs(), ctx.in(0).shape(), one_hot_depth(ctx.in(1)));
  if (ctx.outputs[0].shape()[p.axis] != p.depth)
    fail("the run-time depth {} does not give the declared output {}", p.depth, shape_str(ctx.outputs[0].shape()));
  const TensorData& idx = ctx.in(0);
  const std::vector<int64_t> ints = dtype_is_integer(idx.dtype()) ? idx.as_int64() : std::vector<int64_t>{};
  const size_t esize = dtype_size(ctx.in(2).dtype());
  const uint8_t* off = ctx.in(2).raw();
  const uint8_t* on = off + esize;
  uint8_t* y = ctx.outputs[0].raw();
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t d = 0; d < p.depth; ++d)
      for (int64_t i = 0; i < p.inner; ++i) {
        const int64_t at = o * p.inner + i;
        int64_t k;
        if (ints.empty()) {
          k = one_hot_index(idx.at(at), p.depth);
        } else if (idx.dtype() == DType::UInt64) {  // beyond INT64_MAX is out of range, not negative
          const uint64_t u = idx.raw_as<uint64_t>()[at];
          k = u < static_cast<uint64_t>(p.depth) ? static_cast<int64_t>(u) : -1;
        } else {
          k = ints[at];
          k = k >= -p.depth && k < p.depth ? (k < 0 ? k + p.depth : k) : -1;
        }
        std::memcpy(y, k == d ? on : off, esize);
        y += esize;
      }
}

}  // namespace mlipc::ops
