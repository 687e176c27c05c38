// ReverseSequence: for each batch entry b, the first sequence_lens[b]
// elements along time_axis are reversed, the rest copied. time_axis and
// batch_axis are 0 and 1 in either order; sequence_lens (int64, one per batch
// entry, each in [0, time length]) may be computed at run time. Any element
// type.
#include "ops/reverse_sequence.h"

#include <cstring>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

ReverseSequenceParams reverse_sequence_params(const Attrs& attrs, const Shape& x) {
  if (x.size() < 2) fail("the input {} must have rank 2 or more", shape_str(x));
  const int64_t time = attrs.get_int("time_axis", 0), batch = attrs.get_int("batch_axis", 1);
  if (!((time == 0 && batch == 1) || (time == 1 && batch == 0)))
    fail("time_axis {} and batch_axis {} must be 0 and 1 in some order", time, batch);
  ReverseSequenceParams p;
  p.time = x[static_cast<size_t>(time)];
  p.batch = x[static_cast<size_t>(batch)];
  for (size_t d = 2; d < x.size(); ++d) p.inner *= x[d];
  // Element strides of the time and batch axes.
  p.time_stride = time == 0 ? p.batch * p.inner : p.inner;
  p.batch_stride = batch == 0 ? p.time * p.inner : p.inner;
  return p;
}

void infer_ReverseSequence(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  ctx.expect_dtype(1, {DType::Int64, DType::Int32});
  const ReverseSequenceParams p = reverse_sequence_params(ctx.attrs(), ctx.in_shape(0));
  if (ctx.in_shape(1) != Shape{p.batch})
    fail("sequence_lens {} must have shape [{}] (the batch length)", shape_str(ctx.in_shape(1)), p.batch);
  if (const TensorData* lens = ctx.in_const(1))
    for (int64_t l : lens->as_int64())
      if (l < 0 || l > p.time) fail("sequence length {} is outside [0, {}]", l, p.time);
  ctx.set_output(0, ctx.in_dtype(0), ctx.in_shape(0));
}

void eval_ReverseSequence(EvalContext& ctx) {
  const TensorData& x = ctx.in(0);
  const ReverseSequenceParams p = reverse_sequence_params(ctx.attrs(), x.shape());
  const std::vector<int64_t> lens = ctx.in(1).as_int64();
  const size_t esize = dtype_size(x.dtype()), chunk = static_cast<size_t>(p.inner) * esize;
  for (int64_t b = 0; b < p.batch; ++b) {
    if (lens[b] < 0 || lens[b] > p.time) fail("sequence length {} is outside [0, {}]", lens[b], p.time);
    for (int64_t t = 0; t < p.time; ++t) {
      const int64_t src = t < lens[b] ? lens[b] - 1 - t : t;
      if (chunk)
        std::memcpy(ctx.outputs[0].raw() + (b * p.batch_stride + t * p.time_stride) * esize,
                    x.raw() + (b * p.batch_stride + src * p.time_stride) * esize, chunk);
    }
  }
}

}  // namespace mlipc::ops
