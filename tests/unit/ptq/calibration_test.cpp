// ptq/calibration.h: the ranges of the three methods on histograms whose
// answer is known (the entropy threshold of a fixed histogram pinned to an
// independent implementation's, tests/gen/gen_entropy_golden.py), SQNR's ends, and ops::range_qparam (DynamicQuantizeLinear's
// parameters).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "ptq/calibration.h"
#include "ops/qlinear.h"
#include "support/error.h"

namespace mlipc::unit_ptq_calibration {
namespace {

using calib::Method;
using calib::TensorStats;

TensorStats stats_of(const std::vector<float>& x, Method m) {
  TensorStats s;
  s.add_range(x.data(), static_cast<int64_t>(x.size()));
  if (m != Method::MinMax) {
    s.start_histogram(m);
    s.add_histogram(x.data(), static_cast<int64_t>(x.size()));
  }
  return s;
}

TEST(Calibration, MinMaxIsTheRangeSeenAcrossSamples) {
  TensorStats s;
  const std::vector<float> a = {1.0f, -2.0f, 0.5f}, b = {3.0f, std::nanf(""), INFINITY};
  s.add_range(a.data(), 3);
  s.add_range(b.data(), 3);  // NaN and infinity say nothing about the range
  EXPECT_EQ(s.range(Method::MinMax, 99.99), (std::pair<double, double>{-2.0, 3.0}));
}

TEST(Calibration, PercentileClipsTheTailsOfAUniformDistribution) {
  std::vector<float> x;
  for (int i = 0; i <= 100000; ++i) x.push_back(static_cast<float>(i) / 100000.0f);  // uniform on [0, 1]
  const auto [lo, hi] = stats_of(x, Method::Percentile).range(Method::Percentile, 99.0);
  EXPECT_NEAR(lo, 0.01, 1e-3);
  EXPECT_NEAR(hi, 0.99, 1e-3);
  const auto [lo100, hi100] = stats_of(x, Method::Percentile).range(Method::Percentile, 100.0);
  EXPECT_NEAR(lo100, 0.0, 1e-9);
  EXPECT_NEAR(hi100, 1.0, 1e-9);
}

TEST(Calibration, HistogramQuantileInterpolatesInsideTheBin) {
  const std::vector<double> h = {0, 2, 2, 0};  // bins of width 1 over [0, 4]
  EXPECT_DOUBLE_EQ(calib::histogram_quantile(h, 0.0, 4.0, 0.5), 2.0);
  EXPECT_DOUBLE_EQ(calib::histogram_quantile(h, 0.0, 4.0, 0.25), 1.5);
  EXPECT_DOUBLE_EQ(calib::histogram_quantile(h, 0.0, 4.0, 1.0), 3.0);
  EXPECT_DOUBLE_EQ(calib::histogram_quantile({0, 0}, 0.0, 4.0, 0.9), 4.0);  // no mass: the edge
}

TEST(Calibration, EntropyClipsARareOutlierAndKeepsAFullRange) {
  // Normal values and one outlier 100 standard deviations away: the threshold
  // drops the outlier's range (TensorRT's reason for the method).
  std::mt19937 rng(7);
  std::normal_distribution<float> d;
  std::vector<float> x;
  for (int i = 0; i < 200000; ++i) x.push_back(d(rng));
  x.push_back(100.0f);
  const auto [lo, hi] = stats_of(x, Method::Entropy).range(Method::Entropy, 0);
  EXPECT_GT(hi, 3.0);
  EXPECT_LT(hi, 20.0);
  EXPECT_LT(lo, -3.0);
  // A uniform distribution loses by any clipping: the threshold stays near max |x|.
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> y;
  for (int i = 0; i < 200000; ++i) y.push_back(u(rng));
  const auto [ulo, uhi] = stats_of(y, Method::Entropy).range(Method::Entropy, 0);
  EXPECT_GT(uhi, 0.9);
  EXPECT_LT(ulo, -0.9);
}

TEST(Calibration, EntropyLeavesOutExactZeros) {
  // A ReLU's output: mostly exact zeros (0 is exact on every grid) and values
  // spread evenly over [0, 1]: the zeros do not pull the threshold down.
  std::vector<float> x(200000, 0.0f);
  for (int i = 0; i < 4000; ++i) x.push_back(static_cast<float>(i + 1) / 4000.0f);
  const auto [lo, hi] = stats_of(x, Method::Entropy).range(Method::Entropy, 0);
  EXPECT_EQ(lo, 0.0);
  EXPECT_GT(hi, 0.9);
}

TEST(Calibration, EntropyThresholdOfFewBinsIsTheMaximum) {
  // 100 bins over [0, 5]: a scale of one bin needs T >= 255 bins; none is valid.
  EXPECT_EQ(calib::entropy_threshold(std::vector<double>(100, 1.0), 0.0, 5.0, 0.0, 5.0), 5.0);
  EXPECT_EQ(calib::entropy_threshold(std::vector<double>(2048, 0.0), -5.0, 5.0, -1.0, 5.0), 5.0);
}

TEST(Calibration, EntropyBoundsPutZeroOnAnEdge) {
  EXPECT_EQ(calib::entropy_bounds(-1.5, 3.9), (std::pair<double, double>{-3.9, 3.9}));
  EXPECT_EQ(calib::entropy_bounds(0.0, 6.0), (std::pair<double, double>{0.0, 6.0}));
  EXPECT_EQ(calib::entropy_bounds(-2.0, -0.5), (std::pair<double, double>{-2.0, 0.0}));
}

// The threshold of a fixed histogram as tests/gen/gen_entropy_golden.py (a
// second implementation, in numpy) computes it: 479 bins of 1/256, 1.87109375
// (the thin tail to 1.86 kept, the outliers near 3.9 clipped). The same
// histogram, built from integers here as there.
TEST(Calibration, EntropyGoldenThreshold) {
  std::vector<double> h(2048, 0.0);
  for (int64_t k = 0; k < 2048; ++k) {
    const int64_t d = k - 1040;
    h[static_cast<size_t>(k)] = static_cast<double>(std::max<int64_t>(0, 40000 - d * d) / 16);
  }
  for (size_t k = 1240; k < 1500; ++k) h[k] += 3;
  h[2022] += 2;
  h[640] += 1;
  EXPECT_EQ(calib::entropy_threshold(h, -4.0, 4.0, -1.5, 3.9), 1.87109375);
}

TEST(Calibration, SqnrEnds) {
  EXPECT_DOUBLE_EQ(calib::sqnr_db(100.0, 1.0), 20.0);
  EXPECT_EQ(calib::sqnr_db(1.0, 0.0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(calib::sqnr_db(0.0, 1.0), -std::numeric_limits<double>::infinity());
}

TEST(Calibration, MethodNames) {
  EXPECT_EQ(calib::method_from_name("entropy"), Method::Entropy);
  EXPECT_EQ(calib::method_name(Method::Percentile), "percentile");
  try {
    calib::method_from_name("kl");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "--calibration-method 'kl' (allowed: minmax, percentile, entropy)");
  }
}

TEST(Calibration, RangeQparamHoldsZeroExactly) {
  const ops::QParam a = ops::range_qparam(-1.0f, 1.0f, DType::Int8);
  EXPECT_FLOAT_EQ(a.scale, 2.0f / 255.0f);
  EXPECT_LE(std::abs(a.zero_point + 0), 1);  // -128 + 127.5 in float: -0.5 give or take an ulp
  const ops::QParam r = ops::range_qparam(0.5f, 6.0f, DType::Int8);  // widened to [0, 6]
  EXPECT_FLOAT_EQ(r.scale, 6.0f / 255.0f);
  EXPECT_EQ(r.zero_point, -128);
  const ops::QParam u = ops::range_qparam(-3.0f, -1.0f, DType::UInt8);  // widened to [-3, 0]
  EXPECT_EQ(u.zero_point, 255);
  const ops::QParam z = ops::range_qparam(0.0f, 0.0f, DType::Int8);
  EXPECT_EQ(z.scale, 0.0f);
  EXPECT_EQ(z.zero_point, 0);
}

}  // namespace
}  // namespace mlipc::unit_ptq_calibration
