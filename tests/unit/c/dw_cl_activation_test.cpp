// conv_dw_cl.c's fused Sigmoid and SiLU on each finished output row (its
// vectors MLIP__CT_G at a time, the last group padded with zeros) against
// the reference evaluator at tolerance 0, and across the vector widths bit
// for bit: depthwise 3x3 and 5x5, strides 1 and 2, rows whose float count
// is and is not a whole number of groups, a bias and a residual at random,
// ReLU6 and HardSwish beside them (their vector epilogue in the blocks).
// And convolutions whose fused residual is their own input (the Add's
// other operand is the Conv's x), which must not take x's bytes.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include <fmt/format.h>

#include "driver/compile.h"
#include "host/host_model.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/reference.h"
#include "testlib/tensors.h"
#include "testlib/text_query.h"

namespace mlipc::unit_c_dw_cl_activation {
namespace {

namespace fs = std::filesystem;
using test::ints;
using test::OnnxBuilder;
using test::pick;
using test::random_tensor;

// Layers 1x1 -> depthwise (+ activation) -> 1x1, so the depthwise layer
// reads and writes channels-last tensors (conv_dw_cl.c). `acts` counts
// each activation's layers.
fs::path model(io::NamedTensors& in, size_t& silu_layers) {
  std::mt19937 rng(20261129);
  OnnxBuilder b;
  const int64_t channels[] = {16, 32, 48, 96, 144, 24, 40, 8};
  silu_layers = 0;
  for (int c = 0; c < 16; ++c) {
    const int64_t ch = channels[c % 8], k = c % 4 < 2 ? 3 : 5, s = pick(rng, 1, 2);
    const int64_t h = pick(rng, 5, 23), w = pick(rng, 5, 41);
    const std::string x = fmt::format("x{}", c), a = fmt::format("a{}", c), d = fmt::format("d{}", c);
    b.input(x, DType::Float32, {1, 3, h, w});
    // Inputs up to +-12: the sigmoid's clamps (|x| past 8.7 and 17) in reach after the layers' sums.
    in.emplace_back(x, random_tensor(DType::Float32, {1, 3, h, w}, 100 + static_cast<uint32_t>(c), -12.0, 12.0));
    b.initializer(a + "_w", random_tensor(DType::Float32, {ch, 3, 1, 1}, 200 + static_cast<uint32_t>(c)));
    b.node("Conv", {x, a + "_w"}, {a});
    b.initializer(d + "_w", random_tensor(DType::Float32, {ch, 1, k, k}, 300 + static_cast<uint32_t>(c)));
    std::vector<std::string> ins = {a, d + "_w"};
    if (c % 3 != 1) {
      b.initializer(d + "_b", random_tensor(DType::Float32, {ch}, 400 + static_cast<uint32_t>(c)));
      ins.push_back(d + "_b");
    }
    b.node("Conv", ins, {d}, {{"group", ch}, {"strides", ints{s, s}}, {"pads", ints{k / 2, k / 2, k / 2, k / 2}}});
    std::string last = d;
    if (s == 1 && c % 2 == 0) {  // a residual: the 1x1 layer's output, same shape
      b.node("Add", {d, a}, {d + "_r"});
      last = d + "_r";
    }
    const int act = c % 5;  // SiLU, Sigmoid, SiLU, ReLU6, HardSwish
    if (act == 0 || act == 2) {
      b.node("Sigmoid", {last}, {last + "_g"});
      b.node("Mul", {last, last + "_g"}, {last + "_s"});
      last += "_s";
      ++silu_layers;
    } else if (act == 1) {
      b.node("Sigmoid", {last}, {last + "_g"});
      last += "_g";
      ++silu_layers;
    } else if (act == 3) {
      b.initializer(last + "_lo", TensorData::scalar<float>(0.0f));
      b.initializer(last + "_hi", TensorData::scalar<float>(6.0f));
      b.node("Clip", {last, last + "_lo", last + "_hi"}, {last + "_c"});
      last += "_c";
    } else {
      b.node("HardSwish", {last}, {last + "_h"});
      last += "_h";
    }
    b.initializer(d + "_pw", random_tensor(DType::Float32, {2, ch, 1, 1}, 500 + static_cast<uint32_t>(c)));
    b.node("Conv", {last, d + "_pw"}, {d + "_out"});
    b.output(d + "_out");
  }
  return b.save(test::scratch_dir(), "dw_cl_activation.onnx");
}

TEST(DwClActivation, RowSigmoidMatchesTheReferenceAtEveryWidth) {
  io::NamedTensors in;
  size_t silu_layers = 0;
  const fs::path onnx = model(in, silu_layers);
  const driver::CompileResult r = driver::compile_model(onnx, {});
  const std::string& lib1 = r.files.at("codegen/host/src/default_lib1.c");
  EXPECT_EQ(test::count_occurrences(lib1, "Depthwise Conv between channels-last"), 16u);
  // The sigmoid on each finished row, not on a block's accumulators.
  EXPECT_EQ(test::count_occurrences(lib1, "_act_row(y + yr);"), silu_layers);
  EXPECT_EQ(test::count_occurrences(lib1, "MLIP__CT_G) mlip__ct_sigmoid_"), 0u);
  const fs::path tar = test::scratch_dir() / "dw_cl_activation.tar";
  driver::write_tarball(r, tar);
  const io::NamedTensors want = test::reference_run(onnx, in);
  std::vector<std::vector<std::string>> widths = {{}, {"-DMLIP_KVEC_SCALAR"}, {"-DMLIP_DWCL_RMAX=1"}};
#if defined(__x86_64__)
  widths.push_back({"-mno-avx512f"});                          // AVX2: 8 lanes, groups of 32 floats
  widths.push_back({"-mno-avx512f", "-mno-avx", "-mno-avx2"});  // SSE2: 4 lanes
#endif
  io::NamedTensors first;  // mlipc run's own build's
  for (const auto& extra : widths) {
    SCOPED_TRACE(fmt::format("extra flags: {}", fmt::join(extra, " ")));
    const io::NamedTensors got = test::run_width_variant(tar, in, extra);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].first, want[i].first);
      EXPECT_EQ(test::compare(got[i].second, want[i].second, 0.0, 0.0), "") << want[i].first;
      if (first.empty()) continue;
      // Across the widths: bit for bit (a zero's sign, a NaN's bits).
      EXPECT_EQ(std::memcmp(got[i].second.raw(), first[i].second.raw(), first[i].second.nbytes()), 0) << want[i].first;
    }
    if (first.empty()) first = got;
  }
}


