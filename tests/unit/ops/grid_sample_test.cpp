// GridSample: shape rule and its errors, the reference on hand-computed
// cases (nearest's half-to-even rounding, each padding rule), and the
// generated C against the reference on random grids for every mode, padding
// and align_corners, with grids reaching outside [-1, 1] and non-finite
// values, on both targets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "frontend/onnx_import.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_grid_sample {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test::import_error;
using test::OnnxBuilder;
using Attr = std::pair<std::string, AttrValue>;

std::vector<float> floats_of(const TensorData& t) {
  const float* p = t.data<float>();
  return std::vector<float>(p, p + t.numel());
}

fs::path model(const std::string& name, const Shape& x, const Shape& grid, const std::vector<Attr>& attrs,
               DType t = DType::Float32) {
  OnnxBuilder b(16);
  b.input("x", t, x).input("g", DType::Float32, grid);
  b.node("GridSample", {"x", "g"}, {"y"}, attrs).output("y");
  return b.save(test::scratch_dir(), "gs_" + name + ".onnx");
}

std::vector<Attr> attrs(const std::string& mode, const std::string& pad, int64_t align) {
  return {{"mode", mode}, {"padding_mode", pad}, {"align_corners", align}};
}

std::vector<float> run1(const fs::path& m, const TensorData& x, const TensorData& g) {
  return floats_of(test::reference_run(m, {{"x", x}, {"g", g}})[0].second);
}

TEST(GridSample, ShapeRule) {
  Graph g = frontend::import_onnx(model("shape", {2, 3, 5, 4}, {2, 6, 7, 2}, {}));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 3, 6, 7}));
}

TEST(GridSample, Errors) {
  EXPECT_THAT(import_error(model("e_rank", {2, 3, 5}, {2, 6, 2}, {})),
              HasSubstr("input X has shape [2,3,5]; GridSample supports 4-D data [N, C, H, W]"));
  EXPECT_THAT(import_error(model("e_grid", {2, 3, 5, 4}, {2, 6, 7, 3}, {})),
              HasSubstr("input grid has shape [2,6,7,3]; it must be [N, H_out, W_out, 2] with X's N = 2"));
  EXPECT_THAT(import_error(model("e_batch", {2, 3, 5, 4}, {1, 6, 7, 2}, {})), HasSubstr("with X's N = 2"));
  EXPECT_THAT(import_error(model("e_mode", {1, 1, 2, 2}, {1, 1, 1, 2}, attrs("linear", "zeros", 0))),
              HasSubstr("mode 'linear' is not supported (supported: bilinear, nearest, bicubic)"));
  EXPECT_THAT(import_error(model("e_pad", {1, 1, 2, 2}, {1, 1, 1, 2}, attrs("nearest", "mirror", 0))),
              HasSubstr("padding_mode 'mirror' is not supported (supported: zeros, border, reflection)"));
  EXPECT_THAT(import_error(model("e_align", {1, 1, 2, 2}, {1, 1, 1, 2}, attrs("nearest", "zeros", 2))),
              HasSubstr("align_corners is 2; it must be 0 or 1"));
  EXPECT_THAT(import_error(model("e_type", {1, 1, 2, 2}, {1, 1, 1, 2}, {}, DType::Int32)),
              HasSubstr("has element type int32; supported: float32"));
  EXPECT_THAT(import_error(model("e_empty", {1, 1, 0, 2}, {1, 1, 1, 2}, {})), HasSubstr("H and W must be at least 1"));
}

TEST(GridSample, ReferenceBilinearOnnxExample) {
  // The ONNX operator test's data (bilinear, zeros, align_corners 0).
  const TensorData x = TensorData::from<float>({1, 1, 3, 2}, {0, 1, 2, 3, 4, 5});
  const TensorData g = TensorData::from<float>(
      {1, 2, 4, 2}, {-1, -1, -0.5f, -0.5f, -0.2f, -0.2f, 0, 0, 0, 0, -0.2f, -0.2f, 0.5f, 0.5f, 1, 1});
  const std::vector<float> want = {0, 0.5f, 1.7f, 2.5f, 2.5f, 1.7f, 4.5f, 1.25f};
  const std::vector<float> got = run1(model("onnx_example", {1, 1, 3, 2}, {1, 2, 4, 2}, {}), x, g);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
}

