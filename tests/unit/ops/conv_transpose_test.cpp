// ConvTranspose: shape rule, reference kernel, and the generated C against the reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "driver/compile.h"
#include "frontend/onnx_import.h"
#include "mlf/archive.h"
#include "support/file_util.h"
#include "support/process.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_conv_transpose {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using Attr = std::pair<std::string, AttrValue>;

fs::path model(const std::string& name, const Shape& x, const TensorData& w, const TensorData* b,
               const std::vector<Attr>& attrs, bool w_input = false) {
  OnnxBuilder m;
  m.input("x", DType::Float32, x);
  if (w_input) m.input("w", DType::Float32, w.shape());
  else m.initializer("w", w);
  std::vector<std::string> ins = {"x", "w"};
  if (b) {
    m.initializer("b", *b);
    ins.push_back("b");
  }
  m.node("ConvTranspose", ins, {"y"}, attrs);
  m.output("y");
  return m.save(test::scratch_dir(), "convt_" + name + ".onnx");
}

using test::import_error;

Shape out_shape(const fs::path& p) {
  Graph g = frontend::import_onnx(p);
  return g.value(g.outputs[0].value).shape;
}

TEST(ConvTranspose, ShapeRule) {
  TensorData w(DType::Float32, {2, 3, 3, 3});
  // (in - 1) * stride + kernel - pads + output_padding.
  EXPECT_EQ(out_shape(model("s_plain", {1, 2, 4, 5}, w, nullptr, {})), (Shape{1, 3, 6, 7}));
  EXPECT_EQ(out_shape(model("s_strides", {1, 2, 4, 5}, w, nullptr,
                            {{"strides", ints{2, 3}}, {"pads", ints{1, 0, 1, 2}}, {"output_padding", ints{1, 2}}})),
            (Shape{1, 3, 8, 15}));
  EXPECT_EQ(out_shape(model("s_dil", {1, 2, 4, 5}, w, nullptr, {{"dilations", ints{2, 1}}})), (Shape{1, 3, 8, 7}));
  // Groups: W [C, M/group, ...], M = 3 * 2.
  EXPECT_EQ(out_shape(model("s_group", {1, 2, 4, 5}, TensorData(DType::Float32, {2, 3, 1, 1}), nullptr,
                            {{"group", int64_t{2}}})),
            (Shape{1, 6, 4, 5}));
  // SAME_*: the output is in * stride; output_shape as given.
  EXPECT_EQ(out_shape(model("s_same", {1, 2, 4, 5}, w, nullptr,
                            {{"auto_pad", std::string("SAME_LOWER")}, {"strides", ints{2, 2}}})),
            (Shape{1, 3, 8, 10}));
  EXPECT_EQ(out_shape(model("s_oshape", {1, 2, 4, 5}, w, nullptr,
                            {{"output_shape", ints{10, 12}}, {"strides", ints{3, 2}}})),
            (Shape{1, 3, 10, 12}));
  // The whole [N, C, ...] output shape, as some exporters write it.
  EXPECT_EQ(out_shape(model("s_oshape_full", {1, 2, 4, 5}, w, nullptr, {{"output_shape", ints{1, 3, 7, 8}}})),
            (Shape{1, 3, 7, 8}));
  EXPECT_EQ(out_shape(model("s_1d", {2, 2, 6}, TensorData(DType::Float32, {2, 1, 4}), nullptr, {{"strides", ints{2}}})),
            (Shape{2, 1, 14}));
  EXPECT_EQ(out_shape(model("s_3d", {1, 2, 2, 3, 4}, TensorData(DType::Float32, {2, 1, 2, 2, 2}), nullptr, {})),
            (Shape{1, 1, 3, 4, 5}));
}

