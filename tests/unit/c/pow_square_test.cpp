// Pow by a constant 2: the C kernel multiplies x by itself (c/kernels/pow.cpp)
// where the reference calls mlip_powf(x, 2). Both are correctly rounded
// squares, so their bits must agree for every float: checked here on every
// float whose square is exact or a halfway case (significands of up to 13
// bits at every exponent, where rounding to even decides), on every 4099th
// bit pattern, and in the full mode (MLIPC_TEST_FULL=1) on all 2^32 (done
// once on 2026-11-28: no difference, NaNs compared as NaNs). Then the
// generated C: a model squaring by constants 2 of three types gives the
// reference's bits and contains the multiply, not the call.
#include <cmath>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "driver/compile.h"
#include "mlip/kmath.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/suite_mode.h"
#include "testlib/text_query.h"

namespace mlipc::unit_c_pow_square {
namespace {

namespace fs = std::filesystem;
using test::OnnxBuilder;

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

uint32_t to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// The first x (of at most 10 reported) whose mlip_powf(x, 2) is not x * x.
struct Mismatches {
  uint64_t count = 0;
  std::string first;
  void check(uint32_t u) {
    const float x = from_bits(u), p = mlip_powf(x, 2.0f), m = x * x;
    const bool same = (std::isnan(p) && std::isnan(m)) || to_bits(p) == to_bits(m);
    if (same) return;
    if (count++ < 10) first += fmt::format(" x={:a} pow={:a} mul={:a};", x, p, m);
  }
};

TEST(PowSquare, MlipPowfOfTwoIsTheProductForEveryFloatChecked) {
  Mismatches m;
  // Significands of up to 13 bits (the squares exact, or exactly halfway between two floats), both signs, every
  // exponent from the subnormal squares to overflow.
  for (uint32_t sig = 0; sig < (1u << 12); ++sig)
    for (uint32_t exp = 0; exp < 255; ++exp)
      for (uint32_t sign : {0u, 0x80000000u}) m.check(sign | (exp << 23) | (sig << 11));
  const uint64_t step = test::full_suite() ? 1 : 4099;
  for (uint64_t u = 0; u < (1ull << 32); u += step) m.check(static_cast<uint32_t>(u));
  EXPECT_EQ(m.count, 0u) << m.first;
}

TEST(PowSquare, GeneratedCSquaresByMultiplyingWithTheReferenceBits) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {5, 37});
  b.initializer("two_f", TensorData::from<float>({}, {2.0f}));
  b.initializer("two_i", TensorData::from<int64_t>({1}, {2}));
  b.initializer("two_d", TensorData::from<double>({1, 1}, {2.0}));
  b.initializer("twos", TensorData::from<float>({37}, std::vector<float>(37, 2.0f)));  // not one value: mlip_powf
  int k = 0;
  for (const char* y : {"two_f", "two_i", "two_d", "twos"}) {
    const std::string out = fmt::format("y{}", k++);
    b.node("Pow", {"x", y}, {out}).output(out);
  }
  const fs::path f = b.save(test::scratch_dir(), "pow_square.onnx");
  const std::string lib1 = driver::compile_model(f, {}).files.at("codegen/host/src/default_lib1.c");
  EXPECT_GE(test::count_occurrences(lib1, "v0 * v0"), 1u);  // the three constant 2s may share one kernel
  EXPECT_EQ(test::count_occurrences(lib1, "mlip_powf("), 1u);
  TensorData x = test::random_tensor(DType::Float32, {5, 37}, 3, -1e20, 1e20);
  float* px = x.data<float>();
  const float special[] = {INFINITY, -INFINITY, NAN, -0.0f, 0.0f, 3.4e38f, 1.8e19f, 1e-20f, 1e-40f, -1e-23f,
                           1.0f + 0x1p-12f, -(1.0f + 0x1p-12f) * 0x1p-70f};
  for (size_t i = 0; i < sizeof special / sizeof special[0]; ++i) px[i] = special[i];
  test::expect_matches_reference(f, {{"x", x}}, 0.0, 0.0);
}

}  // namespace
}  // namespace mlipc::unit_c_pow_square
