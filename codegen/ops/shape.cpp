// Shape: the input's dimensions as int64, optionally the slice [start, end)
// of them (opset 15), with Python-style negative and clamped bounds. Size:
// the input's element count as an int64 scalar. Both read only the static
// shape, so they fold even when the input is computed at run time.
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

// The [start, end) of the dimensions to report, clamped to [0, rank].
std::pair<int64_t, int64_t> shape_range(const Attrs& attrs, int64_t rank) {
  auto clamp = [rank](int64_t v) {
    if (v < 0) v += rank;
    return v < 0 ? int64_t{0} : v > rank ? rank : v;
  };
  const int64_t start = clamp(attrs.get_int("start", 0));
  const int64_t end = attrs.has("end") ? clamp(attrs.get_int("end")) : rank;
  return {start, end < start ? start : end};
}

}  // namespace

void infer_Shape(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  auto [start, end] = shape_range(ctx.attrs(), ctx.in_rank(0));
  ctx.set_output(0, DType::Int64, {end - start});
}

void eval_Shape(EvalContext& ctx) {
  const Shape& s = ctx.in(0).shape();
  auto [start, end] = shape_range(ctx.attrs(), static_cast<int64_t>(s.size()));
  ctx.outputs[0] = TensorData::from<int64_t>({end - start}, Shape(s.begin() + start, s.begin() + end));
}

void infer_Size(InferContext& ctx) {
  ctx.expect_inputs(1, 1);
  ctx.set_output(0, DType::Int64, {});
}

void eval_Size(EvalContext& ctx) { ctx.outputs[0] = TensorData::scalar<int64_t>(ctx.in(0).numel()); }

}  // namespace mlipc::ops
