// Tile: repeats the input `repeats[d]` times along each axis d (`repeats`:
// int64, 1-D, one entry per axis). Any element type. Repeats computed at run
// time are accepted when the model declares the output's static shape; the
// kernel then checks that they give it.
#include <cstdint>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

void expect_repeats_tensor(const InferContext& ctx) {
  ctx.expect_dtype(1, {DType::Int64});
  if (ctx.in_rank(1) != 1) fail("repeats must be 1-D, got shape {}", shape_str(ctx.in_shape(1)));
  if (ctx.in_shape(1)[0] != ctx.in_rank(0))
    fail("repeats has {} entries but the input {} has rank {}; they must match", ctx.in_shape(1)[0],
         shape_str(ctx.in_shape(0)), ctx.in_rank(0));
}

Shape tiled(const Shape& in, const TensorData& r) {
  const std::vector<int64_t> v = r.as_int64();
  Shape out = in;
  for (size_t d = 0; d < in.size(); ++d) {
    if (v[d] < 0) fail("repeats {} has a negative entry", shape_str(v));
    if (in[d] != 0 && v[d] > INT32_MAX / in[d])
      fail("repeats {} make axis {} of the input {} longer than 2^31 - 1", shape_str(v), d, shape_str(in));
    out[d] *= v[d];
  }
  return out;
}

}  // namespace

void infer_Tile(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  expect_repeats_tensor(ctx);
  const Shape& in = ctx.in_shape(0);
  if (const TensorData* r = ctx.in_const(1)) return ctx.set_output(0, ctx.in_dtype(0), tiled(in, *r));
  const Shape* declared = ctx.declared_output(0);
  if (!declared) ctx.require_shape_const(1, "repeats");
  // Repeats computed at run time: the declared shape must be a whole
  // number of copies on every axis (the kernel checks the repeats give it).
  bool ok = declared->size() == in.size();
  for (size_t d = 0; ok && d < in.size(); ++d) ok = in[d] == 0 ? (*declared)[d] == 0 : (*declared)[d] % in[d] == 0;
  if (!ok) fail("the model declares the output {}, which no repeats give for the input {}", shape_str(*declared), shape_str(in));
  ctx.set_output(0, ctx.in_dtype(0), *declared);
}

void eval_Tile(EvalContext& ctx) {
  const TensorData& x = ctx.in(0);
  const Shape& in = x.shape();
  const Shape& out = ctx.outputs[0].shape();
  const Shape want = tiled(in, ctx.in(1));
  if (want != out)
    fail("the run-time repeats give the output shape {} but the model declares {}", shape_str(want), shape_str(out));
  const std::vector<int64_t> in_strides = strides_of(in);
  const int rank = x.rank();
  visit_bytes(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = x.raw_as<T>();
    T* dst = ctx.outputs[0].raw_as<T>();
    std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
    for (int64_t o = 0, n = numel(out); o < n; ++o) {
      int64_t s = 0;  // output index i reads input index i mod in
      for (int d = 0; d < rank; ++d) s += (idx[d] % in[d]) * in_strides[d];
      dst[o] = src[s];
      for (int d = rank - 1; d >= 0; --d) {
        if (++idx[d] < out[d]) break;
        idx[d] = 0;
      }
    }
  });
}

}  // namespace mlipc::ops
