// Cast: converts the element type (`to`, an ONNX TensorProto.DataType code)
// with TensorData::cast. Strings and complex numbers are not supported.
#include "ir/ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

DType cast_target(const Attrs& attrs) {
  if (!attrs.has("to")) fail("attribute 'to' is required");
  const int64_t to = attrs.get_int("to");
  // TensorProto.DataType codes (onnx.proto).
  switch (to) {
    case 1: return DType::Float32;
    case 2: return DType::UInt8;
    case 3: return DType::Int8;
    case 4: return DType::UInt16;
    case 5: return DType::Int16;
    case 6: return DType::Int32;
    case 7: return DType::Int64;
    case 9: return DType::Bool;
    case 10: return DType::Float16;
    case 11: return DType::Float64;
    case 12: return DType::UInt32;
    case 13: return DType::UInt64;
    case 16: return DType::BFloat16;
    case 8: fail("cast to string (to = 8) is not supported: mlipc has no string tensors");
    case 14:
    case 15: fail("cast to complex (to = {}) is not supported", to);
    default: break;
  }
  fail("'to' = {} is not an element type mlipc supports (supported: numeric types and bool)", to);
}

}  // namespace

void infer_Cast(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  ctx.set_output(0, cast_target(ctx.attrs()), ctx.in_shape(0));
}

void eval_Cast(EvalContext& ctx) { ctx.outputs[0] = ctx.in(0).cast(cast_target(ctx.attrs())); }

}  // namespace mlipc::ops
