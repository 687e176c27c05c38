// The vector kernels with packed weights (conv_tiled.c, dense and depthwise,
// gemm_packed.c, matmul_packed.c) and the channels-last layout between kernels (c/layout.h):
// random geometries (strides, pads, dilations, groups, odd sizes, batch > 1,
// 1-D to 3-D) against the reference evaluator at tolerance 0, which chains of
// kernels get channels-last tensors, and that every template compiles as
// strict C99.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "driver/compile.h"
#include "host/host_model.h"
#include "support/file_util.h"
#include "support/process.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/reference.h"
#include "testlib/tensors.h"
#include "testlib/text_query.h"

namespace mlipc::unit_c_tiled_kernels {
namespace {

namespace fs = std::filesystem;
using test::ints;
using test::OnnxBuilder;
using test::pick;
using test::random_tensor;
using test::stored_channels_last;
using Attrs_ = std::vector<std::pair<std::string, AttrValue>>;

// A random Conv on `in` ([N, C, spatial...]) with `m` output channels and
// `group` groups, kernels of up to `max_kernel` taps per axis; adds its
// weights, and returns the output's shape.
Shape add_conv(OnnxBuilder& b, std::mt19937& rng, const std::string& x, const Shape& in, int64_t m, int64_t group,
               const std::string& y, uint32_t seed, int64_t max_kernel = 5) {
  const size_t ns = in.size() - 2;
  ints kernel, strides, dilations, pads(2 * ns);
  Shape out = {in[0], m};
  for (size_t a = 0; a < ns; ++a) {
    const int64_t d = pick(rng, 1, 2), s = pick(rng, 1, 3);
    int64_t k = pick(rng, 1, max_kernel);
    const int64_t p0 = pick(rng, 0, k), p1 = pick(rng, 0, k);
    while (d * (k - 1) + 1 > in[2 + a] + p0 + p1) --k;  // the window fits the padded input
    kernel.push_back(k);
    strides.push_back(s);
    dilations.push_back(d);
    pads[a] = p0;
    pads[ns + a] = p1;
    out.push_back((in[2 + a] + p0 + p1 - d * (k - 1) - 1) / s + 1);
  }
  Shape wshape = {m, in[1] / group};
  wshape.insert(wshape.end(), kernel.begin(), kernel.end());
  b.initializer(y + "_w", random_tensor(DType::Float32, wshape, seed));
  std::vector<std::string> ins = {x, y + "_w"};
  if (pick(rng, 0, 1)) {
    b.initializer(y + "_b", random_tensor(DType::Float32, {m}, seed + 1));
    ins.push_back(y + "_b");
  }
  b.node("Conv", ins, {y},
         {{"kernel_shape", kernel}, {"strides", strides}, {"dilations", dilations}, {"pads", pads}, {"group", group}});
  return out;
}

// w of shape bs as the Transpose of a random input w + "t" (its last two
// axes swapped): an activation B that a packed kernel must read in place.
void transposed_input(OnnxBuilder& b, io::NamedTensors& inputs, const std::string& w, Shape bs, uint32_t seed) {
  std::swap(bs[bs.size() - 1], bs[bs.size() - 2]);
  ints perm;
  for (size_t d = 0; d < bs.size(); ++d) perm.push_back(static_cast<int64_t>(d));
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  b.input(w + "t", DType::Float32, bs);
  inputs.emplace_back(w + "t", random_tensor(DType::Float32, bs, seed));
  b.node("Transpose", {w + "t"}, {w}, {{"perm", perm}});
}

// One of the fused activations, or none: `x` -> returned name. (Between two
// convolutions the tensor is channels-last, so conv_tiled.c applies the
// piecewise-linear ones as vectors: c_activation_vector.)
std::string add_activation(OnnxBuilder& b, std::mt19937& rng, const std::string& x) {
  switch (pick(rng, 0, 5)) {
    case 1: b.node("Relu", {x}, {x + "_relu"}); return x + "_relu";
    case 4: b.node("HardSigmoid", {x}, {x + "_hsig"}, {{"alpha", 0.25f}}); return x + "_hsig";
    case 5: b.node("HardSwish", {x}, {x + "_hswish"}); return x + "_hswish";
    case 2: b.node("LeakyRelu", {x}, {x + "_leaky"}, {{"alpha", 0.125f}}); return x + "_leaky";
    case 3:
      b.initializer(x + "_lo", TensorData::scalar<float>(-0.25f));
      b.initializer(x + "_hi", TensorData::scalar<float>(0.5f));
      b.node("Clip", {x, x + "_lo", x + "_hi"}, {x + "_clip"});
      return x + "_clip";
    default: return x;
  }
}

// A MaxPool of `x` (of shape `s`) into `y`, its window (1 to `k_max` taps,
// each fitting the plane), strides (1 to `s_max`), dilations, pads and ceil
// mode at random.
void add_random_maxpool(OnnxBuilder& b, std::mt19937& rng, const std::string& x, const Shape& s, const std::string& y,
                        int64_t k_max, int64_t s_max) {
  ints kernel, strides, dilations, pads(4);
  for (size_t ax = 0; ax < 2; ++ax) {
    const int64_t d = pick(rng, 1, 2);
    int64_t k = pick(rng, 1, k_max);
    while (d * (k - 1) + 1 > s[2 + ax]) --k;
    kernel.push_back(k);
    strides.push_back(pick(rng, 1, s_max));
    dilations.push_back(d);
    pads[ax] = pick(rng, 0, k / 2);
    pads[2 + ax] = pick(rng, 0, k / 2);
  }
  b.node("MaxPool", {x}, {y},
         {{"kernel_shape", kernel}, {"strides", strides}, {"dilations", dilations}, {"pads", pads},
          {"ceil_mode", pick(rng, 0, 1)}});
}

// `in` with `c` channels.
Shape in_channels(Shape in, int64_t c) {
  in[1] = c;
  return in;
}

int64_t random_divisor(std::mt19937& rng, int64_t a, int64_t b) {
  std::vector<int64_t> ds;
  for (int64_t d = 1; d <= std::min(a, b); ++d)
    if (a % d == 0 && b % d == 0) ds.push_back(d);
  return ds[static_cast<size_t>(pick(rng, 0, static_cast<int64_t>(ds.size()) - 1))];
}

// Chains x -> Conv -> activation -> Conv (dense, grouped or depthwise, with
// or without a channel multiplier) -> y, one per input of one model: the
// tensor between the two is channels-last, the ends row-major.
TEST(TiledKernels, RandomConvChainsMatchTheReferenceBitForBit) {
  std::mt19937 rng(20261125);
  OnnxBuilder b;
  io::NamedTensors inputs;
  for (int c = 0; c < 14; ++c) {
    const size_t ns = c % 7 == 0 ? 1 : c % 7 == 1 ? 3 : 2;
    Shape in = {pick(rng, 1, 2), pick(rng, 1, 6)};
    for (size_t a = 0; a < ns; ++a) in.push_back(ns == 3 ? pick(rng, 2, 5) : pick(rng, 3, 13));
    const std::string x = fmt::format("x{}", c), mid = fmt::format("c{}a", c), y = fmt::format("c{}b", c);
    b.input(x, DType::Float32, in);
    inputs.emplace_back(x, random_tensor(DType::Float32, in, 100 + static_cast<uint32_t>(c)));
    const int64_t m1 = pick(rng, 1, 24);
    const Shape s1 = add_conv(b, rng, x, in, m1, random_divisor(rng, in[1], m1), mid, 200 + static_cast<uint32_t>(c));
    const std::string a = add_activation(b, rng, mid);
    const int kind = c % 3;  // dense, grouped, depthwise (with a multiplier on odd chains)
    const int64_t m2 = kind == 2 ? m1 * (c % 2 ? 2 : 1) : pick(rng, 1, 20);
    const int64_t g2 = kind == 0 ? 1 : kind == 2 ? m1 : random_divisor(rng, m1, m2);
    add_conv(b, rng, a, s1, m2, g2, y, 300 + static_cast<uint32_t>(c));
    b.output(y);
  }
  const fs::path p = b.save(test::scratch_dir(), "tiled_conv_chains.onnx");
  test::expect_matches_reference(p, inputs, 0.0, 0.0);
}

// Dense convolutions of many blocks of output channels (17 to 100 per group:
// an odd last block, a partial one, groups of several blocks), which a
// 32-register AVX-512 host runs two blocks per tile (conv_tiled.c's KB),
// the last odd block alone: planes small (the zero-padded copy) and large
// (borders, and tiles of up to 12 positions wrapping rows), packed weights
// small (blocks inside the tile loop) and large, a residual added in place,
// and a Sigmoid, SiLU or piecewise-linear activation, between row-major and
// channels-last tensors.
TEST(TiledKernels, DenseConvsOfManyBlocksMatchTheReferenceBitForBit) {
  std::mt19937 rng(20261128);
  OnnxBuilder b;
  io::NamedTensors inputs;
  for (int c = 0; c < 12; ++c) {
    const size_t ns = c % 6 == 0 ? 1 : c % 6 == 1 ? 3 : 2;
    const int64_t group = c % 4 == 3 ? 2 : 1;
    Shape in = {pick(rng, 1, 2), group * pick(rng, 1, c % 2 ? 40 : 9)};
    for (size_t a = 0; a < ns; ++a) in.push_back(ns == 3 ? pick(rng, 2, 6) : pick(rng, 3, c % 3 ? 9 : 30));
    const std::string x = fmt::format("x{}", c), mid = fmt::format("d{}a", c), y = fmt::format("d{}b", c);
    b.input(x, DType::Float32, in);
    inputs.emplace_back(x, random_tensor(DType::Float32, in, 1500 + static_cast<uint32_t>(c)));
    const int64_t m1 = group * pick(rng, 17, 100);
    const Shape s1 = add_conv(b, rng, x, in, m1, group, mid, 1600 + static_cast<uint32_t>(c));
    std::string a = mid;
    if (c % 4 == 1) {
      b.node("Sigmoid", {mid}, {mid + "_sig"});
      a = mid + "_sig";
      if (c % 8 == 5) {  // SiLU
        b.node("Mul", {mid, a}, {mid + "_silu"});
        a = mid + "_silu";
      }
    } else {
      a = add_activation(b, rng, mid);
    }
    // A second convolution onto the same shape, its sum plus the first's
    // output (passes/fuse_residual), on channels-last input.
    const std::string r = fmt::format("d{}r", c);
    b.initializer(r + "_w", random_tensor(DType::Float32, [&] {
                    Shape w = {m1, m1};
                    for (size_t k = 0; k < ns; ++k) w.push_back(3);
                    return w;
                  }(), 1700 + static_cast<uint32_t>(c)));
    b.node("Conv", {a, r + "_w"}, {r}, {{"kernel_shape", ints(ns, 3)}, {"pads", ints(2 * ns, 1)}});
    b.node("Add", {r, a}, {y});
    b.output(y);
  }
  const fs::path p = b.save(test::scratch_dir(), "tiled_dense_blocks.onnx");
  test::expect_matches_reference(p, inputs, 0.0, 0.0);
}

// Ten random dense chains, a Conv of random geometry (strides, dilations,
// pads, batch 2) with `m_lo` to `m_hi` output channels, a random activation,
// a 3 x 3 Conv and a residual Add, against the reference bit for bit.
void expect_random_row_tiles(int64_t m_lo, int64_t m_hi, std::mt19937& rng, const std::string& name) {
  OnnxBuilder b;
  io::NamedTensors inputs;
  for (int c = 0; c < 10; ++c) {
    Shape in = {pick(rng, 1, 2), pick(rng, 1, 40), pick(rng, 3, 16), pick(rng, 3, 16)};
    const std::string x = fmt::format("x{}", c), mid = fmt::format("t{}a", c), y = fmt::format("t{}b", c);
    b.input(x, DType::Float32, in);
    inputs.emplace_back(x, random_tensor(DType::Float32, in, 2500 + static_cast<uint32_t>(c)));
    const int64_t m = pick(rng, m_lo, m_hi);
    add_conv(b, rng, x, in, m, 1, mid, 2600 + static_cast<uint32_t>(c), 3);
    const std::string a = add_activation(b, rng, mid);
    b.initializer(y + "_w", random_tensor(DType::Float32, {m, m, 3, 3}, 2700 + static_cast<uint32_t>(c)));
    b.node("Conv", {a, y + "_w"}, {y + "_c"}, {{"kernel_shape", ints{3, 3}}, {"pads", ints{1, 1, 1, 1}}});
    b.node("Add", {y + "_c", a}, {y});
    b.output(y);
  }
  test::expect_matches_reference(b.save(test::scratch_dir(), name + ".onnx"), inputs, 0.0, 0.0);
}

// The kernels conv_tiled.c builds for `channels` output channels, 3 x 3
// without pads (one rectangle), onto planes of `sides` x `sides`.
std::string row_tile_kernels(int64_t channels, const std::vector<int64_t>& sides) {
  OnnxBuilder r;
  r.initializer("w", random_tensor(DType::Float32, {channels, 16, 3, 3}, 1));
  for (size_t i = 0; i < sides.size(); ++i) {
    const std::string x = fmt::format("x{}", i), y = fmt::format("y{}", i);
    r.input(x, DType::Float32, {1, 16, sides[i] + 2, sides[i] + 2});
    r.node("Conv", {x, "w"}, {y});
    r.output(y);
  }
  const fs::path q = r.save(test::scratch_dir(), fmt::format("tiled_rows_choice{}.onnx", channels));
  return driver::compile_model(q, {}).files.at("codegen/host/src/default_lib1.c");
}

// Two-block tiles on small planes (conv_tiled.c's PBX2): where tiles that
// wrap from one output row to the next would take most, a count that
// divides the row (7 on 7 x 7 and 14 x 14 planes); the same bits either
// way, on random geometries (1 to 3 blocks of output channels, odd counts,
// 3 to 16 columns, a residual).
TEST(TiledKernels, TwoBlockTilesAlongRowsMatchTheReferenceBitForBit) {
  std::mt19937 rng(20261129);
  expect_random_row_tiles(17, 50, rng, "tiled_rows");
  // 64 channels: tiles of one row or half of one (before: 10 and 11 positions).
  EXPECT_EQ(test::count_occurrences(row_tile_kernels(64, {7, 14}), "PBM = KB > 1 ? 7 :"), 2u);
}

// One block's tiles (PBX: 16 channels or fewer on AVX-512) of kernels of
// several taps follow the same rule, up to 12 positions: 10 on rows of 30
// (ic_resnet8's 16-channel layers: 8 before), 7 on 7 x 7 planes; the same
// bits on random geometries of 1 to 16 output channels.
TEST(TiledKernels, OneBlockTilesAlongRowsMatchTheReferenceBitForBit) {
  std::mt19937 rng(20261130);
  expect_random_row_tiles(1, 16, rng, "tiled_rows_one_block");
  const std::string lib1 = row_tile_kernels(16, {30, 7});
  EXPECT_EQ(test::count_occurrences(lib1, "PBM = KB > 1 ? 10 : 10,"), 1u);
  EXPECT_EQ(test::count_occurrences(lib1, "PBM = KB > 1 ? 7 : 7,"), 1u);
}

// Depthwise convolutions over several blocks of channels (17 to 96, whole
// and partial blocks), reading a channels-last tensor: the kernel runs every
// block at a tile's positions before the next tile (bi), on planes small
// enough for the zero-padded copy (padx) and larger, with random kernels,
// strides, pads and dilations, a bias and an activation.
TEST(TiledKernels, DepthwiseOverManyBlocksMatchesTheReferenceBitForBit) {
  std::mt19937 rng(20261128);
  OnnxBuilder b;
  io::NamedTensors inputs;
  const int64_t channels[] = {17, 33, 40, 50, 64, 96};
  for (int c = 0; c < 6; ++c) {
    const int64_t side = c % 2 ? pick(rng, 5, 12) : pick(rng, 20, 31);
    const Shape in = {1, 3, side, pick(rng, 5, 31)};
    const std::string x = fmt::format("d{}", c), mid = fmt::format("d{}a", c), y = fmt::format("d{}b", c);
    b.input(x, DType::Float32, in);
    inputs.emplace_back(x, random_tensor(DType::Float32, in, 700 + static_cast<uint32_t>(c)));
    const int64_t ch = channels[c];
    b.initializer(mid + "_w", random_tensor(DType::Float32, {ch, 3, 1, 1}, 800 + static_cast<uint32_t>(c)));
    b.node("Conv", {x, mid + "_w"}, {mid});  // 1x1: its output, the depthwise input, is channels-last
    const std::string a = add_activation(b, rng, mid);
    const Shape s = add_conv(b, rng, a, in_channels(in, ch), ch, ch, y, 900 + static_cast<uint32_t>(c));
    (void)s;
    b.output(add_activation(b, rng, y));
  }
  const fs::path p = b.save(test::scratch_dir(), "tiled_depthwise_blocks.onnx");
  test::expect_matches_reference(p, inputs, 0.0, 0.0);
}

// Depthwise convolutions between row-major tensors (conv_dw_rows.c: vectors
// along the output rows, a zero-padded copy of each channel's planes split
// into stride phases): rows of 16 to 70 outputs and narrow tall planes, 1-D
// to 3-D, kernels up to 7, strides 1 to 3, dilations, asymmetric pads,
// channel counts not a multiple of 16, batch 2, a bias, a residual (Add,
// fused) and an activation at random.
TEST(TiledKernels, DepthwiseOnRowMajorPlanesMatchesTheReferenceBitForBit) {
  std::mt19937 rng(20261128);
  OnnxBuilder b;
  io::NamedTensors inputs;
  size_t expected = 0;  // those with a row of 16 outputs or a plane of over 400
  for (int c = 0; c < 16; ++c) {
    const size_t ns = c % 8 == 0 ? 1 : c % 8 == 1 ? 3 : 2;
    const int64_t ch = pick(rng, 1, 40);
    Shape in = {pick(rng, 1, 2), ch};
    for (size_t a = 0; a < ns; ++a) {
      const bool last = a + 1 == ns;
      in.push_back(ns == 3 && !last ? pick(rng, 2, 5) : c % 5 == 4 ? (last ? pick(rng, 3, 9) : pick(rng, 60, 90))
                                                                   : last ? pick(rng, 16, 70) : pick(rng, 3, 20));
    }
    const std::string x = fmt::format("r{}", c), y = fmt::format("r{}c", c);
    b.input(x, DType::Float32, in);
    inputs.emplace_back(x, random_tensor(DType::Float32, in, 1100 + static_cast<uint32_t>(c)));
    const Shape out = add_conv(b, rng, x, in, ch, ch, y, 1200 + static_cast<uint32_t>(c), 7);
    expected += out.back() >= 16 || numel(out) / (out[0] * out[1]) > 400;
    std::string last = y;
    if (pick(rng, 0, 1)) {  // a residual that dies here: y may take over its bytes
      const std::string r = fmt::format("r{}r", c);
      b.input(r, DType::Float32, out);
      inputs.emplace_back(r, random_tensor(DType::Float32, out, 1400 + static_cast<uint32_t>(c)));
      b.node("Neg", {r}, {r + "n"});
      b.node("Add", {y, r + "n"}, {y + "_add"});
      last = y + "_add";
    }
    b.output(add_activation(b, rng, last));
  }
  const fs::path p = b.save(test::scratch_dir(), "tiled_depthwise_rows.onnx");
  test::expect_matches_reference(p, inputs, 0.0, 0.0);
  const driver::CompileResult r = driver::compile_model(p, {});
  const std::string& lib1 = r.files.at("codegen/host/src/default_lib1.c");
  EXPECT_EQ(test::count_occurrences(lib1, "Depthwise Conv on row-major planes"), expected);
  EXPECT_GE(expected, 8u);
}

// Depthwise convolutions between channels-last tensors (conv_dw_cl.c:
// register blocks of a row's positions, each input vector loaded once for
// all the kernel's columns, the border columns apart): a 1x1 Conv before
// and after keeps both sides channels-last. Rows of 1 to 70 outputs (none,
// one or many blocks, a last block moved back), 1-D to 3-D, kernels up to
// 7, strides 1 to 3, dilations, asymmetric pads, channel counts that are a
// multiple of 4 and of 8 but not of 16 and some that are none (from 16 on
// the last vector of a pixel overlaps the one before; 6 takes conv_tiled.c),
// batch 2, a bias, a residual (Add, fused) and an activation
// (piecewise-linear as vectors, SiLU on the row) at random.
TEST(TiledKernels, DepthwiseOnChannelsLastMatchesTheReferenceBitForBit) {
  std::mt19937 rng(20261129);
  OnnxBuilder b;
  io::NamedTensors inputs;
  size_t expected = 0;  // those whose channels are 16 or more or a whole number of blocks
  const int64_t channels[] = {4, 8, 12, 16, 20, 24, 32, 40, 48, 72, 96, 6, 18, 35};
  for (int c = 0; c < 18; ++c) {
    const size_t ns = c % 9 == 0 ? 1 : c % 9 == 1 ? 3 : 2;
    const int64_t ch = channels[c % 14];
    Shape in = {pick(rng, 1, 2), 3};
    for (size_t a = 0; a < ns; ++a) {
      const bool last = a + 1 == ns;
      in.push_back(ns == 3 && !last ? pick(rng, 2, 5) : last ? (c % 4 == 3 ? pick(rng, 1, 9) : pick(rng, 10, 70)) : pick(rng, 3, 12));
    }
    const std::string x = fmt::format("q{}", c), mid = fmt::format("q{}a", c), y = fmt::format("q{}c", c);
    b.input(x, DType::Float32, in);
    inputs.emplace_back(x, random_tensor(DType::Float32, in, 1500 + static_cast<uint32_t>(c)));
    Shape k1 = {ch, 3};
    k1.insert(k1.end(), ns, 1);
    b.initializer(mid + "_w", random_tensor(DType::Float32, k1, 1600 + static_cast<uint32_t>(c)));
    b.node("Conv", {x, mid + "_w"}, {mid});
    const std::string a = add_activation(b, rng, mid);
    const Shape out = add_conv(b, rng, a, in_channels(in, ch), ch, ch, y, 1700 + static_cast<uint32_t>(c), 7);
    expected += ch % 4 == 0 || ch >= 16;
    std::string last = y;
    if (pick(rng, 0, 1)) {  // a channels-last residual (a 1x1 Conv's output) that dies here
      const std::string r = fmt::format("q{}r", c);
      Shape rin = out;
      rin[1] = 3;
      b.input(r, DType::Float32, rin);
      inputs.emplace_back(r, random_tensor(DType::Float32, rin, 1800 + static_cast<uint32_t>(c)));
      b.initializer(r + "_w", random_tensor(DType::Float32, k1, 1900 + static_cast<uint32_t>(c)));
      b.node("Conv", {r, r + "_w"}, {r + "c"});
      b.node("Add", {y, r + "c"}, {y + "_add"});
      last = y + "_add";
    }
    if (c % 3 == 2) {  // SiLU as Sigmoid and Mul
      b.node("Sigmoid", {last}, {last + "_sig"});
      b.node("Mul", {last, last + "_sig"}, {last + "_silu"});
      last += "_silu";
    } else {
      last = add_activation(b, rng, last);
    }
    Shape k2 = {2, ch};
    k2.insert(k2.end(), ns, 1);
    b.initializer(y + "_pw", random_tensor(DType::Float32, k2, 2000 + static_cast<uint32_t>(c)));
    b.node("Conv", {last, y + "_pw"}, {y + "_out"});  // reads the depthwise output channels-last
    b.output(y + "_out");
  }
  const fs::path p = b.save(test::scratch_dir(), "tiled_depthwise_cl.onnx");
  test::expect_matches_reference(p, inputs, 0.0, 0.0);
  const driver::CompileResult r = driver::compile_model(p, {});
  const std::string& lib1 = r.files.at("codegen/host/src/default_lib1.c");
  EXPECT_EQ(test::count_occurrences(lib1, "Depthwise Conv between channels-last tensors"), expected);
  EXPECT_GE(expected, 14u);
}

// Dense 2-D convolutions (+ activation) followed by a random MaxPool, which
// passes/fuse_pool folds into the convolution (conv_tiled.c's pool, a
// compare and a blend per vector): kernels, strides, pads, dilations and
// ceil mode at random, odd channel counts (a partial block of lanes), and
// NaNs in some inputs, which the pool must carry as the reference does.
TEST(TiledKernels, RandomConvsWithAFusedMaxPoolMatchTheReferenceBitForBit) {
  std::mt19937 rng(20261127);
  OnnxBuilder b;
  io::NamedTensors inputs;
  for (int c = 0; c < 10; ++c) {
    Shape in = {pick(rng, 1, 2), pick(rng, 1, 5), pick(rng, 6, 15), pick(rng, 6, 15)};
    const std::string x = fmt::format("p{}", c), mid = fmt::format("p{}a", c), y = fmt::format("p{}b", c);
    b.input(x, DType::Float32, in);
    TensorData xt = random_tensor(DType::Float32, in, 500 + static_cast<uint32_t>(c));
    if (c % 3 == 1) {  // a few NaNs, each spreading over the windows that read it
      float* f = xt.data<float>();
      for (int k = 0; k < 3; ++k) f[pick(rng, 0, xt.numel() - 1)] = std::nanf("");
    }
    inputs.emplace_back(x, std::move(xt));
    const Shape s1 = add_conv(b, rng, x, in, pick(rng, 1, 37), 1, mid, 600 + static_cast<uint32_t>(c));
    const std::string a = add_activation(b, rng, mid);
    add_random_maxpool(b, rng, a, s1, y, 3, 3);
    b.output(y);
  }
  const fs::path p = b.save(test::scratch_dir(), "tiled_conv_pools.onnx");
  driver::CompileResult r = driver::compile_model(p, {});
  for (const Node& n : r.graph.nodes) EXPECT_NE(n.op, "MaxPool");  // every pool fused
  test::expect_matches_reference(p, inputs, 0.0, 0.0);
}

// conv_tiled.c's tile of 3 positions x 2 blocks on 16 vector registers (HX,
// AVX2), which codegen offers (tile3) to dense kernels of over 32 taps whose
// windows overlap along W and whose two blocks' packed weights take at most
// 384 KiB: random 2-D geometries (3 to 5 taps per axis, strides, dilations,
// pads, batch 2) onto 17 to 90 output channels in blocks of 16 (1 to 6
// blocks: an odd last one runs alone, partial ones), the input row-major or
// channels-last, the output row-major, channels-last, through a fused
// MaxPool or plus a residual, bit for bit (at every vector width: the
// PackedWidths test's hx layers); and which layers are offered the tile.
TEST(TiledKernels, ThreePositionTilesOfTwoBlocksMatchTheReferenceBitForBit) {
  std::mt19937 rng(20261201);
  OnnxBuilder b;
  io::NamedTensors inputs;
  for (int c = 0; c < 12; ++c) {
    Shape in = {pick(rng, 1, 2), pick(rng, 4, 40), pick(rng, 4, 24), pick(rng, 4, 24)};
    const std::string x = fmt::format("h{}", c), mid = fmt::format("h{}a", c), y = fmt::format("h{}b", c);
    b.input(x, DType::Float32, in);
    inputs.emplace_back(x, random_tensor(DType::Float32, in, 3100 + static_cast<uint32_t>(c)));
    int64_t m = pick(rng, 17, 90);
    if (m % 8 == 0) ++m;  // blocks of 16 (conv.cpp's dense_block_width)
    ints kernel, strides, dilations, pads(4);
    Shape s1 = {in[0], m};
    for (size_t a = 0; a < 2; ++a) {
      int64_t k = pick(rng, 3, 5);
      const int64_t s = pick(rng, 1, 2), d = pick(rng, 1, 2), p0 = pick(rng, 0, k - 1), p1 = pick(rng, 0, k - 1);
      while (d * (k - 1) + 1 > in[2 + a] + p0 + p1) --k;  // the window fits the padded input
      kernel.push_back(k);
      strides.push_back(s);
      dilations.push_back(d);
      pads[a] = p0;
      pads[2 + a] = p1;
      s1.push_back((in[2 + a] + p0 + p1 - d * (k - 1) - 1) / s + 1);
    }
    b.initializer(mid + "_w", random_tensor(DType::Float32, {m, in[1], kernel[0], kernel[1]}, 3200 + static_cast<uint32_t>(c)));
    std::vector<std::string> ins = {x, mid + "_w"};
    if (c % 2) {
      b.initializer(mid + "_b", random_tensor(DType::Float32, {m}, 3300 + static_cast<uint32_t>(c)));
      ins.push_back(mid + "_b");
    }
    b.node("Conv", ins, {mid},
           {{"kernel_shape", kernel}, {"strides", strides}, {"dilations", dilations}, {"pads", pads}});
    const std::string a = add_activation(b, rng, mid);
    if (c % 3 == 0) {  // a fused MaxPool: the scratch holds both blocks' rows
      add_random_maxpool(b, rng, a, s1, y, 3, 2);
    } else if (c % 3 == 1) {  // a 3x3 layer on the channels-last tensor, plus it
      b.initializer(y + "_w", random_tensor(DType::Float32, {m, m, 3, 3}, 3400 + static_cast<uint32_t>(c)));
      b.node("Conv", {a, y + "_w"}, {y + "_c"}, {{"kernel_shape", ints{3, 3}}, {"pads", ints{1, 1, 1, 1}}});
      b.node("Add", {y + "_c", a}, {y});
    } else {
      b.node("Identity", {a}, {y});
    }
    b.output(y);
  }
  test::expect_matches_reference(b.save(test::scratch_dir(), "tiled_hx.onnx"), inputs, 0.0, 0.0);

  // Offered to a 3x3 layer of 64 channels, not to a 1x1 one, a one-channel
  // 3x3 stem (9 taps) or a 3x3 layer of 512 input channels (590 KiB of
  // weights in two blocks).
  OnnxBuilder o;
  o.input("x", DType::Float32, {1, 16, 12, 12}).input("s", DType::Float32, {1, 1, 12, 12});
  o.input("w", DType::Float32, {1, 512, 6, 6});
  o.initializer("k3", random_tensor(DType::Float32, {64, 16, 3, 3}, 1));
  o.initializer("k1", random_tensor(DType::Float32, {64, 16, 1, 1}, 2));
  o.initializer("ks", random_tensor(DType::Float32, {64, 1, 3, 3}, 3));
  o.initializer("kw", random_tensor(DType::Float32, {64, 512, 3, 3}, 4));
  o.node("Conv", {"x", "k3"}, {"y3"}, {{"pads", ints{1, 1, 1, 1}}});
  o.node("Conv", {"x", "k1"}, {"y1"});
  o.node("Conv", {"s", "ks"}, {"ys"}, {{"pads", ints{1, 1, 1, 1}}});
  o.node("Conv", {"w", "kw"}, {"yw"}, {{"pads", ints{1, 1, 1, 1}}});
  o.output("y3").output("y1").output("ys").output("yw");
  const std::string lib1 =
      driver::compile_model(o.save(test::scratch_dir(), "tiled_hx_offer.onnx"), {}).files.at("codegen/host/src/default_lib1.c");
  EXPECT_EQ(test::count_occurrences(lib1, "_HX 1\n"), 1u);
}

// Dense convolutions of 1 to 4 input channels (the stems) and more, 17 to
// 100 output channels (tiles of two blocks, an odd last block, a partial
// one) and a fused MaxPool of random window, stride, pads, dilations and
// ceil mode: planes small and up to 4096 positions, where the kernel reads a
// zero-padded copy of the input (one rectangle, the pool's rows after it in
// the scratch), and larger ones, where the pool's bands cut the border
// rectangles; tiles along one row (one pointer) and wrapping rows; NaNs in
// some inputs; the pooled tensor a graph output (row-major) or read by a 1x1
// Conv (channels-last).
TEST(TiledKernels, ManyBlocksWithAFusedMaxPoolMatchTheReferenceBitForBit) {
  std::mt19937 rng(20261129);
  OnnxBuilder b;
  io::NamedTensors inputs;
  for (int c = 0; c < 12; ++c) {
    const int64_t side = c % 4 == 3 ? pick(rng, 40, 75) : pick(rng, 5, 24);
    Shape in = {pick(rng, 1, 2), c % 2 ? pick(rng, 5, 40) : pick(rng, 1, 4), pick(rng, 5, side), side};
    const std::string x = fmt::format("mp{}", c), mid = fmt::format("mp{}a", c), y = fmt::format("mp{}b", c);
    b.input(x, DType::Float32, in);
    TensorData xt = random_tensor(DType::Float32, in, 2100 + static_cast<uint32_t>(c));
    if (c % 5 == 2) {  // a few NaNs, each spreading over the windows that read it
      float* f = xt.data<float>();
      for (int k = 0; k < 3; ++k) f[pick(rng, 0, xt.numel() - 1)] = std::nanf("");
    }
    inputs.emplace_back(x, std::move(xt));
    const Shape s1 = add_conv(b, rng, x, in, pick(rng, 17, 100), 1, mid, 2200 + static_cast<uint32_t>(c));
    const std::string a = add_activation(b, rng, mid);
    add_random_maxpool(b, rng, a, s1, y, 4, 4);
    if (c % 3 == 1) {
      b.initializer(y + "_pw", random_tensor(DType::Float32, {3, s1[1], 1, 1}, 2300 + static_cast<uint32_t>(c)));
      b.node("Conv", {y, y + "_pw"}, {y + "_out"});
      b.output(y + "_out");
    } else {
      b.output(y);
    }
  }
  const fs::path p = b.save(test::scratch_dir(), "tiled_blocks_pools.onnx");
  const driver::CompileResult r = driver::compile_model(p, {});
  for (const Node& n : r.graph.nodes) EXPECT_NE(n.op, "MaxPool");  // every pool fused
  const std::string& lib1 = r.files.at("codegen/host/src/default_lib1.c");
  const size_t pools = test::count_occurrences(lib1, "float* sb = (float*)scratch + ");
  const size_t unpadded = test::count_occurrences(lib1, "float* sb = (float*)scratch + 0;");
  EXPECT_EQ(pools, 12u);
  EXPECT_GE(pools - unpadded, 2u);  // read from the zero-padded copy
  EXPECT_GE(unpadded, 2u);
  test::expect_matches_reference(p, inputs, 0.0, 0.0);
}

// Whether the compiled model stores the value `name` channels-last.
// Pools, global pools and elementwise operators between convolutions, so
// that each reads and writes channels-last: max (ceil mode, dilations, pads)
// and average (with and without the padding in the count), a residual Add,
// a channel-wise Mul by a constant and by a global pool's result (the
// squeeze-and-excitation pattern), and a Concat (c/kernels/concat.cpp).
TEST(TiledKernels, PoolsAndElementwiseBetweenConvsMatchTheReference) {
  OnnxBuilder b;
  const Shape in = {2, 3, 13, 11};
  b.input("x", DType::Float32, in);
  auto conv = [&](const std::string& x, int64_t c, int64_t m, int64_t k, int64_t group, const std::string& y,
                  uint32_t seed) {
    b.initializer(y + "_w", random_tensor(DType::Float32, {m, c / group, k, k}, seed));
    b.node("Conv", {x, y + "_w"}, {y}, {{"pads", ints{k / 2, k / 2, k / 2, k / 2}}, {"group", group}});
  };
  conv("x", 3, 16, 3, 1, "a", 1);
  b.node("Relu", {"a"}, {"ar"});
  b.node("MaxPool", {"ar"}, {"mp"},
         {{"kernel_shape", ints{3, 2}}, {"strides", ints{2, 2}}, {"pads", ints{1, 0, 1, 1}}, {"dilations", ints{1, 2}},
          {"ceil_mode", int64_t{1}}});
  conv("mp", 16, 16, 3, 16, "dw", 2);  // depthwise, reading channels-last
  b.node("AveragePool", {"dw"}, {"ap"},
         {{"kernel_shape", ints{3, 3}}, {"strides", ints{2, 1}}, {"pads", ints{1, 1, 1, 1}},
          {"count_include_pad", int64_t{1}}, {"ceil_mode", int64_t{1}}});
  b.node("AveragePool", {"dw"}, {"ap2"}, {{"kernel_shape", ints{2, 3}}, {"pads", ints{0, 1, 1, 0}}});
  conv("ap", 16, 8, 1, 1, "pw", 3);
  conv("ap2", 16, 8, 3, 2, "pw2", 4);
  conv("ap", 16, 8, 3, 1, "r", 5);
  b.node("Add", {"pw", "r"}, {"sum"});  // residual
  b.initializer("scale", random_tensor(DType::Float32, {1, 8, 1, 1}, 6));
  b.node("Mul", {"sum", "scale"}, {"scaled"});
  b.node("GlobalAveragePool", {"scaled"}, {"gap"});
  // HardSigmoid, exact in both: the float Sigmoid of the C (kmath_f.h) is
  // within its bound of the reference's, FusedSigmoidTanhAndSilu's subject.
  b.node("HardSigmoid", {"gap"}, {"gate"});
  b.node("Mul", {"scaled", "gate"}, {"se"});  // [2, 8, H, W] * [2, 8, 1, 1]
  b.node("GlobalMaxPool", {"se"}, {"gmp"});
  conv("se", 8, 5, 3, 1, "out", 7);
  b.node("Concat", {"ap2", "ap2"}, {"cat"}, {{"axis", int64_t{1}}});
  conv("cat", 32, 4, 1, 1, "out2", 9);
  b.output("out").output("gmp").output("pw2").output("out2");
  const fs::path p = b.save(test::scratch_dir(), "tiled_pools.onnx");
  const io::NamedTensors inputs = {{"x", random_tensor(DType::Float32, in, 8)}};
  test::expect_matches_reference(p, inputs, 0.0, 0.0);

  driver::CompileResult r = driver::compile_model(p, {});
  auto cl = [&](const std::string& name) { return stored_channels_last(r, name); };
  // The Add took the later convolution (r) with it (passes/fuse_residual):
  // pw is its residual, r never exists.
  for (const char* v : {"mp", "dw", "ap", "pw", "sum", "scaled", "se"}) EXPECT_TRUE(cl(v)) << v;
  for (const Node& n : r.graph.nodes) EXPECT_NE(n.op, "Add");
  EXPECT_FALSE(cl("x"));    // a graph input
  EXPECT_FALSE(cl("out"));  // a graph output
  EXPECT_TRUE(cl("ap2"));  // read twice by a Concat, which copies it channels-last
  EXPECT_TRUE(cl("cat"));
}

// Pools from row-major tensors (a graph input, a Concat's output) into
// channels-last ones (read by a convolution): pool_cl.c then takes the
// channels 16 at a time over the whole output, here 37 (two whole passes
// and one of 5) and 7 (one short pass): max with NaNs (each spreading over
// the windows that read it), ceil mode, dilations and pads; average with
// and without the padding in the count.
TEST(TiledKernels, PoolsFromRowMajorIntoChannelsLastMatchTheReferenceBitForBit) {
  OnnxBuilder b;
  const Shape in = {2, 37, 15, 12};
  b.input("x", DType::Float32, in);
  TensorData xt = random_tensor(DType::Float32, in, 31);
  for (int64_t i : {5, 700, 4000, 9999}) xt.data<float>()[i] = std::nanf("");
  auto pw = [&](const std::string& x, int64_t c, const std::string& y, uint32_t seed) {
    b.initializer(y + "_w", random_tensor(DType::Float32, {3, c, 1, 1}, seed));
    b.node("Conv", {x, y + "_w"}, {y});
    b.output(y);
  };
  b.node("MaxPool", {"x"}, {"mp"},
         {{"kernel_shape", ints{3, 2}}, {"strides", ints{2, 2}}, {"pads", ints{1, 0, 1, 1}}, {"dilations", ints{1, 2}},
          {"ceil_mode", int64_t{1}}});
  pw("mp", 37, "mp_out", 32);
  b.node("AveragePool", {"x"}, {"ap"},
         {{"kernel_shape", ints{3, 3}}, {"strides", ints{2, 1}}, {"pads", ints{1, 1, 1, 1}},
          {"count_include_pad", int64_t{1}}, {"ceil_mode", int64_t{1}}});
  pw("ap", 37, "ap_out", 33);
  b.input("z", DType::Float32, {2, 3, 15, 12});
  b.node("Concat", {"z", "z", "x"}, {"cat"}, {{"axis", int64_t{1}}});  // 43 channels
  b.node("Slice", {"cat", "s_start", "s_end", "s_axes"}, {"cat7"});
  b.initializer("s_start", TensorData::from<int64_t>({1}, {2}));
  b.initializer("s_end", TensorData::from<int64_t>({1}, {9}));
  b.initializer("s_axes", TensorData::from<int64_t>({1}, {1}));
  b.node("MaxPool", {"cat"}, {"mc"}, {{"kernel_shape", ints{3, 3}}, {"strides", ints{2, 2}}});
  pw("mc", 43, "mc_out", 34);
  b.node("AveragePool", {"cat7"}, {"a7"}, {{"kernel_shape", ints{2, 3}}, {"pads", ints{0, 1, 1, 0}}});
  pw("a7", 7, "a7_out", 35);
  const fs::path p = b.save(test::scratch_dir(), "tiled_pools_rows.onnx");
  const io::NamedTensors inputs = {{"x", xt}, {"z", random_tensor(DType::Float32, {2, 3, 15, 12}, 36)}};
  test::expect_matches_reference(p, inputs, 0.0, 0.0);
  driver::CompileResult r = driver::compile_model(p, {});
  auto cl = [&](const std::string& name) { return stored_channels_last(r, name); };
  for (const char* v : {"mp", "ap", "mc", "a7"}) EXPECT_TRUE(cl(v)) << v;
  for (const char* v : {"x", "cat", "cat7"}) EXPECT_FALSE(cl(v)) << v;
}

// MaxPools of floats into channels-last tensors (maxpool_rows_cl.c: maxima
// along W, then across a window's rows): from row-major ones (rows
// transposed into the scratch) of 37 channels (whole blocks of 16 and an
// overlapping last one; vectors of 4, 8 and 16), 5 (fewer than a block) and
// 19 on a plane 6 wide (rows lane by lane); from channels-last ones of 37
// and 20 channels (a 3x3 at stride 1, a dilated window); ceil mode, pads, a
// dilated window spanning 5 rows read at stride 3, a stride above the
// window (rows skipped). Few distinct values, zeros of both signs and NaNs with their
// own payloads, so that ties, a zero's sign and which NaN wins all show:
// each pool through a 1x1 MaxPool (which keeps both) to an output, compared
// byte for byte with the reference (columns first, or any other order of
// the taps, gives other bytes), and through a 1x1 convolution, which makes
// the pool's output channels-last.
TEST(TiledKernels, MaxPoolRowsIntoChannelsLastKeepTheReferenceBytes) {
  OnnxBuilder b;
  io::NamedTensors inputs;
  struct Pool {
    int64_t c, h, w;
    Attrs_ attrs;
    bool cl_in;  // x through a 1x1 MaxPool first, which stores it channels-last
  };
  const Pool pools[] = {
      {37, 15, 19, {{"kernel_shape", ints{3, 3}}, {"strides", ints{2, 2}}, {"ceil_mode", int64_t{1}}}, false},
      {5, 9, 11, {{"kernel_shape", ints{2, 3}}, {"strides", ints{1, 2}}, {"pads", ints{1, 1, 0, 1}}}, false},
      {19, 14, 6,
       {{"kernel_shape", ints{3, 2}}, {"strides", ints{3, 1}}, {"dilations", ints{2, 1}}, {"pads", ints{2, 0, 1, 1}},
        {"ceil_mode", int64_t{1}}},
       false},
      {16, 11, 17, {{"kernel_shape", ints{2, 2}}, {"strides", ints{3, 3}}, {"pads", ints{1, 1, 1, 1}}}, false},
      {37, 13, 15, {{"kernel_shape", ints{3, 3}}, {"pads", ints{1, 1, 1, 1}}}, true},
      {20, 12, 9,
       {{"kernel_shape", ints{3, 2}}, {"strides", ints{2, 1}}, {"dilations", ints{2, 1}}, {"pads", ints{2, 0, 1, 1}},
        {"ceil_mode", int64_t{1}}},
       true},
  };
  std::mt19937 rng(51);
  int i = 0;
  for (const Pool& pl : pools) {
    const std::string x = fmt::format("mr{}", i), y = x + "_p";
    const Shape in = {2, pl.c, pl.h, pl.w};
    TensorData xt(DType::Float32, in);
    float* xd = xt.data<float>();
    for (int64_t k = 0; k < numel(in); ++k) {
      const uint32_t r = rng() % 16;
      if (r == 0) {
        const uint32_t nan = 0x7fc00000u | (rng() & 0xffffu);  // a quiet NaN, its own payload
        std::memcpy(&xd[k], &nan, sizeof nan);
      } else {
        xd[k] = r < 6 ? 0.0f : r < 11 ? -0.0f : static_cast<float>(static_cast<int>(r) - 13);
      }
    }
    b.input(x, DType::Float32, in);
    inputs.emplace_back(x, xt);
    if (pl.cl_in) b.node("MaxPool", {x}, {x + "_id"}, {{"kernel_shape", ints{1, 1}}}, x + "_id");
    b.node("MaxPool", {pl.cl_in ? x + "_id" : x}, {y}, pl.attrs, y);
    b.node("MaxPool", {y}, {y + "_1"}, {{"kernel_shape", ints{1, 1}}});
    b.initializer(y + "_w", random_tensor(DType::Float32, {3, pl.c, 1, 1}, 2400 + static_cast<uint32_t>(i)));
    b.node("Conv", {y, y + "_w"}, {y + "_c"});
    b.output(y + "_1").output(y + "_c");
    ++i;
  }
  const fs::path p = b.save(test::scratch_dir(), "tiled_maxpool_rows.onnx");
  const io::NamedTensors want = test::reference_run(p, inputs);
  const driver::CompileResult r = driver::compile_model(p, {});
  const fs::path tar = test::scratch_dir() / "tiled_maxpool_rows.tar";
  driver::write_tarball(r, tar);
  // mlipc run's build, then widths 1 and (on x86-64) 8 and 4.
  std::vector<std::vector<std::string>> widths = {{}, {"-DMLIP_KVEC_SCALAR"}};
#if defined(__x86_64__)
  widths.push_back({"-mno-avx512f"});
  widths.push_back({"-mno-avx512f", "-mno-avx", "-mno-avx2"});
#endif
  for (const auto& extra : widths) {
    SCOPED_TRACE(fmt::format("extra flags: {}", fmt::join(extra, " ")));
    const io::NamedTensors got = test::run_width_variant(tar, inputs, extra);
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) {
      EXPECT_EQ(test::compare(got[k].second, want[k].second, 0.0, 0.0), "") << want[k].first;
      if (k % 2 == 0) {  // the pool's own values: byte for byte
        EXPECT_EQ(std::memcmp(got[k].second.raw(), want[k].second.raw(), want[k].second.nbytes()), 0) << want[k].first;
      }
    }
  }
  const std::string& lib1 = r.files.at("codegen/host/src/default_lib1.c");
  for (i = 0; i < 6; ++i) {
    EXPECT_TRUE(stored_channels_last(r, fmt::format("mr{}_p", i))) << i;
    EXPECT_NE(lib1.find(fmt::format("/* MaxPool mr{}_p:", i)), std::string::npos) << i;
  }
  for (i = 4; i < 6; ++i) EXPECT_TRUE(stored_channels_last(r, fmt::format("mr{}_id", i))) << i;
  // The six pools and the two 1x1 ones into channels-last tensors; those from
  // channels-last ones without the transpose.
  EXPECT_EQ(test::count_occurrences(lib1, "MaxPool of floats from a row-major x"), 8u);
  EXPECT_EQ(test::count_occurrences(lib1, "x channels-last too"), 2u);
}

// The output channels a dense tile's block holds (conv.cpp's
// dense_block_width): 16 from 9 channels on, the last block padded, but
// where 8 divides the channels and 16 would pad a larger share of the
// lanes (under 64 channels) or the taps are few (under 64 per output).
// Each layer against the reference bit for bit (padded blocks on both
// sides of each threshold), and the block its code declares.
TEST(TiledKernels, DenseBlockWidthsFollowChannelsAndTapsBitForBit) {
  OnnxBuilder b;
  io::NamedTensors inputs;
  struct Layer {
    int64_t in, out, k, mb;
  };
  const Layer layers[] = {
      {5, 20, 3, 16},   // 4 divides 20: blocks of 16, not 4
      {64, 116, 1, 16}, // 4 divides 116: 16
      {8, 72, 3, 16},   // 8 divides 72; 72 taps, 72 channels: 16
      {24, 72, 1, 8},   // 24 taps: 8
      {64, 88, 1, 16},  // 64 taps: 16
      {63, 88, 1, 8},   // 63 taps: 8
      {16, 56, 3, 8},   // 56 channels, 16 would pad 8 of 64 lanes: 8
      {7, 12, 3, 16},   // 12: 16 (4 would be one vector of 4)
      {3, 8, 3, 8},     // 8: one block
      {3, 6, 3, 8},     // 6: 8 padded
  };
  int i = 0;
  for (const Layer& l : layers) {
    const std::string x = fmt::format("bw{}", i), y = fmt::format("bw{}_y", i);
    const Shape in = {1, l.in, 9, 11};
    b.input(x, DType::Float32, in);
    inputs.emplace_back(x, random_tensor(DType::Float32, in, 2100 + static_cast<uint32_t>(i)));
    b.initializer(y + "_w", random_tensor(DType::Float32, {l.out, l.in, l.k, l.k}, 2200 + static_cast<uint32_t>(i)));
    b.initializer(y + "_b", random_tensor(DType::Float32, {l.out}, 2300 + static_cast<uint32_t>(i)));
    b.node("Conv", {x, y + "_w", y + "_b"}, {y}, {{"pads", ints(4, l.k / 2)}}, y);
    b.output(y);
    ++i;
  }
  const fs::path p = b.save(test::scratch_dir(), "tiled_block_widths.onnx");
  test::expect_matches_reference(p, inputs, 0.0, 0.0);
  const std::string lib1 = driver::compile_model(p, {}).files.at("codegen/host/src/default_lib1.c");
  i = 0;
  for (const Layer& l : layers) {
    const size_t at = lib1.find(fmt::format("/* Conv bw{}_y:", i));
    ASSERT_NE(at, std::string::npos) << i;
    const size_t nv = lib1.find("NV = ", at);
    ASSERT_NE(nv, std::string::npos) << i;
    EXPECT_EQ(lib1.substr(nv, lib1.find(',', nv) - nv), fmt::format("NV = {} / MLIP_VW_{}", l.mb, l.mb)) << "layer " << i;
    ++i;
  }
}

TEST(TiledKernels, RandomGemmsMatchTheReferenceBitForBit) {
  std::mt19937 rng(7);
  OnnxBuilder b;
  io::NamedTensors inputs;
  for (int c = 0; c < 10; ++c) {
    const int64_t m = c < 3 ? 1 : pick(rng, 1, 9), n = c == 4 ? 1 : pick(rng, 1, 70), k = pick(rng, 1, 40);
    const bool ta = pick(rng, 0, 1), tb = pick(rng, 0, 1);
    const std::string a = fmt::format("a{}", c), y = fmt::format("g{}", c);
    const Shape as = ta ? Shape{k, m} : Shape{m, k};
    b.input(a, DType::Float32, as);
    inputs.emplace_back(a, random_tensor(DType::Float32, as, 40 + static_cast<uint32_t>(c)));
    b.initializer(y + "_b", random_tensor(DType::Float32, tb ? Shape{n, k} : Shape{k, n}, 60 + static_cast<uint32_t>(c)));
    std::vector<std::string> ins = {a, y + "_b"};
    const Shape cs[] = {Shape{n}, Shape{m, 1}, Shape{m, n}, Shape{}};
    if (c % 5 != 0) {
      b.initializer(y + "_c", random_tensor(DType::Float32, cs[c % 4], 80 + static_cast<uint32_t>(c)));
      ins.push_back(y + "_c");
    }
    b.node("Gemm", ins, {y},
           {{"transA", int64_t{ta}}, {"transB", int64_t{tb}}, {"alpha", c % 2 ? 1.0f : 0.75f},
            {"beta", c % 3 ? 1.0f : -1.5f}});
    b.output(add_activation(b, rng, y));
  }
  test::expect_matches_reference(b.save(test::scratch_dir(), "tiled_gemms.onnx"), inputs, 0.0, 0.0);
}

// MatMul through matmul_packed.c: constant B (packed at compile time, one
// panel per batch matrix) and activation B (read in place, the last N % 16
// columns through a zero-padded block in the scratch), B made by a Transpose (attention's Q x K^T),
// odd sizes (1, 3, 17, 65 and random), batch > 1 with either operand
// broadcast, 1-D operands, and fused activations; tolerance 0.
TEST(TiledKernels, RandomMatMulsMatchTheReferenceBitForBit) {
  std::mt19937 rng(11);
  OnnxBuilder b;
  io::NamedTensors inputs;
  const int64_t odd[] = {1, 3, 17, 65};
  auto size = [&](int c) { return c % 3 == 0 ? odd[pick(rng, 0, 3)] : pick(rng, 1, 40); };
  for (int c = 0; c < 16; ++c) {
    const int64_t m = size(c), n = c % 4 == 1 ? 16 * pick(rng, 1, 3) + pick(rng, 0, 1) : size(c + 1), k = size(c + 2);
    // Batch axes: none, [2] on both, A [3, 1] against B [2] (both broadcast), or B's matrix shared.
    Shape ab, bb;
    switch (c % 4) {
      case 1: ab = bb = {2}; break;
      case 2: ab = {3, 1}; bb = {2}; break;
      case 3: ab = {2, 2}; break;
      default: break;
    }
    Shape as = ab, bs = bb;
    as.insert(as.end(), {m, k});
    bs.insert(bs.end(), {k, n});
    if (c == 4) as = {k};  // 1-D A
    if (c == 8) bs = {k};  // 1-D B
    const std::string a = fmt::format("a{}", c), w = fmt::format("w{}", c), y = fmt::format("mm{}", c);
    b.input(a, DType::Float32, as);
    inputs.emplace_back(a, random_tensor(DType::Float32, as, 100 + static_cast<uint32_t>(c)));
    const TensorData bt = random_tensor(DType::Float32, bs, 200 + static_cast<uint32_t>(c));
    if (c % 2 == 0) {
      b.initializer(w, bt);
    } else if (c % 4 == 1 && bs.size() >= 2) {  // B = transpose of an input [..., N, K]
      transposed_input(b, inputs, w, bs, 300 + static_cast<uint32_t>(c));
    } else {
      b.input(w, DType::Float32, bs);
      inputs.emplace_back(w, bt);
    }
    b.node("MatMul", {a, w}, {y});
    b.output(add_activation(b, rng, y));
  }
  const fs::path model = b.save(test::scratch_dir(), "tiled_matmuls.onnx");
  test::expect_matches_reference(model, inputs, 0.0, 0.0);
  // The cases with N >= 16 take the tiled kernel, packed and in place (4
  // and 7 of them with libstdc++'s distributions).
  const std::string lib1 = driver::compile_model(model, {}).files.at("codegen/host/src/default_lib1.c");
  auto count = [&](const std::string& what) { return test::count_occurrences(lib1, what); };
  EXPECT_GE(count("b constant and packed at compile time"), 3u);
  EXPECT_GE(count("b an activation read in\n * place"), 3u);
}

// Attention's A x V and its kin: an activation B whose last N % 16 columns
// go through the scratch's zero-padded block (tiles of up to 8 rows), with
// N of 17 to 47 (one or two whole blocks beside), row counts around the
// tile heights (1, 7, 9, 33 and random), long sums (K up to 300), batches
// on two axes with either operand broadcast, B made by a Transpose, and
// fused activations; tolerance 0.
TEST(TiledKernels, ActivationBTailBlocksMatchTheReferenceBitForBit) {
  std::mt19937 rng(29);
  OnnxBuilder b;
  io::NamedTensors inputs;
  const int64_t ns[] = {17, 24, 31, 40, 47}, ms[] = {1, 7, 9, 33}, ks[] = {1, 5, 64, 300};
  for (int c = 0; c < 10; ++c) {
    const int64_t n = ns[c % 5], m = c % 3 == 2 ? pick(rng, 2, 70) : ms[pick(rng, 0, 3)], k = ks[pick(rng, 0, 3)];
    Shape as, bs;
    switch (c % 3) {
      case 0: as = {2, 3, m, k}; bs = {2, 3, k, n}; break;  // attention's [batch, heads, ...]
      case 1: as = {3, 1, m, k}; bs = {2, k, n}; break;     // both broadcast
      default: as = {2, m, k}; bs = {k, n}; break;          // one B for every matrix of A
    }
    const std::string a = fmt::format("a{}", c), w = fmt::format("v{}", c), y = fmt::format("av{}", c);
    b.input(a, DType::Float32, as);
    inputs.emplace_back(a, random_tensor(DType::Float32, as, 400 + static_cast<uint32_t>(c)));
    if (c % 2 == 1) {  // B = transpose of an input [..., N, K]
      transposed_input(b, inputs, w, bs, 500 + static_cast<uint32_t>(c));
    } else {
      b.input(w, DType::Float32, bs);
      inputs.emplace_back(w, random_tensor(DType::Float32, bs, 500 + static_cast<uint32_t>(c)));
    }
    b.node("MatMul", {a, w}, {y});
    b.output(add_activation(b, rng, y));
  }
  const fs::path model = b.save(test::scratch_dir(), "tiled_matmul_tails.onnx");
  test::expect_matches_reference(model, inputs, 0.0, 0.0);
  const std::string lib1 = driver::compile_model(model, {}).files.at("codegen/host/src/default_lib1.c");
  EXPECT_NE(lib1.find("zero-padded to a block"), std::string::npos);
}

// Small convolutions after a large tensor, whose peak leaves room for a
// zero-padded copy of their input (one rectangle, no border tiles): dense,
// grouped and depthwise, 1-D to 3-D, strides, dilations, asymmetric pads,
// both input layouts. A weight of infinity keeps its convolution on the
// skipping of padding taps (0 * inf would be NaN).
TEST(TiledKernels, ZeroPaddedCopiesWhereTheArenaHasRoom) {
  OnnxBuilder b;
  b.input("big", DType::Float32, {1, 8, 40, 40});
  b.node("Abs", {"big"}, {"bigt"});  // 51 KB in the arena
  b.initializer("wb", random_tensor(DType::Float32, {4, 8, 3, 3}, 1));
  b.node("Conv", {"bigt", "wb"}, {"s0"}, {{"strides", ints{4, 4}}});  // [1, 4, 10, 10]
  auto conv = [&](const std::string& x, const Shape& w, const std::string& y, const Attrs_& attrs,
                  uint32_t seed, bool inf = false) {
    TensorData wt = random_tensor(DType::Float32, w, seed);
    if (inf) wt.data<float>()[0] = INFINITY;
    b.initializer(y + "_w", wt);
    b.node("Conv", {x, y + "_w"}, {y}, attrs);
  };
  conv("s0", {6, 4, 3, 3}, "a", {{"pads", ints{1, 2, 0, 1}}}, 2);
  // 6 channels, not whole blocks of lanes: conv_tiled.c, not conv_dw_cl.c
  conv("a", {6, 1, 3, 3}, "dw", {{"pads", ints{1, 1, 1, 1}}, {"group", int64_t{6}}, {"dilations", ints{2, 1}}}, 3);
  conv("dw", {6, 3, 3, 2}, "gr", {{"pads", ints{2, 1, 1, 1}}, {"group", int64_t{2}}, {"strides", ints{2, 1}}}, 4);
  conv("gr", {5, 6, 3, 3}, "inf", {{"pads", ints{1, 1, 1, 1}}}, 5, /*inf=*/true);
  b.output("inf");
  b.input("x1", DType::Float32, {2, 3, 9});
  conv("x1", {4, 3, 3}, "c1", {{"pads", ints{2, 1}}, {"strides", ints{2}}}, 6);
  b.output("c1");
  b.input("x3", DType::Float32, {1, 2, 3, 4, 5});
  conv("x3", {3, 2, 2, 3, 3}, "c3", {{"pads", ints{1, 0, 1, 0, 2, 1}}}, 7);
  b.output("c3");
  const fs::path p = b.save(test::scratch_dir(), "tiled_padded.onnx");
  const io::NamedTensors in = {{"big", random_tensor(DType::Float32, {1, 8, 40, 40}, 8)},
                               {"x1", random_tensor(DType::Float32, {2, 3, 9}, 9)},
                               {"x3", random_tensor(DType::Float32, {1, 2, 3, 4, 5}, 10)}};
  test::expect_matches_reference(p, in, 0.0, 0.0);
  const driver::CompileResult r = driver::compile_model(p, {});
  const std::string& lib1 = r.files.at("codegen/host/src/default_lib1.c");
  EXPECT_EQ(test::count_occurrences(lib1, "zero-padded and channels-last"), 5u);  // a, dw, gr, c1, c3; not the convolution with an infinite weight
}

// Zero-padded copies of inputs whose pixels are 1 or 2 KiB of channels
// (256 and 512 per group): the copy puts one cache line more between its
// pixels (conv.cpp's pixel_stride), for dense, grouped and depthwise
// convolutions and one with a fused MaxPool (its rows after the copy),
// strides, dilations and asymmetric pads, each against the reference bit
// for bit.
TEST(TiledKernels, ZeroPaddedCopiesOfWidePixelsMatchTheReferenceBitForBit) {
  OnnxBuilder b;
  b.input("big", DType::Float32, {1, 16, 56, 56});
  b.node("Abs", {"big"}, {"bigt"});  // 200 KB in the arena: room for the copies
  b.initializer("w0", random_tensor(DType::Float32, {512, 16, 3, 3}, 11));
  b.node("Conv", {"bigt", "w0"}, {"s0"}, {{"strides", ints{8, 8}}});  // [1, 512, 7, 7], channels-last
  auto conv = [&](const std::string& x, const Shape& w, const std::string& y, const Attrs_& attrs, uint32_t seed) {
    b.initializer(y + "_w", random_tensor(DType::Float32, w, seed));
    b.initializer(y + "_b", random_tensor(DType::Float32, {w[0]}, seed + 100));
    b.node("Conv", {x, y + "_w", y + "_b"}, {y}, attrs);
  };
  conv("s0", {24, 512, 3, 3}, "dense", {{"pads", ints{1, 1, 1, 1}}}, 12);
  conv("s0", {32, 256, 3, 3}, "grouped",
       {{"pads", ints{1, 0, 2, 1}}, {"group", int64_t{2}}, {"strides", ints{2, 1}}}, 13);
  conv("s0", {512, 1, 3, 3}, "depthwise", {{"pads", ints{1, 1, 1, 1}}, {"group", int64_t{512}}, {"dilations", ints{1, 2}}}, 14);
  conv("s0", {20, 512, 3, 3}, "pooled", {{"pads", ints{1, 1, 1, 1}}}, 15);
  b.node("Relu", {"pooled"}, {"pooled_relu"});
  b.node("MaxPool", {"pooled_relu"}, {"pool"}, {{"kernel_shape", ints{2, 2}}, {"strides", ints{2, 2}}});
  for (const char* y : {"dense", "grouped", "depthwise", "pool"}) b.output(y);
  const fs::path p = b.save(test::scratch_dir(), "tiled_padded_wide.onnx");
  test::expect_matches_reference(p, {{"big", random_tensor(DType::Float32, {1, 16, 56, 56}, 16)}}, 0.0, 0.0);
  const driver::CompileResult r = driver::compile_model(p, {});
  const std::string& lib1 = r.files.at("codegen/host/src/default_lib1.c");
  EXPECT_EQ(test::count_occurrences(lib1, ") * 528 + c] ="), 3u);  // dense, depthwise, pooled: 512 + 16
  EXPECT_EQ(test::count_occurrences(lib1, ") * 272 + c] ="), 1u);  // grouped: 256 + 16
}

// The model of the test below: `n` such convolutions into row-major
// outputs, with a Sigmoid or SiLU (`sigmoids`) or a piecewise-linear
// activation or none.
// `large`: how many have output planes of over 400 positions or an infinite
// weight, so no padded copy is offered in place of the stage.
fs::path staged_model(io::NamedTensors& inputs, bool sigmoids, int n, uint32_t seed, int& large) {
  std::mt19937 rng(seed);
  OnnxBuilder b;
  b.input("big", DType::Float32, {1, 32, 80, 80});
  b.node("Abs", {"big"}, {"bigt"});  // 800 KB in the arena: room for every stage
  b.node("Neg", {"bigt"}, {"bign"});
  b.output("bign");
  inputs.emplace_back("big", random_tensor(DType::Float32, {1, 32, 80, 80}, seed));
  for (int c = 0; c < n; ++c) {
    const uint32_t sc = seed + 10 * static_cast<uint32_t>(c + 1);
    const size_t ns = c % 5 == 0 ? 1 : 2;
    const int kind = c % 3;  // dense, grouped, depthwise
    // 5 channels a group or more: conv_few_rows.c takes 1 to 4 from row-major input
    Shape in = {pick(rng, 1, 2), (kind == 1 ? 2 : 1) * pick(rng, kind == 2 ? 1 : 5, c % 2 ? 40 : 12)};
    for (size_t a = 0; a < ns; ++a) in.push_back(ns == 1 ? pick(rng, 1250, 2000) : pick(rng, 20, c % 4 ? 40 : 72));
    const std::string x = fmt::format("x{}", c), y = fmt::format("st{}", c);
    b.input(x, DType::Float32, in);
    inputs.emplace_back(x, random_tensor(DType::Float32, in, sc));
    std::string xin = x;
    Shape s = in;
    if (c % 4 == 1) {  // channels-last input: the output of a convolution
      s = add_conv(b, rng, x, in, kind == 1 ? 2 * pick(rng, 5, 12) : pick(rng, 5, 24), 1, y + "_in", sc + 1, 3);
      xin = y + "_in";
    }
    if (kind == 2) {  // depthwise with an infinite weight: conv_tiled.c, the padding taps skipped
      Shape w = {s[1], 1};
      for (size_t a = 0; a < ns; ++a) w.push_back(3);
      TensorData wt = random_tensor(DType::Float32, w, sc + 2);
      wt.data<float>()[0] = INFINITY;
      b.initializer(y + "_w", wt);
      b.node("Conv", {xin, y + "_w"}, {y},
             {{"group", s[1]}, {"pads", ints(2 * ns, 1)}, {"strides", ints(ns, pick(rng, 1, 2))}});
      ++large;
    } else {
      const int64_t g = kind == 1 && s[1] % 2 == 0 ? 2 : 1;
      const Shape o = add_conv(b, rng, xin, s, g * pick(rng, 1, c % 2 ? 35 : 20), g, y, sc + 3, 4);
      large += numel(o) / o[0] / o[1] > 400;
    }
    std::string out = y;
    if (!sigmoids) {
      out = add_activation(b, rng, y);
    } else if (c % 2 || kind == 2) {  // not SiLU at the infinities (-0 fused, NaN in the reference)
      b.node("Sigmoid", {y}, {y + "_sig"});
      out = y + "_sig";
    } else {
      b.node("Sigmoid", {y}, {y + "_g"});
      b.node("Mul", {y, y + "_g"}, {y + "_silu"});
      out = y + "_silu";
    }
    b.output(out);
  }
  return b.save(test::scratch_dir(), sigmoids ? "tiled_staged_sig.onnx" : "tiled_staged.onnx");
}

// Convolutions into row-major tensors (a model's outputs) after a large
// tensor that leaves the arena room: each band of output rows goes to the
// scratch channels-last, then to y a channel's rows at a time (conv.cpp's
// stage), VW positions by VW channels transposed as vectors, the channels
// past the stage's last whole vector and the positions past a multiple of
// VW one by one. Dense, grouped and depthwise (an infinite weight keeps it off
// conv_dw_rows.c), 1-D and 2-D, random strides, dilations and pads, batch 2,
// output channels not a whole number of blocks, packed weights small
// (blocks inside the tile loop) and large, planes of one band and of many
// (a band's last rows cut short), on row-major and channels-last inputs,
// with a bias, a Sigmoid, a SiLU or a piecewise-linear activation: bit for
// bit (the sigmoids within kmath_f.h's bound, compared exactly across the
// widths by unit.PackedWidths).
TEST(TiledKernels, StagedRowMajorOutputsMatchTheReferenceBitForBit) {
  for (bool sigmoids : {false, true}) {
    SCOPED_TRACE(sigmoids ? "Sigmoid and SiLU" : "piecewise-linear activations");
    io::NamedTensors inputs;
    const int n = 14;
    int large = 0;
    const fs::path p = staged_model(inputs, sigmoids, n, sigmoids ? 4100 : 4000, large);
    // The sigmoids: kmath_f.h's functions against the reference's kmath.h
    // (their bound as in FusedSigmoidTanhAndSiluWithinTheirBound below).
    if (sigmoids)
      test::expect_matches_reference(p, inputs, std::ldexp(1.0, -20), 1.65e-38);
    else
      test::expect_matches_reference(p, inputs, 0.0, 0.0);
    const driver::CompileResult r = driver::compile_model(p, {});
    const std::string& lib1 = r.files.at("codegen/host/src/default_lib1.c");
    // Every one but those of small padded planes (the copy offered there).
    const size_t staged = test::count_occurrences(lib1, "The band's outputs from the stage");
    EXPECT_GE(staged, static_cast<size_t>(large));
    EXPECT_GE(large, n / 3);
    EXPECT_LE(staged, static_cast<size_t>(n));
    EXPECT_EQ(test::count_occurrences(lib1, "enum { SVW = MLIP_VW_16 };"), staged);  // the band out transposed
    if (!sigmoids) {
      EXPECT_EQ(test::strict_c99_errors(p), "");
    }
  }
}

// A large tensor computed first and alive over two steps ("big", Abs, Neg
// to an output), so that the arena's peak leaves room for the scratch the
// layers after it are offered.
void add_arena_room(OnnxBuilder& b, io::NamedTensors& inputs, const Shape& shape, uint32_t seed) {
  b.input("big", DType::Float32, shape);
  b.node("Abs", {"big"}, {"bigt"});
  b.node("Neg", {"bigt"}, {"bign"});
  b.output("bign");
  inputs.emplace_back("big", random_tensor(DType::Float32, shape, seed));
}

// The stage's flush on output planes a multiple of 4 KiB apart (32 x 32,
// 16 x 64: one channel's rows at a time) and not (33 x 31, 8 x 36: VW
// channels transposed at a time), 40 channels (the last vector of the
// stage's third block partial) and 16: bit for bit.
TEST(TiledKernels, StagedOutputsOfAlignedAndUnalignedPlanesMatchTheReferenceBitForBit) {
  OnnxBuilder b;
  io::NamedTensors inputs;
  add_arena_room(b, inputs, {1, 64, 64, 64}, 5100);
  const std::vector<std::pair<int64_t, int64_t>> planes = {{32, 32}, {33, 31}, {16, 64}, {8, 36}};
  for (size_t i = 0; i < planes.size(); ++i) {
    const std::string x = fmt::format("sx{}", i), y = fmt::format("sy{}", i);
    const int64_t m = i % 2 ? 16 : 40;
    const Shape in = {1, 24, planes[i].first, planes[i].second};
    b.input(x, DType::Float32, in);
    inputs.emplace_back(x, random_tensor(DType::Float32, in, 5200 + static_cast<uint32_t>(i)));
    b.initializer(y + "_w", random_tensor(DType::Float32, {m, 24, 1, 1}, 5300 + static_cast<uint32_t>(i)));
    b.node("Conv", {x, y + "_w"}, {y});
    b.output(y);
  }
  const fs::path p = b.save(test::scratch_dir(), "tiled_stage_planes.onnx");
  const std::string lib1 = driver::compile_model(p, {}).files.at("codegen/host/src/default_lib1.c");
  EXPECT_EQ(test::count_occurrences(lib1, "enum { SVW = MLIP_VW_16 };"), planes.size());  // every one staged
  test::expect_matches_reference(p, inputs, 0.0, 0.0);
}

// Row-major inputs of 16 channels a group or more on planes of a multiple
// of 1 KiB (256 floats: 16x16, 8x32, 4x8x8, 1-D 512), which get a
// channels-last copy (conv.cpp's cl_copy) where the arena has room, padded
// or not: dense and grouped, 1-D to 3-D, random strides, dilations and
// pads, batch 2, bias, into a channels-last tensor (a second convolution's
// input) or a row-major one (the stage after the copy in the scratch), bit
// for bit.
TEST(TiledKernels, ChannelsLastCopiesOfAlignedRowMajorPlanesMatchTheReferenceBitForBit) {
  std::mt19937 rng(20261130);
  OnnxBuilder b;
  io::NamedTensors inputs;
  add_arena_room(b, inputs, {1, 32, 80, 80}, 5000);  // 800 KB: room for every copy
  const std::vector<Shape> planes = {{16, 16}, {8, 32}, {32, 16}, {4, 8, 8}, {512}, {24, 32}};
  const int n = 12;
  for (int c = 0; c < n; ++c) {
    const Shape& sp = planes[static_cast<size_t>(c) % planes.size()];
    const int64_t group = c % 3 == 2 ? 2 : 1;
    Shape in = {pick(rng, 1, 2), group * pick(rng, 16, 40)};
    in.insert(in.end(), sp.begin(), sp.end());
    const std::string x = fmt::format("x{}", c), y = fmt::format("cc{}", c);
    b.input(x, DType::Float32, in);
    inputs.emplace_back(x, random_tensor(DType::Float32, in, 5100 + static_cast<uint32_t>(c)));
    const Shape s = add_conv(b, rng, x, in, group * pick(rng, 1, 40), group, y, 5200 + 10 * static_cast<uint32_t>(c), 3);
    const std::string a = add_activation(b, rng, y);
    if (c % 2) {  // into a channels-last tensor: a second convolution's input
      add_conv(b, rng, a, s, pick(rng, 1, 20), 1, y + "_next", 5205 + 10 * static_cast<uint32_t>(c), 3);
      b.output(y + "_next");
    } else {
      b.output(a);
    }
  }
  const fs::path p = b.save(test::scratch_dir(), "tiled_cl_copies.onnx");
  test::expect_matches_reference(p, inputs, 0.0, 0.0);
  const driver::CompileResult r = driver::compile_model(p, {});
  const std::string& lib1 = r.files.at("codegen/host/src/default_lib1.c");
  EXPECT_EQ(test::count_occurrences(lib1, "Row-major input: a row of one channel"), static_cast<size_t>(n));
  EXPECT_GE(test::count_occurrences(lib1, "The band's outputs from the stage"), 1u);
  EXPECT_EQ(test::strict_c99_errors(p), "");
}

// Row-major inputs of 16 channels or more on planes of 16 to 256 positions
// that no multiple of 256 floats fills (7x7, 13x13, 5x9, 1-D 45), read by
// 12 blocks of output channels or more (192 channels: the copy pays once
// for every block's reads) and by 11 (176: no copy), and a plane of 15
// (3x5: no copy): 1x1 and 3x3 without pads, a bias, batch 2, into
// row-major and channels-last tensors, bit for bit.
TEST(TiledKernels, ChannelsLastCopiesOfSmallPlanesReadByManyBlocksBitForBit) {
  std::mt19937 rng(20261131);
  OnnxBuilder b;
  io::NamedTensors inputs;
  add_arena_room(b, inputs, {1, 64, 64, 64}, 6000);  // 1 MB: room for every copy
  const std::vector<Shape> planes = {{7, 7}, {13, 13}, {5, 9}, {45}, {3, 5}};
  size_t copies = 0;
  for (int c = 0; c < 10; ++c) {
    const Shape& sp = planes[static_cast<size_t>(c) % planes.size()];
    const int64_t m = c < 5 ? 192 : 176, k = c % 2 ? 3 : 1;
    Shape in = {pick(rng, 1, 2), pick(rng, 16, 40)};
    in.insert(in.end(), sp.begin(), sp.end());
    const std::string x = fmt::format("sx{}", c), y = fmt::format("sc{}", c);
    b.input(x, DType::Float32, in);
    inputs.emplace_back(x, random_tensor(DType::Float32, in, 6100 + static_cast<uint32_t>(c)));
    Shape w = {m, in[1]};
    w.insert(w.end(), sp.size(), k);
    b.initializer(y + "_w", random_tensor(DType::Float32, w, 6200 + static_cast<uint32_t>(c)));
    b.initializer(y + "_b", random_tensor(DType::Float32, {m}, 6300 + static_cast<uint32_t>(c)));
    b.node("Conv", {x, y + "_w", y + "_b"}, {y});
    copies += m == 192 && numel(sp) >= 16;
    if (c % 4 < 2) {  // into a channels-last tensor: a second convolution's input
      Shape w2 = {3, m};
      w2.insert(w2.end(), sp.size(), 1);
      b.initializer(y + "_w2", random_tensor(DType::Float32, w2, 6400 + static_cast<uint32_t>(c)));
      b.node("Conv", {y, y + "_w2"}, {y + "_next"});
      b.output(y + "_next");
    } else {
      b.output(y);
    }
  }
  const fs::path p = b.save(test::scratch_dir(), "tiled_small_copies.onnx");
  test::expect_matches_reference(p, inputs, 0.0, 0.0);
  const std::string lib1 = driver::compile_model(p, {}).files.at("codegen/host/src/default_lib1.c");
  EXPECT_EQ(test::count_occurrences(lib1, "Row-major input: a row of one channel"), copies);
}

// Every form of the new templates in one model, built as strict C99 (cc's
// default instruction set: the vector path of mlip/kvec.h).
TEST(TiledKernels, EveryFormCompilesAsStrictC99) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 6, 9, 8}).input("a", DType::Float32, {3, 10});
  auto conv = [&](const std::string& x, int64_t c, int64_t m, int64_t group, bool bias, const std::string& y) {
    b.initializer(y + "_w", random_tensor(DType::Float32, {m, c / group, 3, 3}, 1));
    std::vector<std::string> ins = {x, y + "_w"};
    if (bias) {
      b.initializer(y + "_b", random_tensor(DType::Float32, {m}, 2));
      ins.push_back(y + "_b");
    }
    b.node("Conv", ins, {y}, {{"pads", ints{1, 1, 1, 1}}, {"group", group}});
  };
  conv("x", 6, 6, 6, true, "dw_gather");  // depthwise from a row-major input
  b.input("xr", DType::Float32, {1, 5, 3, 20});
  b.initializer("dwr_w", random_tensor(DType::Float32, {5, 1, 3, 3}, 5));
  b.node("Conv", {"xr", "dwr_w"}, {"dw_rows"}, {{"pads", ints{1, 1, 1, 1}}, {"group", int64_t{5}}});
  b.node("Relu", {"dw_rows"}, {"dw_rows_relu"});  // row-major on both sides: conv_dw_rows.c
  conv("dw_gather", 6, 16, 1, false, "dense");
  conv("dense", 16, 16, 16, false, "dw_vector");
  conv("dense", 16, 16, 16, false, "dw_vector_rows");  // a row-major output: conv_tiled.c's vector loads
  b.node("HardSwish", {"dw_vector"}, {"dw_cl"});
  conv("dw_cl", 16, 16, 16, true, "dw_cl2");  // channels-last on both sides: conv_dw_cl.c
  conv("dw_cl2", 16, 6, 2, true, "padded");  // 3 channels per group: padded blocks
  b.node("MaxPool", {"padded"}, {"mp"}, {{"kernel_shape", ints{2, 2}}});
  b.node("AveragePool", {"mp"}, {"ap"}, {{"kernel_shape", ints{2, 2}}, {"count_include_pad", int64_t{1}}, {"pads", ints{1, 1, 0, 0}}});
  b.node("AveragePool", {"mp"}, {"ap2"}, {{"kernel_shape", ints{2, 2}}, {"pads", ints{0, 0, 1, 1}}});
  b.node("Add", {"ap", "ap2"}, {"s"});
  b.node("GlobalAveragePool", {"s"}, {"gap"});
  b.node("GlobalMaxPool", {"s"}, {"gmp"});
  b.initializer("w", random_tensor(DType::Float32, {10, 20}, 3));
  b.initializer("c", random_tensor(DType::Float32, {20}, 4));
  b.node("Gemm", {"a", "w", "c"}, {"g1"});
  b.node("Gemm", {"a", "w"}, {"g2"});
  b.node("MatMul", {"a", "w"}, {"mm_packed"});
  b.input("v", DType::Float32, {2, 20, 17});
  b.node("MatMul", {"g1", "v"}, {"mm_in_place"});  // one block and one tail column
  b.output("gap").output("gmp").output("g1").output("g2").output("mm_packed").output("mm_in_place").output("dw_rows_relu");
  b.output("dw_vector_rows");
  const fs::path p = b.save(test::scratch_dir(), "tiled_strict.onnx");
  EXPECT_EQ(test::strict_c99_errors(p), "");
  const std::string lib1 = driver::compile_model(p, {}).files.at("codegen/host/src/default_lib1.c");
  EXPECT_EQ(test::count_occurrences(lib1, "Depthwise Conv between channels-last"), 2u);  // dw_vector, dw_cl2
}

