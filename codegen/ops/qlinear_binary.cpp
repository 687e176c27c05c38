// com.microsoft QLinearAdd and QLinearMul: per-tensor quantized A and B
// (int8 or uint8, the same type; or int16 with zero points 0, the 16x8
// form fold_qdq makes), numpy broadcasting, output C of their type. Integer arithmetic (mlip/requant.h): Add brings both inputs to a
// common scale (mlip_qadd_sum) and requantizes the sum; Mul requantizes
// the product (a - za) * (b - zb) by a_scale * b_scale / c_scale.
#include "ops/broadcast.h"
#include "ops/elem.h"
#include "ops/ops.h"
#include "ops/qlinear.h"
#include "mlip/requant.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

// Inputs: A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point.
void infer_binary(InferContext& ctx) {
  ctx.expect_inputs(7, 8);
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  const bool int16 = ctx.in_dtype(0) == DType::Int16;
  if (!int16) expect_quant_type(ctx, 0, "A");
  if (!int16 || ctx.in_dtype(3) != DType::Int16) expect_quant_type(ctx, 3, "B");
  const DType t = ctx.in_dtype(0);
  if (ctx.in_dtype(3) != t) fail("A is {} but B is {}; they must have the same type", dtype_name(t), dtype_name(ctx.in_dtype(3)));
  const char* names[] = {"A", "B", "C"};
  const int scales[] = {1, 4, 6};
  for (int k = 0; k < 3; ++k)
    // 16x8: symmetric, so that (a - 0) * 2^15 and a product of two stay within int32.
    if (read_qparam(ctx, scales[k], scales[k] + 1, t, names[k]).zero_point != 0 && int16)
      fail("{}_zero_point is not 0; int16 (16x8) tensors are symmetric", names[k]);
  ctx.set_output(0, t, broadcast_shapes(ctx.in_shape(0), ctx.in_shape(3)));
}

template <class F>
void eval_binary(EvalContext& ctx, F f) {
  if (ctx.in(0).dtype() == DType::Int8)
    map_binary<int8_t, int8_t, int8_t>(ctx.in(0), ctx.in(3), ctx.outputs[0],
                                       [&](int8_t a, int8_t b) { return static_cast<int8_t>(f(a, b)); });
  else if (ctx.in(0).dtype() == DType::Int16)
    map_binary<int16_t, int16_t, int16_t>(ctx.in(0), ctx.in(3), ctx.outputs[0],
                                          [&](int16_t a, int16_t b) { return static_cast<int16_t>(f(a, b)); });
  else
    map_binary<uint8_t, uint8_t, uint8_t>(ctx.in(0), ctx.in(3), ctx.outputs[0],
                                          [&](uint8_t a, uint8_t b) { return static_cast<uint8_t>(f(a, b)); });
}

}  // namespace

void infer_QLinearAdd(InferContext& ctx) {
  infer_binary(ctx);
  const DType t = ctx.in_dtype(0);
  add_requant(read_qparam(ctx, 1, 2, t, "A"), read_qparam(ctx, 4, 5, t, "B"), read_qparam(ctx, 6, 7, t, "C"));
}

void eval_QLinearAdd(EvalContext& ctx) {
  const DType t = ctx.in(0).dtype();
  const QParam a = eval_qparam(ctx, 1, 2, t), b = eval_qparam(ctx, 4, 5, t), c = eval_qparam(ctx, 6, 7, t);
  const int32_t lo = clamp_lo(ctx.attrs(), t), hi = clamp_hi(ctx.attrs(), t);
  if (requant_mode(ctx.attrs()) == RequantMode::Ort) {
    const AddF32 f = add_f32(a.scale, a.zero_point, b.scale, b.zero_point, c.scale, c.zero_point);
    eval_binary(ctx, [&](int32_t x, int32_t y) { return mlip_qadd_f32(x, y, f.ra, f.rb, f.offset, lo, hi); });
    return;
  }
  const AddRequant r = add_requant(a, b, c);
  const int32_t shift = t == DType::Int16 ? MLIP_QADD16_LEFT_SHIFT : MLIP_QADD_LEFT_SHIFT;
  eval_binary(ctx, [&](int32_t x, int32_t y) {
    const int32_t s =
        mlip_qadd_sum_shifted(x - a.zero_point, r.a.q, r.a.shift, y - b.zero_point, r.b.q, r.b.shift, shift);
    return mlip_requantize(s, r.out.q, r.out.shift, c.zero_point, lo, hi);
  });
}

void infer_QLinearMul(InferContext& ctx) {
  infer_binary(ctx);
  const DType t = ctx.in_dtype(0);
  const QParam a = read_qparam(ctx, 1, 2, t, "A"), b = read_qparam(ctx, 4, 5, t, "B");
  requant_multiplier(a.scale, b.scale, read_qparam(ctx, 6, 7, t, "C").scale);
}

void eval_QLinearMul(EvalContext& ctx) {
  const DType t = ctx.in(0).dtype();
  const QParam a = eval_qparam(ctx, 1, 2, t), b = eval_qparam(ctx, 4, 5, t), c = eval_qparam(ctx, 6, 7, t);
  const Requant r = requant_multiplier(a.scale, b.scale, c.scale, requant_mode(ctx.attrs()));
  eval_binary(ctx, [&](int32_t x, int32_t y) {
    return mlip_requantize((x - a.zero_point) * (y - b.zero_point), r.q, r.shift, c.zero_point, clamp_lo(ctx.attrs(), t),
                           clamp_hi(ctx.attrs(), t));
  });
}

}  // namespace mlipc::ops
