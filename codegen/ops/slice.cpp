// Slice (opset 10+ form: starts, ends, axes, steps are inputs; the frontend
// converts opset < 10 attributes): bounds follow the ONNX clamping rules,
// steps may be negative. Any element type. Bounds computed at run time are
// accepted when the model declares the output's static shape; the kernel then
// checks that the bounds give it.
#include "ops/slice.h"

#include <algorithm>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

std::vector<int64_t> int_list(const TensorData& t, const char* what) {
  if (t.dtype() != DType::Int64 && t.dtype() != DType::Int32)
    fail("{} has element type {}; supported: int64, int32", what, dtype_name(t.dtype()));
  if (t.rank() != 1) fail("{} must be 1-D, got shape {}", what, shape_str(t.shape()));
  return t.as_int64();
}

}  // namespace

SliceParams slice_params(const Shape& in, const TensorData& starts_t, const TensorData& ends_t,
                         const TensorData* axes_t, const TensorData* steps_t) {
  const int rank = static_cast<int>(in.size());
  const std::vector<int64_t> starts = int_list(starts_t, "starts");
  const std::vector<int64_t> ends = int_list(ends_t, "ends");
  const size_t n = starts.size();
  if (ends.size() != n) fail("starts has {} entries but ends has {}; they must match", n, ends.size());
  std::vector<int64_t> axes;
  if (axes_t) {
    axes = int_list(*axes_t, "axes");
    if (axes.size() != n) fail("axes has {} entries but starts has {}; they must match", axes.size(), n);
  } else {
    for (size_t i = 0; i < n; ++i) axes.push_back(static_cast<int64_t>(i));
  }
  std::vector<int64_t> steps(n, 1);
  if (steps_t) {
    steps = int_list(*steps_t, "steps");
    if (steps.size() != n) fail("steps has {} entries but starts has {}; they must match", steps.size(), n);
  }

  SliceParams p;
  p.start.assign(static_cast<size_t>(rank), 0);
  p.step.assign(static_cast<size_t>(rank), 1);
  p.out_shape = in;
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (size_t i = 0; i < n; ++i) {
    if (axes[i] < -rank || axes[i] >= rank) fail("axes entry {} is out of range for rank {}", axes[i], rank);
    const int k = static_cast<int>(axes[i] < 0 ? axes[i] + rank : axes[i]);
    if (seen[k]) fail("axes name axis {} twice", k);
    seen[k] = true;
    const int64_t step = steps[i];
    if (step == 0) fail("steps entry {} is 0; steps must be non-zero", i);
    const int64_t dim = in[k];
    // Exporters use INT64_MIN/MAX as "to the end": adding dim cannot overflow
    // since only negative values get it added.
    int64_t s = starts[i], e = ends[i];
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    if (dim == 0) {
      s = e = 0;  // nothing to take (and [0, dim - 1] would be an empty clamp range)
    } else if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
    }
    // ceil(distance / |step|), in unsigned so that |INT64_MIN| does not overflow.
    const int64_t dist = step > 0 ? e - s : s - e;
    const uint64_t mag = step > 0 ? static_cast<uint64_t>(step) : 0 - static_cast<uint64_t>(step);
    const int64_t len = dist > 0 ? static_cast<int64_t>((static_cast<uint64_t>(dist) - 1) / mag + 1) : 0;
    p.start[k] = s;
    p.step[k] = step;
    p.out_shape[k] = len;
  }
  return p;
}

SliceParams slice_params(const Graph& g, const Node& n) {
  auto at = [&](size_t i) { return n.has_input(i) ? g.value(n.inputs[i]).constant.get() : nullptr; };
  if (!at(1) || !at(2) || (n.has_input(3) && !at(3)) || (n.has_input(4) && !at(4)))
    fail("internal: Slice bounds are not constants");
  return slice_params(g.value(n.inputs[0]).shape, *at(1), *at(2), at(3), at(4));
}

