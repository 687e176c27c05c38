#include "ptq/calibration.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

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
    if (!std::isfinite(v) || (skip_zeros_ && v == 0.0)) continue;  // a NaN or infinity says nothing about the range
    if (count_ == 0) min_ = max_ = v;
    min_ = std::min(min_, v);
    max_ = std::max(max_, v);
    ++count_;
  }
}

void TensorStats::start_histogram(Method m) {
  std::tie(hist_lo_, hist_hi_) = m == Method::Entropy ? entropy_bounds(min_, max_) : std::make_pair(min_, max_);
  skip_zeros_ = m == Method::Entropy;
  hist_.assign(kHistogramBins, 0.0);
}

std::pair<double, double> entropy_bounds(double min, double max) {
  const double a = std::max(std::fabs(min), std::fabs(max));
  return {min < 0.0 ? -a : 0.0, max > 0.0 ? a : 0.0};
}

void TensorStats::add_histogram(const float* x, int64_t n) {
  if (hist_.empty()) return;
  const double width = (hist_hi_ - hist_lo_) / kHistogramBins;
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    if (!std::isfinite(v) || (skip_zeros_ && v == 0.0)) continue;
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
  const double t = entropy_threshold(hist_, hist_lo_, hist_hi_, min_, max_);
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

double entropy_threshold(const std::vector<double>& hist, double lo, double hi, double min, double max) {
  const int64_t n = static_cast<int64_t>(hist.size());
  const double top = std::max(-lo, hi);
  if (n == 0 || hi <= lo) return top;
  const double w = (hi - lo) / static_cast<double>(n);
  const int64_t z0 = static_cast<int64_t>(std::llround(-lo / w));  // the bin edge at 0
  std::vector<double> below(static_cast<size_t>(n) + 1, 0.0);       // mass of the bins before k
  for (int64_t k = 0; k < n; ++k) below[static_cast<size_t>(k) + 1] = below[static_cast<size_t>(k)] + hist[static_cast<size_t>(k)];
  if (below[static_cast<size_t>(n)] <= 0.0) return top;
  double best = std::numeric_limits<double>::infinity();
  int64_t best_i = -1;
  std::vector<double> p, q;
  const int64_t last_i = std::max(z0, n - z0);
  for (int64_t i = 1; i <= last_i; ++i) {
    const double t = static_cast<double>(i) * w;
    const double a = std::max(min, -t), b = std::min(max, t);
    const double scale = (b - a) / 255.0;
    if (!(scale >= w)) continue;  // codes finer than the bins: the histogram cannot tell
    const double zp = std::clamp(std::nearbyint(-128.0 - a / scale), -128.0, 127.0);
    const int64_t k0 = std::max<int64_t>(0, z0 - i), k1 = std::min(n, z0 + i);  // kept bins [k0, k1)
    p.assign(hist.begin() + k0, hist.begin() + k1);
    p.front() += below[static_cast<size_t>(k0)];
    p.back() += below[static_cast<size_t>(n)] - below[static_cast<size_t>(k1)];
    q.assign(p.size(), 0.0);
    auto code = [&](int64_t k) {
      const double centre = lo + (static_cast<double>(k) + 0.5) * w;
      return std::clamp(std::nearbyint(centre / scale) + zp, -128.0, 127.0);
    };
    for (int64_t s = k0; s < k1;) {  // runs of bins of one code
      int64_t e = s + 1;
      const double c = code(s);
      while (e < k1 && code(e) == c) ++e;
      const double mass = below[static_cast<size_t>(e)] - below[static_cast<size_t>(s)];
      int64_t nonzero = 0;
      for (int64_t k = s; k < e; ++k) nonzero += p[static_cast<size_t>(k - k0)] != 0.0;
      for (int64_t k = s; k < e && nonzero > 0; ++k)
        if (p[static_cast<size_t>(k - k0)] != 0.0) q[static_cast<size_t>(k - k0)] = mass / static_cast<double>(nonzero);
      s = e;
    }
    if (!smooth(p) || !smooth(q)) continue;
    const double kl = kl_divergence(p, q);
    if (kl < best) {
      best = kl;
      best_i = i;
    }
  }
  return best_i < 0 ? top : static_cast<double>(best_i) * w;
}

double sqnr_db(double signal, double noise) {
  if (noise <= 0.0) return std::numeric_limits<double>::infinity();
  if (signal <= 0.0) return -std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signal / noise);
}

}  // namespace mlipc::calib
