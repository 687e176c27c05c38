// Calibration statistics for post-training quantization (ptq/quantize.h):
// what the reference evaluator's runs over the calibration samples record
// per float tensor, and the methods that turn them into the range the
// tensor is quantized over. Pure arithmetic: the pass feeds the values.
//   minmax      the smallest and largest value seen
//   percentile  the p-th percentile at the top and the (100 - p)-th at the
//               bottom, from a histogram of the values over [min, max]
//   entropy     TensorRT's KL-divergence calibration on the grid the
//               activations use: the threshold T whose range [-T, T] (cut
//               to what was seen) quantized as ops::range_qparam does loses
//               the least information (docs/user-guide.md, "Quantization")
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mlipc::calib {

enum class Method { MinMax, Percentile, Entropy };

// "minmax", "percentile", "entropy"; throws Error listing them otherwise.
Method method_from_name(std::string_view name);
std::string_view method_name(Method m);

// Bins of the histograms (TensorRT's count).
constexpr int kHistogramBins = 2048;

// One tensor's statistics over the samples. The range comes first (every
// method); the percentile and entropy methods then need a second run that
// fills the histogram over the range the first one found.
class TensorStats {
 public:
  void add_range(const float* x, int64_t n);
  bool seen() const { return count_ > 0; }
  double min() const { return min_; }
  double max() const { return max_; }

  // Fixes the bins from the range: the values over [min, max] (percentile)
  // or over entropy_bounds (entropy). The entropy histogram leaves out exact
  // zeros: every int8 grid holds 0 exactly (the zero point), so they cost
  // nothing at any threshold, and a ReLU's spike of zeros would otherwise
  // outweigh the values the threshold decides about.
  void start_histogram(Method m);
  void add_histogram(const float* x, int64_t n);
  const std::vector<double>& histogram() const { return hist_; }

  // The range [lo, hi] the tensor is quantized over by method `m`
  // (`percentile` in (0, 100] for Method::Percentile), before widening to 0.
  std::pair<double, double> range(Method m, double percentile) const;

 private:
  double min_ = 0.0, max_ = 0.0;
  int64_t count_ = 0;
  double hist_lo_ = 0.0, hist_hi_ = 0.0;
  bool skip_zeros_ = false;
  std::vector<double> hist_;
};

// The bin edge below which a fraction `q` (0..1) of the histogram's mass
// lies, interpolated inside the bin; `lo`, `hi` are the histogram's edges.
double histogram_quantile(const std::vector<double>& hist, double lo, double hi, double q);

// The edges of the entropy method's histogram of values in [min, max]:
// [-A, A] with A = max(|min|, |max|), [0, A] when min >= 0, [-A, 0] when
// max <= 0: 0 is an edge, so every threshold T that is a whole number of
// bins clips on bin edges.
std::pair<double, double> entropy_bounds(double min, double max);

// TensorRT's entropy calibration ("8-bit Inference with TensorRT", Migacz
// 2017) scored on the activation quantizer itself. `hist` holds the values
// over [lo, hi] (entropy_bounds of [min, max]: 0 an edge), n bins of width
// w. Each candidate T = i * w (i = 1, 2 ... while T <= max(-lo, hi)) clips
// to [a, b] = [max(min, -T), min(max, T)] and keeps the bins inside [-T, T];
// the int8 grid of [a, b] is ops::range_qparam's, in double: scale (b - a) /
// 255, zero point round(-128 - a / scale); a candidate whose scale is below
// one bin is skipped. P is the kept bins with the clipped mass added to the
// outermost kept bin on its side; Q gives each run of kept bins whose
// centres round to one int8 code the run's unclipped mass, spread evenly
// over the run's bins where P is not 0. Both are smoothed (MXNet's and TVM's
// _smooth_distribution) and the T of the smallest KL(P || Q) wins (the
// smallest T on a tie). Returns max(-lo, hi) when no candidate is valid or
// the histogram has no mass. tests/gen/gen_entropy_golden.py is a second,
// independent implementation whose answer the unit test pins.
double entropy_threshold(const std::vector<double>& hist, double lo, double hi, double min, double max);

// Signal-to-quantization-noise ratio in dB from the sums of squares of the
// reference and of the error; +infinity for no error, -infinity for an
// error on an all-zero reference.
double sqnr_db(double signal, double noise);

}  // namespace mlipc::calib