TEST(ConvTranspose, ShapeRuleResolvesPads) {
  TensorData w(DType::Float32, {1, 1, 3, 3});
  // Total padding 2 * 2 + 3 - 6 = 1: SAME_UPPER puts it at the end, SAME_LOWER at the beginning.
  Graph up = frontend::import_onnx(
      model("p_upper", {1, 1, 3, 3}, w, nullptr, {{"auto_pad", std::string("SAME_UPPER")}, {"strides", ints{2, 2}}}));
  EXPECT_EQ(up.nodes[0].attrs.get_ints("pads"), (ints{0, 0, 1, 1}));
  EXPECT_FALSE(up.nodes[0].attrs.has("auto_pad"));
  Graph lo = frontend::import_onnx(
      model("p_lower", {1, 1, 3, 3}, w, nullptr, {{"auto_pad", std::string("SAME_LOWER")}, {"strides", ints{2, 2}}}));
  EXPECT_EQ(lo.nodes[0].attrs.get_ints("pads"), (ints{1, 1, 0, 0}));
  // output_shape one larger than the kernel reaches: a negative end pad.
  Graph big = frontend::import_onnx(
      model("p_big", {1, 1, 3, 3}, w, nullptr, {{"output_shape", ints{10, 8}}, {"strides", ints{3, 2}}}));
  EXPECT_EQ(big.nodes[0].attrs.get_ints("pads"), (ints{0, 0, -1, -1}));
  EXPECT_FALSE(big.nodes[0].attrs.has("output_shape"));
}

TEST(ConvTranspose, ShapeRuleErrors) {
  TensorData w(DType::Float32, {2, 3, 3, 3});
  EXPECT_THAT(import_error(model("e_ch", {1, 3, 4, 4}, w, nullptr, {})),
              HasSubstr("have 2 input channels; input X [1,3,4,4] has 3"));
  EXPECT_THAT(import_error(model("e_group", {1, 2, 4, 4}, w, nullptr, {{"group", int64_t{3}}})),
              HasSubstr("group 3 must be positive and divide"));
  TensorData b(DType::Float32, {2});
  EXPECT_THAT(import_error(model("e_bias", {1, 2, 4, 4}, w, &b, {})), HasSubstr("bias B has shape [2]"));
  EXPECT_THAT(import_error(model("e_rank", {1, 2, 4, 4}, TensorData(DType::Float32, {2, 3, 3}), nullptr, {})),
              HasSubstr("weights W have shape [2,3,3]"));
  EXPECT_THAT(import_error(model("e_ks", {1, 2, 4, 4}, w, nullptr, {{"kernel_shape", ints{2, 2}}})),
              HasSubstr("does not match the weights"));
  EXPECT_THAT(import_error(model("e_opad", {1, 2, 4, 4}, w, nullptr, {{"output_padding", ints{-1, 0}}})),
              HasSubstr("output_padding [-1,0] must be non-negative"));
  EXPECT_THAT(import_error(model("e_pads_oshape", {1, 2, 4, 4}, w, nullptr,
                                 {{"output_shape", ints{6, 6}}, {"pads", ints{1, 1, 1, 1}}})),
              HasSubstr("pads cannot be used together with output_shape"));
  EXPECT_THAT(import_error(model("e_oshape_len", {1, 2, 4, 4}, w, nullptr, {{"output_shape", ints{6}}})),
              HasSubstr("output_shape [6] has 1 values"));
  EXPECT_THAT(import_error(model("e_small", {1, 2, 1, 1}, w, nullptr, {{"pads", ints{2, 2, 2, 2}}})),
              HasSubstr("is not positive"));
  EXPECT_THAT(import_error(model("e_autopad", {1, 2, 4, 4}, w, nullptr, {{"auto_pad", std::string("SAME")}})),
              HasSubstr("auto_pad 'SAME' is not one of"));
}

