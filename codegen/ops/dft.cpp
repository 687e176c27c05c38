// DFT and STFT (opset 17): shape rules and reference kernels over the plan
// of ops/dft.h. Inputs are float32 or float64, real ([..., 1]) or complex
// ([..., 2]); outputs are complex ([..., 2]) of the same type.
// - DFT: along `axis` (default 1; [-r, -2] or [0, r - 2]), of length
//   dft_length (an optional constant input; the signal is zero-padded or
//   truncated to it), `inverse` scales by 1 / length, `onesided` keeps bins
//   [0, length / 2] (real input only).
// - STFT: signal [batch, length, 1 | 2], frame_step (constant), an optional
//   window [frame_length] (may be computed at run time), an optional
//   frame_length (constant; one of the two is needed), `onesided` (default
//   1, real input only). Output [batch, frames, bins, 2] with frames =
//   (length - frame_length) / frame_step + 1.
#include "ops/dft.h"

#include <cmath>

#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

// Long enough for any real use; keeps the kernel's twiddle table and its
// int32 indices small.
constexpr int64_t kMaxLength = int64_t{1} << 16;

int64_t scalar_int(const TensorData& t, const char* what) {
  if (t.numel() != 1) fail("{} must be a scalar, got shape {}", what, shape_str(t.shape()));
  return t.as_int64()[0];
}

int64_t checked_length(int64_t n, const char* what) {
  if (n < 1 || n > kMaxLength) fail("{} is {}; it must lie in [1, {}]", what, n, kMaxLength);
  return n;
}

int64_t in_components(const Shape& in) {
  const int64_t c = in.back();
  if (c != 1 && c != 2) fail("the last axis of {} is {}; it must be 1 (real) or 2 (complex)", shape_str(in), c);
  return c;
}

bool onesided(const Attrs& attrs, int64_t def, int64_t in_c) {
  const int64_t v = attrs.get_int("onesided", def);
  if (v != 0 && v != 1) fail("onesided is {}; it must be 0 or 1", v);
  if (v == 1 && in_c == 2) fail("onesided = 1 needs a real input ([..., 1]); this one is complex");
  return v == 1;
}

void expect_float_input(const InferContext& ctx, int i) { ctx.expect_dtype(i, {DType::Float32, DType::Float64}); }

}  // namespace

DftPlan dft_plan(const Shape& in, const Attrs& attrs, const TensorData* dft_length) {
  const int rank = static_cast<int>(in.size());
  if (rank < 2) fail("the input {} must have rank 2 or more ([..., signal, ..., 1 | 2])", shape_str(in));
  DftPlan p;
  p.in_c = in_components(in);
  const int64_t axis_attr = attrs.get_int("axis", 1);
  if (axis_attr < -rank || axis_attr > rank - 2)
    fail("axis {} is out of range for rank {}: it must lie in [{}, -2] or [0, {}]", axis_attr, rank, -rank, rank - 2);
  const int axis = normalize_axis(axis_attr, rank);
  if (axis == rank - 1) fail("axis {} is the real/imaginary axis; it must name a signal axis", axis_attr);
  const int64_t inverse = attrs.get_int("inverse", 0);
  if (inverse != 0 && inverse != 1) fail("inverse is {}; it must be 0 or 1", inverse);
  p.inverse = inverse == 1;
  const int64_t n = in[axis];
  p.length = checked_length(dft_length ? scalar_int(*dft_length, "dft_length") : n, dft_length ? "dft_length" : "the signal's length");
  p.taken = std::min(n, p.length);
  p.bins = onesided(attrs, 0, p.in_c) ? p.length / 2 + 1 : p.length;
  p.outer = 1;
  for (int d = 0; d < axis; ++d) p.outer *= in[d];
  p.inner = 1;
  for (int d = axis + 1; d < rank - 1; ++d) p.inner *= in[d];
  p.batch_stride = n * p.inner;
  p.out = in;
  p.out[axis] = p.bins;
  p.out.back() = 2;
  return p;
}

