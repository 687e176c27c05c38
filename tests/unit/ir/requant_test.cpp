// include/mlip/requant.h against hand-computed cases: the rounding of each
// step (ties), saturation at both ends, shifts at their extremes, Q31
// multipliers near 2^31, and mlip_quantize_multiplier's edge cases.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "ops/quant.h"
#include "mlip/requant.h"
#include "support/error.h"

namespace mlipc::unit_ir_requant {
namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
constexpr int32_t kHalf = 1 << 30;  // 0.5 in Q31

TEST(Requant, DoublingHighMulRoundsTiesTowardPlusInfinity) {
  EXPECT_EQ(mlip_rounding_doubling_high_mul(1, kHalf), 1);    // 0.5 -> 1
  EXPECT_EQ(mlip_rounding_doubling_high_mul(-1, kHalf), 0);   // -0.5 -> 0
  EXPECT_EQ(mlip_rounding_doubling_high_mul(3, kHalf), 2);    // 1.5 -> 2
  EXPECT_EQ(mlip_rounding_doubling_high_mul(-3, kHalf), -1);  // -1.5 -> -1
  EXPECT_EQ(mlip_rounding_doubling_high_mul(-kHalf - 1, 1), -1);  // just below -0.5 -> -1
  EXPECT_EQ(mlip_rounding_doubling_high_mul(kHalf - 1, 1), 0);    // just below 0.5 -> 0
  EXPECT_EQ(mlip_rounding_doubling_high_mul(1000, 0), 0);
}

TEST(Requant, DoublingHighMulAtTheInt32Ends) {
  EXPECT_EQ(mlip_rounding_doubling_high_mul(kMin, kMin), kMax);  // the one overflow saturates
  EXPECT_EQ(mlip_rounding_doubling_high_mul(kMax, kMax), 2147483646);  // 2^31 - 2 + 2^-31
  EXPECT_EQ(mlip_rounding_doubling_high_mul(kMin, kMax), kMin + 1);    // -(2^31 - 1) exactly
  EXPECT_EQ(mlip_rounding_doubling_high_mul(kMin, kHalf), -kHalf);
  EXPECT_EQ(mlip_rounding_doubling_high_mul(kMax, kHalf), kHalf);      // 2^30 - 0.5 -> 2^30
}

TEST(Requant, RoundingShiftRightRoundsTiesAwayFromZero) {
  EXPECT_EQ(mlip_rounding_shift_right(5, 1), 3);    // 2.5
  EXPECT_EQ(mlip_rounding_shift_right(-5, 1), -3);  // -2.5
  EXPECT_EQ(mlip_rounding_shift_right(4, 1), 2);
  EXPECT_EQ(mlip_rounding_shift_right(-4, 1), -2);
  EXPECT_EQ(mlip_rounding_shift_right(3, 2), 1);    // 0.75
  EXPECT_EQ(mlip_rounding_shift_right(-3, 2), -1);
  EXPECT_EQ(mlip_rounding_shift_right(2, 2), 1);    // 0.5
  EXPECT_EQ(mlip_rounding_shift_right(-2, 2), -1);  // -0.5
  EXPECT_EQ(mlip_rounding_shift_right(1, 2), 0);    // 0.25
  EXPECT_EQ(mlip_rounding_shift_right(-1, 2), 0);
}

TEST(Requant, RoundingShiftRightAtItsExtremes) {
  EXPECT_EQ(mlip_rounding_shift_right(kMin, 0), kMin);
  EXPECT_EQ(mlip_rounding_shift_right(kMax, 0), kMax);
  EXPECT_EQ(mlip_rounding_shift_right(kMax, 31), 1);         // 1 - 2^-31
  EXPECT_EQ(mlip_rounding_shift_right(kMin, 31), -1);        // -1 exactly
  EXPECT_EQ(mlip_rounding_shift_right(kHalf, 31), 1);        // 0.5
  EXPECT_EQ(mlip_rounding_shift_right(-kHalf, 31), -1);      // -0.5
  EXPECT_EQ(mlip_rounding_shift_right(kHalf - 1, 31), 0);
  EXPECT_EQ(mlip_rounding_shift_right(-kHalf + 1, 31), 0);
}

TEST(Requant, MultiplyByQuantizedMultiplier) {
  // 0.5: one rounding (high multiply), ties toward +infinity.
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(3, kHalf, 0), 2);
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(-3, kHalf, 0), -1);
  // 0.25 = 0.5 * 2^-1: two roundings, as TFLite: 5 * 0.25 = 1.25 -> 2.5 -> 3 -> 1.5 -> 2.
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(5, kHalf, -1), 2);
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(6, kHalf, -1), 2);    // 1.5 -> 2
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(-6, kHalf, -1), -2);  // -1.5 -> -2
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(-5, kHalf, -1), -1);  // -1.25 -> -2.5 -> -2 -> -1
  // 1.0 = 0.5 * 2^1 is the identity while x * 2 fits int32; beyond, the
  // left shift saturates first.
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(-7, kHalf, 1), -7);
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(kHalf - 1, kHalf, 1), kHalf - 1);
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(-kHalf, kHalf, 1), -kHalf);
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(kMax, kHalf, 1), kHalf);
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(kMin, kHalf, 1), -kHalf);
}