// The fused Sigmoid, Tanh and SiLU (Sigmoid and Mul) of convolutions (dense
// and depthwise, channels-last between them), a Gemm and a MatMul: the C
// applies mlip/kmath_f.h's float-precision functions to the reference's
// sums (the same bits before the activation), and so does the reference
// (ops/activation.h): within 2^-20 relative, the tile form, the array
// forms and the scalar calls all give the reference's bits here.
TEST(TiledKernels, FusedSigmoidTanhAndSiluWithinTheirBound) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {2, 6, 11, 9}).input("a", DType::Float32, {5, 12});
  b.initializer("w1", random_tensor(DType::Float32, {16, 6, 3, 3}, 1));
  b.node("Conv", {"x", "w1"}, {"c1"}, {{"pads", ints{1, 1, 1, 1}}});
  b.node("Sigmoid", {"c1"}, {"s1"});
  b.node("Mul", {"c1", "s1"}, {"silu"});
  // Each activation of sums the reference has bit for bit (a difference
  // carried into a later sum is no longer the function's alone).
  b.initializer("w0", random_tensor(DType::Float32, {16, 6, 3, 3}, 7));
  b.node("Conv", {"x", "w0"}, {"c2"}, {{"pads", ints{1, 1, 1, 1}}});
  b.initializer("w2", random_tensor(DType::Float32, {16, 1, 3, 3}, 2));
  b.node("Conv", {"c2", "w2"}, {"dw"}, {{"pads", ints{1, 1, 1, 1}}, {"group", int64_t{16}}});
  b.node("Tanh", {"dw"}, {"dwt"});
  b.initializer("w3", random_tensor(DType::Float32, {7, 16, 1, 1}, 3));
  b.node("Conv", {"c2", "w3"}, {"c3"});
  b.node("Sigmoid", {"c3"}, {"c3s"});
  b.initializer("w", random_tensor(DType::Float32, {12, 13}, 4));
  b.node("Gemm", {"a", "w"}, {"g"});
  b.node("Tanh", {"g"}, {"gt"});
  b.node("MatMul", {"a", "w"}, {"mm"});
  b.node("Sigmoid", {"mm"}, {"mms"});
  b.output("silu").output("dwt").output("c3s").output("gt").output("mms");
  const fs::path p = b.save(test::scratch_dir(), "tiled_sigmoid.onnx");
  const io::NamedTensors in = {{"x", random_tensor(DType::Float32, {2, 6, 11, 9}, 5, -3, 3)},
                               {"a", random_tensor(DType::Float32, {5, 12}, 6)}};
  test::expect_matches_reference(p, in, std::ldexp(1.0, -20), 1.65e-38);
  // The C has the float-precision functions, the SiLU fused.
  const driver::CompileResult r = driver::compile_model(p, {});
  const std::string& lib1 = r.files.at("codegen/host/src/default_lib1.c");
  EXPECT_NE(lib1.find("mlip_silu_f_n("), std::string::npos);
  EXPECT_NE(lib1.find("mlip__ct_sigmoid_16(av + i, 1)"), std::string::npos);  // a tile's vectors at once
  EXPECT_NE(lib1.find("mlip__ct_sigmoid_8(av + i, 0)"), std::string::npos);   // 7 channels: a padded block
  EXPECT_NE(lib1.find("mlip_tanh_f"), std::string::npos);
  EXPECT_NE(lib1.find("mlip_sigmoid_f"), std::string::npos);
}

