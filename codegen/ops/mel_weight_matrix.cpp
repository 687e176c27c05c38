// MelWeightMatrix (opset 17): the [dft_length / 2 + 1, num_mel_bins] matrix
// of triangular filters that maps a one-sided spectrum onto the mel scale,
// mel(f) = 2595 log10(1 + f / 700). The mel range [mel(lower_edge_hertz),
// mel(upper_edge_hertz)] is cut into num_mel_bins + 2 equal steps; point p
// lies in spectrum bin floor((dft_length + 1) hz(p) / sample_rate), and
// filter i rises from 0 at point i to 1 at point i + 1 and falls back
// towards point i + 2 (the ONNX reference's construction, in double).
//
// Every input sets the output's shape or values, so all five must be
// constants: the node is always folded and has no CPU kernel.
#include <cmath>
#include <cstring>

#include "ops/cast.h"
#include "ops/ops.h"
#include "support/error.h"

namespace mlipc::ops {

namespace {

const char* const kNames[] = {"num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz", "upper_edge_hertz"};

struct MelParams {
  int64_t mel_bins, dft_length, sample_rate;
  double lower, upper;
  int64_t spectrum_bins() const { return dft_length / 2 + 1; }
};

double scalar_of(const TensorData& t, int i) {
  if (t.numel() != 1) fail("{} must be a scalar, got shape {}", kNames[i], shape_str(t.shape()));
  return t.at(0);
}

MelParams params(const TensorData* in[5]) {
  MelParams p{};
  int64_t v[3];
  for (int i = 0; i < 3; ++i) {
    scalar_of(*in[i], i);
    v[i] = in[i]->as_int64()[0];
    if (v[i] <= 0 || v[i] > (int64_t{1} << 24)) fail("{} is {}; it must lie in [1, 2^24]", kNames[i], v[i]);
  }
  p.mel_bins = v[0];
  p.dft_length = v[1];
  p.sample_rate = v[2];
  p.lower = scalar_of(*in[3], 3);
  p.upper = scalar_of(*in[4], 4);
  if (!(p.lower >= 0 && p.lower < p.upper && p.upper <= 0.5 * static_cast<double>(p.sample_rate)))
    fail("the edges {} Hz to {} Hz must satisfy 0 <= lower < upper <= sample_rate / 2 = {} Hz", p.lower, p.upper,
         0.5 * static_cast<double>(p.sample_rate));
  if (p.spectrum_bins() * p.mel_bins > (int64_t{1} << 26))
    fail("a {} x {} matrix is too large", p.spectrum_bins(), p.mel_bins);
  return p;
}

// The spectrum bin of each of the num_mel_bins + 2 mel points.
std::vector<int64_t> mel_points(const MelParams& p) {
  const double low = 2595.0 * std::log10(1.0 + p.lower / 700.0);
  const double high = 2595.0 * std::log10(1.0 + p.upper / 700.0);
  const int64_t points = p.mel_bins + 2;
  const double step = (high - low) / static_cast<double>(points);
  std::vector<int64_t> bins(static_cast<size_t>(points));
  for (int64_t i = 0; i < points; ++i) {
    const double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + low) / 2595.0) - 1.0);
    bins[static_cast<size_t>(i)] =
        static_cast<int64_t>(std::floor(static_cast<double>(p.dft_length + 1) * hz / static_cast<double>(p.sample_rate)));
  }
  return bins;
}

}  // namespace

void infer_MelWeightMatrix(InferContext& ctx) {
  ctx.expect_inputs(5, 5);
  for (int i = 0; i < 3; ++i) ctx.expect_dtype(i, {DType::Int32, DType::Int64});
  for (int i = 3; i < 5; ++i) ctx.expect_dtype(i, {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16});
  const TensorData* in[5];
  for (int i = 0; i < 5; ++i) in[i] = &ctx.require_shape_const(i, kNames[i]);
  const MelParams p = params(in);
  const DType out = dtype_of_code(ctx.attrs().get_int("output_datatype", 1), "output_datatype");
  if (out == DType::Bool) fail("'output_datatype' = 9 (bool) is not a numeric type");
  ctx.set_output(0, out, {p.spectrum_bins(), p.mel_bins});
}

void eval_MelWeightMatrix(EvalContext& ctx) {
  const TensorData* in[5];
  for (int i = 0; i < 5; ++i) in[i] = &ctx.in(i);
  const MelParams p = params(in);
  const std::vector<int64_t> bins = mel_points(p);
  const int64_t rows = p.spectrum_bins(), cols = p.mel_bins;
  TensorData w(DType::Float64, {rows, cols});
  double* y = w.data<double>();
  for (int64_t i = 0; i < cols; ++i) {
    const int64_t lo = bins[i], center = bins[i + 1], hi = bins[i + 2];
    // The points are non-decreasing from 0 and the upper edge is at most
    // the Nyquist frequency, so an index is at most rows (odd dft_length).
    if (center == lo) {
      if (center < rows) y[center * cols + i] = 1.0;
    } else {
      for (int64_t j = lo; j <= center && j < rows; ++j)
        y[j * cols + i] = static_cast<double>(j - lo) / static_cast<double>(center - lo);
    }
    for (int64_t j = center; j < hi && j < rows; ++j)
      y[j * cols + i] = static_cast<double>(hi - j) / static_cast<double>(hi - center);
  }
  cast_into(w, ctx.outputs[0]);
}

}  // namespace mlipc::ops