TEST(Requant, ShiftsAtTheirExtremes) {
  // Left 30: x * 2^30 saturates before the multiply.
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(kMax, kMax, MLIP_REQUANT_MAX_SHIFT), 2147483646);
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(kMin, kHalf, MLIP_REQUANT_MAX_SHIFT), -kHalf);
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(1, kHalf, MLIP_REQUANT_MAX_SHIFT), 1 << 29);
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(-1, kHalf, MLIP_REQUANT_MAX_SHIFT), -(1 << 29));
  // Right 31: x * q / 2^62.
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(kMax, kMax, MLIP_REQUANT_MIN_SHIFT), 1);
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(kMin, kMax, MLIP_REQUANT_MIN_SHIFT), -1);
  // (2^31 - 1) / 2^32 is just below 0.5, but the high multiply rounds it to
  // 2^30 first and the shift's tie then goes to 1: TFLite's double rounding.
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(kMax, kHalf, MLIP_REQUANT_MIN_SHIFT), 1);
}

TEST(Requant, RequantizeAddsTheZeroPointAndSaturates) {
  EXPECT_EQ(mlip_requantize(1000, kHalf, 0, 0, -128, 127), 127);
  EXPECT_EQ(mlip_requantize(-1000, kHalf, 0, 0, -128, 127), -128);
  EXPECT_EQ(mlip_requantize(-30, kHalf, 0, 10, 0, 255), 0);     // -15 + 10
  EXPECT_EQ(mlip_requantize(490, kHalf, 0, 10, 0, 255), 255);   // 245 + 10
  EXPECT_EQ(mlip_requantize(492, kHalf, 0, 10, 0, 255), 255);   // 256 saturates
  EXPECT_EQ(mlip_requantize(488, kHalf, 0, 10, 0, 255), 254);
  EXPECT_EQ(mlip_requantize(-257, kHalf, 0, 0, -128, 127), -128);  // -128.5 -> -128
  EXPECT_EQ(mlip_requantize(-259, kHalf, 0, 0, -128, 127), -128);  // -129.5 -> -129 -> -128
  // The zero point is added in int64: no wrap past int32.
  EXPECT_EQ(mlip_requantize(kMax, kMax, 0, 127, -128, 127), 127);
  EXPECT_EQ(mlip_requantize(kMin, kMax, 0, -128, -128, 127), -128);
  EXPECT_EQ(mlip_requantize(12345, 0, 0, 7, -128, 127), 7);  // multiplier 0
}

// The whole requantization with the largest multiplier, q = 2^31 - 1 (just
// below 1.0; as 2^-1 with shift -1, just below 0.5): the high multiply
// brings x * q / 2^31 back to x (ties toward +infinity: -3 * (1 - 2^-31)
// -> -3), and the shift's ties go away from zero, so -3 * 0.4999999998
// requantizes to -2 and 3 * 0.4999999998 to 2 (TFLite's double rounding;
// the real products are -1.4999999993 and 1.4999999993). Then the zero
// point and saturation at both ends of int8 and uint8.
TEST(Requant, NegativeTiesAndSaturationWithTheLargestMultiplier) {
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(-3, kMax, 0), -3);
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(-3, kMax, -1), -2);
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(3, kMax, -1), 2);
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(-5, kMax, -2), -1);  // -1.25 -> -1
  EXPECT_EQ(mlip_multiply_by_quantized_multiplier(-6, kMax, -2), -2);  // -1.5 -> -2
  EXPECT_EQ(mlip_requantize(-3, kMax, -1, 0, -128, 127), -2);
  EXPECT_EQ(mlip_requantize(-3, kMax, -1, -127, -128, 127), -128);  // -129 saturates
  EXPECT_EQ(mlip_requantize(-3, kMax, -1, -126, -128, 127), -128);
  EXPECT_EQ(mlip_requantize(3, kMax, -1, 126, -128, 127), 127);    // 128 saturates
  EXPECT_EQ(mlip_requantize(-3, kMax, -1, 1, 0, 255), 0);          // -1 saturates
  EXPECT_EQ(mlip_requantize(3, kMax, -1, 254, 0, 255), 255);       // 256 saturates
  EXPECT_EQ(mlip_requantize(-509, kMax, -1, 0, -128, 127), -128);  // -254.5 -> -255 -> -128
  // The largest left shift with the largest multiplier: x * 2^30 saturates first.
  EXPECT_EQ(mlip_requantize(-2, kMax, MLIP_REQUANT_MAX_SHIFT, 0, -128, 127), -128);
  EXPECT_EQ(mlip_requantize(2, kMax, MLIP_REQUANT_MAX_SHIFT, 0, 0, 255), 255);
}