// y = Conv(x) + x, the residual fused (passes/fuse_residual): the output may
// not take over x's buffer, which the windows read after y's first rows are
// written (on main at 1fcde7f they shared it: wrong sums from the second
// row on). Depthwise between channels-last tensors (conv_dw_cl.c) and
// row-major ones (conv_dw_rows.c), a dense 3x3 (conv_tiled.c).
TEST(DwClActivation, ConvWhoseResidualIsItsOwnInputMatchesTheReference) {
  OnnxBuilder b;
  io::NamedTensors in;
  const Shape s = {1, 3, 13, 19};
  b.input("x", DType::Float32, s);
  in.emplace_back("x", random_tensor(DType::Float32, s, 7, -4.0, 4.0));
  b.initializer("a_w", random_tensor(DType::Float32, {32, 3, 1, 1}, 8));
  b.node("Conv", {"x", "a_w"}, {"a"});
  b.initializer("cl_w", random_tensor(DType::Float32, {32, 1, 3, 3}, 9));
  b.initializer("cl_b", random_tensor(DType::Float32, {32}, 10));
  b.node("Conv", {"a", "cl_w", "cl_b"}, {"cl"}, {{"group", int64_t{32}}, {"pads", ints{1, 1, 1, 1}}});
  b.node("Add", {"cl", "a"}, {"cl_r"});
  b.node("HardSwish", {"cl_r"}, {"cl_h"});
  b.initializer("de_w", random_tensor(DType::Float32, {32, 32, 3, 3}, 11));
  b.node("Conv", {"cl_h", "de_w"}, {"de"}, {{"pads", ints{1, 1, 1, 1}}});
  b.node("Add", {"de", "cl_h"}, {"de_r"});
  b.initializer("o_w", random_tensor(DType::Float32, {2, 32, 1, 1}, 12));
  b.node("Conv", {"de_r", "o_w"}, {"cl_out"});
  b.output("cl_out");
  const Shape r = {1, 5, 11, 37};
  b.input("xr", DType::Float32, r);
  in.emplace_back("xr", random_tensor(DType::Float32, r, 13, -4.0, 4.0));
  b.node("Neg", {"xr"}, {"n"});
  b.initializer("rw_w", random_tensor(DType::Float32, {5, 1, 5, 5}, 14));
  b.node("Conv", {"n", "rw_w"}, {"rw"}, {{"group", int64_t{5}}, {"pads", ints{2, 2, 2, 2}}});
  b.node("Add", {"rw", "n"}, {"rows_out"});
  b.output("rows_out");
  const fs::path onnx = b.save(test::scratch_dir(), "conv_own_residual.onnx");
  const driver::CompileResult c = driver::compile_model(onnx, {});
  const std::string& lib1 = c.files.at("codegen/host/src/default_lib1.c");
  EXPECT_EQ(test::count_occurrences(lib1, "Depthwise Conv between channels-last"), 1u);
  EXPECT_EQ(test::count_occurrences(lib1, "Depthwise Conv on row-major planes"), 1u);
  test::expect_matches_reference(onnx, in, 0.0, 0.0);
}

}  // namespace
}  // namespace mlipc::unit_c_dw_cl_activation
