// Add, Sub, Mul, Div with numpy broadcasting, on float32/float64 and the
// integer types; float32 results may carry a fused activation.
#include "ir/ops/elementwise.h"

#include "ir/activation.h"
#include "ir/ops/broadcast.h"
#include "ir/ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

void infer_binary(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  ctx.expect_dtype(0, {DType::Float32, DType::Float64, DType::Int8, DType::Int16, DType::Int32, DType::Int64,
                       DType::UInt8, DType::UInt16, DType::UInt32, DType::UInt64});
  if (ctx.in_dtype(1) != ctx.in_dtype(0))
    fail("inputs have different element types ({} and {}); both must be the same", dtype_name(ctx.in_dtype(0)),
         dtype_name(ctx.in_dtype(1)));
  const Shape& a = ctx.in_shape(0);
  const Shape& b = ctx.in_shape(1);
  if (ctx.attrs().has("legacy_axis")) {
    // Opset < 7 broadcast=1 aligns B's axes with A's from `axis`; numpy
    // broadcasting is the case where B ends at A's last axis.
    const int64_t axis = ctx.attrs().get_int("legacy_axis");
    const int64_t ra = static_cast<int64_t>(a.size()), rb = static_cast<int64_t>(b.size());
    const int64_t norm = axis < 0 ? axis + ra : axis;
    if (norm != ra - rb)
      fail("legacy broadcasting along axis {} is not supported; only axis = rank(A) - rank(B) = {} (numpy "
           "broadcasting)",
           axis, ra - rb);
    ctx.attrs().erase("legacy_axis");  // now plain numpy broadcasting
  }
  if (activation_of(ctx.attrs()).kind != Activation::None && ctx.in_dtype(0) != DType::Float32)
    fail("a fused activation needs float32, the element type is {}", dtype_name(ctx.in_dtype(0)));
  ctx.set_output(0, ctx.in_dtype(0), broadcast_shapes(a, b));
}

void eval_binary(EvalContext& ctx, BinaryOp op) {
  const TensorData& a = ctx.in(0);
  const TensorData& b = ctx.in(1);
  TensorData& y = ctx.outputs[0];
  const Activation act = activation_of(ctx.attrs());
  const std::vector<std::vector<int64_t>> strides = {broadcast_strides(a.shape(), y.shape()),
                                                     broadcast_strides(b.shape(), y.shape())};
  visit_numeric(a.dtype(), ctx.node.op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* py = y.data<T>();
    for_each_broadcast(y.shape(), strides, [&](int64_t o, const std::vector<int64_t>& off) {
      T v = binary_apply<T>(op, pa[off[0]], pb[off[1]]);
      if constexpr (std::is_same_v<T, float>) v = act.apply(v);
      py[o] = v;
    });
  });
}

}  // namespace

void infer_Add(InferContext& ctx) { infer_binary(ctx); }
void eval_Add(EvalContext& ctx) { eval_binary(ctx, BinaryOp::Add); }
void infer_Sub(InferContext& ctx) { infer_binary(ctx); }
void eval_Sub(EvalContext& ctx) { eval_binary(ctx, BinaryOp::Sub); }
void infer_Mul(InferContext& ctx) { infer_binary(ctx); }
void eval_Mul(EvalContext& ctx) { eval_binary(ctx, BinaryOp::Mul); }
void infer_Div(InferContext& ctx) { infer_binary(ctx); }
void eval_Div(EvalContext& ctx) { eval_binary(ctx, BinaryOp::Div); }

}  // namespace mlipc::ops
