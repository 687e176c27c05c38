// Windows wider than the MLIP's kernel limit (issue 30): a pool whose one
// window is its whole input lowers to the GLOBAL pool layers whatever its
// kernel (layers/pool.cpp global_window), and a strided convolution wider
// than the target's runs as the kernel it is over the space-to-depth form of
// its input (layers/conv2d.cpp, docs/mlip-spec.md "Wide kernels").
#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "driver/compile.h"
#include "frontend/onnx_import.h"
#include "mlip/layers/rules.h"
#include "mlip/support.h"
#include "mlip/target.h"
#include "ops/spatial.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/tensors.h"

namespace mlipc::unit_mlip_wide_window {
namespace {

using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace fs = std::filesystem;
namespace layers = mlip::layers;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("wide_window_{}.onnx", k++));
}

mlip::Options options() {
  mlip::Options o;
  o.mcpu = "cn10ka";
  o.num_tiles = 8;
  return o;
}

// The reason for the node named `name`, "" when it runs on the MLIP.
std::string reason(const OnnxBuilder& b, const std::string& name) {
  Graph g = frontend::import_onnx(save(b));
  mlip::Selection s = mlip::select_nodes(g, options());
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].name == name) return s.reason[i];
  return "no node " + name;
}

using test::mrvl_options;

// The layer kinds of the compiled model's only region, in order.
std::vector<std::string> region_kinds(const fs::path& onnx) {
  driver::CompileResult r = driver::compile_model(onnx, mrvl_options());
  if (r.mlip.regions.size() != 1 || !r.mlip.cpu_nodes.empty()) return {"not one region"};
  return test::layer_kinds(r);
}

ops::Geometry pool_geo(const Shape& x, const std::vector<std::pair<std::string, AttrValue>>& attrs) {
  Attrs a;
  for (const auto& [k, v] : attrs) a.set(k, v);
  return ops::resolve_geometry(a, ops::spatial_of(x), {}, {true, true});
}

TEST(GlobalWindow, OnlyAWindowHoldingEveryPositionIsGlobal) {
  // torch's avg_pool1d(x, x.shape[-1]) and AvgPool2d(7) on a 7x7 map
  EXPECT_TRUE(layers::global_window(pool_geo({1, 4, 119}, {{"kernel_shape", ints{119}}, {"strides", ints{119}}}),
                                    true, false));
  EXPECT_TRUE(layers::global_window(pool_geo({1, 4, 7, 7}, {{"kernel_shape", ints{7, 7}}}), true, true));
  // one output, but positions 6 and 7 outside the window
  EXPECT_FALSE(layers::global_window(pool_geo({1, 4, 8}, {{"kernel_shape", ints{6}}, {"strides", ints{6}}}), false,
                                     false));
  // ceil mode: a second window
  EXPECT_FALSE(layers::global_window(
      pool_geo({1, 4, 7}, {{"kernel_shape", ints{5}}, {"strides", ints{5}}, {"ceil_mode", int64_t{1}}}), false, false));
  // padded: the window holds all 7 positions; a maximum or an average of the
  // input's positions is global, an average counting the pad is not
  const ops::Geometry padded = pool_geo({1, 4, 7}, {{"kernel_shape", ints{8}}, {"strides", ints{8}}, {"pads", ints{1, 0}}});
  EXPECT_TRUE(layers::global_window(padded, false, true));
  EXPECT_TRUE(layers::global_window(padded, true, false));
  EXPECT_FALSE(layers::global_window(padded, true, true));
  // a dilated window skips positions
  EXPECT_FALSE(layers::global_window(pool_geo({1, 4, 7}, {{"kernel_shape", ints{3}}, {"dilations", ints{3}}}), false,
                                     false));
  // 2-D: one axis whole, the other not
  EXPECT_FALSE(layers::global_window(pool_geo({1, 4, 7, 7}, {{"kernel_shape", ints{7, 3}}}), false, false));
}

