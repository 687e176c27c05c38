// Gather: picks slices of `data` along `axis` at int32/int64 indices
// (negative counts from the end). Output: data.shape[:axis] + indices.shape +
// data.shape[axis+1:]. Any element type.
#include "ops/gather.h"

#include <cstring>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

int gather_axis(const Attrs& attrs, int rank) {
  if (rank == 0) fail("data is a scalar; Gather needs data of rank 1 or more");
  const int64_t axis = attrs.get_int("axis", 0);
  if (axis < -rank || axis >= rank) fail("axis {} is out of range for rank {} (allowed: [{}, {}])", axis, rank, -rank, rank - 1);
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

namespace {

// Indices made non-negative; throws for any outside [-dim, dim).
std::vector<int64_t> checked_indices(const TensorData& t, int64_t dim) {
  std::vector<int64_t> idx = t.as_int64();
  for (int64_t& i : idx) {
    if (i < -dim || i >= dim) fail("index {} is out of range for an axis of size {} (allowed: [{}, {}])", i, dim, -dim, dim - 1);
    if (i < 0) i += dim;
  }
  return idx;
}

}  // namespace

void infer_Gather(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  ctx.expect_dtype(1, {DType::Int64, DType::Int32});
  const Shape& data = ctx.in_shape(0);
  const int axis = gather_axis(ctx.attrs(), ctx.in_rank(0));
  // Constant indices are checked here already, so the error comes at import.
  if (const TensorData* idx = ctx.in_const(1)) checked_indices(*idx, data[axis]);
  Shape out(data.begin(), data.begin() + axis);
  for (int64_t d : ctx.in_shape(1)) out.push_back(d);
  out.insert(out.end(), data.begin() + axis + 1, data.end());
  ctx.set_output(0, ctx.in_dtype(0), out);
}

void eval_Gather(EvalContext& ctx) {
  const TensorData& x = ctx.in(0);
  const int axis = gather_axis(ctx.attrs(), x.rank());
  const std::vector<int64_t> idx = checked_indices(ctx.in(1), x.shape()[axis]);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= x.shape()[d];
  for (int d = axis + 1; d < x.rank(); ++d) inner *= x.shape()[d];
  const size_t chunk = static_cast<size_t>(inner) * dtype_size(x.dtype());
  const int64_t dim = x.shape()[axis];
  uint8_t* y = ctx.outputs[0].raw();
  if (chunk == 0) return;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : idx) {
      std::memcpy(y, x.raw() + (o * dim + i) * chunk, chunk);
      y += chunk;
    }
}

}  // namespace mlipc::ops
