// mlip/kq4.h, the 4-bit weights' convolution: on random geometries (fully
// connected, pointwise, dense, grouped and depthwise windows, strides,
// padding, batch 2, int8 and uint8 input) and random int4 weights times
// random block exponents (q in [-8, 7], e in [0, 4]), the weights packed by
// the compiler (c::kernels::pack_weights_4bit) give exactly the bytes
// mlip/kq8.h's convolution gives on the same values stored as int8.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "c/kernels/kernels.h"
#include "mlip/kq4.h"

namespace mlipc::unit_c_q4_conv {
namespace {

int32_t pick(std::mt19937& rng, int32_t lo, int32_t hi) { return std::uniform_int_distribution<int32_t>(lo, hi)(rng); }

mlip_kq8_conv_t random_conv(std::mt19937& rng, int kind) {
  mlip_kq8_conv_t d{};
  d.n = pick(rng, 1, 2);
  const int32_t group = kind == 3 ? pick(rng, 2, 6) : kind == 2 ? pick(rng, 2, 3) : 1;
  const int32_t icg = kind == 3 ? 1 : pick(rng, 1, 9), ocg = pick(rng, 1, 7);
  d.c = group * icg;
  d.m = group * ocg;
  d.groups = group;
  for (int a = 0; a < 3; ++a) {
    const bool spatial = a > 0 && kind != 0;  // kind 0: fully connected (1x1x1)
    d.kernel[a] = spatial && kind != 1 ? pick(rng, 1, 3) : 1;
    d.stride[a] = spatial ? pick(rng, 1, 2) : 1;
    d.dilation[a] = 1;
    d.pad[a] = spatial && kind != 1 ? pick(rng, 0, d.kernel[a] - 1) : 0;
    d.in[a] = spatial ? pick(rng, d.kernel[a], 7) : 1;
    d.out[a] = (d.in[a] + 2 * d.pad[a] - d.kernel[a]) / d.stride[a] + 1;
  }
  d.k = icg * d.kernel[0] * d.kernel[1] * d.kernel[2];
  d.rows = 4;
  d.x_u8 = pick(rng, 0, 1);
  d.zx = d.x_u8 ? pick(rng, 0, 255) : pick(rng, -128, 127);
  d.zy = pick(rng, -20, 20);
  d.lo = -128;
  d.hi = 127;
  return d;
}

TEST(Q4Conv, PackedWeightsGiveTheInt8Bits) {
  std::mt19937 rng(29);
  for (int trial = 0; trial < 200; ++trial) {
    const mlip_kq8_conv_t d = random_conv(rng, trial % 4);
    if (trial % 4 == 0) {
      ASSERT_TRUE(mlip_kq8_conv_direct(&d)) << trial;
    }
    const int32_t block = trial % 3 == 0 ? d.k : pick(rng, 1, 5);
    const int32_t nb = (d.k + block - 1) / block;
    std::vector<int8_t> w(static_cast<size_t>(d.m * d.k));
    for (int32_t m = 0; m < d.m; ++m)
      for (int32_t b = 0; b < nb; ++b) {
        const int32_t e = pick(rng, 0, 4);
        for (int32_t t = b * block; t < std::min(d.k, (b + 1) * block); ++t)
          w[static_cast<size_t>(m * d.k + t)] = static_cast<int8_t>(pick(rng, -8, 7) * (1 << e));
      }
    const TensorData packed = c::kernels::pack_weights_4bit(
        TensorData::from<int8_t>({d.m * d.k}, w), d.m, d.k, block, "test");
    ASSERT_EQ(packed.numel(), mlip_kq4_bytes(d.m, d.k, block));
    std::vector<int32_t> ch(static_cast<size_t>(d.m * MLIP_KQ8_CH));
    for (int32_t m = 0; m < d.m; ++m) {
      int32_t start = 0;
      ASSERT_EQ(mlip_kq8_start(w.data() + m * d.k, d.k, d.x_u8, d.zx, pick(rng, -5000, 5000), &start), 0);
      ch[static_cast<size_t>(3 * m)] = start;
      ch[static_cast<size_t>(3 * m + 1)] = pick(rng, 1 << 30, 0x7FFFFFFF);
      ch[static_cast<size_t>(3 * m + 2)] = pick(rng, -12, -6);
    }
    const int32_t isize = d.n * d.c * d.in[0] * d.in[1] * d.in[2];
    const int32_t osize = d.n * d.m * d.out[0] * d.out[1] * d.out[2];
    std::vector<uint8_t> x(static_cast<size_t>(isize));
    for (uint8_t& v : x) v = static_cast<uint8_t>(pick(rng, 0, 255));
    std::vector<uint8_t> y8(static_cast<size_t>(osize), 0xAA), y4(static_cast<size_t>(osize), 0x55);
    std::vector<uint8_t> s8(static_cast<size_t>(mlip_kq8_conv_scratch(&d) + mlip_kq8_conv_band(&d)) + 1);
    std::vector<uint8_t> s4(static_cast<size_t>(mlip_kq4_conv_scratch(&d)) + 1);
    // kq8's banded layers take their rows tap-major ([kh][kw][ic], mlip_kq8_conv_banded).
    std::vector<int8_t> w8 = w;
    if (mlip_kq8_conv_banded(&d)) {
      const int32_t icg = d.c / d.groups, ktaps = d.kernel[0] * d.kernel[1] * d.kernel[2];
      for (int32_t m = 0; m < d.m; ++m)
        for (int32_t t = 0; t < icg * ktaps; ++t)
          w8[static_cast<size_t>(m * d.k + t % ktaps * icg + t / ktaps)] = w[static_cast<size_t>(m * d.k + t)];
    }
    mlip_kq8_conv(&d, x.data(), w8.data(), ch.data(), y8.data(), s8.data());
    mlip_kq4_conv(&d, x.data(), reinterpret_cast<const uint8_t*>(packed.data<int8_t>()), block, ch.data(), y4.data(),
                  s4.data());
    ASSERT_EQ(y4, y8) << "trial " << trial << " kind " << trial % 4 << " block " << block;
  }
}

}  // namespace
}  // namespace mlipc::unit_c_q4_conv