TEST(GlobalWindow, WholeInputPoolsRunAsGlobalLayersWhateverTheKernel) {
  {
    OnnxBuilder b;  // 1-D, kernel 111 (above the 16 of cn10ka): max and average
    b.input("x", DType::Float32, {1, 8, 111});
    b.node("MaxPool", {"x"}, {"m"}, {{"kernel_shape", ints{111}}}, "max");
    b.node("AveragePool", {"x"}, {"a"}, {{"kernel_shape", ints{111}}}, "avg");
    b.node("Add", {"m", "a"}, {"y"}, {}, "add").output("y");
    EXPECT_EQ(reason(b, "max"), "");
    EXPECT_EQ(reason(b, "avg"), "");
    // the row-major 3-D input read in place (no border layer) and relaid out to NHWC; one value per channel out
    EXPECT_THAT(region_kinds(save(b)), ElementsAre("permute", "global_maxpool", "global_avgpool", "add"));
  }
  {
    OnnxBuilder b;  // AvgPool2d(7) on a 7x7 map: within the kernel limit, and global all the same
    b.input("x", DType::Float32, {1, 8, 7, 7});
    b.node("AveragePool", {"x"}, {"y"}, {{"kernel_shape", ints{7, 7}}}, "avg").output("y");
    EXPECT_THAT(region_kinds(save(b)), ElementsAre("convert_in", "global_avgpool"));
  }
  {
    OnnxBuilder b;  // an average counting its pad is no global one, and its kernel is too wide
    b.input("x", DType::Float32, {1, 8, 30});
    b.node("AveragePool", {"x"}, {"y"},
           {{"kernel_shape", ints{31}}, {"pads", ints{1, 0}}, {"count_include_pad", int64_t{1}}}, "avg")
        .output("y");
    EXPECT_EQ(reason(b, "avg"), "kernel 31 exceeds the cn10ka maximum of 16");
  }
  {
    OnnxBuilder b;  // the Indices output stays on the CPU
    b.input("x", DType::Float32, {1, 8, 20});
    b.node("MaxPool", {"x"}, {"y", "i"}, {{"kernel_shape", ints{20}}}, "max").output("y").output("i");
    EXPECT_EQ(reason(b, "max"), "the Indices output");
  }
}

TEST(GlobalWindow, PaddedWholeInputPoolsMatchTheReference) {
  OnnxBuilder b;  // a padded max and an average of the real positions, 2-D: global layers
  b.input("x", DType::Float32, {2, 3, 5, 9});
  b.node("MaxPool", {"x"}, {"m"}, {{"kernel_shape", ints{6, 9}}, {"pads", ints{1, 0, 0, 0}}}, "max");
  b.node("AveragePool", {"x"}, {"a"},
         {{"kernel_shape", ints{5, 10}}, {"pads", ints{0, 0, 0, 1}}, {"ceil_mode", int64_t{1}}}, "avg");
  b.node("Add", {"m", "a"}, {"y"}, {}, "add").output("y");
  const fs::path onnx = save(b);
  EXPECT_THAT(region_kinds(onnx), ElementsAre("convert_in", "global_maxpool", "global_avgpool", "add"));
  test::expect_matches_reference(onnx, {{"x", random_tensor(DType::Float32, {2, 3, 5, 9}, 5)}}, 2e-3, 2e-3,
                                 mrvl_options());
}

