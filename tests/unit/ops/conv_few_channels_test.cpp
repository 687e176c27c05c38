// Convolutions with few input channels per group (a CNN's stem, grouped
// layers of ICG 1 to 4): conv_tiled.c's tiles of 5 or 6 positions (16
// vector registers) or more, its fused MaxPool's maxima in vector
// registers, against the reference bit for bit.
#include <gtest/gtest.h>

#include <random>

#include <fmt/format.h>

#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_conv_few_channels {
namespace {

namespace fs = std::filesystem;
using test::ints;
using test::OnnxBuilder;
using test::random_tensor;

int64_t pick(std::mt19937& rng, int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); }

// Random layers: 1-D and 2-D, groups, strides, dilations, pads, batches,
// output channels that fill no whole block or several, planes under and over
// the padded copy's limits, and Relu or LeakyRelu with a MaxPool after some.
TEST(ConvFewChannels, RandomLayersGiveTheReferenceBits) {
  std::mt19937 rng(48);
  OnnxBuilder b;
  io::NamedTensors in;
  for (int c = 0; c < 16; ++c) {
    const bool two_d = c % 4 != 3;
    const int64_t group = c % 5 == 4 ? pick(rng, 2, 3) : 1, icg = pick(rng, 1, 4), ocg = pick(rng, 1, 40);
    const int64_t hgt = two_d ? pick(rng, 5, 40) : 1, wid = pick(rng, 5, two_d ? 70 : 300);
    const Shape xs = two_d ? Shape{pick(rng, 1, 2), group * icg, hgt, wid} : Shape{pick(rng, 1, 2), group * icg, wid};
    const int64_t k = pick(rng, 1, c % 3 == 0 ? 7 : 3), kw = pick(rng, 1, 5), dil = pick(rng, 1, 2);
    const int64_t ph = pick(rng, 0, k - 1), pw = pick(rng, 0, kw - 1), sh = pick(rng, 1, 2), sw = pick(rng, 1, 3);
    const std::string x = fmt::format("x{}", c), cv = fmt::format("c{}", c);
    b.input(x, DType::Float32, xs);
    in.emplace_back(x, random_tensor(DType::Float32, xs, 300 + static_cast<uint32_t>(c)));
    const Shape ws = two_d ? Shape{group * ocg, icg, k, kw} : Shape{group * ocg, icg, kw};
    b.initializer(cv + "_w", random_tensor(DType::Float32, ws, 500 + static_cast<uint32_t>(c)));
    b.initializer(cv + "_b", random_tensor(DType::Float32, {group * ocg}, 700 + static_cast<uint32_t>(c)));
    const ints pads = two_d ? ints{ph, pw, k - 1 - ph, pw} : ints{pw, kw - 1 - pw};
    const ints strides = two_d ? ints{sh, sw} : ints{sw};
    const ints dils = two_d ? ints{dil, 1} : ints{dil};
    b.node("Conv", {x, cv + "_w", cv + "_b"}, {cv},
           {{"pads", pads}, {"strides", strides}, {"dilations", dils}, {"group", group}});
    std::string out = cv;
    if (c % 3 != 2) {
      out = cv + "_a";
      if (c % 3 == 0) b.node("Relu", {cv}, {out});
      else b.node("LeakyRelu", {cv}, {out}, {{"alpha", 0.1f}});
    }
    if (two_d && c % 2 == 0) {
      const int64_t pk = pick(rng, 2, 3), pp = pick(rng, 0, pk - 1);
      b.node("MaxPool", {out}, {cv + "_p"},
             {{"kernel_shape", ints{pk, pk}}, {"strides", ints{2, 2}}, {"pads", ints{pp, pp, pp, pp}}});
      out = cv + "_p";
    }
    b.output(out);
  }
  const fs::path p = b.save(test::scratch_dir(), "conv_few_channels.onnx");
  test::expect_matches_reference(p, in, 0.0, 0.0);
}

}  // namespace
}  // namespace mlipc::unit_ops_conv_few_channels