TEST(Requant, AddSaturates) {
  EXPECT_EQ(mlip_add_sat_i32(kMax, 1), kMax);
  EXPECT_EQ(mlip_add_sat_i32(kMin, -1), kMin);
  EXPECT_EQ(mlip_add_sat_i32(5, -7), -2);
}

struct Quantized {
  int status;
  int32_t q, shift;
};
Quantized quantize(double m) {
  Quantized r{};
  r.status = mlip_quantize_multiplier(m, &r.q, &r.shift);
  return r;
}

TEST(Requant, QuantizeMultiplier) {
  auto expect = [](double m, int status, int32_t q, int32_t shift) {
    const Quantized r = quantize(m);
    EXPECT_EQ(r.status, status) << m;
    EXPECT_EQ(r.q, q) << m;
    EXPECT_EQ(r.shift, shift) << m;
  };
  expect(0.0, 0, 0, 0);
  expect(0.5, 0, kHalf, 0);
  expect(1.0, 0, kHalf, 1);
  expect(0.75, 0, 1610612736, 0);
  expect(std::ldexp(1.0, 29), 0, kHalf, 30);   // the largest shift
  // Near 2^31: f * 2^31 = 2^31 - 1 stays; 2^31 - 0.5 and 2^31 - 0.25 round
  // up to 2^31, which becomes 2^30 with the next shift.
  expect(1.0 - std::ldexp(1.0, -31), 0, kMax, 0);
  expect(1.0 - std::ldexp(1.0, -32), 0, kHalf, 1);
  expect(1.0 - std::ldexp(1.0, -33), 0, kHalf, 1);
  // Tiny: 2^-32 is 0.5 * 2^-31, the smallest shift; below it, (0, 0).
  expect(std::ldexp(1.0, -32), 0, kHalf, -31);
  expect(std::ldexp(1.0, -33), 0, 0, 0);
  expect(1e-310, 0, 0, 0);  // subnormal
  // Out of range: 2^30 and more, negative, NaN, infinity.
  expect(std::ldexp(1.0, 30), -1, 0, 0);
  expect(std::ldexp(1.0, 30) * (1.0 - std::ldexp(1.0, -40)), -1, 0, 0);  // rounds up to 2^30
  expect(-0.25, -1, 0, 0);
  expect(std::nan(""), -1, 0, 0);
  expect(HUGE_VAL, -1, 0, 0);
}

// The 64-bit requantization (16x8): within int32 it is mlip_requantize
// itself; beyond, the same two roundings computed exactly (checked here
// with 128-bit integers): round(acc * q / 2^31) ties toward +infinity, then
// the rounding right shift, ties away from zero, then the zero point and
// the saturation to int16.
__extension__ typedef __int128 i128;  // GCC's and Clang's, outside ISO C++
int64_t floor_div128(i128 a, i128 b) {  // b > 0
  i128 d = a / b;
  if (a % b != 0 && a < 0) --d;
  return static_cast<int64_t>(d);
}
int32_t exact_requantize64(int64_t acc, int32_t q, int32_t shift, int32_t zp, int32_t lo, int32_t hi) {
  i128 x = acc;
  if (shift > 0) x *= static_cast<i128>(1) << shift;
  int64_t v = floor_div128(x * q + (static_cast<i128>(1) << 30), static_cast<i128>(1) << 31);
  if (shift < 0) {
    const int64_t e = -shift, half = int64_t{1} << (e - 1);
    const i128 step = static_cast<i128>(1) << e;
    v = v >= 0 ? floor_div128(static_cast<i128>(v) + half, step) : -floor_div128(static_cast<i128>(-v) + half, step);
  }
  v += zp;
  return static_cast<int32_t>(v < lo ? lo : (v > hi ? hi : v));
}

