// RoiAlign: shape rule and its errors, the reference on hand-computed cases
// (both coordinate modes, opset 10's behaviour, adaptive sampling, max over
// weighted neighbours), generated C against the reference on random rois for
// every mode, coordinate mode and sampling ratio on both targets, and bad
// run-time rois stopping the run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_roi_align {
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

fs::path model(const std::string& name, const Shape& x, int64_t rois, const std::vector<Attr>& attrs, int opset = 16,
               const Shape& roi_shape = {}, DType idx = DType::Int64, const TensorData* const_idx = nullptr) {
  OnnxBuilder b(opset);
  b.input("x", DType::Float32, x).input("rois", DType::Float32, roi_shape.empty() ? Shape{rois, 4} : roi_shape);
  if (const_idx) b.initializer("b", *const_idx);
  else b.input("b", idx, {rois});
  b.node("RoiAlign", {"x", "rois", "b"}, {"y"}, attrs).output("y");
  return b.save(test::scratch_dir(), "roi_" + name + ".onnx");
}

TensorData iota(const Shape& s) {
  std::vector<float> v(static_cast<size_t>(numel(s)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  return TensorData::from<float>(s, v);
}

float run1(const fs::path& m, const std::vector<float>& roi) {
  const io::NamedTensors out = test::reference_run(
      m, {{"x", iota({1, 1, 4, 4})}, {"rois", TensorData::from<float>({1, 4}, roi)}, {"b", TensorData::from<int64_t>({1}, {0})}});
  return floats_of(out[0].second)[0];
}

TEST(RoiAlign, ShapeRule) {
  Graph g = frontend::import_onnx(model("shape", {2, 3, 8, 9}, 5, {{"output_height", int64_t{3}}, {"output_width", int64_t{4}}}));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{5, 3, 3, 4}));
}

TEST(RoiAlign, Errors) {
  EXPECT_THAT(import_error(model("e_rois", {1, 1, 4, 4}, 3, {}, 16, {3, 5})),
              HasSubstr("input rois has shape [3,5]; it must be [num_rois, 4]"));
  EXPECT_THAT(import_error(model("e_x", {1, 4, 4}, 3, {})), HasSubstr("RoiAlign takes 4-D data [N, C, H, W]"));
  EXPECT_THAT(import_error(model("e_mode", {1, 1, 4, 4}, 1, {{"mode", std::string("sum")}})),
              HasSubstr("mode 'sum' is not supported (supported: avg, max)"));
  EXPECT_THAT(import_error(model("e_coord", {1, 1, 4, 4}, 1, {{"coordinate_transformation_mode", std::string("align_corners")}})),
              HasSubstr("coordinate_transformation_mode 'align_corners' is not supported"));
  EXPECT_THAT(import_error(model("e_oh", {1, 1, 4, 4}, 1, {{"output_height", int64_t{0}}})),
              HasSubstr("output_height 0 and output_width 1 must be at least 1"));
  EXPECT_THAT(import_error(model("e_sr", {1, 1, 4, 4}, 1, {{"sampling_ratio", int64_t{-1}}})),
              HasSubstr("sampling_ratio is -1; it must be 0 (adaptive) or 1 to 1024"));
  EXPECT_THAT(import_error(model("e_idx", {1, 1, 4, 4}, 1, {}, 16, {}, DType::Int32)),
              HasSubstr("has element type int32; supported: int64"));
  const TensorData bad = TensorData::from<int64_t>({2}, {0, 2});
  EXPECT_THAT(import_error(model("e_const", {2, 1, 4, 4}, 2, {}, 16, {}, DType::Int64, &bad)),
              HasSubstr("batch_indices[1] is 2; it must be in [0, 2)"));
}

TEST(RoiAlign, ReferenceByHand) {
  // X = 0..15 in 4 x 4 (value 4 y + x), one bin, one sample.
  const std::vector<Attr> one = {{"sampling_ratio", int64_t{1}}};
  // half_pixel: the roi (0, 0)-(3, 3) starts at -0.5; its sample is at (1, 1).
  EXPECT_EQ(run1(model("hp", {1, 1, 4, 4}, 1, one), {0, 0, 3, 3}), 5.0f);
  // output_half_pixel (and opset 10, which has no such attribute): at (1.5, 1.5).
  std::vector<Attr> ohp = one;
  ohp.emplace_back("coordinate_transformation_mode", std::string("output_half_pixel"));
  EXPECT_EQ(run1(model("ohp", {1, 1, 4, 4}, 1, ohp), {0, 0, 3, 3}), 7.5f);
  EXPECT_EQ(run1(model("opset10", {1, 1, 4, 4}, 1, one, 10), {0, 0, 3, 3}), 7.5f);
  // Adaptive: ceil(3 / 1) = 3 samples per axis at 0.5, 1.5, 2.5; the mean
  // of a linear function over them is its value at the centre.
  std::vector<Attr> adaptive = {{"coordinate_transformation_mode", std::string("output_half_pixel")}};
  EXPECT_NEAR(run1(model("adaptive", {1, 1, 4, 4}, 1, adaptive), {0, 0, 3, 3}), 7.5f, 1e-5);
  // max: the largest weighted neighbour, 0.25 * 10 (the ONNX reference's and
  // onnxruntime's definition), not the interpolated 7.5.
  ohp.emplace_back("mode", std::string("max"));
  EXPECT_EQ(run1(model("max", {1, 1, 4, 4}, 1, ohp), {0, 0, 3, 3}), 2.5f);
  // A sample outside [-1, H] reads 0; output_half_pixel makes the roi 1 x 1.
  EXPECT_EQ(run1(model("outside", {1, 1, 4, 4}, 1, adaptive), {9, 9, 9, 9}), 0.0f);
}