namespace {

const char* const kBoundNames[] = {"data", "starts", "ends", "axes", "steps"};

// Bounds computed at run time: the output shape is the one the model
// declares (the kernel checks the bounds give it); without one, refused.
void infer_runtime_bounds(InferContext& ctx) {
  const Shape* declared = ctx.declared_output(0);
  if (!declared)
    for (int i = 1; i < ctx.num_inputs(); ++i)
      if (ctx.has_input(i)) ctx.require_shape_const(i, kBoundNames[i]);  // names the first run-time one
  const Shape& in = ctx.in_shape(0);
  const int rank = ctx.in_rank(0);
  if (rank == 0) fail("the data is a scalar; Slice needs rank 1 or more");
  int64_t n = -1;
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    ctx.expect_dtype(i, {DType::Int64, DType::Int32});
    if (ctx.in_rank(i) != 1) fail("{} must be 1-D, got shape {}", kBoundNames[i], shape_str(ctx.in_shape(i)));
    if (n >= 0 && ctx.in_shape(i)[0] != n)
      fail("{} has {} entries but starts has {}; they must match", kBoundNames[i], ctx.in_shape(i)[0], n);
    n = ctx.in_shape(i)[0];
  }
  if (n > rank) fail("starts has {} entries but the data has rank {}", n, rank);
  if (declared->size() != in.size())
    fail("the model declares the output {}, of another rank than the data {}", shape_str(*declared), shape_str(in));
  for (size_t k = 0; k < in.size(); ++k)
    if ((*declared)[k] > in[k])
      fail("the model declares the output {}, longer than the data {} at axis {}", shape_str(*declared), shape_str(in), k);
  ctx.set_output(0, ctx.in_dtype(0), *declared);
}

}  // namespace

bool slice_bounds_constant(const Graph& g, const Node& n) {
  for (size_t i = 1; i < n.inputs.size(); ++i)
    if (n.has_input(i) && !g.value(n.inputs[i]).is_constant()) return false;
  return true;
}

void infer_Slice(InferContext& ctx) {
  ctx.expect_inputs(3, 5);
  for (int i = 1; i < ctx.num_inputs(); ++i)
    if (ctx.has_input(i) && !ctx.in_const(i)) return infer_runtime_bounds(ctx);
  const TensorData* axes = ctx.has_input(3) ? ctx.in_const(3) : nullptr;
  const TensorData* steps = ctx.has_input(4) ? ctx.in_const(4) : nullptr;
  SliceParams p = slice_params(ctx.in_shape(0), *ctx.in_const(1), *ctx.in_const(2), axes, steps);
  ctx.set_output(0, ctx.in_dtype(0), p.out_shape);
}

void eval_Slice(EvalContext& ctx) {
  const TensorData& x = ctx.in(0);
  const SliceParams p = slice_params(x.shape(), ctx.in(1), ctx.in(2), ctx.has_input(3) ? &ctx.in(3) : nullptr,
                                     ctx.has_input(4) ? &ctx.in(4) : nullptr);
  if (p.out_shape != ctx.outputs[0].shape())
    fail("the run-time bounds give the output shape {} but the model declares {}", shape_str(p.out_shape),
         shape_str(ctx.outputs[0].shape()));
  const int rank = x.rank();
  const std::vector<int64_t> strides = strides_of(x.shape());
  visit_bytes(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = x.raw_as<T>();
    T* dst = ctx.outputs[0].raw_as<T>();
    const int64_t n = ctx.outputs[0].numel();
    std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
    for (int64_t o = 0; o < n; ++o) {
      int64_t s = 0;
      for (int k = 0; k < rank; ++k) s += (p.start[k] + idx[k] * p.step[k]) * strides[k];
      dst[o] = src[s];
      for (int d = rank - 1; d >= 0; --d) {
        if (++idx[d] < p.out_shape[d]) break;
        idx[d] = 0;
      }
    }
  });
}

}  // namespace mlipc::ops