DftPlan stft_plan(const Shape& signal, const Attrs& attrs, const TensorData& frame_step, const Shape* window,
                  const TensorData* frame_length) {
  if (signal.size() != 3) fail("the signal {} must be 3-D: [batch, length, 1 | 2]", shape_str(signal));
  DftPlan p;
  p.in_c = in_components(signal);
  const int64_t step = scalar_int(frame_step, "frame_step");
  if (step < 1) fail("frame_step is {}; it must be 1 or more", step);
  if (window && window->size() != 1) fail("the window {} must be 1-D", shape_str(*window));
  if (!window && !frame_length) fail("one of window and frame_length is needed to know the frame's length");
  const int64_t len = frame_length ? scalar_int(*frame_length, "frame_length") : (*window)[0];
  if (frame_length && window && (*window)[0] != len)
    fail("the window has {} elements but frame_length is {}; they must agree", (*window)[0], len);
  p.length = checked_length(len, frame_length ? "frame_length" : "the window's length");
  if (p.length > signal[1]) fail("the frame length {} is longer than the signal ({})", p.length, signal[1]);
  p.frames = (signal[1] - p.length) / step + 1;
  p.frame_step = step;
  p.batch_stride = signal[1];
  p.outer = signal[0] * p.frames;
  p.taken = p.length;
  p.window = window != nullptr;
  p.bins = onesided(attrs, 1, p.in_c) ? p.length / 2 + 1 : p.length;
  p.out = {signal[0], p.frames, p.bins, 2};
  return p;
}

std::vector<double> dft_twiddles(int64_t length) {
  const double two_pi = 6.283185307179586476925;
  std::vector<double> tw(static_cast<size_t>(2 * length));
  for (int64_t m = 0; m < length; ++m) {
    const double a = two_pi * static_cast<double>(m) / static_cast<double>(length);
    tw[2 * m] = std::cos(a);
    tw[2 * m + 1] = std::sin(a);
  }
  return tw;
}

void infer_DFT(InferContext& ctx) {
  ctx.expect_inputs(1, 2);
  expect_float_input(ctx, 0);
  const TensorData* len = nullptr;
  if (ctx.has_input(1)) {
    ctx.expect_dtype(1, {DType::Int32, DType::Int64});
    len = &ctx.require_shape_const(1, "dft_length");
  }
  ctx.set_output(0, ctx.in_dtype(0), dft_plan(ctx.in_shape(0), ctx.attrs(), len).out);
}

void eval_DFT(EvalContext& ctx) {
  const DftPlan p = dft_plan(ctx.in(0).shape(), ctx.attrs(), ctx.has_input(1) ? &ctx.in(1) : nullptr);
  if (ctx.in(0).dtype() == DType::Float64)
    dft_run(p, ctx.in(0).data<double>(), static_cast<const double*>(nullptr), ctx.outputs[0].data<double>());
  else
    dft_run(p, ctx.in(0).data<float>(), static_cast<const float*>(nullptr), ctx.outputs[0].data<float>());
}

void infer_STFT(InferContext& ctx) {
  ctx.expect_inputs(2, 4);
  expect_float_input(ctx, 0);
  ctx.expect_dtype(1, {DType::Int32, DType::Int64});
  const TensorData& step = ctx.require_shape_const(1, "frame_step");
  const Shape* window = nullptr;
  if (ctx.has_input(2)) {
    if (ctx.in_dtype(2) != ctx.in_dtype(0))
      fail("the window is {} but the signal is {}; they must match", dtype_name(ctx.in_dtype(2)), dtype_name(ctx.in_dtype(0)));
    window = &ctx.in_shape(2);
  }
  const TensorData* len = nullptr;
  if (ctx.has_input(3)) {
    ctx.expect_dtype(3, {DType::Int32, DType::Int64});
    len = &ctx.require_shape_const(3, "frame_length");
  }
  ctx.set_output(0, ctx.in_dtype(0), stft_plan(ctx.in_shape(0), ctx.attrs(), step, window, len).out);
}

void eval_STFT(EvalContext& ctx) {
  const bool has_window = ctx.has_input(2);
  const DftPlan p = stft_plan(ctx.in(0).shape(), ctx.attrs(), ctx.in(1), has_window ? &ctx.in(2).shape() : nullptr,
                              ctx.has_input(3) ? &ctx.in(3) : nullptr);
  if (ctx.in(0).dtype() == DType::Float64)
    dft_run(p, ctx.in(0).data<double>(), has_window ? ctx.in(2).data<double>() : nullptr, ctx.outputs[0].data<double>());
  else
    dft_run(p, ctx.in(0).data<float>(), has_window ? ctx.in(2).data<float>() : nullptr, ctx.outputs[0].data<float>());
}

}  // namespace mlipc::ops