TEST(WideKernel, FoldedWeightsHandComputed) {
  // [M=1, C=2, 1, K=4], f = 2: [m][r * C + c][0][j] = [m][c][0][j * 2 + r]
  const std::vector<float> w = {0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_THAT(layers::fold_weights(w, {1, 2, 1, 4}, 2), ElementsAre(0, 2, 4, 6, 1, 3, 5, 7));
  // f = 4 of one channel: the taps become channels
  EXPECT_THAT(layers::fold_weights(std::vector<int64_t>{10, 11, 12, 13, 14, 15, 16, 17}, {1, 1, 1, 8}, 4),
              ElementsAre(10, 14, 11, 15, 12, 16, 13, 17));
}

TEST(WideKernel, TheFoldFactorBringsKernelAndStrideWithinTheTarget) {
  const mlip::TargetInfo& t = mlip::target_info("cn10ka");  // kernel 16, stride 8
  auto geo = [](int64_t w, int64_t k, int64_t s, int64_t pl, int64_t pr) {
    Attrs a;
    a.set("kernel_shape", AttrValue(ints{1, k}));
    a.set("strides", AttrValue(ints{1, s}));
    a.set("pads", AttrValue(ints{0, pl, 0, pr}));
    return ops::resolve_geometry(a, {1, w}, {1, k}, {true, false});
  };
  EXPECT_EQ(layers::conv_fold_factor(geo(8192, 80, 16, 0, 0), 8192, 1, 1, t), 16);  // M5: kernel 5, stride 1
  EXPECT_EQ(layers::conv_fold_factor(geo(8192, 80, 16, 8, 8), 8192, 1, 1, t), 8);   // pads of 8: kernel 10, stride 2
  EXPECT_EQ(layers::conv_fold_factor(geo(8192, 16, 4, 0, 0), 8192, 1, 1, t), 1);    // fits: as it is
  EXPECT_EQ(layers::conv_fold_factor(geo(8192, 80, 4, 0, 0), 8192, 1, 1, t), 4);    // kernel 20: chunks after
  EXPECT_EQ(layers::conv_fold_factor(geo(8200, 80, 16, 0, 0), 8200, 1, 1, t), 8);   // the width takes 8, not 16
  EXPECT_EQ(layers::conv_fold_factor(geo(8192, 80, 16, 0, 0), 8192, 4, 2, t), 1);   // grouped
  EXPECT_EQ(layers::conv_fold_factor(geo(64, 3, 12, 0, 0), 64, 1, 1, t), 1);        // 12 does not divide 3
  EXPECT_EQ(layers::conv_fold_factor(geo(72, 12, 12, 0, 0), 72, 1, 1, t), 12);      // stride 12: kernel 1
  EXPECT_EQ(layers::conv_fold_factor(geo(64, 12, 12, 0, 0), 64, 1, 1, t), 4);       // the width takes 4
}

// x [1, C, W] -> Conv(w [M, C, K], strides) named "conv".
OnnxBuilder& conv1d(OnnxBuilder& b, int64_t c, int64_t w, int64_t m, const TensorData& wt,
                    const std::vector<std::pair<std::string, AttrValue>>& attrs) {
  b.input("x", DType::Float32, {1, c, w});
  b.initializer("w", wt);
  b.initializer("b", random_tensor(DType::Float32, {m}, 9));
  b.node("Conv", {"x", "w", "b"}, {"y"}, attrs, "conv").output("y");
  return b;
}

TEST(WideKernel, SupportReasons) {
  {
    OnnxBuilder b;
    conv1d(b, 1, 8192, 4, random_tensor(DType::Float32, {4, 1, 80}, 1), {{"strides", ints{16}}});
    EXPECT_EQ(reason(b, "conv"), "");
  }
  {
    OnnxBuilder b;  // kernel 20 after the fold: two chunks
    conv1d(b, 1, 8192, 4, random_tensor(DType::Float32, {4, 1, 80}, 1), {{"strides", ints{4}}});
    EXPECT_EQ(reason(b, "conv"), "");
  }
  {
    OnnxBuilder b;  // a stride above the target's and no fold
    conv1d(b, 1, 100, 4, random_tensor(DType::Float32, {4, 1, 20}, 1), {{"strides", ints{9}}});
    EXPECT_EQ(reason(b, "conv"),
              "kernel 20 exceeds the cn10ka maximum of 16, and its chunks cannot run: stride 9 exceeds the cn10ka "
              "maximum of 8");
  }
  {
    OnnxBuilder b;  // taps 16-19 of the one output lie in the right pad only
    conv1d(b, 1, 4, 2, random_tensor(DType::Float32, {2, 1, 20}, 1), {{"pads", ints{0, 16}}});
    EXPECT_EQ(reason(b, "conv"),
              "kernel 20 exceeds the cn10ka maximum of 16, and its chunks cannot run: a chunk of the kernel reads "
              "only padding");
  }
  {
    OnnxBuilder b;  // too tall: no chunks along H
    b.input("x", DType::Float32, {1, 1, 40, 40});
    b.initializer("w", random_tensor(DType::Float32, {2, 1, 17, 20}, 1));
    b.node("Conv", {"x", "w"}, {"y"}, {}, "conv").output("y");
    EXPECT_EQ(reason(b, "conv"), "kernel 17 exceeds the cn10ka maximum of 16");
  }
}

// A kernel still wider than the target's after the fold: chunks of at most
// 16 taps, each a CONV2D from the column its first tap reads, partial sums
// added. Kernel 20 with pads 2: taps 0-15 read from column 0 with a left
// pad of 2, taps 16-19 from column 14. Integer sums binary16 holds exactly:
// y[o] = sum of x[t] = t + 1 over t in [o - 2, o + 17] within [0, 24).
TEST(WideKernel, ChunkedKernelHandComputed) {
  std::vector<float> xs(24);
  for (size_t t = 0; t < xs.size(); ++t) xs[t] = static_cast<float>(t + 1);
  std::vector<float> ws(40, 1.0f);
  std::fill(ws.begin() + 20, ws.end(), 0.5f);  // channel 1 halves
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 1, 24});
  b.initializer("w", TensorData::from<float>({2, 1, 20}, ws));
  b.node("Conv", {"x", "w"}, {"y"}, {{"pads", ints{2, 2}}}, "conv").output("y");
  const fs::path onnx = save(b);
  EXPECT_THAT(region_kinds(onnx), ElementsAre("permute", "conv2d", "conv2d", "add", "convert_out"));
  const io::NamedTensors got =
      test::compile_and_run(onnx, {{"x", TensorData::from<float>({1, 1, 24}, xs)}}, mrvl_options());
  ASSERT_EQ(got.size(), 1u);
  const TensorData& y = got[0].second;
  ASSERT_EQ(y.shape(), (Shape{1, 2, 9}));
  EXPECT_THAT(std::vector<float>(y.data<float>(), y.data<float>() + 18),
              ElementsAre(171, 190, 210, 230, 250, 270, 290, 285, 279,  //
                          85.5, 95, 105, 115, 125, 135, 145, 142.5, 139.5));
}

