// LayerNormalization (opset 17): X, Scale, optional B; `axis` (default -1),
// `epsilon` (default 1e-5), `stash_type` (1: statistics in float32, the only
// type the Mean and InvStdDev outputs may have for float32 input); optional
// outputs Mean and InvStdDev. Float32. Computed as ops/normalize.h says;
// the internal attribute mlipc_divide = 1 (passes/fuse_layer_norm) divides
// by the standard deviation as the opset-13 decomposition does;
// mlipc_channels_in and mlipc_channels_out (passes/fuse_transpose_norm)
// read and write [N, C, S...] where the rows are [N, S..., C]'s.
#include "ops/layer_norm.h"

#include <algorithm>
#include <vector>

#include "ops/normalize.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {
// Elements of `what` (its shape, leading 1s aside, must be the trailing
// dimensions of `norm`).
int64_t trailing_block(const Shape& norm, const Shape& s, const char* what) {
  size_t lead = 0;
  while (lead < s.size() && s[lead] == 1) ++lead;
  const Shape core(s.begin() + static_cast<std::ptrdiff_t>(lead), s.end());
  if (s.size() > norm.size() || core.size() > norm.size() ||
      !std::equal(core.begin(), core.end(), norm.end() - static_cast<std::ptrdiff_t>(core.size())))
    fail("{} has shape {}, which does not broadcast to the normalized shape {} (supported: the normalized shape's "
         "trailing dimensions)",
         what, shape_str(s), shape_str(norm));
  return numel(core);
}
}  // namespace

Shape layer_norm_rows_shape(const Attrs& attrs, const Shape& in) {
  if (attrs.get_int("mlipc_channels_in", 0) == 0 || in.size() < 3) return in;
  Shape s = in;
  s.erase(s.begin() + 1);
  s.push_back(in[1]);
  return s;
}

Shape layer_norm_output_shape(const Attrs& attrs, const Shape& in) {
  Shape s = layer_norm_rows_shape(attrs, in);
  if (attrs.get_int("mlipc_channels_out", 0) == 0 || s.size() < 3) return s;
  s.insert(s.begin() + 1, s.back());
  s.pop_back();
  return s;
}

LayerNormDims layer_norm_dims(const Attrs& attrs, const Shape& x, const Shape& scale, const Shape* bias) {
  const int rank = static_cast<int>(x.size());
  if (rank == 0) fail("the input must have rank >= 1, got a scalar");
  const int axis = normalize_axis(attrs.get_int("axis", -1), rank);
  const int64_t stash = attrs.get_int("stash_type", 1);
  if (stash != 1) fail("stash_type {} is not supported (only 1: float32 statistics)", stash);
  LayerNormDims d;
  const Shape norm(x.begin() + axis, x.end());
  for (int i = 0; i < rank; ++i) {
    if (i < axis) {
      d.rows *= x[i];
      d.stats.push_back(x[i]);
    } else {
      d.n *= x[i];
      d.stats.push_back(1);
    }
  }
  d.scale_n = trailing_block(norm, scale, "Scale");
  if (bias) d.bias_n = trailing_block(norm, *bias, "B");
  return d;
}

void infer_LayerNormalization(InferContext& ctx) {
  ctx.expect_inputs(2, 3);
  if (ctx.num_outputs() > 3) fail("expects at most 3 outputs (Y, Mean, InvStdDev), got {}", ctx.num_outputs());
  for (int i = 0; i < ctx.num_inputs(); ++i)
    if (ctx.has_input(i)) ctx.expect_dtype(i, {DType::Float32});
  const LayerNormDims d = layer_norm_dims(ctx.attrs(), layer_norm_rows_shape(ctx.attrs(), ctx.in_shape(0)),
                                          ctx.in_shape(1), ctx.has_input(2) ? &ctx.in_shape(2) : nullptr);
  ctx.set_output(0, DType::Float32, layer_norm_output_shape(ctx.attrs(), ctx.in_shape(0)));
  for (int i = 1; i < ctx.num_outputs(); ++i) ctx.set_output(i, DType::Float32, d.stats);
}

namespace {
// [N, C, P] <-> [N, P, C] (to_rows: from the first to the second).
void move_channels(const float* src, float* dst, const Shape& in, bool to_rows) {
  const int64_t n = in[0], c = in[1], p = numel(in) / std::max<int64_t>(1, n * c);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t q = 0; q < p; ++q) {
        const int64_t cf = (b * c + k) * p + q, cl = (b * p + q) * c + k;
        dst[to_rows ? cl : cf] = src[to_rows ? cf : cl];
      }
}
}  // namespace

void eval_LayerNormalization(EvalContext& ctx) {
  const TensorData& x = ctx.in(0);
  const bool has_bias = ctx.has_input(2);
  const Shape rows = layer_norm_rows_shape(ctx.attrs(), x.shape());
  const LayerNormDims d =
      layer_norm_dims(ctx.attrs(), rows, ctx.in(1).shape(), has_bias ? &ctx.in(2).shape() : nullptr);
  const float* scale = ctx.in(1).data<float>();
  const float* bias = has_bias ? ctx.in(2).data<float>() : nullptr;
  float* mean = ctx.outputs.size() > 1 ? ctx.outputs[1].data<float>() : nullptr;
  float* inv = ctx.outputs.size() > 2 ? ctx.outputs[2].data<float>() : nullptr;
  // A fused Transpose only moves values: the rows row-major, normalized, moved back.
  const bool cin = ctx.attrs().get_int("mlipc_channels_in", 0) != 0 && rows.size() >= 3, cout = ctx.attrs().get_int("mlipc_channels_out", 0) != 0 && rows.size() >= 3;
  std::vector<float> xr, yr;
  const float* px = x.data<float>();
  if (cin) {
    xr.resize(static_cast<size_t>(numel(rows)));
    move_channels(px, xr.data(), x.shape(), true);
    px = xr.data();
  }
  float* py = ctx.outputs[0].data<float>();
  if (cout) {
    yr.resize(static_cast<size_t>(numel(rows)));
    py = yr.data();
  }
  normalize_rows(
      px, py, d.rows, d.n, ctx.attrs().get_float("epsilon", 1e-5f),
      [&](int64_t, int64_t j) { return scale[j % d.scale_n]; },
      [&](int64_t, int64_t j) { return bias[j % d.bias_n]; }, has_bias, mean, inv,
      ctx.attrs().get_int("mlipc_divide", 0) != 0);
  if (cout) {
    Shape cf = {rows[0], rows.back()};
    cf.insert(cf.end(), rows.begin() + 1, rows.end() - 1);
    move_channels(yr.data(), ctx.outputs[0].data<float>(), cf, false);
  }
}

}  // namespace mlipc::ops
