// Table lookups on int8/uint8: mlipc.QLinearLookup (y = table[x - type
// minimum], a constant table of 256 values of y's type, which passes/fold_qdq
// makes of a quantized activation), and com.microsoft QLinearSigmoid and
// QLinearLeakyRelu (inputs X, X_scale, X_zero_point, Y_scale, Y_zero_point),
// whose reference computes the same table (ops/qlinear.cpp,
// lookup_table): every value of x dequantized, the function in double,
// quantized as QuantizeLinear. fold_qdq turns them into lookups, so the C
// backend has the one lookup kernel. Its 16x8 form: an int16 X and a
// 513-entry int16 table interpolated between knots (mlip/lut16.h;
// ops::lookup_table16 fills it), what fold_qdq makes of a 16x8 activation.
#include "mlip/lut16.h"
#include "ops/ops.h"
#include "ops/qlinear.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

void apply_table(const TensorData& x, const std::vector<int32_t>& table, TensorData& y) {
  const std::vector<int32_t> v = int32_values(x);
  if (x.dtype() == DType::Int16) {
    const std::vector<int16_t> t(table.begin(), table.end());
    for (size_t i = 0; i < v.size(); ++i) y.data<int16_t>()[i] = mlip_lut16(v[i], t.data());
    return;
  }
  const int32_t lo = quant_min(x.dtype());
  for (size_t i = 0; i < v.size(); ++i) {
    const int32_t q = table[static_cast<size_t>(v[i] - lo)];
    if (y.dtype() == DType::Int8)
      y.data<int8_t>()[i] = static_cast<int8_t>(q);
    else
      y.data<uint8_t>()[i] = static_cast<uint8_t>(q);
  }
}

void infer_activation(InferContext& ctx) {
  ctx.expect_inputs(4, 5);
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  expect_quant_type(ctx, 0, "X");
  const DType t = ctx.in_dtype(0);
  read_qparam(ctx, 1, 2, t, "X");
  read_qparam(ctx, 3, 4, t, "Y");
  ctx.set_output(0, t, ctx.in_shape(0));
}

void eval_activation(EvalContext& ctx, std::string_view op) {
  const DType t = ctx.in(0).dtype();
  const auto f = activation_function(op, ctx.attrs(), 0.0, 0.0);
  apply_table(ctx.in(0), lookup_table(eval_qparam(ctx, 1, 2, t), eval_qparam(ctx, 3, 4, t), f), ctx.outputs[0]);
}

}  // namespace

std::vector<int32_t> activation_table(const Graph& g, const Node& n) {
  const auto c = [&](int i) -> const TensorData* {
    return n.has_input(static_cast<size_t>(i)) ? g.value(n.inputs[static_cast<size_t>(i)]).constant.get() : nullptr;
  };
  const DType t = g.value(n.inputs[0]).dtype;
  auto param = [&](int s, int z) {
    QParam p;
    p.dtype = t;
    p.scale = c(s)->data<float>()[0];
    if (c(z)) p.zero_point = static_cast<int32_t>(c(z)->as_int64()[0]);
    return p;
  };
  const std::string op = n.op == "QLinearSigmoid" ? "Sigmoid" : "LeakyRelu";
  return lookup_table(param(1, 2), param(3, 4), activation_function(op, n.attrs, 0.0, 0.0));
}

void infer_QLinearSigmoid(InferContext& ctx) { infer_activation(ctx); }
void eval_QLinearSigmoid(EvalContext& ctx) { eval_activation(ctx, "Sigmoid"); }

void infer_QLinearLeakyRelu(InferContext& ctx) {
  infer_activation(ctx);
  ctx.attrs().set("alpha", ctx.attrs().get_float("alpha", 0.01f));
}
void eval_QLinearLeakyRelu(EvalContext& ctx) { eval_activation(ctx, "LeakyRelu"); }

// Inputs: X (int8/uint8), table (constant, [256] of the output type); or
// X int16 and table [513] of int16 (16x8).
void infer_QLinearLookup(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  if (ctx.num_outputs() != 1) fail("expects 1 output, got {}", ctx.num_outputs());
  if (ctx.in_dtype(0) == DType::Int16) {
    if (ctx.in_dtype(1) != DType::Int16) fail("an int16 X needs an int16 table, not {}", dtype_name(ctx.in_dtype(1)));
    ctx.require_const(1, "table");
    if (ctx.in_shape(1) != Shape{MLIP_LUT16_ENTRIES})
      fail("the table has shape {}; an int16 X needs [{}]", shape_str(ctx.in_shape(1)), MLIP_LUT16_ENTRIES);
    ctx.set_output(0, DType::Int16, ctx.in_shape(0));
    return;
  }
  expect_quant_type(ctx, 0, "X");
  expect_quant_type(ctx, 1, "table");
  ctx.require_const(1, "table");
  if (ctx.in_shape(1) != Shape{256}) fail("the table has shape {}; it must be [256]", shape_str(ctx.in_shape(1)));
  ctx.set_output(0, ctx.in_dtype(1), ctx.in_shape(0));
}

void eval_QLinearLookup(EvalContext& ctx) { apply_table(ctx.in(0), int32_values(ctx.in(1)), ctx.outputs[0]); }

}  // namespace mlipc::ops