// An M5 first layer at stride 4 (kernel 80: 20 after the fold by 4, two
// chunks), two images, bias and Relu: within the fp16 bound of the
// reference, the same bits for every tile count and weight placement.
TEST(WideKernel, ChunkedFoldedConvolutionMatchesTheReferenceOnEveryTiling) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {2, 1, 1024});
  b.initializer("w", random_tensor(DType::Float32, {8, 1, 80}, 21));
  b.initializer("b", random_tensor(DType::Float32, {8}, 22));
  b.node("Conv", {"x", "w", "b"}, {"c"}, {{"strides", ints{4}}, {"pads", ints{36, 40}}}, "conv");
  b.node("Relu", {"c"}, {"y"}, {}, "relu").output("y");
  const fs::path onnx = save(b);
  EXPECT_THAT(region_kinds(onnx), ElementsAre("permute", "conv2d", "conv2d", "add", "convert_out"));
  const io::NamedTensors in = {{"x", random_tensor(DType::Float32, {2, 1, 1024}, 23)}};
  test::expect_matches_reference(onnx, in, 2e-2, 2e-2, mrvl_options());
  const io::NamedTensors ref = test::compile_and_run(onnx, in, mrvl_options(1, false));
  for (auto [tiles, pin] : {std::pair{2, false}, {4, true}, {8, false}, {8, true}}) {
    const io::NamedTensors got = test::compile_and_run(onnx, in, mrvl_options(tiles, pin));
    EXPECT_TRUE(got[0].second == ref[0].second) << "num_tiles=" << tiles << " wb_pin_ocm=" << pin;
  }
}

// The folded convolution is the original's arithmetic: the same products in
// the same order. A model that does the space-to-depth itself (its input
// [1, 8, 8] the [1, 1, 64] signal's columns of 8 as channels, its weights
// fold_weights') gives the same bits on the MLIP.
TEST(WideKernel, FoldedConvolutionHasTheBitsOfTheExplicitSpaceToDepth) {
  const TensorData w = random_tensor(DType::Float32, {4, 2, 32}, 3);
  const TensorData x = random_tensor(DType::Float32, {1, 2, 64}, 4);
  OnnxBuilder wide;
  conv1d(wide, 2, 64, 4, w, {{"strides", ints{8}}, {"pads", ints{8, 16}}});
  const std::vector<float> wv(w.data<float>(), w.data<float>() + w.numel());
  const TensorData wf = TensorData::from<float>({4, 16, 4}, layers::fold_weights(wv, {4, 2, 1, 32}, 8));
  std::vector<float> xf(128);  // channel r * 2 + c, column p: x[c][p * 8 + r]
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t p = 0; p < 8; ++p)
      for (int64_t r = 0; r < 8; ++r) xf[static_cast<size_t>((r * 2 + c) * 8 + p)] = x.data<float>()[c * 64 + p * 8 + r];
  OnnxBuilder folded;
  conv1d(folded, 16, 8, 4, wf, {{"pads", ints{1, 2}}});
  const fs::path wide_onnx = save(wide), folded_onnx = save(folded);
  EXPECT_THAT(region_kinds(wide_onnx), ElementsAre("permute", "conv2d", "convert_out"));
  for (auto [tiles, pin] : {std::pair{1, false}, {2, true}, {8, false}, {8, true}}) {
    const io::NamedTensors a = test::compile_and_run(wide_onnx, {{"x", x}}, mrvl_options(tiles, pin));
    const io::NamedTensors b = test::compile_and_run(folded_onnx, {{"x", TensorData::from<float>({1, 16, 8}, xf)}},
                                                     mrvl_options(tiles, pin));
    ASSERT_EQ(a.size(), 1u);
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(a[0].second.shape(), b[0].second.shape());
    EXPECT_TRUE(a[0].second == b[0].second) << "num_tiles=" << tiles << " wb_pin_ocm=" << pin;
  }
  test::expect_matches_reference(wide_onnx, {{"x", x}}, 2e-2, 2e-2, mrvl_options());
}

