// Gemm: Y = alpha * A' * B' + beta * C on float32, A' and B' optionally
// transposed, C unidirectionally broadcast to [M, N]; the fused activation
// applies to the final sum.
#include "ops/activation.h"
#include "ops/broadcast.h"
#include "ops/fma.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_Gemm(InferContext& ctx) {
  ctx.expect_inputs(2, 3);
  for (int i = 0; i < ctx.num_inputs(); ++i)
    if (ctx.has_input(i)) ctx.expect_dtype(i, {DType::Float32});
  if (ctx.in_rank(0) != 2 || ctx.in_rank(1) != 2)
    fail("A {} and B {} must both be 2-D matrices", shape_str(ctx.in_shape(0)), shape_str(ctx.in_shape(1)));
  const bool ta = ctx.attrs().get_int("transA", 0) != 0, tb = ctx.attrs().get_int("transB", 0) != 0;
  const Shape& a = ctx.in_shape(0);
  const Shape& b = ctx.in_shape(1);
  const int64_t m = ta ? a[1] : a[0], k = ta ? a[0] : a[1];
  const int64_t kb = tb ? b[1] : b[0], n = tb ? b[0] : b[1];
  if (k != kb)
    fail("inner dimensions differ: A{} {} has K = {}, B{} {} has K = {}", ta ? "'" : "", shape_str(a), k,
         tb ? "'" : "", shape_str(b), kb);
  const Shape out = {m, n};
  if (ctx.has_input(2) && !broadcasts_to(ctx.in_shape(2), out))
    fail("C {} does not broadcast to the output {} (supported: scalar, [N], [1,N], [M,1], [M,N])",
         shape_str(ctx.in_shape(2)), shape_str(out));
  ctx.set_output(0, DType::Float32, out);
}

void eval_Gemm(EvalContext& ctx) {
  const bool ta = ctx.attrs().get_int("transA", 0) != 0, tb = ctx.attrs().get_int("transB", 0) != 0;
  const float alpha = ctx.attrs().get_float("alpha", 1.0f), beta = ctx.attrs().get_float("beta", 1.0f);
  const Activation act = activation_of(ctx.attrs());
  const TensorData& a = ctx.in(0);
  TensorData& y = ctx.outputs[0];
  const int64_t m = y.shape()[0], n = y.shape()[1], k = ta ? a.shape()[0] : a.shape()[1];
  const float* pa = a.data<float>();
  const float* pb = ctx.in(1).data<float>();
  const float* pc = ctx.has_input(2) ? ctx.in(2).data<float>() : nullptr;
  std::vector<int64_t> cs = pc ? broadcast_strides(ctx.in(2).shape(), y.shape()) : std::vector<int64_t>{0, 0};
  float* py = y.data<float>();
  // Same operation order as templates/kernels/gemm.c.
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      // Each product added with one rounding (a fused multiply-add, ops/fma.h).
      const float acc = fma_dot(0.0f, pa + (ta ? i : i * k), ta ? m : 1, pb + (tb ? j * k : j), tb ? 1 : n, k);
      float v = alpha * acc;
      if (pc) v += beta * pc[i * cs[0] + j * cs[1]];
      py[i * n + j] = act.apply(v);
    }
}

int gemm_weight_axis(const Node& n) { return n.attrs.get_int("transB", 0) != 0 ? 0 : 1; }

// Each output element sums K products; K is A's columns, or its rows with transA.
uint64_t gemm_macs(const Graph& g, const Node& n) {
  const ValueId w = weight_of(n);
  if (w == kNoValue || n.outputs.empty() || n.outputs[0] == kNoValue || g.value(w).shape.empty()) return 0;
  const Shape& a = g.value(n.inputs[0]).shape;
  const bool trans_a = n.attrs.get_int("transA", 0) != 0;
  const int64_t k = a.empty() ? 1 : (trans_a && a.size() >= 2 ? a[a.size() - 2] : a.back());
  return static_cast<uint64_t>(numel(g.value(n.outputs[0]).shape)) * static_cast<uint64_t>(k);
}

}  // namespace mlipc::ops