TEST(GridSample, ReferenceNearestRoundsHalfToEven) {
  // W = 4, align_corners 0: x = ((g + 1) * 4 - 1) / 2 is 0.5, 1.5, 2.5 for
  // g = -0.5, 0, 0.5: rounded to 0, 2, 2 (half away from zero would give 1, 2, 3).
  const TensorData x = TensorData::from<float>({1, 1, 1, 4}, {10, 20, 30, 40});
  const TensorData g = TensorData::from<float>({1, 1, 3, 2}, {-0.5f, 0, 0, 0, 0.5f, 0});
  EXPECT_EQ(run1(model("nearest_even", {1, 1, 1, 4}, {1, 1, 3, 2}, attrs("nearest", "zeros", 0)), x, g),
            (std::vector<float>{10, 30, 30}));
}

TEST(GridSample, ReferencePaddingRules) {
  // W = 3, align_corners 0 (bounds [-0.5, 2.5]); g = -2 maps to x = -2,
  // g = 1.2 to x = 2.8, g = 3 to x = 5.5.
  const TensorData x = TensorData::from<float>({1, 1, 1, 3}, {1, 2, 4});
  const TensorData g = TensorData::from<float>({1, 1, 3, 2}, {-2, 0, 1.2f, 0, 3, 0});
  const auto run = [&](const std::string& pad) {
    return run1(model("pad_" + pad, {1, 1, 1, 3}, {1, 1, 3, 2}, attrs("bilinear", pad, 0)), x, g);
  };
  // zeros: all taps outside at -2 and 5.5; at 2.8, 0.2 * x[2] + 0.8 * 0.
  const std::vector<float> zeros = run("zeros");
  EXPECT_EQ(zeros[0], 0.0f);
  EXPECT_NEAR(zeros[1], 0.2f * 4, 1e-5);
  EXPECT_EQ(zeros[2], 0.0f);
  // border: clamped to 0, 2 and 2.
  EXPECT_EQ(run("border"), (std::vector<float>{1, 4, 4}));
  // reflection at -0.5 and 2.5: -2 -> 1, 2.8 -> 2.2 (taps 2 and 3 -> 2),
  // 5.5 -> -0.5 (one whole range: taps -1 -> 0 and 0).
  const std::vector<float> refl = run("reflection");
  EXPECT_NEAR(refl[0], 2.0f, 1e-6);
  EXPECT_NEAR(refl[1], 4.0f, 1e-5);
  EXPECT_NEAR(refl[2], 1.0f, 1e-6);
}

TEST(GridSample, ReferenceAlignCornersAndBicubic) {
  // align_corners 1 maps -1 and 1 to the edge pixels' centres.
  const TensorData x = TensorData::from<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  const TensorData g = TensorData::from<float>({1, 1, 3, 2}, {-1, -1, 1, 1, 0, 0});
  EXPECT_EQ(run1(model("align", {1, 1, 2, 2}, {1, 1, 3, 2}, attrs("bilinear", "zeros", 1)), x, g),
            (std::vector<float>{1, 4, 2.5f}));
  // Bicubic at a pixel centre is that pixel when its neighbours are in the
  // image (Keys' weights 0, 1, 0, 0); border padding for the taps beyond.
  const TensorData g2 = TensorData::from<float>({1, 1, 2, 2}, {-1, -1, 1, -1});
  EXPECT_EQ(run1(model("cubic", {1, 1, 2, 2}, {1, 1, 2, 2}, attrs("bicubic", "border", 1)), x, g2),
            (std::vector<float>{1, 2}));
}