// A 2-D convolution of two images whose kernel is wide along W (3 x 32 at
// stride 1 x 8, padded): its rows fold as a 1-D signal's, each [W][C] row of
// the NHWC image the [W / 8][8 C] one.
TEST(WideKernel, TwoDimensionalBatchedFoldMatchesTheReference) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {2, 3, 5, 64});
  b.initializer("w", random_tensor(DType::Float32, {4, 3, 3, 32}, 11));
  b.initializer("b", random_tensor(DType::Float32, {4}, 12));
  b.node("Conv", {"x", "w", "b"}, {"c"}, {{"strides", ints{1, 8}}, {"pads", ints{1, 8, 1, 0}}}, "conv");
  b.node("Relu", {"c"}, {"y"}, {}, "relu").output("y");
  EXPECT_EQ(reason(b, "conv"), "");
  const fs::path onnx = save(b);
  EXPECT_THAT(region_kinds(onnx), ElementsAre("convert_in", "conv2d", "convert_out"));
  test::expect_matches_reference(onnx, {{"x", random_tensor(DType::Float32, {2, 3, 5, 64}, 13)}}, 2e-2, 2e-2,
                                 mrvl_options());
}

// int8 (a QDQ model: the MLIP quantizes it by default): the folded
// QLinearConv (kernel 80, stride 16) and the whole-signal QLinearAveragePool
// give the CPU's int8 bits.
TEST(WideKernel, Int8FormsGiveTheCpusBits) {
  OnnxBuilder b(13);
  b.input("x", DType::Float32, {1, 2, 1024});
  b.initializer("s", TensorData::from<float>({}, {0.05f}));
  b.initializer("z", TensorData::from<int8_t>({}, {0}));
  b.initializer("ys", TensorData::from<float>({}, {0.2f}));
  b.initializer("yz", TensorData::from<int8_t>({}, {-5}));
  b.initializer("ps", TensorData::from<float>({}, {0.03f}));
  std::vector<int8_t> w(8 * 2 * 80);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>(static_cast<int>((i * 37 + 11) % 255) - 127);
  b.initializer("wq", TensorData::from<int8_t>({8, 2, 80}, w));
  b.initializer("ws", TensorData::from<float>({}, {0.004f}));
  b.node("QuantizeLinear", {"x", "s", "z"}, {"xq"}, {}, "qx");
  b.node("DequantizeLinear", {"xq", "s", "z"}, {"xd"}, {}, "dqx");
  b.node("DequantizeLinear", {"wq", "ws", "z"}, {"wd"}, {}, "dqw");
  b.node("Conv", {"xd", "wd"}, {"c"}, {{"strides", ints{16}}}, "conv");  // [1, 8, 60]
  b.node("QuantizeLinear", {"c", "ys", "yz"}, {"cq"}, {}, "qc");
  b.node("DequantizeLinear", {"cq", "ys", "yz"}, {"cd"}, {}, "dqc");
  b.node("AveragePool", {"cd"}, {"p"}, {{"kernel_shape", ints{60}}}, "avg");
  b.node("QuantizeLinear", {"p", "ps", "yz"}, {"pq"}, {}, "qp");
  b.node("DequantizeLinear", {"pq", "ps", "yz"}, {"y"}, {}, "dqy");
  b.output("y");
  const fs::path onnx = save(b);
  const io::NamedTensors in = {{"x", random_tensor(DType::Float32, {1, 2, 1024}, 7, -4.0, 4.0)}};
  driver::CompileOptions c;
  c.target = "c";
  const io::NamedTensors want = test::compile_and_run(onnx, in, c);
  for (auto [tiles, pin] : {std::pair{1, false}, {8, true}}) {
    driver::CompileResult r;
    const io::NamedTensors got = test::compile_and_run(onnx, in, mrvl_options(tiles, pin), &r);
    ASSERT_EQ(r.mlip.regions.size(), 1u);
    const std::vector<std::string> kinds = test::layer_kinds(r);
    EXPECT_THAT(kinds, ::testing::Contains("conv2d"));
    EXPECT_THAT(kinds, ::testing::Contains("global_avgpool"));
    ASSERT_EQ(got.size(), 1u);
    EXPECT_TRUE(got[0].second == want[0].second) << "num_tiles=" << tiles << " wb_pin_ocm=" << pin;
  }
}

}  // namespace
}  // namespace mlipc::unit_mlip_wide_window
