// LayerNormalization (ops/layer_norm.cpp, c/kernels/layer_norm.cpp).
#include <cmath>
#include <random>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_layer_norm {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;
using Attrs_ = std::vector<std::pair<std::string, AttrValue>>;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("layer_norm_{}.onnx", k++));
}

// x, scale (and bias unless scale_shape is all there is) as initializers;
// outputs as named ("" omits one).
fs::path model(const Shape& x, const Shape& scale, const std::optional<Shape>& bias, const Attrs_& attrs,
               const std::vector<std::string>& outputs = {"y"}) {
  OnnxBuilder m(17);
  m.input("x", DType::Float32, x);
  m.initializer("scale", random_tensor(DType::Float32, scale, 2, 0.5, 1.5));
  std::vector<std::string> in = {"x", "scale"};
  if (bias) {
    m.initializer("bias", random_tensor(DType::Float32, *bias, 3));
    in.push_back("bias");
  }
  m.node("LayerNormalization", in, outputs, attrs);
  for (const std::string& o : outputs)
    if (!o.empty()) m.output(o);
  return save(m);
}

using test::import_error;

TEST(LayerNorm, ShapeRule) {
  Graph g = frontend::import_onnx(model({2, 3, 4}, {4}, Shape{4}, {}, {"y", "mean", "inv"}));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 3, 4}));
  EXPECT_EQ(g.value(g.outputs[1].value).shape, (Shape{2, 3, 1}));
  EXPECT_EQ(g.value(g.outputs[2].value).shape, (Shape{2, 3, 1}));
  g = frontend::import_onnx(model({2, 3, 4}, {3, 4}, std::nullopt, {{"axis", int64_t{-2}}}, {"y", "", "inv"}));
  EXPECT_EQ(g.value(g.outputs[1].value).shape, (Shape{2, 1, 1}));
}

TEST(LayerNorm, ShapeRuleErrors) {
  EXPECT_THAT(import_error(model({2, 3, 4}, {3}, std::nullopt, {})),
              HasSubstr("Scale has shape [3], which does not broadcast to the normalized shape [4]"));
  EXPECT_THAT(import_error(model({2, 3, 4}, {4}, Shape{2, 4}, {{"axis", int64_t{1}}})),
              HasSubstr("B has shape [2,4], which does not broadcast to the normalized shape [3,4]"));
  EXPECT_THAT(import_error(model({2, 3, 4}, {1, 3, 4}, std::nullopt, {{"axis", int64_t{1}}})),
              HasSubstr("Scale has shape [1,3,4], which does not broadcast to the normalized shape [3,4]"));
  EXPECT_THAT(import_error(model({2, 3}, {3}, std::nullopt, {{"axis", int64_t{2}}})),
              HasSubstr("axis 2 is out of range for rank 2"));
  EXPECT_THAT(import_error(model({2, 3}, {3}, std::nullopt, {{"stash_type", int64_t{11}}})),
              HasSubstr("stash_type 11 is not supported (only 1: float32 statistics)"));
}

TEST(LayerNorm, ReferenceHandComputed) {
  OnnxBuilder m(17);
  m.input("x", DType::Float32, {2, 2});
  m.initializer("scale", TensorData::from<float>({2}, {1, 2}));
  m.initializer("bias", TensorData::from<float>({2}, {0, 1}));
  m.node("LayerNormalization", {"x", "scale", "bias"}, {"y", "mean", "inv"}, {{"epsilon", 0.0f}});
  m.output("y").output("mean").output("inv");
  io::NamedTensors out = test::reference_run(save(m), {{"x", TensorData::from<float>({2, 2}, {1, 3, -2, 2})}});
  // Row 0: mean 2, var 1, inv 1 -> [-1, 1] * [1, 2] + [0, 1]; row 1: mean 0, var 4, inv 0.5.
  const TensorData& y = out[0].second;
  EXPECT_EQ(std::vector<float>(y.data<float>(), y.data<float>() + 4), (std::vector<float>{-1, 3, -1, 3}));
  EXPECT_EQ(out[1].second.as_double(), (std::vector<double>{2, 0}));
  EXPECT_EQ(out[2].second.as_double(), (std::vector<double>{1, 0.5}));
}

// Each axis, scale/bias over the whole normalized shape or a trailing block
// of it, bias omitted, the optional outputs (Mean alone omitted too).
TEST(LayerNorm, GeneratedCMatchesReference) {
  OnnxBuilder m(17);
  const Shape x = {2, 3, 4, 5};
  m.input("x", DType::Float32, x);
  int k = 0;
  auto add = [&](int64_t axis, const Shape& scale, const std::optional<Shape>& bias, bool mean, bool inv,
                 float eps) {
    const std::string s = fmt::format("s{}", k), b = fmt::format("b{}", k), y = fmt::format("y{}", k),
                      mn = fmt::format("mean{}", k), iv = fmt::format("inv{}", k);
    ++k;
    m.initializer(s, random_tensor(DType::Float32, scale, 10 + k, 0.5, 1.5));
    std::vector<std::string> in = {"x", s};
    if (bias) {
      m.initializer(b, random_tensor(DType::Float32, *bias, 20 + k));
      in.push_back(b);
    }
    std::vector<std::string> out = {y};
    if (mean || inv) out.push_back(mean ? mn : "");
    if (inv) out.push_back(iv);
    m.node("LayerNormalization", in, out, {{"axis", axis}, {"epsilon", eps}});
    for (const std::string& o : out)
      if (!o.empty()) m.output(o);
  };
  add(-1, {5}, Shape{5}, true, true, 1e-5f);
  add(1, {3, 4, 5}, Shape{3, 4, 5}, false, false, 1e-3f);
  add(2, {5}, Shape{1, 5}, false, true, 1e-5f);  // a trailing block of the normalized shape
  add(0, {2, 3, 4, 5}, std::nullopt, true, false, 1e-5f);
  add(-3, {1, 4, 5}, Shape{1}, true, true, 0.5f);
  test::expect_matches_reference(save(m), {{"x", random_tensor(DType::Float32, x, 1, -3, 3)}}, 0, 0);
}

TEST(LayerNorm, GeneratedCRandomized) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int rank = pick(1, 4);
    Shape x;
    for (int i = 0; i < rank; ++i) x.push_back(pick(1, 7));
    const int axis = pick(-rank, rank - 1);
    const Shape norm(x.begin() + (axis < 0 ? axis + rank : axis), x.end());
    SCOPED_TRACE(fmt::format("seed {} shape {} axis {}", seed, shape_str(x), axis));
    test::expect_matches_reference(model(x, norm, norm, {{"axis", int64_t{axis}}}, {"y", "mean", "inv"}),
                                   {{"x", random_tensor(DType::Float32, x, seed, -2, 2)}}, 0, 0);
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_layer_norm