TEST(Requant, Requantize64IsTheInt32RuleExtended) {
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> mant(0.5, 1.0);
  std::uniform_int_distribution<int> expo(-40, -8);
  std::uniform_int_distribution<int64_t> wide(-(int64_t{1} << 46), int64_t{1} << 46);
  std::uniform_int_distribution<int32_t> narrow(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  int beyond = 0;
  for (int i = 0; i < 200000; ++i) {
    int32_t q = 0, shift = 0;
    ASSERT_EQ(mlip_quantize_multiplier(std::ldexp(mant(rng), expo(rng)), &q, &shift), 0);
    const int64_t a = i % 2 ? wide(rng) : narrow(rng);
    const int32_t got = mlip_requantize64(a, q, shift, 3, -32768, 32767);
    if (a >= std::numeric_limits<int32_t>::min() && a <= std::numeric_limits<int32_t>::max()) {
      ASSERT_EQ(got, mlip_requantize(static_cast<int32_t>(a), q, shift, 3, -32768, 32767)) << a;
    } else {
      ++beyond;
      ASSERT_EQ(got, exact_requantize64(a, q, shift, 3, -32768, 32767)) << a << " " << q << " " << shift;
    }
  }
  EXPECT_GT(beyond, 90000);
  // The high multiply's own rounding shows through the right shift only
  // where both tie: at q = 2^30 an odd sum is k + 0.5 after the multiply,
  // rounded up to k + 1; with k + 1 = 4103 * 2^20 + 2^19 the shift by 20
  // ties again and goes away from zero, 4104 (truncating the multiply would
  // give 4103).
  const int64_t odd = (int64_t{4103} << 21) + (int64_t{1} << 20) - 1;
  EXPECT_EQ(mlip_requantize64(odd, kHalf, -20, 0, -32768, 32767), 4104);
  EXPECT_EQ(mlip_requantize64(-odd, kHalf, -20, 0, -32768, 32767), exact_requantize64(-odd, kHalf, -20, 0, -32768, 32767));
  EXPECT_EQ(mlip_requantize64(-odd, kHalf, -20, 0, -32768, 32767), -4103);  // -k - 0.5 rounds up to -k first
  // Ties beyond int32: 2^40 + 2^30 at M = 2^-31 (q = 2^30, shift -30):
  // acc * q / 2^31 = 2^39 + 2^29 exactly, then / 2^30 = 512.5 -> 513; the
  // negative tie goes away from zero too, -513.
  const int64_t t = (int64_t{1} << 40) + (int64_t{1} << 30);
  EXPECT_EQ(mlip_requantize64(t, kHalf, -30, 0, -32768, 32767), 513);
  EXPECT_EQ(mlip_requantize64(-t, kHalf, -30, 0, -32768, 32767), -513);
  // Saturation both ways, and a left shift saturated rather than overflowing.
  EXPECT_EQ(mlip_requantize64(int64_t{1} << 60, kHalf, -10, 0, -32768, 32767), 32767);
  EXPECT_EQ(mlip_requantize64(-(int64_t{1} << 60), kHalf, 30, 0, -32768, 32767), -32768);
  // The float32 pair converts the wide sum to float32.
  EXPECT_EQ(mlip_requantize64(int64_t{1} << 40, ops::f32_bits(std::ldexp(1.0f, -30)), MLIP_REQUANT_F32, 0, -32768,
                              32767),
            1024);
}

TEST(Requant, RequantMultiplierOfScales) {
  const ops::Requant r = ops::requant_multiplier(0.5f, 0.25f, 0.5f);  // 0.25
  EXPECT_EQ(r.q, kHalf);
  EXPECT_EQ(r.shift, -1);
  try {
    ops::requant_multiplier(1e20f, 1.0f, 1e-20f);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("out of range (it must be below 2^30)"), std::string::npos) << e.what();
  }
}

// The fixed-point product is within one unit of the real product (two
// roundings of at most half a unit each, plus the Q31 error) for random
// multipliers over the whole shift range.
TEST(Requant, CloseToTheRealProduct) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> mant(0.5, 1.0);
  std::uniform_int_distribution<int> expo(-20, 8);
  std::uniform_int_distribution<int32_t> acc(-(1 << 20), 1 << 20);
  for (int i = 0; i < 20000; ++i) {
    const double m = std::ldexp(mant(rng), expo(rng));
    int32_t q, shift;
    ASSERT_EQ(mlip_quantize_multiplier(m, &q, &shift), 0);
    const int32_t x = acc(rng);
    const double want = static_cast<double>(x) * m;
    if (std::fabs(want) > 2e9) continue;
    const int32_t got = mlip_multiply_by_quantized_multiplier(x, q, shift);
    ASSERT_LE(std::fabs(static_cast<double>(got) - want), 1.0) << "x " << x << " m " << m;
  }
}

