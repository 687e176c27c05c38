// mlip/kmath.h's float16 conversions (used by the elementwise kernels and
// their reference) against libfp16, which the rest of the compiler uses:
// every float16 value, and float32 values around every float16 boundary.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "ir/tensor_data.h"
#include "mlip/kmath.h"

namespace mlipc::unit_ir_kmath {
namespace {

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST(Kmath, HalfToFloatIsExactForEveryValue) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float got = mlip_f16_to_f32(static_cast<uint16_t>(h)), want = half_to_float(static_cast<uint16_t>(h));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << h;
      EXPECT_EQ(bits(got) >> 31, bits(want) >> 31) << h;
    } else {
      EXPECT_EQ(bits(got), bits(want)) << h;
    }
  }
}

TEST(Kmath, FloatToHalfRoundsToNearestEvenLikeLibfp16) {
  std::vector<float> values = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 65504.0f, 65519.99f, 65520.0f, 1e-8f,
                               2.98e-8f, 2.9802322e-8f, 5.96e-8f, 6.1e-5f, 1e30f, -1e30f};
  // Every float16 value, the midpoints to its neighbours and one float32 ulp either side of those.
  for (uint32_t h = 0; h < 0x7C00; ++h) {
    const float a = mlip_f16_to_f32(static_cast<uint16_t>(h)), b = mlip_f16_to_f32(static_cast<uint16_t>(h + 1));
    const float mid = a + (b - a) / 2;
    for (float v : {a, mid, from_bits(bits(mid) - 1), from_bits(bits(mid) + 1)}) {
      values.push_back(v);
      values.push_back(-v);
    }
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 100000; ++i) values.push_back(from_bits(static_cast<uint32_t>(rng())));
  for (float v : values) {
    const uint16_t got = mlip_f32_to_f16(v), want = float_to_half(v);
    EXPECT_EQ(got, want) << v << " (bits " << bits(v) << ")";
  }
}

}  // namespace
}  // namespace mlipc::unit_ir_kmath
