// Convolutions with few input channels per group (a CNN's stem, grouped
// layers of ICG 1 to 4): conv_few_rows.c between row-major tensors,
// conv_tiled.c's tiles of 5 or 6 positions (16 vector registers) or more
// and its fused MaxPool's maxima in vector registers, against the
// reference bit for bit.
#include <gtest/gtest.h>

#include <random>

#include <fmt/format.h>

#include "driver/compile.h"
#include "host/host_model.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/tensors.h"
#include "testlib/text_query.h"

namespace mlipc::unit_ops_conv_few_channels {
namespace {

namespace fs = std::filesystem;
using test::ints;
using test::OnnxBuilder;
using test::pick;
using test::random_tensor;

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


// Between row-major tensors without a pool (conv_few_rows.c: vectors along
// the output rows, each input vector feeding MM output channels): 1-D to
// 3-D, rows of 16 to 90 outputs (partial vectors and a last block that
// starts early), kernels up to 7, strides 1 to 3, dilations, asymmetric
// pads, groups, odd and even output channels (MM 1 and 2), batch 2, a
// residual at random and an activation; the test counts the layers that
// took the kernel (up to 32 taps per output), so it fails without it.
TEST(ConvFewChannels, RowMajorLayersTakeTheRowKernelWithTheReferenceBits) {
  std::mt19937 rng(4848);
  OnnxBuilder b;
  io::NamedTensors in;
  size_t expected = 0;
  for (int c = 0; c < 14; ++c) {
    const size_t ns = c % 7 == 0 ? 1 : c % 7 == 1 ? 3 : 2;
    const int64_t group = c % 4 == 3 ? pick(rng, 2, 3) : 1, icg = pick(rng, 1, 4), ocg = pick(rng, 1, 21);
    Shape xs = {pick(rng, 1, 2), group * icg}, ws = {group * ocg, icg};
    ints pb, pe, strides, dils;
    for (size_t a = 0; a < ns; ++a) {
      const bool last = a + 1 == ns;
      const int64_t k = pick(rng, 1, last ? 7 : 3), st = pick(rng, 1, last ? 3 : 2), dl = pick(rng, 1, 2);
      const int64_t extent = (k - 1) * dl + 1;
      xs.push_back(last ? pick(rng, 16, 90) * st : pick(rng, extent, extent + 8));
      ws.push_back(k);
      pb.push_back(pick(rng, 0, k - 1));
      pe.push_back(pick(rng, 0, k - 1));
      strides.push_back(st);
      dils.push_back(dl);
    }
    ints pads = pb;
    pads.insert(pads.end(), pe.begin(), pe.end());
    Shape ys = {xs[0], group * ocg};
    for (size_t a = 0; a < ns; ++a)
      ys.push_back((xs[2 + a] + pb[a] + pe[a] - (ws[2 + a] - 1) * dils[a] - 1) / strides[a] + 1);
    int64_t taps = icg;
    for (size_t a = 2; a < ws.size(); ++a) taps *= ws[a];
    expected += ys.back() >= 16 && taps <= 32;  // conv_few_rows.c's layers
    const std::string x = fmt::format("x{}", c), cv = fmt::format("c{}", c);
    b.input(x, DType::Float32, xs);
    in.emplace_back(x, random_tensor(DType::Float32, xs, 900 + static_cast<uint32_t>(c)));
    b.initializer(cv + "_w", random_tensor(DType::Float32, ws, 1000 + static_cast<uint32_t>(c)));
    b.initializer(cv + "_b", random_tensor(DType::Float32, {group * ocg}, 1100 + static_cast<uint32_t>(c)));
    b.node("Conv", {x, cv + "_w", cv + "_b"}, {cv},
           {{"pads", pads}, {"strides", strides}, {"dilations", dils}, {"group", group}});
    std::string out = cv;
    if (c % 2) {  // a residual that dies here: y may take over its bytes
      const std::string r = cv + "_r";
      b.input(r, DType::Float32, ys);
      in.emplace_back(r, random_tensor(DType::Float32, ys, 1200 + static_cast<uint32_t>(c)));
      b.node("Neg", {r}, {r + "n"});
      b.node("Add", {cv, r + "n"}, {cv + "_add"});
      out = cv + "_add";
    }
    if (c % 3 != 2) {
      if (c % 3 == 0) b.node("Relu", {out}, {out + "_a"});
      else b.node("LeakyRelu", {out}, {out + "_a"}, {{"alpha", 0.1f}});
      out += "_a";
    }
    b.output(out);
  }
  const fs::path p = b.save(test::scratch_dir(), "conv_few_rows.onnx");
  test::expect_matches_reference(p, in, 0.0, 0.0);
  const driver::CompileResult r = driver::compile_model(p, {});
  const std::string& lib1 = r.files.at("codegen/host/src/default_lib1.c");
  EXPECT_EQ(test::count_occurrences(lib1, "Conv with few input channels per group"), expected);
  EXPECT_GE(expected, 10u);
  // The reference's bits at the other vector widths too.
  const fs::path tar = test::scratch_dir() / "conv_few_rows.tar";
  driver::write_tarball(r, tar);
  const io::NamedTensors want = test::reference_run(p, in);
  std::vector<std::vector<std::string>> widths = {{"-DMLIP_KVEC_SCALAR"}};
#if defined(__x86_64__)
  widths.push_back({"-mno-avx512f"});
  widths.push_back({"-mno-avx512f", "-mno-avx", "-mno-avx2"});
#endif
  for (const auto& extra : widths) {
    SCOPED_TRACE(fmt::format("extra flags: {}", fmt::join(extra, " ")));
    host::BuildOptions bo = test::test_build_options();
    bo.flags = test::width_variant_flags(extra);
    const io::NamedTensors got = host::HostModel::build(tar, bo).run(in).outputs;
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(test::compare(got[i].second, want[i].second, 0.0, 0.0), "") << want[i].first;
  }
  EXPECT_EQ(test::strict_c99_errors(p), "");
}

}  // namespace
}  // namespace mlipc::unit_ops_conv_few_channels
