// Calibration statistics for post-training quantization (ptq/quantize.h):
// what the reference evaluator's runs over the calibration samples record
// per float tensor, and the methods that turn them into the range the
// tensor is quantized over. Pure arithmetic: the pass feeds the values.
//   minmax      the smallest and largest value seen
//   percentile  the p-th percentile at the top and the (100 - p)-th at the
//               bottom, from a histogram of the values over [min, max]
//   entropy     TensorRT's KL-divergence calibration: the threshold T of
//               |x| whose clipped, quantized histogram loses the least
//               information (docs/user-guide.md, "Post-training quantization")
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
  // or |x| over [0, max |x|] (entropy).
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
  bool abs_ = false;
  std::vector<double> hist_;
};

// The bin edge below which a fraction `q` (0..1) of the histogram's mass
// lies, interpolated inside the bin; `lo`, `hi` are the histogram's edges.
double histogram_quantile(const std::vector<double>& hist, double lo, double hi, double q);

// TensorRT's entropy calibration on a histogram of |x| over [0, amax]: for
// each candidate clipping bin i >= levels, the reference distribution P is
// the first i bins with the clipped mass added to the last; Q is P merged
// into `levels` groups and expanded back over P's non-empty bins; the i of
// the smallest KL(P || Q) gives the threshold: i bin widths, the upper edge
// of the last bin kept.
// Returns amax when the histogram has at most `levels` bins or no mass.
double entropy_threshold(const std::vector<double>& hist, double amax, int levels);

// Signal-to-quantization-noise ratio in dB from the sums of squares of the
// reference and of the error; +infinity for no error, -infinity for an
// error on an all-zero reference.
double sqnr_db(double signal, double noise);

}  // namespace mlipc::calib
