#include "ptq/calibration.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "support/error.h"

namespace mlipc::calib {

Method method_from_name(std::string_view name) {
  if (name == "minmax") return Method::MinMax;
  if (name == "percentile") return Method::Percentile;
  if (name == "entropy") return Method::Entropy;
  fail("--calibration-method '{}' (allowed: minmax, percentile, entropy)", name);
}

std::string_view method_name(Method m) {
  switch (m) {
    case Method::MinMax: return "minmax";
    case Method::Percentile: return "percentile";
    default: return "entropy";
  }
}

void TensorStats::add_range(const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    if (!std::isfinite(v)) continue;  // a NaN or infinity says nothing about the range
    if (count_ == 0) min_ = max_ = v;
    min_ = std::min(min_, v);
    max_ = std::max(max_, v);
    ++count_;
  }
}

void TensorStats::start_histogram(Method m) {
  abs_ = m == Method::Entropy;
  hist_lo_ = abs_ ? 0.0 : min_;
  hist_hi_ = abs_ ? std::max(std::fabs(min_), std::fabs(max_)) : max_;
  hist_.assign(kHistogramBins, 0.0);
}

void TensorStats::add_histogram(const float* x, int64_t n) {
  if (hist_.empty()) return;
  const double width = (hist_hi_ - hist_lo_) / kHistogramBins;
  for (int64_t i = 0; i < n; ++i) {
    const double v = abs_ ? std::fabs(x[i]) : x[i];
    if (!std::isfinite(v)) continue;
    int64_t b = width > 0.0 ? static_cast<int64_t>((v - hist_lo_) / width) : 0;
    b = std::clamp<int64_t>(b, 0, kHistogramBins - 1);
    hist_[static_cast<size_t>(b)] += 1.0;
  }
}

std::pair<double, double> TensorStats::range(Method m, double percentile) const {
  if (m == Method::MinMax || hist_.empty() || max_ <= min_) return {min_, max_};
  if (m == Method::Percentile) {
    const double q = percentile / 100.0;
    return {histogram_quantile(hist_, hist_lo_, hist_hi_, 1.0 - q), histogram_quantile(hist_, hist_lo_, hist_hi_, q)};
  }
  // Nonnegative tensors (after a Relu) spend all 256 codes on [0, T].
  const double t = entropy_threshold(hist_, hist_hi_, min_ >= 0.0 ? 256 : 128);
  return {std::max(min_, -t), std::min(max_, t)};
}

double histogram_quantile(const std::vector<double>& hist, double lo, double hi, double q) {
  double total = 0.0;
  for (double c : hist) total += c;
  if (total <= 0.0 || hist.empty()) return q < 0.5 ? lo : hi;
  const double width = (hi - lo) / static_cast<double>(hist.size());
  const double want = std::clamp(q, 0.0, 1.0) * total;
  double below = 0.0;
  for (size_t b = 0; b < hist.size(); ++b) {
    if (below + hist[b] >= want && hist[b] > 0.0)
      return lo + width * (static_cast<double>(b) + (want - below) / hist[b]);
    below += hist[b];
  }
  return hi;
}

namespace {

// MXNet's (and TVM's) _smooth_distribution, on counts: zero bins get eps,
// taken evenly from the others, so that KL(P || Q) stays finite; false when
// that would leave a bin empty or negative.
bool smooth(std::vector<double>& d) {
  size_t zeros = 0;
  for (double v : d) zeros += v == 0.0;
  if (zeros == d.size()) return false;
  constexpr double kEps = 1e-4;
  const double take = kEps * static_cast<double>(zeros) / static_cast<double>(d.size() - zeros);
  for (double& v : d) v = v == 0.0 ? kEps : v - take;
  return std::all_of(d.begin(), d.end(), [](double v) { return v > 0.0; });
}

double kl_divergence(const std::vector<double>& p, const std::vector<double>& q) {
  double ps = 0.0, qs = 0.0;
  for (size_t k = 0; k < p.size(); ++k) ps += p[k], qs += q[k];
  double kl = 0.0;
  for (size_t k = 0; k < p.size(); ++k) kl += p[k] / ps * std::log((p[k] / ps) / (q[k] / qs));
  return kl;
}

}  // namespace

double entropy_threshold(const std::vector<double>& hist, double amax, int levels) {
  const size_t nb = hist.size();
  const size_t lv = static_cast<size_t>(levels);
  if (nb <= lv || amax <= 0.0) return amax;
  std::vector<double> suffix(nb + 1, 0.0);  // mass from bin b on
  for (size_t b = nb; b-- > 0;) suffix[b] = suffix[b + 1] + hist[b];
  if (suffix[0] <= 0.0) return amax;
  double best = std::numeric_limits<double>::infinity();
  size_t best_i = nb;
  std::vector<double> p, q;
  for (size_t i = lv; i <= nb; ++i) {
    p.assign(hist.begin(), hist.begin() + static_cast<std::ptrdiff_t>(i));
    p[i - 1] += suffix[i];  // the clipped mass lands in the last bin kept
    // Q: the unclipped bins merged into `levels` groups (the last takes the
    // remainder), each group's mass spread over its bins that P has.
    q.assign(i, 0.0);
    const size_t per = i / lv;
    for (size_t j = 0; j < lv; ++j) {
      const size_t start = j * per, stop = j + 1 == lv ? i : start + per;
      double mass = 0.0;
      size_t nonzero = 0;
      for (size_t k = start; k < stop; ++k) {
        mass += hist[k];
        nonzero += p[k] != 0.0;
      }
      if (nonzero == 0) continue;
      for (size_t k = start; k < stop; ++k)
        if (p[k] != 0.0) q[k] = mass / static_cast<double>(nonzero);
    }
    if (!smooth(p) || !smooth(q)) continue;
    const double kl = kl_divergence(p, q);
    if (kl < best) {
      best = kl;
      best_i = i;
    }
  }
  return amax * static_cast<double>(best_i) / static_cast<double>(nb);
}

double sqnr_db(double signal, double noise) {
  if (noise <= 0.0) return std::numeric_limits<double>::infinity();
  if (signal <= 0.0) return -std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signal / noise);
}

}  // namespace mlipc::calib
