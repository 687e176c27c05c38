// Gelu (ONNX opset 20), float32: approximate "none", 0.5 x (1 + erf(x /
// sqrt 2)), is mlip/kmath_f.h's mlip_gelu_f (the float-precision erf, in
// the order of the decomposition torch exports: passes/fuse_gelu.cpp writes
// this operator for that pattern; the header states the bound against it);
// "tanh" is mlip_gelu_tanh_f. The shape rule writes the default "none".
#include "mlip/kmath_f.h"
#include "ops/elem.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_Gelu(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  expect_elem_dtype(ctx, 0, {DType::Float32});
  const std::string a = ctx.attrs().get_string("approximate", "none");
  if (a != "none" && a != "tanh") fail("approximate '{}' (allowed: none, tanh)", a);
  ctx.attrs().set("approximate", a);
  ctx.set_output(0, DType::Float32, ctx.in_shape(0));
}

void eval_Gelu(EvalContext& ctx) {
  if (ctx.attrs().get_string("approximate") == "tanh")
    map_unary<float, float>(ctx.in(0), ctx.outputs[0], [](float v) { return mlip_gelu_tanh_f(v); });
  else
    map_unary<float, float>(ctx.in(0), ctx.outputs[0], [](float v) { return mlip_gelu_f(v); });
}

}  // namespace mlipc::ops