// Random rois over [-2, W + 2) x [-2, H + 2), some reversed or tiny.
TensorData rois(int64_t r, int64_t h, int64_t w, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> ux(-2.0f, static_cast<float>(w) + 2), uy(-2.0f, static_cast<float>(h) + 2);
  std::vector<float> v;
  for (int64_t i = 0; i < r; ++i) {
    float x1 = ux(rng), y1 = uy(rng), x2 = ux(rng), y2 = uy(rng);
    if (i % 4 != 3) {  // mostly well-formed
      if (x2 < x1) std::swap(x1, x2);
      if (y2 < y1) std::swap(y1, y2);
    }
    if (i % 5 == 4) x2 = x1 + 0.1f;
    v.insert(v.end(), {x1, y1, x2, y2});
  }
  return TensorData::from<float>({r, 4}, v);
}

TensorData batch(int64_t r, int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int64_t> v;
  for (int64_t i = 0; i < r; ++i) v.push_back(static_cast<int64_t>(rng() % static_cast<uint32_t>(n)));
  return TensorData::from<int64_t>({r}, v);
}

void all_attributes(const std::string& target) {
  const Shape xs = {2, 3, 7, 6};
  const int64_t R = 9;
  OnnxBuilder b(16);
  b.input("x", DType::Float32, xs).input("rois", DType::Float32, {R, 4}).input("b", DType::Int64, {R});
  int k = 0;
  for (const char* mode : {"avg", "max"})
    for (const char* coord : {"half_pixel", "output_half_pixel"})
      for (int64_t ratio : {0, 2})
        for (float scale : {1.0f, 0.5f}) {
          const std::string y = "y" + std::to_string(k++);
          b.node("RoiAlign", {"x", "rois", "b"}, {y},
                 {{"mode", std::string(mode)}, {"coordinate_transformation_mode", std::string(coord)},
                  {"sampling_ratio", ratio}, {"spatial_scale", scale}, {"output_height", int64_t{3}},
                  {"output_width", int64_t{2}}})
              .output(y);
        }
  driver::CompileOptions opt;
  opt.target = target;
  test::expect_matches_reference(
      b.save(test::scratch_dir(), std::string("roi_all_") + (target == "c" ? "c" : "mrvl") + ".onnx"),
      {{"x", test::random_tensor(DType::Float32, xs, 5, -3, 3)}, {"rois", rois(R, 7 * 2, 6 * 2, 9)}, {"b", batch(R, 2, 3)}},
      0, 0, opt);
}

TEST(RoiAlign, GeneratedCMatchesReferenceEveryAttribute) { all_attributes("c"); }
TEST(RoiAlign, GeneratedCMatchesReferenceOnMrvlTarget) { all_attributes("mrvl, c"); }

TEST(RoiAlign, Randomized) {
  OnnxBuilder b(16);
  io::NamedTensors in;
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    std::mt19937 rng(seed * 104729);
    const auto pick = [&](uint32_t n) { return 1 + static_cast<int64_t>(rng() % n); };
    const Shape xs = {pick(2), pick(3), pick(8), pick(8)};
    const int64_t R = pick(5);
    const std::string s = std::to_string(seed), x = "x" + s, r = "r" + s, bi = "b" + s, y = "y" + s;
    b.input(x, DType::Float32, xs).input(r, DType::Float32, {R, 4}).input(bi, DType::Int64, {R});
    b.node("RoiAlign", {x, r, bi}, {y},
           {{"mode", std::string(rng() % 2 ? "max" : "avg")},
            {"coordinate_transformation_mode", std::string(rng() % 2 ? "half_pixel" : "output_half_pixel")},
            {"sampling_ratio", static_cast<int64_t>(rng() % 4)}, {"spatial_scale", rng() % 2 ? 1.0f : 0.25f},
            {"output_height", pick(4)}, {"output_width", pick(4)}})
        .output(y);
    in.emplace_back(x, test::random_tensor(DType::Float32, xs, seed, -5, 5));
    in.emplace_back(r, rois(R, xs[2], xs[3], seed + 50));
    in.emplace_back(bi, batch(R, xs[0], seed + 90));
  }
  test::expect_matches_reference(b.save(test::scratch_dir(), "roi_random.onnx"), in, 0, 0);
}

TEST(RoiAlign, BadRunTimeRoisStopTheRun) {
  const auto m = model("bad_run", {1, 1, 4, 4}, 1, {});
  const TensorData x = iota({1, 1, 4, 4});
  // A batch index outside [0, N).
  EXPECT_THROW(test::compile_and_run(m, {{"x", x}, {"rois", TensorData::from<float>({1, 4}, {0, 0, 3, 3})},
                                         {"b", TensorData::from<int64_t>({1}, {1})}}),
               Error);
  // An adaptive grid of ceil(1e9) samples per bin: refused, not looped over.
  EXPECT_THROW(test::compile_and_run(m, {{"x", x}, {"rois", TensorData::from<float>({1, 4}, {0, 0, 1e9f, 3})},
                                         {"b", TensorData::from<int64_t>({1}, {0})}}),
               Error);
  EXPECT_THROW(test::reference_run(m, {{"x", x}, {"rois", TensorData::from<float>({1, 4}, {0, 0, 1e9f, 3})},
                                       {"b", TensorData::from<int64_t>({1}, {0})}}),
               Error);
}

}  // namespace
}  // namespace mlipc::unit_ops_roi_align
