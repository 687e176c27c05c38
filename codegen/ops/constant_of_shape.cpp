// ConstantOfShape: a tensor of the (constant, int64) shape input filled with
// the one-element `value` attribute (default float32 0). Zero-size dimensions
// are allowed; an empty shape gives a scalar.
#include <cstring>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

TensorData fill_value(const Attrs& attrs) {
  if (!attrs.has("value")) return TensorData::scalar<float>(0.0f);
  const TensorData& v = attrs.get_tensor("value");
  if (v.numel() != 1) fail("attribute 'value' must hold exactly one element, got shape {}", shape_str(v.shape()));
  return v;
}

Shape target_shape(const TensorData& t) {
  if (t.dtype() != DType::Int64) fail("shape input has element type {}; supported: int64", dtype_name(t.dtype()));
  if (t.rank() != 1) fail("shape input must be 1-D, got shape {}", shape_str(t.shape()));
  Shape s = t.as_int64();
  for (int64_t d : s)
    if (d < 0) fail("shape {} has a negative dimension", shape_str(s));
  return s;
}

}  // namespace

void infer_ConstantOfShape(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  const TensorData& shape = ctx.require_const(0, "shape");
  ctx.set_output(0, fill_value(ctx.attrs()).dtype(), target_shape(shape));
}

void eval_ConstantOfShape(EvalContext& ctx) {
  const TensorData v = fill_value(ctx.attrs());
  TensorData& out = ctx.outputs[0];
  const size_t esize = dtype_size(v.dtype());
  for (int64_t i = 0; i < out.numel(); ++i) std::memcpy(out.raw() + i * esize, v.raw(), esize);
}

}  // namespace mlipc::ops
