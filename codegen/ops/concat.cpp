// Concat: joins any number of tensors of one element type along one axis.
#include "ops/concat.h"

#include <cstring>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

int concat_axis(const Attrs& attrs, int rank) {
  if (!attrs.has("axis")) fail("attribute 'axis' is required");
  if (rank == 0) fail("inputs are scalars; Concat needs inputs of rank 1 or more");
  const int64_t axis = attrs.get_int("axis");
  if (axis < -rank || axis >= rank) fail("axis {} is out of range for rank {} (allowed: [{}, {}])", axis, rank, -rank, rank - 1);
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

void infer_Concat(InferContext& ctx) {
  if (ctx.num_inputs() < 1) fail("expects at least 1 input, got 0");
  for (int i = 0; i < ctx.num_inputs(); ++i)
    if (!ctx.has_input(i)) fail("input #{} is omitted; every Concat input is required", i);
  const DType dt = ctx.in_dtype(0);
  const Shape& first = ctx.in_shape(0);
  const int rank = ctx.in_rank(0);
  const int axis = concat_axis(ctx.attrs(), rank);
  Shape out = first;
  out[axis] = 0;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Shape& s = ctx.in_shape(i);
    if (ctx.in_dtype(i) != dt)
      fail("input #{} has element type {} but input #0 has {}; all inputs must have one type", i,
           dtype_name(ctx.in_dtype(i)), dtype_name(dt));
    if (static_cast<int>(s.size()) != rank)
      fail("input #{} has rank {} ({}) but input #0 has rank {} ({}); all inputs must have one rank", i, s.size(),
           shape_str(s), rank, shape_str(first));
    for (int d = 0; d < rank; ++d)
      if (d != axis && s[d] != first[d])
        fail("input #{} {} differs from input #0 {} at axis {}; only axis {} may differ", i, shape_str(s),
             shape_str(first), d, axis);
    out[axis] += s[axis];
  }
  ctx.set_output(0, dt, out);
}

void eval_Concat(EvalContext& ctx) {
  const Shape& out_shape = ctx.outputs[0].shape();
  const int axis = concat_axis(ctx.attrs(), static_cast<int>(out_shape.size()));
  const size_t esize = dtype_size(ctx.outputs[0].dtype());
  // Row-major: the output is `outer` blocks, each the inputs' chunks in order.
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= out_shape[d];
  for (size_t d = axis + 1; d < out_shape.size(); ++d) inner *= out_shape[d];
  const size_t out_chunk = static_cast<size_t>(out_shape[axis] * inner) * esize;
  uint8_t* y = ctx.outputs[0].raw();
  size_t offset = 0;
  for (size_t k = 0; k < ctx.inputs.size(); ++k) {
    const TensorData& x = ctx.in(static_cast<int>(k));
    const size_t chunk = static_cast<size_t>(x.shape()[axis] * inner) * esize;
    if (chunk == 0) continue;
    for (int64_t o = 0; o < outer; ++o) std::memcpy(y + o * out_chunk + offset, x.raw() + o * chunk, chunk);
    offset += chunk;
  }
}

}  // namespace mlipc::ops
