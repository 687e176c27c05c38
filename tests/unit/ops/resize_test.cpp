// Resize (opset 10, 11-13 and 18 forms) and Upsample.
#include <cmath>
#include <cstring>
#include <optional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "driver/compile.h"
#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/reference.h"
#include "testlib/tensors.h"
#include "testlib/text_query.h"

namespace mlipc::unit_ops_resize {
namespace {

using test::floats;
using test::ints;
using test::OnnxBuilder;
using ::testing::HasSubstr;

using Attrs = std::vector<std::pair<std::string, AttrValue>>;

TensorData f32(const floats& v) { return TensorData::from<float>({static_cast<int64_t>(v.size())}, v); }
TensorData i64(const ints& v) { return TensorData::from<int64_t>({static_cast<int64_t>(v.size())}, v); }

// One Resize node of a run-time input x; scales or sizes (and roi) as constants.
struct Node1 {
  Node1(Attrs a, std::optional<floats> s = std::nullopt, std::optional<ints> z = std::nullopt,
        std::optional<floats> r = std::nullopt)
      : attrs(std::move(a)), scales(std::move(s)), sizes(std::move(z)), roi(std::move(r)) {}
  Attrs attrs;
  std::optional<floats> scales;
  std::optional<ints> sizes;
  std::optional<floats> roi;
};

std::filesystem::path model(DType dt, const Shape& in, const std::vector<Node1>& nodes, const std::string& file) {
  OnnxBuilder b;
  b.input("x", dt, in);
  for (size_t k = 0; k < nodes.size(); ++k) {
    const std::string p = std::to_string(k);
    const Node1& n = nodes[k];
    std::vector<std::string> ins = {"x", "", "", ""};
    if (n.roi) b.initializer("roi" + p, f32(*n.roi)), ins[1] = "roi" + p;
    if (n.scales) b.initializer("sc" + p, f32(*n.scales)), ins[2] = "sc" + p;
    if (n.sizes) b.initializer("sz" + p, i64(*n.sizes)), ins[3] = "sz" + p;
    if (!n.sizes) ins.pop_back();
    b.node("Resize", ins, {"y" + p}, n.attrs).output("y" + p);
  }
  return b.save(test::scratch_dir(), file);
}

Attrs attrs(const std::string& mode, const std::string& coord, Attrs more = {}) {
  more.emplace_back("mode", mode);
  more.emplace_back("coordinate_transformation_mode", coord);
  return more;
}

using test::import_error;

const TensorData k1234 = TensorData::from<float>({1, 1, 2, 2}, {1, 2, 3, 4});

TEST(Resize, ReferenceOnTheOnnxExamples) {
  // test_resize_upsample_scales_nearest / test_upsample_nearest.
  auto y = test::reference_run(model(DType::Float32, {1, 1, 2, 2}, {{attrs("nearest", "half_pixel"), floats{1, 1, 2, 3}}},
                                     "rs_ex1.onnx"), {{"x", k1234}})[0].second;
  EXPECT_EQ(y, TensorData::from<float>({1, 1, 4, 6}, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}));
  // test_resize_upsample_scales_linear (half_pixel).
  y = test::reference_run(model(DType::Float32, {1, 1, 2, 2}, {{attrs("linear", "half_pixel"), floats{1, 1, 2, 2}}},
                                "rs_ex2.onnx"), {{"x", k1234}})[0].second;
  EXPECT_EQ(y, TensorData::from<float>({1, 1, 4, 4}, {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f,
                                                     3.5f, 3, 3.25f, 3.75f, 4}));
  // test_resize_downsample_scales_linear_align_corners: "length_resized" is
  // in * scale = 2.4, not the output length 2.
  const TensorData x8 = TensorData::from<float>({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  y = test::reference_run(model(DType::Float32, {1, 1, 2, 4}, {{attrs("linear", "align_corners"), floats{1, 1, 0.6f, 0.6f}}},
                                "rs_ex3.onnx"), {{"x", x8}})[0].second;
  ASSERT_EQ(y.shape(), (Shape{1, 1, 1, 2}));
  EXPECT_EQ(y.data<float>()[0], 1.0f);
  EXPECT_NEAR(y.data<float>()[1], 3.142857f, 1e-6);
  // test_resize_downsample_scales_nearest: [[1, 3]].
  y = test::reference_run(model(DType::Float32, {1, 1, 2, 4}, {{attrs("nearest", "half_pixel"), floats{1, 1, 0.6f, 0.6f}}},
                                "rs_ex4.onnx"), {{"x", x8}})[0].second;
  EXPECT_EQ(y, TensorData::from<float>({1, 1, 1, 2}, {1, 3}));
}

TEST(Resize, TfCropAndResizeExtrapolates) {
  // roi beyond the input on the last axis: those columns get the value.
  Node1 n{attrs("linear", "tf_crop_and_resize", {{"extrapolation_value", 10.0f}}), std::nullopt, ints{1, 1, 3, 3},
          floats{0, 0, 0.4f, 0.6f, 1, 1, 1.2f, 1.7f}};
  const auto m = model(DType::Float32, {1, 1, 4, 4}, {n}, "rs_crop.onnx");
  const TensorData x = test::random_tensor(DType::Float32, {1, 1, 4, 4}, 1);
  const TensorData y = test::reference_run(m, {{"x", x}})[0].second;
  for (int r = 0; r < 3; ++r) EXPECT_EQ(y.data<float>()[r * 3 + 2], 10.0f);
  test::expect_matches_reference(m, {{"x", x}}, 0, 0);
}

TEST(Resize, Errors) {
  EXPECT_THAT(import_error(model(DType::Float32, {1, 2}, {{attrs("cubic", "half_pixel"), floats{1, 2}, ints{1, 4}}}, "rs_e1.onnx")),
              HasSubstr("scales and sizes are both given"));
  EXPECT_THAT(import_error(model(DType::Float32, {1, 2}, {{attrs("nearest", "half_pixel")}}, "rs_e2.onnx")),
              HasSubstr("needs scales or sizes"));
  EXPECT_THAT(import_error(model(DType::Float32, {1, 2}, {{attrs("area", "half_pixel"), floats{1, 2}}}, "rs_e3.onnx")),
              HasSubstr("mode 'area' is not supported (supported: nearest, linear, cubic)"));
  EXPECT_THAT(import_error(model(DType::Float32, {1, 2}, {{attrs("nearest", "xyz"), floats{1, 2}}}, "rs_e4.onnx")),
              HasSubstr("coordinate_transformation_mode 'xyz' is not supported"));
  EXPECT_THAT(import_error(model(DType::Float32, {1, 2}, {{attrs("nearest", "half_pixel"), floats{2}}}, "rs_e5.onnx")),
              HasSubstr("scales has 1 entries but 2 axes are resized"));
  EXPECT_THAT(import_error(model(DType::UInt8, {1, 2}, {{attrs("linear", "half_pixel"), floats{1, 2}}}, "rs_e6.onnx")),
              HasSubstr("linear and cubic interpolation support float32 input, got uint8"));
  EXPECT_THAT(import_error(model(DType::Float32, {1, 2}, {{attrs("linear", "half_pixel", {{"antialias", int64_t{1}}}),
                                                           floats{1, 0.5f}}}, "rs_e7.onnx")),
              HasSubstr("antialias = 1 is not supported"));
  EXPECT_THAT(import_error(model(DType::Float32, {1, 2}, {{attrs("linear", "tf_crop_and_resize"), floats{1, 2}}}, "rs_e8.onnx")),
              HasSubstr("tf_crop_and_resize needs roi"));
  EXPECT_THAT(import_error(model(DType::Float32, {1, 2}, {{attrs("nearest", "half_pixel"), floats{1, -2}}}, "rs_e9.onnx")),
              HasSubstr("scales -2 must be positive"));
  OnnxBuilder b;  // scales computed at run time
  b.input("x", DType::Float32, {1, 2}).input("s", DType::Float32, {2});
  b.node("Resize", {"x", "", "s"}, {"y"}).output("y");
  EXPECT_THAT(import_error(b.save(test::scratch_dir(), "rs_e10.onnx")),
              HasSubstr("input #2 ('s', scales) must be a constant known at compile time: the output shape depends"));
}

const std::vector<std::string> kCoords = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                                          "asymmetric", "tf_half_pixel_for_nn"};

TEST(Resize, NearestEveryModeMatchesReference) {
  // Every coordinate mode x nearest mode, up and down, scales and sizes: one model.
  std::vector<Node1> nodes;
  for (const std::string& coord : kCoords)
    for (const char* round : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
      const Attrs a = attrs("nearest", coord, {{"nearest_mode", std::string(round)}});
      nodes.push_back({a, floats{1, 1, 1.7f, 0.6f}, std::nullopt, std::nullopt});
      nodes.push_back({a, std::nullopt, ints{1, 1, 3, 9}, std::nullopt});
    }
  for (DType dt : {DType::Float32, DType::UInt8, DType::Int64})
    test::expect_matches_reference(model(dt, {1, 1, 5, 4}, nodes, "rs_near_" + std::string(dtype_name(dt)) + ".onnx"),
                                   {{"x", test::random_tensor(dt, {1, 1, 5, 4}, 2, 0, 200)}}, 0, 0);
}

TEST(Resize, LinearAndCubicEveryCoordinateModeMatchesReference) {
  std::vector<Node1> nodes;
  for (const std::string& coord : kCoords) {
    nodes.push_back({attrs("linear", coord), floats{1, 1, 2.5f, 0.5f}, std::nullopt, std::nullopt});
    nodes.push_back({attrs("linear", coord), std::nullopt, ints{1, 1, 1, 7}, std::nullopt});
    for (int64_t ex : {0, 1})
      for (float a : {-0.75f, -0.5f}) {
        const Attrs at = attrs("cubic", coord, {{"exclude_outside", ex}, {"cubic_coeff_a", a}});
        nodes.push_back({at, floats{1, 1, 1.6f, 0.7f}, std::nullopt, std::nullopt});
        nodes.push_back({at, std::nullopt, ints{1, 1, 2, 9}, std::nullopt});
      }
  }
  test::expect_matches_reference(model(DType::Float32, {1, 1, 5, 4}, nodes, "rs_interp.onnx"),
                                 {{"x", test::random_tensor(DType::Float32, {1, 1, 5, 4}, 3, -10, 10)}}, 0, 0);
}

// Linear and cubic resizes of the last two axes of floats run
// resize_rows.c (each input row's W sums once, into a ring of rows):
// several planes, odd sizes up and down, align_corners, half_pixel and
// asymmetric, cubic with exclude_outside; byte for byte against the
// reference (x with zeros of both signs and a NaN). Not taken: three
// resized axes, nearest, tf_crop_and_resize's extrapolation.
TEST(Resize, LastTwoAxesByRowsKeepTheReferenceBytes) {
  const std::vector<Node1> nodes = {
      {attrs("linear", "half_pixel"), floats{1, 1, 2.9f, 1.6f}, std::nullopt, std::nullopt},
      {attrs("linear", "align_corners"), std::nullopt, ints{2, 3, 4, 13}, std::nullopt},
      {attrs("linear", "asymmetric"), floats{1, 1, 0.6f, 0.5f}, std::nullopt, std::nullopt},
      {attrs("cubic", "half_pixel", {{"exclude_outside", int64_t{1}}}), floats{1, 1, 1.7f, 2.2f}, std::nullopt,
       std::nullopt},
      {attrs("cubic", "asymmetric"), std::nullopt, ints{2, 3, 5, 3}, std::nullopt},
      {attrs("linear", "half_pixel"), floats{1, 2, 1.5f, 2}, std::nullopt, std::nullopt},  // three axes
      {attrs("nearest", "half_pixel"), floats{1, 1, 2, 2}, std::nullopt, std::nullopt},
      {attrs("linear", "tf_crop_and_resize", {{"extrapolation_value", 0.5f}}), std::nullopt, ints{2, 3, 9, 5},
       floats{0, 0, -0.2f, 0.1f, 1, 1, 1.3f, 0.8f}},
  };
  const Shape in = {2, 3, 7, 9};
  const auto m = model(DType::Float32, in, nodes, "rs_rows.onnx");
  TensorData x = test::random_tensor(DType::Float32, in, 5, -10, 10);
  float* xd = x.data<float>();
  for (int64_t i = 0; i < numel(in); i += 7) xd[i] = (i / 7) % 2 ? 0.0f : -0.0f;
  xd[100] = std::nanf("");
  const io::NamedTensors inputs = {{"x", x}};
  const io::NamedTensors want = test::reference_run(m, inputs);
  driver::CompileResult r;
  const io::NamedTensors got = test::compile_and_run(m, inputs, {}, &r);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(test::compare(got[k].second, want[k].second, 0.0, 0.0), "") << want[k].first;
    ASSERT_EQ(got[k].second.nbytes(), want[k].second.nbytes()) << want[k].first;
    EXPECT_EQ(std::memcmp(got[k].second.raw(), want[k].second.raw(), want[k].second.nbytes()), 0) << want[k].first;
  }
  const std::string& lib1 = r.files.at("codegen/host/src/default_lib1.c");
  EXPECT_EQ(test::count_occurrences(lib1, "resize of the last two axes"), 5u);
}

TEST(Resize, TrilinearNdAxesAndAspectPolicies) {
  std::vector<Node1> nodes = {
      {attrs("linear", "half_pixel"), floats{1, 2, 1.5f, 0.5f}, std::nullopt, std::nullopt},  // three axes
      {attrs("nearest", "asymmetric"), floats{2, 1, 1, 2}, std::nullopt, std::nullopt},       // batch axis too
      {attrs("cubic", "align_corners"), floats{1, 1, 1, 1}, std::nullopt, std::nullopt},      // identity: a copy
      {attrs("linear", "half_pixel", {{"axes", ints{-1, 2}}}), floats{1.5f, 2}, std::nullopt, std::nullopt},
      {attrs("linear", "half_pixel", {{"axes", ints{2, 3}}, {"keep_aspect_ratio_policy", std::string("not_larger")}}),
       std::nullopt, ints{7, 7}, std::nullopt},
      {attrs("nearest", "half_pixel", {{"axes", ints{2, 3}}, {"keep_aspect_ratio_policy", std::string("not_smaller")}}),
       std::nullopt, ints{7, 7}, std::nullopt},
  };
  const auto m = model(DType::Float32, {2, 3, 4, 6}, nodes, "rs_nd.onnx");
  Graph g = frontend::import_onnx(m);
  EXPECT_EQ(g.value(g.outputs[4].value).shape, (Shape{2, 3, 5, 7}));  // scale min(7/4, 7/6)
  EXPECT_EQ(g.value(g.outputs[5].value).shape, (Shape{2, 3, 7, 11}));  // scale max(7/4, 7/6)
  test::expect_matches_reference(m, {{"x", test::random_tensor(DType::Float32, {2, 3, 4, 6}, 4)}}, 0, 0);
}

TEST(Resize, Opset10AndUpsampleForms) {
  // Resize-10 and Upsample-9: (X, scales), asymmetric, nearest rounding down;
  // Upsample-7 takes scales as an attribute.
  for (int opset : {7, 9, 10}) {
    SCOPED_TRACE(opset);
    OnnxBuilder b(opset);
    b.input("x", DType::Float32, {1, 2, 3, 3});
    const floats sc = {1, 1, 2, 1.5f};
    const std::string op = opset == 10 ? "Resize" : "Upsample";
    for (const char* mode : {"nearest", "linear"}) {
      const std::string y = std::string("y_") + mode;
      if (opset == 7) {
        b.node(op, {"x"}, {y}, {{"mode", std::string(mode)}, {"scales", sc}});
      } else {
        b.initializer(std::string("s_") + mode, f32(sc));
        b.node(op, {"x", std::string("s_") + mode}, {y}, {{"mode", std::string(mode)}});
      }
      b.output(y);
    }
    const auto m = b.save(test::scratch_dir(), "rs_old" + std::to_string(opset) + ".onnx");
    const TensorData x = test::random_tensor(DType::Float32, {1, 2, 3, 3}, 5);
    test::expect_matches_reference(m, {{"x", x}}, 0, 0);
    // Nearest with floor: output row i reads input row i / 2.
    const TensorData y = test::reference_run(m, {{"x", x}})[0].second;
    EXPECT_EQ(y.shape(), (Shape{1, 2, 6, 4}));
    EXPECT_EQ(y.data<float>()[1 * 4 + 3], x.data<float>()[0 * 3 + 2]);  // row 1 -> 0, column 3 -> floor(3 / 1.5) = 2
  }
}

TEST(Resize, Upsample1HeightAndWidthScales) {
  OnnxBuilder b(1);
  b.input("x", DType::Float32, {1, 1, 2, 3});
  b.node("Upsample", {"x"}, {"y"}, {{"mode", std::string("bilinear")}, {"height_scale", 2.0f}, {"width_scale", 3.0f}});
  b.output("y");
  const auto m = b.save(test::scratch_dir(), "rs_up1.onnx");
  Graph g = frontend::import_onnx(m);
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{1, 1, 4, 9}));
  test::expect_matches_reference(m, {{"x", test::random_tensor(DType::Float32, {1, 1, 2, 3}, 8)}}, 0, 0);
}