TEST(ConvTranspose, ReferenceSmallCases) {
  // 1-D, stride 2, kernel [1, 10]: each input writes x and 10x two cells apart, overlapping once.
  TensorData w = TensorData::from<float>({1, 1, 3}, {1, 10, 100});
  fs::path p = model("r_1d", {1, 1, 2}, w, nullptr, {{"strides", ints{2}}});
  TensorData x = TensorData::from<float>({1, 1, 2}, {1, 2});
  EXPECT_EQ(test::reference_run(p, {{"x", x}})[0].second,
            TensorData::from<float>({1, 1, 5}, {1, 10, 100 + 2, 20, 200}));
  // Pads crop both ends; output_padding adds a cell at the end holding only the bias.
  TensorData b = TensorData::from<float>({1}, {0.5f});
  fs::path pp = model("r_pads", {1, 1, 2}, w, &b, {{"strides", ints{2}}, {"pads", ints{1, 0}}, {"output_padding", ints{1}}});
  EXPECT_EQ(test::reference_run(pp, {{"x", x}})[0].second,
            TensorData::from<float>({1, 1, 5}, {10.5f, 102.5f, 20.5f, 200.5f, 0.5f}));
  // Dilation 2: taps land two cells apart.
  fs::path pd = model("r_dil", {1, 1, 2}, TensorData::from<float>({1, 1, 2}, {1, 10}), nullptr, {{"dilations", ints{2}}});
  EXPECT_EQ(test::reference_run(pd, {{"x", x}})[0].second, TensorData::from<float>({1, 1, 4}, {1, 2, 10, 20}));
  // Groups: channel 0 feeds outputs 0 and 1, channel 1 feeds 2 and 3 (1x1 kernels).
  TensorData wg = TensorData::from<float>({2, 2, 1}, {1, 2, 3, 4});
  fs::path pg = model("r_group", {1, 2, 1}, wg, nullptr, {{"group", int64_t{2}}});
  EXPECT_EQ(test::reference_run(pg, {{"x", TensorData::from<float>({1, 2, 1}, {1, 10})}})[0].second,
            TensorData::from<float>({1, 4, 1}, {1, 2, 30, 40}));
}

struct CCase {
  std::string name;
  Shape x, w;
  bool bias;
  std::vector<Attr> attrs;
};

// A random ConvTranspose geometry, one spatial axis at a time: the input's
// length (drawn by the caller), a kernel of 1 to `k_max`, a stride of 1 to
// `s_max`, a dilation of 1 to `d_max`, output_padding below the larger of
// the two, pads below the kernel's size.
struct RandomGeometry {
  Shape x, w;
  ints strides, dil, pads_b, pads_e, opad;
  void add_axis(std::mt19937& rng, int64_t len, int k_max, int s_max, int d_max) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    x.push_back(len);
    w.push_back(pick(1, k_max));
    strides.push_back(pick(1, s_max));
    dil.push_back(pick(1, d_max));
    opad.push_back(pick(0, static_cast<int>(std::max(strides.back(), dil.back())) - 1));
    pads_b.push_back(pick(0, static_cast<int>(w.back() - 1)));
    pads_e.push_back(pick(0, static_cast<int>(w.back() - 1)));
  }
  CCase as_case(const std::string& name, bool bias, int64_t group) const {
    ints pads = pads_b;
    pads.insert(pads.end(), pads_e.begin(), pads_e.end());
    return {name, x, w, bias,
            {{"group", group}, {"strides", strides}, {"dilations", dil}, {"pads", pads}, {"output_padding", opad}}};
  }
};

// Both kernels (the packed one for constant weights, the scattering one for
// weights at run time) sum in the reference's order: bit-identical.
void expect_c_matches(const CCase& c, bool w_input = false) {
  SCOPED_TRACE(c.name);
  const int64_t group = [&] {
    for (const auto& [k, v] : c.attrs)
      if (k == "group") return std::get<int64_t>(v);
    return int64_t{1};
  }();
  TensorData w = random_tensor(DType::Float32, c.w, 2);
  TensorData b = random_tensor(DType::Float32, {c.w[1] * group}, 3);
  fs::path p = model("c_" + c.name, c.x, w, c.bias ? &b : nullptr, c.attrs, w_input);
  io::NamedTensors in = {{"x", random_tensor(DType::Float32, c.x, 1)}};
  if (w_input) in.emplace_back("w", w);
  test::expect_matches_reference(p, in, 0.0, 0.0);
}

TEST(ConvTranspose, GeneratedCMatchesReference2d) {
  expect_c_matches({"2d", {2, 3, 5, 4}, {3, 2, 3, 3}, true,
                    {{"strides", ints{2, 3}}, {"pads", ints{1, 0, 2, 1}}, {"output_padding", ints{1, 2}}}});
  expect_c_matches({"2d_dil_group", {1, 4, 4, 5}, {4, 3, 2, 3}, false,
                    {{"group", int64_t{2}}, {"dilations", ints{2, 1}}, {"strides", ints{1, 2}}}});
  expect_c_matches({"2d_same_upper", {1, 2, 3, 4}, {2, 2, 3, 3}, true,
                    {{"auto_pad", std::string("SAME_UPPER")}, {"strides", ints{2, 2}}}});
  expect_c_matches({"2d_same_lower", {1, 2, 3, 4}, {2, 2, 4, 3}, false,
                    {{"auto_pad", std::string("SAME_LOWER")}, {"strides", ints{3, 2}}}});
  expect_c_matches({"2d_output_shape", {1, 1, 3, 3}, {1, 2, 3, 3}, true,
                    {{"output_shape", ints{10, 8}}, {"strides", ints{3, 2}}}});
  expect_c_matches({"2d_valid_depthwise", {1, 3, 4, 4}, {3, 1, 2, 2}, true,
                    {{"auto_pad", std::string("VALID")}, {"group", int64_t{3}}, {"strides", ints{2, 2}}}});
}