// Grid values in [-1.4, 1.4), with exact half-pixel points and, when
// `special`, NaN, infinities and huge values.
TensorData grid(const Shape& s, uint32_t seed, bool special) {
  TensorData t = test::random_tensor(DType::Float32, s, seed, -1.4, 1.4);
  float* v = t.raw_as<float>();
  const int64_t n = numel(s);
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> odd = {std::nanf(""), inf, -inf, 1e30f, -1e30f, 77.0f, -1.0f, 1.0f, 0.0f};
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < n; i += 5) v[i] = special ? odd[rng() % odd.size()] : static_cast<float>(rng() % 9) / 4 - 1;
  return t;
}

struct Case {
  Shape x;
  int64_t ho, wo;
};

// Every mode x padding x align_corners on the same data, one model per target.
void all_attributes(const std::string& target, bool special) {
  const std::vector<Case> cases = {{{2, 3, 5, 4}, 3, 7}, {{1, 2, 1, 6}, 2, 3}, {{1, 1, 3, 1}, 4, 2}};
  OnnxBuilder b(16);
  io::NamedTensors in;
  int k = 0;
  for (size_t c = 0; c < cases.size(); ++c) {
    const Case& cs = cases[c];
    const std::string x = "x" + std::to_string(c), g = "g" + std::to_string(c);
    const Shape gs = {cs.x[0], cs.ho, cs.wo, 2};
    b.input(x, DType::Float32, cs.x).input(g, DType::Float32, gs);
    in.emplace_back(x, test::random_tensor(DType::Float32, cs.x, 3 + static_cast<uint32_t>(c), -2, 2));
    in.emplace_back(g, grid(gs, 11 + static_cast<uint32_t>(c), special));
    for (const char* mode : {"bilinear", "nearest", "bicubic"})
      for (const char* pad : {"zeros", "border", "reflection"})
        for (int64_t align : {0, 1}) {
          const std::string y = "y" + std::to_string(k++);
          b.node("GridSample", {x, g}, {y}, attrs(mode, pad, align)).output(y);
        }
  }
  driver::CompileOptions opt;
  opt.target = target;
  test::expect_matches_reference(
      b.save(test::scratch_dir(), "gs_all_" + std::string(special ? "special_" : "") + (target == "c" ? "c" : "mrvl") +
                                      ".onnx"),
      in, 0, 0, opt);
}

TEST(GridSample, GeneratedCMatchesReferenceEveryAttribute) { all_attributes("c", false); }
TEST(GridSample, GeneratedCMatchesReferenceOnNonFiniteGrids) { all_attributes("c", true); }
TEST(GridSample, GeneratedCMatchesReferenceOnMrvlTarget) { all_attributes("mrvl, c", false); }

TEST(GridSample, Randomized) {
  // Random shapes and attributes, a few seeds, one model.
  OnnxBuilder b(16);
  io::NamedTensors in;
  const char* modes[] = {"bilinear", "nearest", "bicubic"};
  const char* pads[] = {"zeros", "border", "reflection"};
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    std::mt19937 rng(seed * 7919);
    const auto pick = [&](uint32_t n) { return 1 + static_cast<int64_t>(rng() % n); };
    const Shape xs = {pick(2), pick(3), pick(6), pick(6)};
    const Shape gs = {xs[0], pick(5), pick(5), 2};
    const std::string s = std::to_string(seed), x = "x" + s, g = "g" + s, y = "y" + s;
    b.input(x, DType::Float32, xs).input(g, DType::Float32, gs);
    b.node("GridSample", {x, g}, {y}, attrs(modes[rng() % 3], pads[rng() % 3], static_cast<int64_t>(rng() % 2))).output(y);
    in.emplace_back(x, test::random_tensor(DType::Float32, xs, seed, -5, 5));
    in.emplace_back(g, grid(gs, 100 + seed, seed % 3 == 0));
  }
  test::expect_matches_reference(b.save(test::scratch_dir(), "gs_random.onnx"), in, 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_grid_sample
