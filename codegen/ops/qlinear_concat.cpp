// com.microsoft QLinearConcat: inputs Y_scale, Y_zero_point, then (X, X_scale,
// X_zero_point) per tensor, all int8 or all uint8. Each input is brought to
// the output's scale and zero point by a table of its 256 values (the
// requantization as QuantizeLinear of the dequantized value, one rounding),
// then concatenated; passes/fold_qdq writes it as those lookups and a Concat.
#include <cstring>

#include "ops/concat.h"
#include "ops/ops.h"
#include "ops/qlinear.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_QLinearConcat(InferContext& ctx) {
  if (ctx.num_inputs() < 5 || (ctx.num_inputs() - 2) % 3 != 0)
    fail("expects Y_scale, Y_zero_point and (X, X_scale, X_zero_point) per input; got {} inputs", ctx.num_inputs());
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  expect_quant_type(ctx, 2, "X");
  const DType t = ctx.in_dtype(2);
  read_qparam(ctx, 0, 1, t, "Y");
  Shape out = ctx.in_shape(2);
  const int axis = concat_axis(ctx.attrs(), static_cast<int>(out.size()));
  ctx.attrs().set("axis", static_cast<int64_t>(axis));
  for (int i = 2; i < ctx.num_inputs(); i += 3) {
    expect_quant_type(ctx, i, "X");
    if (ctx.in_dtype(i) != t) fail("input {} is {} but the first is {}", i, dtype_name(ctx.in_dtype(i)), dtype_name(t));
    read_qparam(ctx, i + 1, i + 2, t, "X");
    const Shape& s = ctx.in_shape(i);
    if (i == 2) continue;
    if (s.size() != out.size()) fail("input {} has shape {}; the first has {}", i, shape_str(s), shape_str(out));
    for (size_t d = 0; d < s.size(); ++d)
      if (static_cast<int>(d) != axis && s[d] != out[d])
        fail("input {} has shape {}; it must match {} except on axis {}", i, shape_str(s), shape_str(ctx.in_shape(2)), axis);
    out[static_cast<size_t>(axis)] += s[static_cast<size_t>(axis)];
  }
  ctx.set_output(0, t, out);
}

void eval_QLinearConcat(EvalContext& ctx) {
  const TensorData& first = ctx.in(2);
  const DType t = first.dtype();
  const QParam y = eval_qparam(ctx, 0, 1, t);
  const Shape& out_shape = ctx.outputs[0].shape();
  const int axis = concat_axis(ctx.attrs(), static_cast<int>(out_shape.size()));
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= out_shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < out_shape.size(); ++d) inner *= out_shape[d];
  const int64_t out_chunk = out_shape[static_cast<size_t>(axis)] * inner;
  uint8_t* dst = ctx.outputs[0].raw();
  int64_t offset = 0;
  for (int i = 2; i < static_cast<int>(ctx.inputs.size()); i += 3) {
    const TensorData& x = ctx.in(i);
    const std::vector<int32_t> table = lookup_table(eval_qparam(ctx, i + 1, i + 2, t), y, [](double v) { return v; });
    const std::vector<int32_t> v = int32_values(x);
    const int64_t chunk = x.shape()[static_cast<size_t>(axis)] * inner;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < chunk; ++k) {
        const int32_t q = table[static_cast<size_t>(v[static_cast<size_t>(o * chunk + k)] - quant_min(t))];
        dst[o * out_chunk + offset + k] = static_cast<uint8_t>(q & 0xFF);  // int8 and uint8: the low byte
      }
    offset += chunk;
  }
}

}  // namespace mlipc::ops