TEST(ConvTranspose, GeneratedCMatchesReference1dAnd3d) {
  expect_c_matches({"1d", {2, 4, 7}, {4, 3, 4}, true,
                    {{"group", int64_t{2}}, {"strides", ints{3}}, {"pads", ints{2, 1}}, {"dilations", ints{2}}}});
  expect_c_matches({"3d", {1, 2, 3, 4, 3}, {2, 2, 2, 3, 2}, true,
                    {{"strides", ints{2, 1, 2}}, {"pads", ints{1, 0, 0, 0, 1, 1}}, {"output_padding", ints{1, 0, 1}}}});
}

TEST(ConvTranspose, GeneratedCMatchesReferenceWeightsAtRunTime) {
  expect_c_matches({"w_input", {1, 2, 4, 4}, {2, 3, 3, 3}, false, {{"strides", ints{2, 2}}}}, /*w_input=*/true);
}

// Random geometries, a few seeds: every attribute drawn, one model per seed.
TEST(ConvTranspose, GeneratedCMatchesReferenceRandomized) {
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int rank = pick(1, 3);
    const int64_t group = pick(1, 2);
    RandomGeometry g;
    g.x = {pick(1, 2), group * pick(1, 3)};
    g.w = {g.x[1], pick(1, 3)};
    for (int i = 0; i < rank; ++i) g.add_axis(rng, pick(1, rank == 3 ? 3 : 6), 3, 3, 2);
    expect_c_matches(g.as_case("rand" + std::to_string(seed), seed % 2 == 0, group));
  }
}