// The ties of issue 29 at M = 0.25 (a power of two: every fourth
// accumulator is a tie): the fixed-point pair rounds them away from zero,
// onnxruntime's float32 arithmetic (--requant ort) half to even.
TEST(Requant, TiesAtAQuarterFixedAwayFromZeroOrtHalfToEven) {
  const ops::Requant fixed = ops::requant_multiplier(0.5f, 0.5f, 1.0f);
  const ops::Requant ort = ops::requant_multiplier(0.5f, 0.5f, 1.0f, ops::RequantMode::Ort);
  EXPECT_EQ(fixed.q, kHalf);
  EXPECT_EQ(fixed.shift, -1);
  EXPECT_EQ(ort.shift, MLIP_REQUANT_F32);
  EXPECT_EQ(mlip_f32_of_bits(ort.q), 0.25f);
  const int32_t acc[] = {2, 10, -2, -10};
  const int32_t want_fixed[] = {1, 3, -1, -3};
  const int32_t want_ort[] = {0, 2, 0, -2};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(mlip_requantize(acc[i], fixed.q, fixed.shift, 0, -128, 127), want_fixed[i]) << acc[i];
    EXPECT_EQ(mlip_requantize(acc[i], ort.q, ort.shift, 0, -128, 127), want_ort[i]) << acc[i];
  }
  // With a zero point the tie is of the scaled value, before it is added.
  EXPECT_EQ(mlip_requantize(6, ort.q, ort.shift, 3, 0, 255), 5);  // 1.5 -> 2, + 3
  EXPECT_EQ(mlip_requantize(6, fixed.q, fixed.shift, 3, 0, 255), 5);
  EXPECT_EQ(mlip_requantize(2, ort.q, ort.shift, 3, 0, 255), 3);  // 0.5 -> 0, + 3
  EXPECT_EQ(mlip_requantize(2, fixed.q, fixed.shift, 3, 0, 255), 4);
}

// onnxruntime's steps, each checked: the float32 conversion of a large
// accumulator rounds (2^24 + 1 is not a float32), the product rounds to
// float32, the clamp holds the zero point's shifted range.
TEST(Requant, OrtStepsAndSaturation) {
  const ops::Requant one = ops::requant_f32(1.0f);
  EXPECT_EQ(mlip_requantize(100, one.q, one.shift, 0, -128, 127), 100);
  EXPECT_EQ(mlip_requantize(1000, one.q, one.shift, 0, -128, 127), 127);
  EXPECT_EQ(mlip_requantize(-1000, one.q, one.shift, 10, -128, 127), -128);
  EXPECT_EQ(mlip_requantize(kMax, one.q, one.shift, 0, 0, 255), 255);
  EXPECT_EQ(mlip_requantize(kMin, one.q, one.shift, 0, 0, 255), 0);
  // (2^24 + 3) * 2^-24: float32(2^24 + 3) is 2^24 + 4 (ties to even), so
  // 1.0000002 -> 1; and 2.5 * 2^-23 scaled up: the tie 2.5 -> 2.
  const ops::Requant tiny = ops::requant_f32(1.0f / 16777216.0f);
  EXPECT_EQ(mlip_requantize(16777216 + 3, tiny.q, tiny.shift, 0, -128, 127), 1);
  EXPECT_EQ(mlip_requantize(16777216 * 2 + 16777216 / 2, tiny.q, tiny.shift, 0, -128, 127), 2);
  EXPECT_EQ(mlip_requantize(16777216 * 3 + 16777216 / 2, tiny.q, tiny.shift, 0, -128, 127), 4);
  // The multiplier is (in * w) / out in float32, as onnxruntime writes it.
  const float xs = 0.0123f, ws = 0.00071f, ys = 0.0457f;
  const ops::Requant r = ops::requant_multiplier(xs, ws, ys, ops::RequantMode::Ort);
  const float product = xs * ws;
  EXPECT_EQ(mlip_f32_of_bits(r.q), product / ys);
  EXPECT_THROW(ops::requant_f32(0.0f), Error);
  EXPECT_THROW(ops::requant_f32(std::numeric_limits<float>::infinity()), Error);
}

}  // namespace
}  // namespace mlipc::unit_ir_requant
