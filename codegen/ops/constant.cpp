// Constant: no inputs, so it is always folded. Exactly one of value,
// value_float(s), value_int(s); strings and sparse tensors are not supported.
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

const char* const kSupported = "value, value_float, value_floats, value_int, value_ints";

TensorData constant_value(const Attrs& attrs) {
  for (const char* name : {"value_string", "value_strings"})
    if (attrs.has(name)) fail("attribute '{}' is not supported: mlipc has no string tensors (supported: {})", name, kSupported);
  if (attrs.has("sparse_value")) fail("attribute 'sparse_value' is not supported (supported: {})", kSupported);
  int count = 0;
  for (const char* name : {"value", "value_float", "value_floats", "value_int", "value_ints"}) count += attrs.has(name);
  if (count != 1) fail("needs exactly one value attribute, got {} (supported: {})", count, kSupported);
  if (attrs.has("value")) return attrs.get_tensor("value");
  if (attrs.has("value_float")) return TensorData::scalar<float>(attrs.get_float("value_float"));
  if (attrs.has("value_int")) return TensorData::scalar<int64_t>(attrs.get_int("value_int"));
  if (attrs.has("value_floats")) {
    std::vector<float> v = attrs.get_floats("value_floats");
    return TensorData::from<float>({static_cast<int64_t>(v.size())}, v);
  }
  std::vector<int64_t> v = attrs.get_ints("value_ints");
  return TensorData::from<int64_t>({static_cast<int64_t>(v.size())}, v);
}

}  // namespace

void infer_Constant(InferContext& ctx) {
  ctx.expect_inputs(0, 0);
  TensorData v = constant_value(ctx.attrs());
  ctx.set_output(0, v.dtype(), v.shape());
}

void eval_Constant(EvalContext& ctx) { ctx.outputs[0] = constant_value(ctx.attrs()); }

}  // namespace mlipc::ops
