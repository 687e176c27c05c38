// MatMul with numpy semantics: 1-D operands are promoted and the promoted
// axis dropped from the result, batch axes broadcast. float32, with an
// optional fused activation. After passes/fuse_matmul_bias, input 2 holds
// one value per output column, added to each finished sum before the
// activation (attribute mlipc_bias = 1; an ONNX model's MatMul has 2 inputs).
// After passes/fuse_matmul_epilogue, each activated value is multiplied by
// input 3's value for its column (mlipc_scale = 1), then input 4's element
// (the output's shape) added (mlipc_residual = 1): the unfused Mul and Add.
#include "ops/matmul.h"

#include "ops/activation.h"
#include "ops/broadcast.h"
#include "ops/fma.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

MatMulDims matmul_dims(const Shape& a_in, const Shape& b_in) {
  if (a_in.empty() || b_in.empty())
    fail("MatMul needs operands of rank >= 1, got {} and {}", shape_str(a_in), shape_str(b_in));
  Shape a = a_in, b = b_in;
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  MatMulDims d;
  d.m = a[a.size() - 2];
  d.k = a[a.size() - 1];
  d.n = b[b.size() - 1];
  if (b[b.size() - 2] != d.k)
    fail("inner dimensions differ: A {} has K = {}, B {} has K = {}", shape_str(a_in), d.k, shape_str(b_in),
         b[b.size() - 2]);
  const Shape ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  d.batch = broadcast_shapes(ab, bb);
  // Batch strides counted in elements: one batch step skips a whole matrix.
  d.a_batch_stride = broadcast_strides(ab, d.batch);
  d.b_batch_stride = broadcast_strides(bb, d.batch);
  for (int64_t& s : d.a_batch_stride) s *= d.m * d.k;
  for (int64_t& s : d.b_batch_stride) s *= d.k * d.n;
  d.out = d.batch;
  if (a_in.size() > 1) d.out.push_back(d.m);
  if (b_in.size() > 1) d.out.push_back(d.n);
  return d;
}

void infer_MatMul(InferContext& ctx) {
  const Attrs& at = ctx.attrs();
  ctx.expect_inputs(2, at.get_int("mlipc_residual", 0) == 1 ? 5
                       : at.get_int("mlipc_scale", 0) == 1 ? 4
                       : at.get_int("mlipc_bias", 0) == 1  ? 3
                                                           : 2);
  ctx.expect_dtype(0, {DType::Float32});
  ctx.expect_dtype(1, {DType::Float32});
  const MatMulDims d = matmul_dims(ctx.in_shape(0), ctx.in_shape(1));
  if (ctx.has_input(2)) {
    ctx.expect_dtype(2, {DType::Float32});
    if (numel(ctx.in_shape(2)) != d.n)
      fail("internal: bias {} is not one value per column ({})", shape_str(ctx.in_shape(2)), d.n);
  }
  if (ctx.has_input(3)) {
    ctx.expect_dtype(3, {DType::Float32});
    if (numel(ctx.in_shape(3)) != d.n)
      fail("internal: scale {} is not one value per column ({})", shape_str(ctx.in_shape(3)), d.n);
  }
  if (ctx.has_input(4)) {
    ctx.expect_dtype(4, {DType::Float32});
    if (ctx.in_shape(4) != d.out)
      fail("internal: residual {} is not of the output's shape {}", shape_str(ctx.in_shape(4)), shape_str(d.out));
  }
  ctx.set_output(0, DType::Float32, d.out);
}

void eval_MatMul(EvalContext& ctx) {
  const MatMulDims d = matmul_dims(ctx.in(0).shape(), ctx.in(1).shape());
  const Activation act = activation_of(ctx.attrs());
  const float* a = ctx.in(0).data<float>();
  const float* b = ctx.in(1).data<float>();
  const float* bias = ctx.has_input(2) ? ctx.in(2).data<float>() : nullptr;
  const float* scale = ctx.has_input(3) ? ctx.in(3).data<float>() : nullptr;
  const float* res = ctx.has_input(4) ? ctx.in(4).data<float>() : nullptr;
  float* y = ctx.outputs[0].data<float>();
  for_each_broadcast(d.batch, {d.a_batch_stride, d.b_batch_stride},
                     [&](int64_t batch, const std::vector<int64_t>& off) {
                       const float* pa = a + off[0];
                       const float* pb = b + off[1];
                       float* py = y + batch * d.m * d.n;
                       const float* pr = res ? res + batch * d.m * d.n : nullptr;
                       // Same order as templates/kernels/matmul.c.
                       for (int64_t i = 0; i < d.m; ++i)
                         for (int64_t j = 0; j < d.n; ++j) {
                           // Each product added with one rounding (ops/fma.h).
                           float v = fma_dot(0.0f, pa + i * d.k, 1, pb + j, d.n, d.k);
                           if (bias) v = v + bias[j];  // the Add after the sum, as the unfused graph
                           v = act.apply(v);
                           if (scale) v = v * scale[j];            // the Mul by a layer scale
                           if (pr) v = v + pr[i * d.n + j];        // the residual Add
                           py[i * d.n + j] = v;
                         }
                     });
}

// Each output element sums K products, K being A's last axis (MatMul,
// MatMulInteger, QLinearMatMul: B is the input OpTraits::weight names).
uint64_t matmul_macs(const Graph& g, const Node& n) {
  const ValueId w = weight_of(n);
  if (w == kNoValue || n.outputs.empty() || n.outputs[0] == kNoValue || g.value(w).shape.empty()) return 0;
  const Shape& a = g.value(n.inputs[0]).shape;
  const int64_t k = a.empty() ? 1 : a.back();
  return static_cast<uint64_t>(numel(g.value(n.outputs[0]).shape)) * static_cast<uint64_t>(k);
}

}  // namespace mlipc::ops
