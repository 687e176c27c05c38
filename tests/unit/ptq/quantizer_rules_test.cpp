// The quantizer's rules against values computed by hand (issue 29): each
// test fails when its rule is broken (truncation or rounding half away from
// zero instead of half to even, max |w| / 128 instead of / 127, a bias
// budget of 2^31 instead of 2^30, a zero point not rounded):
//   ops::quantize_value      QuantizeLinear of one value, half to even
//   ops::range_qparam        asymmetric scale (hi - lo) / 255 and zero point
//   ptq::channel_amax, weight_scales, quantize_weight
//                            per-channel symmetric weights, the bias-safe rule
//   ops::bias_int32          the int32 bias at x_scale * w_scale
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ops/qlinear.h"
#include "ops/quant.h"
#include "ptq/weight_scale.h"
#include "support/error.h"

namespace mlipc::unit_ptq_quantizer_rules {
namespace {

std::vector<int32_t> ints(const TensorData& t) {
  std::vector<int32_t> v;
  for (int64_t x : t.as_int64()) v.push_back(static_cast<int32_t>(x));
  return v;
}

TEST(QuantizerRules, QuantizeValueRoundsHalfToEven) {
  // x / scale exactly on a tie: 2.5 -> 2, 3.5 -> 4, -2.5 -> -2, -3.5 -> -4
  // (truncation gives 2, 3, -2, -3; half away from zero 3, 4, -3, -4).
  EXPECT_EQ(ops::quantize_value(2.5f, 1.0f, 0, -128, 127), 2);
  EXPECT_EQ(ops::quantize_value(3.5f, 1.0f, 0, -128, 127), 4);
  EXPECT_EQ(ops::quantize_value(-2.5f, 1.0f, 0, -128, 127), -2);
  EXPECT_EQ(ops::quantize_value(-3.5f, 1.0f, 0, -128, 127), -4);
  // Rounded before the zero point is added: 1.25 / 0.5 = 2.5 -> 2, + 3.
  EXPECT_EQ(ops::quantize_value(1.25f, 0.5f, 3, -128, 127), 5);
  // Not a tie: 2.6 -> 3 (truncation gives 2).
  EXPECT_EQ(ops::quantize_value(2.6f, 1.0f, 0, -128, 127), 3);
  // Saturated to the type's range, after the zero point.
  EXPECT_EQ(ops::quantize_value(300.0f, 1.0f, 0, -128, 127), 127);
  EXPECT_EQ(ops::quantize_value(-300.0f, 1.0f, 10, 0, 255), 0);
}

TEST(QuantizerRules, AsymmetricUint8ZeroPoints) {
  // [-2, 6]: scale 8 / 255; zero point 0 - (-2) / scale = 63.75 -> 64 (uint8),
  // -128 + 63.75 = -64.25 -> -64 (int8): 0.0 is exactly the zero point.
  const ops::QParam u = ops::range_qparam(-2.0f, 6.0f, DType::UInt8);
  EXPECT_EQ(u.scale, 8.0f / 255.0f);
  EXPECT_EQ(u.zero_point, 64);
  EXPECT_EQ(ops::quantize_value(0.0f, u.scale, u.zero_point, 0, 255), 64);
  const ops::QParam s = ops::range_qparam(-2.0f, 6.0f, DType::Int8);
  EXPECT_EQ(s.zero_point, -64);
  // [-6, 2]: 6 / (8 / 255) = 191.25 -> 191; a range above 0 widens to
  // [0, hi]: zero point 0, scale hi / 255.
  EXPECT_EQ(ops::range_qparam(-6.0f, 2.0f, DType::UInt8).zero_point, 191);
  EXPECT_EQ(ops::range_qparam(1.0f, 5.1f, DType::UInt8).zero_point, 0);
  EXPECT_EQ(ops::range_qparam(1.0f, 5.1f, DType::UInt8).scale, 5.1f / 255.0f);
  // All below 0 widens to [lo, 0]: the zero point is the type's top.
  EXPECT_EQ(ops::range_qparam(-5.1f, -1.0f, DType::UInt8).zero_point, 255);
}

TEST(QuantizerRules, SymmetricWeightsPerChannelOverOneHundredTwentySeven) {
  // [3, 2] weights, channels along axis 0: max |w| 127, 0 (a channel of
  // zeros: scale 1) and 254 -> scales 1, 1, 2 exactly (/ 128 gives
  // 0.9921875 and 1.984375).
  const TensorData w = TensorData::from<float>({3, 2}, {62.5f, -127.0f, 0.0f, 0.0f, -63.5f * 2.0f, 254.0f});
  const std::vector<float> amax = ptq::channel_amax(w, 0);
  EXPECT_EQ(amax, (std::vector<float>{127.0f, 0.0f, 254.0f}));
  const std::vector<float> scale = ptq::weight_scales(amax, {}, 0.0f, nullptr);
  EXPECT_EQ(scale, (std::vector<float>{1.0f, 1.0f, 2.0f}));
  // 62.5 -> 62 (half to even; away from zero 63), -127 -> -127,
  // -127 / 2 = -63.5 -> -64 (truncation -63), 254 / 2 = 127.
  EXPECT_EQ(ints(ptq::quantize_weight(w, 0, scale)), (std::vector<int32_t>{62, -127, 0, 0, -64, 127}));
  // The same numbers as a Gemm's [K, N] weights, channels along axis 1.
  const TensorData wt = TensorData::from<float>({2, 3}, {62.5f, 0.0f, -127.0f, -127.0f, 0.0f, 254.0f});
  const std::vector<float> at = ptq::channel_amax(wt, 1);
  EXPECT_EQ(at, (std::vector<float>{127.0f, 0.0f, 254.0f}));
  EXPECT_EQ(ints(ptq::quantize_weight(wt, 1, ptq::weight_scales(at, {}, 0.0f, nullptr))),
            (std::vector<int32_t>{62, 0, -64, -127, 0, 127}));
  // Saturated to [-127, 127], never -128, at a scale below max |w| / 127.
  EXPECT_EQ(ints(ptq::quantize_weight(TensorData::from<float>({1, 2}, {-200.0f, 200.0f}), 0, {1.0f})),
            (std::vector<int32_t>{-127, 127}));
}

TEST(QuantizerRules, BiasRaisesTheWeightScaleToTwoToTheThirtySteps) {
  // x_scale 2^-10; channel 1: max |w| 1.27e-5 -> 1e-7, bias 0.5 would be
  // 0.5 / (2^-10 * 1e-7) = 5.1e9 steps > 2^30. Raised to 0.5 / (2^-10 *
  // 2^30) = 2^-21 exactly; channel 0 (scale 1, bias 1: 1024 steps) stays.
  const float xs = std::ldexp(1.0f, -10);
  std::vector<int64_t> raised;
  const std::vector<float> s = ptq::weight_scales({127.0f, 1.27e-5f}, {1.0, 0.5}, xs, &raised);
  EXPECT_EQ(s[0], 1.0f);
  EXPECT_EQ(s[1], std::ldexp(1.0f, -21));
  EXPECT_EQ(raised, std::vector<int64_t>{1});
  // The bias then is exactly 2^30 steps.
  EXPECT_EQ(ints(ops::bias_int32({1.0, 0.5}, xs, s, "n")), (std::vector<int32_t>{1024, 1 << 30}));
  // A bias longer than the scales (ConvTranspose's groups): channel c takes
  // the largest |bias| of c, c + 2 ...: 0.5 from bias[3].
  raised.clear();
  const std::vector<float> g = ptq::weight_scales({127.0f, 1.27e-5f}, {0.0, 0.25, 0.0, -0.5}, xs, &raised);
  EXPECT_EQ(g[1], std::ldexp(1.0f, -21));
  EXPECT_EQ(raised, std::vector<int64_t>{1});
  // A bias within the budget leaves max |w| / 127: 0.5 is 2^29 steps at 2^-10 * 2^-20.
  EXPECT_EQ(ptq::weight_scales({127.0f * std::ldexp(1.0f, -20)}, {0.5}, xs, nullptr)[0], std::ldexp(1.0f, -20));
}

TEST(QuantizerRules, BiasInt32RoundsHalfToEvenAndRefusesOverflow) {
  // Step 0.5 * 0.5 = 0.25: 0.5 -> 2, -0.75 -> -3, 0.625 -> 2.5 -> 2,
  // 0.875 -> 3.5 -> 4, -0.625 -> -2; per channel scales cycle (groups).
  EXPECT_EQ(ints(ops::bias_int32({0.5, -0.75, 0.625, 0.875, -0.625}, 0.5f, {0.5f}, "n")),
            (std::vector<int32_t>{2, -3, 2, 4, -2}));
  EXPECT_EQ(ints(ops::bias_int32({1.0, 1.0, 1.0, 1.0}, 1.0f, {0.5f, 0.25f}, "n")),
            (std::vector<int32_t>{2, 4, 2, 4}));
  EXPECT_EQ(ints(ops::bias_int32({2147483647.0, -2147483648.0}, 1.0f, {1.0f}, "n")),
            (std::vector<int32_t>{2147483647, -2147483647 - 1}));
  try {
    ops::bias_int32({0.0, 2147483648.0}, 1.0f, {1.0f}, "node 'c' (Conv)");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "node 'c' (Conv): bias[1] = 2147483648 is 2.147e+09 steps of x_scale * w_scale[0] = 1, beyond int32: "
              "quantize its weights with a scale at least 1 (mlipc's --quantize int8 does)");
  }
}

}  // namespace
}  // namespace mlipc::unit_ptq_quantizer_rules
