// Reshape: a view (no kernel; the output is the input's bytes). The target
// shape must be a constant: 0 copies the input's dimension (unless
// allowzero = 1, where it means an empty axis) and one -1 is inferred.
#include <optional>

#include "ops/ops.h"
#include "support/checked.h"
#include "support/error.h"

namespace mlipc::ops {

void infer_Reshape(InferContext& ctx) {
  ctx.expect_inputs(2, 2);
  const TensorData& spec_t = ctx.require_const(1, "shape");
  if (spec_t.dtype() != DType::Int64)
    fail("shape input has element type {}; supported: int64", dtype_name(spec_t.dtype()));
  if (spec_t.rank() != 1) fail("shape input must be 1-D, got shape {}", shape_str(spec_t.shape()));
  const std::vector<int64_t> spec = spec_t.as_int64();
  const Shape& in = ctx.in_shape(0);
  const bool allowzero = ctx.attrs().get_int("allowzero", 0) != 0;

  Shape out(spec.size());
  int infer_at = -1;
  bool has_zero = false;
  int64_t known = 1;
  for (size_t i = 0; i < spec.size(); ++i) {
    const int64_t d = spec[i];
    if (d == -1) {
      if (infer_at >= 0) fail("shape {} has more than one -1; at most one dimension can be inferred", shape_str(spec));
      infer_at = static_cast<int>(i);
      continue;
    }
    if (d < -1) fail("shape {} has the invalid dimension {} (allowed: >= 0, or -1 to infer)", shape_str(spec), d);
    if (d == 0) {
      has_zero = true;
      if (!allowzero) {
        if (i >= in.size())
          fail("shape {} has 0 at position {}, which copies an input dimension, but the input {} has rank {}",
               shape_str(spec), i, shape_str(in), in.size());
        out[i] = in[i];
      }
    } else {
      out[i] = d;
    }
    std::optional<int64_t> k = mul_i64(known, out[i]);
    if (!k) fail("shape {} asks for more elements than fit in 64 bits", shape_str(spec));
    known = *k;
  }
  if (allowzero && has_zero && infer_at >= 0)
    fail("shape {} has both 0 and -1, which is invalid with allowzero = 1", shape_str(spec));
  const int64_t total = numel(in);
  if (infer_at >= 0) {
    if (known == 0 || total % known != 0)
      fail("cannot infer the -1 in shape {}: input {} has {} elements, not a multiple of {}", shape_str(spec),
           shape_str(in), total, known);
    out[infer_at] = total / known;
  }
  if (numel(out) != total)
    fail("cannot reshape input {} ({} elements) to {} ({} elements; requested {})", shape_str(in), total,
         shape_str(out), numel(out), shape_str(spec));
  ctx.set_output(0, ctx.in_dtype(0), out);
}

void eval_Reshape(EvalContext& ctx) { ctx.outputs[0] = ctx.in(0).reshaped(ctx.outputs[0].shape()); }

}  // namespace mlipc::ops