// mlipc run's own flags (-O3 -march=native: FMA on this kind of host) on a
// model with every vector kernel and the vector sigmoid: no fused
// multiply-add in the generated code but the kernels' own (mlip/kfma.h,
// written out; with -DMLIP_FMA_UNFUSED they are a plain a * b + c and
// there is none: mlip/strict_fp.h), so the host computes what every other target
// does. The control without the header's pragma shows that the compiler
// would fuse. On a host with FMA the kernels' own are the instruction, never
// a call to the C library's fmaf.
TEST(TiledKernels, HostBuildHasNoFusedMultiplyAdd) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 6, 9, 8}).input("a", DType::Float32, {3, 10});
  b.initializer("w1", random_tensor(DType::Float32, {16, 6, 3, 3}, 1));
  b.node("Conv", {"x", "w1"}, {"c1"}, {{"pads", ints{1, 1, 1, 1}}});
  b.node("Sigmoid", {"c1"}, {"s1"});
  b.node("Mul", {"c1", "s1"}, {"silu"});
  b.initializer("w2", random_tensor(DType::Float32, {16, 1, 3, 3}, 2));
  b.node("Conv", {"silu", "w2"}, {"dw"}, {{"pads", ints{1, 1, 1, 1}}, {"group", int64_t{16}}});
  b.initializer("w", random_tensor(DType::Float32, {10, 20}, 3));
  b.node("Gemm", {"a", "w"}, {"g"});
  b.node("MatMul", {"a", "w"}, {"mm"});
  b.output("dw").output("g").output("mm");
  const driver::CompileResult r = driver::compile_model(b.save(test::scratch_dir(), "tiled_fma.onnx"), {});
  const fs::path dir = test::scratch_dir() / "tiled_fma";
  fs::create_directories(dir);
  for (const auto& [path, content] : r.files) {
    fs::create_directories((dir / path).parent_path());
    write_file(dir / path, content);
  }
  auto assembly = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {"cc"};
    for (const std::string& f : host::host_flags()) argv.push_back(f);
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.insert(argv.end(), {"-Icodegen/host/include", "-Iruntime/include", "-S", "codegen/host/src/default_lib1.c",
                             "-o", "lib1.s"});
    ProcessResult p = run_process(argv, dir, 300);
    EXPECT_EQ(p.exit_code, 0) << p.err;
    return read_file(dir / "lib1.s");
  };
  auto fused = [](const std::string& as) {
    for (const char* op : {"vfmadd", "vfmsub", "vfnmadd", "vfnmsub", "\tfmadd", "\tfmla"})
      if (as.find(op) != std::string::npos) return true;
    return false;
  };
  // The kernels' own fused multiply-adds (mlip/kfma.h) as a * b + c: then none at all.
  EXPECT_FALSE(fused(assembly({"-DMLIP_FMA_UNFUSED"})));
  const std::string control = assembly({"-DMLIP_STRICT_FP_H_", "-DMLIP_FMA_UNFUSED", "-ffp-contract=fast"});
  if (!fused(control)) GTEST_SKIP() << "this host's compiler does not fuse (no FMA): nothing to check";
  const std::string own = assembly({});
  EXPECT_TRUE(fused(own));
  EXPECT_EQ(own.find("fmaf"), std::string::npos);
}

}  // namespace
}  // namespace mlipc::unit_c_tiled_kernels