TEST(Resize, RuntimeSizesWithADeclaredOutputShape) {
  for (const char* mode : {"nearest", "linear"}) {
    SCOPED_TRACE(mode);
    OnnxBuilder b(13);
    b.input("x", DType::Float32, {1, 2, 3, 4}).input("sz", DType::Int64, {2});
    b.node("Resize", {"x", "", "", "sz"}, {"y"}, {{"mode", std::string(mode)}, {"axes", ints{3, 2}}});
    b.declare("y", DType::Float32, {1, 2, 7, 5}).output("y");
    const auto m = b.save(test::scratch_dir(), std::string("rs_rt_") + mode + ".onnx");
    const TensorData x = test::random_tensor(DType::Float32, {1, 2, 3, 4}, 9);
    test::expect_matches_reference(m, {{"x", x}, {"sz", TensorData::from<int64_t>({2}, {5, 7})}}, 0, 0);
    EXPECT_THROW(test::compile_and_run(m, {{"x", x}, {"sz", TensorData::from<int64_t>({2}, {5, 8})}}), Error);
  }
}

TEST(Resize, BilinearUpsamplingOnTheMlipTarget) {
  // The U-Net decoder pattern: a convolution on the MLIP, bilinear 2x on the CPU.
  OnnxBuilder b(13);
  b.input("x", DType::Float32, {1, 3, 5, 5});
  b.initializer("w", test::random_tensor(DType::Float32, {4, 3, 3, 3}, 6));
  b.node("Conv", {"x", "w"}, {"c"}, {{"pads", ints{1, 1, 1, 1}}});
  b.initializer("s", f32({1, 1, 2, 2}));
  b.node("Resize", {"c", "", "s"}, {"y"}, {{"mode", std::string("linear")}}).output("y");
  driver::CompileOptions opt;
  opt.target = "mrvl, c";
  test::expect_matches_reference(b.save(test::scratch_dir(), "rs_mrvl.onnx"),
                                 {{"x", test::random_tensor(DType::Float32, {1, 3, 5, 5}, 7)}}, 2e-2, 2e-2, opt);
}

}  // namespace
}  // namespace mlipc::unit_ops_resize
