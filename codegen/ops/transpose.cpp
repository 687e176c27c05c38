// Transpose: permutes the axes of a tensor of any rank and element type.
#include "ops/transpose.h"

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

std::vector<int> transpose_perm(const Attrs& attrs, int rank) {
  std::vector<int> perm(static_cast<size_t>(rank));
  if (!attrs.has("perm")) {
    for (int i = 0; i < rank; ++i) perm[i] = rank - 1 - i;
    return perm;
  }
  const std::vector<int64_t> p = attrs.get_ints("perm");
  if (static_cast<int>(p.size()) != rank)
    fail("perm {} has {} entries but the input has rank {}", shape_str(p), p.size(), rank);
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int i = 0; i < rank; ++i) {
    // ONNX permutations are non-negative; a repeated or missing axis is an error.
    if (p[i] < 0 || p[i] >= rank || seen[p[i]])
      fail("perm {} is not a permutation of 0..{}", shape_str(p), rank - 1);
    seen[p[i]] = true;
    perm[i] = static_cast<int>(p[i]);
  }
  return perm;
}

void infer_Transpose(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  const Shape& in = ctx.in_shape(0);
  const std::vector<int> perm = transpose_perm(ctx.attrs(), ctx.in_rank(0));
  Shape out(in.size());
  for (size_t i = 0; i < in.size(); ++i) out[i] = in[perm[i]];
  ctx.set_output(0, ctx.in_dtype(0), out);
}

void eval_Transpose(EvalContext& ctx) {
  const TensorData& x = ctx.in(0);
  const int rank = x.rank();
  const std::vector<int> perm = transpose_perm(ctx.attrs(), rank);
  const std::vector<int64_t> in_strides = strides_of(x.shape());
  const Shape& out_shape = ctx.outputs[0].shape();
  // Stride in the input of each output axis: walking the output in order.
  std::vector<int64_t> step(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) step[i] = in_strides[perm[i]];
  visit_bytes(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = x.raw_as<T>();
    T* dst = ctx.outputs[0].raw_as<T>();
    const int64_t n = ctx.outputs[0].numel();
    std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
    int64_t s = 0;
    for (int64_t o = 0; o < n; ++o) {
      dst[o] = src[s];
      for (int d = rank - 1; d >= 0; --d) {  // odometer increment
        if (++idx[d] < out_shape[d]) {
          s += step[d];
          break;
        }
        s -= step[d] * (out_shape[d] - 1);
        idx[d] = 0;
      }
    }
  });
}

}  // namespace mlipc::ops