// The packed kernel (conv_transpose_packed.c: constant finite weights) at
// sizes the cases above do not reach: output channels across several
// 16-channel blocks and not a multiple of 16, odd input channels, groups,
// rows longer than a tile of positions, every stride phase, pads,
// output_padding and dilations, 1-D and 2-D. It sums in the reference's
// order, so the bound is 0: bit for bit.
TEST(ConvTranspose, PackedKernelMatchesReferenceLargeRandomized) {
  for (uint32_t seed = 1; seed <= 8; ++seed) {
    std::mt19937 rng(100 + seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int rank = pick(1, 2);
    const int64_t group = pick(1, 3);
    RandomGeometry g;
    g.x = {pick(1, 2), group * pick(1, 7)};
    g.w = {g.x[1], std::vector<int64_t>{1, 5, 16, 19, 33}[static_cast<size_t>(pick(0, 4))]};
    for (int i = 0; i < rank; ++i) g.add_axis(rng, pick(1, rank == 1 ? 40 : 13), 5, 4, 3);
    expect_c_matches(g.as_case("large" + std::to_string(seed), seed % 2 == 1, group));
  }
}

// The small-channel kernel (conv_transpose_packed.c: 1 to 7 output
// channels per group) with its tiles of several rows of a height phase by
// several groups of 16 positions: every channel count it fits to the
// registers, rows per phase not a multiple of a tile's (repeated rows),
// rows longer than 16 and 32 positions, taps that read the border for some
// rows of a tile only, strides, pads, output_padding, dilations, groups,
// batches, 1-D, 2-D and 3-D. Bit for bit.
TEST(ConvTranspose, SmallChannelKernelMatchesReferenceRandomized) {
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    std::mt19937 rng(300 + seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int rank = seed % 4 == 0 ? 3 : seed % 4 == 1 ? 1 : 2;
    const int64_t group = pick(1, 2);
    RandomGeometry g;
    g.x = {pick(1, 2), group * pick(1, 6)};
    g.w = {g.x[1], pick(1, 7)};
    for (int i = 0; i < rank; ++i) {
      g.add_axis(rng, pick(1, rank == 3 ? 5 : rank == 1 ? 70 : 23), rank == 3 ? 3 : 5, 3, 2);
      // pads that would leave no output: none at the end
      const size_t a = g.strides.size() - 1;
      if ((g.x.back() - 1) * g.strides[a] + (g.w.back() - 1) * g.dil[a] + 1 + g.opad[a] - g.pads_b[a] - g.pads_e[a] < 1)
        g.pads_e[a] = 0;
    }
    expect_c_matches(g.as_case("small" + std::to_string(seed), seed % 2 == 0, group));
  }
  // A generator's last layers: 32 channels to 3 (k4 s2 p1, 17 x 19 ->
  // 34 x 38), to 1 (k5 s2 p2 output_padding 1), and to 4 by k3 s3 d2.
  expect_c_matches({"rgb", {1, 32, 17, 19}, {32, 3, 4, 4}, true, {{"strides", ints{2, 2}}, {"pads", ints{1, 1, 1, 1}}}});
  expect_c_matches({"gray", {1, 9, 11, 21}, {9, 1, 5, 5}, false,
                    {{"strides", ints{2, 2}}, {"pads", ints{2, 2, 2, 2}}, {"output_padding", ints{1, 1}}}});
  expect_c_matches({"s3d2", {2, 6, 7, 9}, {6, 4, 3, 3}, true,
                    {{"strides", ints{3, 3}}, {"dilations", ints{2, 2}}, {"pads", ints{1, 0, 1, 2}}}});
}

// The stride-phase kernel (conv_transpose_phases.c: 8 or more output
// channels per group) on what its tables and tiles split: 1-D, 2-D and 3-D,
// output channels in 1 to 7 blocks of 16 (groups of 4 blocks, the last
// partial, lanes past the channels), inputs of one cell (each output one
// tap: the matrix-vector tile) up to rows longer than a tile, kernels
// smaller than the stride (outputs with no tap: the bias alone), pads past
// the kernel's reach, output_padding, dilations, groups, batches. Bit for
// bit.
TEST(ConvTranspose, PhaseKernelMatchesReferenceRandomized) {
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    std::mt19937 rng(200 + seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int rank = seed % 3 == 0 ? 3 : pick(1, 2);
    const int64_t group = pick(1, 2);
    const int64_t ocg = std::vector<int64_t>{8, 16, 23, 67, 100}[static_cast<size_t>(pick(0, 4))];
    RandomGeometry g;
    g.x = {pick(1, 2), group * pick(1, 9)};
    g.w = {g.x[1], ocg};
    for (int i = 0; i < rank; ++i)
      g.add_axis(rng, seed % 4 == 1 ? 1 : pick(1, rank == 3 ? 4 : rank == 1 ? 30 : 11), rank == 3 ? 3 : 5, 4, 3);
    expect_c_matches(g.as_case("phases" + std::to_string(seed), seed % 2 == 0, group));
  }
  // A generator's first layer: a 1x1 latent of 37 channels to 4x4 (and 5x5
  // through output_padding), 90 channels.
  expect_c_matches({"latent", {2, 37, 1, 1}, {37, 90, 4, 4}, true, {{"strides", ints{2, 2}}, {"output_padding", ints{1, 1}}}});
  // Kernel 2, stride 2 (a U-Net's upsampling: one tap per output) and
  // kernel 3, stride 2, pads 1, output_padding 1 (odd sizes).
  expect_c_matches({"k2s2", {1, 13, 7, 5}, {13, 24, 2, 2}, true, {{"strides", ints{2, 2}}}});
  expect_c_matches({"k3s2", {1, 9, 6, 7}, {9, 33, 3, 3}, false,
                    {{"strides", ints{2, 2}}, {"pads", ints{1, 1, 1, 1}}, {"output_padding", ints{1, 1}}}});
}

// The stride-phase kernel on outputs larger than its band buffer (16 KiB:
// bands of output rows, a multiple of the height stride, the last one
// partial) and on inputs whose rectangles with every tap hold 3/4 of the
// positions (weights packed input channel by input channel) or fewer (tap
// by tap): long rows (the tiles' 3 positions, then 2 + 2 or 1, across the
// rows of a rectangle within a band), strides 1 to 3 with odd output sizes
// (output_padding), pads, dilations, groups, 1 to 7 blocks of 16 channels,
// 1-D (one row of up to 300), 2-D and 3-D. Bit for bit.
TEST(ConvTranspose, PhaseKernelBandsMatchReferenceRandomized) {
  for (uint32_t seed = 1; seed <= 10; ++seed) {
    std::mt19937 rng(400 + seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int rank = seed % 5 == 0 ? 3 : seed % 5 == 1 ? 1 : 2;
    const int64_t group = pick(1, 2);
    const int64_t ocg = std::vector<int64_t>{8, 21, 32, 40, 100}[static_cast<size_t>(pick(0, 4))];
    RandomGeometry g;
    g.x = {pick(1, 2), group * pick(1, 6)};
    g.w = {g.x[1], ocg};
    for (int i = 0; i < rank; ++i) {
      const int64_t len = rank == 1 ? pick(60, 150) : rank == 3 ? pick(3, 7) : i == 0 ? pick(5, 17) : pick(14, 35);
      g.add_axis(rng, len, 5, 3, 2);
    }
    expect_c_matches(g.as_case("bands" + std::to_string(seed), seed % 2 == 1, group));
  }
  // DCGAN's middle layer at an odd size (k4 s2 p1, output_padding 1: 39 x
  // 61 outputs, bands of 2 rows and a last of 1) and a U-Net upsampler (k2
  // s2: one tap per output, every rectangle whole).
  expect_c_matches({"dcgan", {1, 11, 19, 30}, {11, 40, 4, 4}, true,
                    {{"strides", ints{2, 2}}, {"pads", ints{1, 1, 1, 1}}, {"output_padding", ints{1, 1}}}});
  expect_c_matches({"unet", {1, 10, 12, 33}, {10, 24, 2, 2}, false, {{"strides", ints{2, 2}}}});
}

// The phase kernel's C at -O2 with every warning an error, for the x86-64
// baseline (SSE2: the band's copy to y has a tail of positions; GCC 12
// warned that the tail loop, with no bound it could see, would overflow),
// AVX2 and width 1.
TEST(ConvTranspose, PhaseKernelCompilesWithoutWarningsAtO2) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "x86-64 flags";
#endif
  TensorData w = random_tensor(DType::Float32, {9, 40, 4, 4}, 2);
  TensorData b = random_tensor(DType::Float32, {40}, 3);
  const fs::path p = model("warn", {1, 9, 5, 7}, w, &b, {{"strides", ints{2, 2}}, {"pads", ints{1, 1, 1, 1}}});
  driver::CompileResult r = driver::compile_model(p, {});
  TempDir dir("mlipc-ct-warn");
  driver::write_tarball(r, dir.path() / "model.tar");
  mlf::extract_tar(dir.path() / "model.tar", dir.path() / "x");
  for (const char* arch : {"-march=x86-64", "-march=x86-64-v3", "-DMLIP_KVEC_SCALAR"}) {
    ProcessResult cc = run_process({"cc", "-std=c99", "-O2", arch, "-Wall", "-Wextra", "-Werror", "-pedantic",
                                    "-ffp-contract=off", "-Icodegen/host/include", "-Iruntime/include", "-c",
                                    "codegen/host/src/default_lib1.c", "-o", "lib1.o"},
                                   dir.path() / "x", 600);
    EXPECT_EQ(cc.exit_code, 0) << arch << ": " << cc.err;
  }
}

// A non-finite weight: the packed kernel's zero border would add 0 * inf =
// NaN where the reference adds nothing, so such weights take the reference
// kernel, and the bits still match.
TEST(ConvTranspose, NonFiniteWeightsTakeTheReferenceKernel) {
  TensorData w = random_tensor(DType::Float32, {2, 3, 3, 3}, 7);
  w.data<float>()[4] = std::numeric_limits<float>::infinity();
  const fs::path p = model("inf_w", {1, 2, 4, 4}, w, nullptr, {{"strides", ints{2, 2}}, {"pads", ints{1, 1, 1, 1}}});
  test::expect_matches_reference(p, {{"x", random_tensor(DType::Float32, {1, 2, 4, 4}, 1)}}, 0.0, 0.0);
}

}  // namespace
}  // namespace mlipc::unit_ops_conv_transpose
