// InstanceNormalization, LRN, MeanVarianceNormalization
// (ops/{instance_norm,lrn,mvn}.cpp and their kernels).
#include <cmath>
#include <random>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_normalization {
namespace {

using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;
using Attrs_ = std::vector<std::pair<std::string, AttrValue>>;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("normalization_{}.onnx", k++));
}

using test::import_error;

std::vector<float> values(const TensorData& t) { return std::vector<float>(t.data<float>(), t.data<float>() + t.numel()); }

fs::path instance_norm(const Shape& x, const Shape& scale, const Shape& bias, float eps = 1e-5f, int opset = 17) {
  OnnxBuilder m(opset);
  m.input("x", DType::Float32, x);
  m.initializer("s", random_tensor(DType::Float32, scale, 2, 0.5, 1.5));
  m.initializer("b", random_tensor(DType::Float32, bias, 3));
  m.node("InstanceNormalization", {"x", "s", "b"}, {"y"}, {{"epsilon", eps}}).output("y");
  return save(m);
}

fs::path single(const std::string& op, const Shape& x, const Attrs_& attrs, int opset = 17) {
  OnnxBuilder m(opset);
  m.input("x", DType::Float32, x);
  m.node(op, {"x"}, {"y"}, attrs).output("y");
  return save(m);
}

TEST(InstanceNorm, ShapeRuleErrors) {
  EXPECT_THAT(import_error(instance_norm({2, 3}, {3}, {3})), HasSubstr("the input must have rank >= 3"));
  EXPECT_THAT(import_error(instance_norm({2, 3, 4}, {4}, {3})), HasSubstr("input #1 ('s') has shape [4]; it must be [C] = [3]"));
  EXPECT_THAT(import_error(instance_norm({2, 3, 4}, {3}, {1, 3})), HasSubstr("input #2 ('b') has shape [1,3]"));
}

TEST(InstanceNorm, ReferenceHandComputed) {
  OnnxBuilder m(17);
  m.input("x", DType::Float32, {1, 2, 2});
  m.initializer("s", TensorData::from<float>({2}, {1, 3}));
  m.initializer("b", TensorData::from<float>({2}, {0, -1}));
  m.node("InstanceNormalization", {"x", "s", "b"}, {"y"}, {{"epsilon", 0.0f}}).output("y");
  const TensorData y =
      test::reference_run(save(m), {{"x", TensorData::from<float>({1, 2, 2}, {1, 3, 4, 4})}}).at(0).second;
  // Channel 0: mean 2, std 1; channel 1: constant, 0 / 0 -> NaN with epsilon 0.
  const std::vector<float> v = values(y);
  EXPECT_EQ(v[0], -1.0f);
  EXPECT_EQ(v[1], 1.0f);
  EXPECT_TRUE(std::isnan(v[2]));
}

TEST(InstanceNorm, GeneratedCMatchesReference) {
  OnnxBuilder m(17);
  m.input("x3", DType::Float32, {2, 3, 7}).input("x5", DType::Float32, {1, 4, 3, 2, 5});
  m.input("x4", DType::Float32, {3, 2, 5, 5});
  int k = 0;
  for (const auto& [x, c] : {std::pair<std::string, int64_t>{"x3", 3}, {"x5", 4}, {"x4", 2}}) {
    const std::string s = fmt::format("s{}", k), b = fmt::format("b{}", k), y = fmt::format("y{}", k);
    ++k;
    m.initializer(s, random_tensor(DType::Float32, {c}, 10 + k, 0.5, 1.5));
    m.initializer(b, random_tensor(DType::Float32, {c}, 20 + k));
    m.node("InstanceNormalization", {x, s, b}, {y}, {{"epsilon", k == 2 ? 1e-2f : 1e-5f}}).output(y);
  }
  test::expect_matches_reference(save(m), {{"x3", random_tensor(DType::Float32, {2, 3, 7}, 1, -2, 2)},
                                           {"x5", random_tensor(DType::Float32, {1, 4, 3, 2, 5}, 2, -2, 2)},
                                           {"x4", random_tensor(DType::Float32, {3, 2, 5, 5}, 3, -2, 2)}},
                                 0, 0);
}

TEST(Lrn, ShapeRuleErrors) {
  EXPECT_THAT(import_error(single("LRN", {2, 3, 4}, {})), HasSubstr("attribute 'size' is required"));
  EXPECT_THAT(import_error(single("LRN", {2, 3, 4}, {{"size", int64_t{0}}})), HasSubstr("size must be >= 1, got 0"));
  EXPECT_THAT(import_error(single("LRN", {2, 3}, {{"size", int64_t{3}}})), HasSubstr("the input must have rank >= 3"));
}

TEST(Lrn, ReferenceHandComputed) {
  // size 2: the window of channel c is c .. c+1 (lo 0, hi 1).
  const TensorData x = TensorData::from<float>({1, 3, 1}, {1, 2, 3});
  const std::vector<float> y = values(
      test::reference_run(single("LRN", {1, 3, 1}, {{"size", int64_t{2}}, {"alpha", 2.0f}, {"beta", 1.0f}, {"bias", 1.0f}}),
                          {{"x", x}})
          .at(0).second);
  // c0: 1 / (1 + 2/2 * (1 + 4)) = 1/6; c1: 2 / (1 + 13) = 1/7; c2: 3 / (1 + 9) = 0.3.
  EXPECT_FLOAT_EQ(y[0], 1.0f / 6.0f);
  EXPECT_FLOAT_EQ(y[1], 1.0f / 7.0f);
  EXPECT_FLOAT_EQ(y[2], 0.3f);
}

TEST(Lrn, GeneratedCMatchesReference) {
  OnnxBuilder m(13);
  m.input("x", DType::Float32, {2, 7, 3, 4});
  int k = 0;
  for (int64_t size : {1, 2, 3, 5, 8}) {
    const std::string y = fmt::format("y{}", k++);
    m.node("LRN", {"x"}, {y}, {{"size", size}, {"alpha", 1e-3f * static_cast<float>(size)}, {"beta", 0.6f}, {"bias", 2.0f}})
        .output(y);
  }
  m.node("LRN", {"x"}, {"dflt"}, {{"size", int64_t{3}}}).output("dflt");
  test::expect_matches_reference(save(m), {{"x", random_tensor(DType::Float32, {2, 7, 3, 4}, 4, -5, 5)}}, 0, 0);
}

TEST(Mvn, ShapeRuleErrors) {
  EXPECT_THAT(import_error(single("MeanVarianceNormalization", {2, 3}, {})), HasSubstr("axis 2 is out of range for rank 2"));
  EXPECT_THAT(import_error(single("MeanVarianceNormalization", {2, 3}, {{"axes", ints{}}})), HasSubstr("axes is empty"));
}

TEST(Mvn, ReferenceHandComputed) {
  const TensorData x = TensorData::from<float>({2, 2}, {1, 3, 5, 5});
  const std::vector<float> y =
      values(test::reference_run(single("MeanVarianceNormalization", {2, 2}, {{"axes", ints{1}}}), {{"x", x}}).at(0).second);
  // Row 0: mean 2, var 1; row 1 constant: var 0, (x - mean) / (0 + 1e-9) = 0.
  EXPECT_FLOAT_EQ(y[0], -1.0f);
  EXPECT_FLOAT_EQ(y[1], 1.0f);
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_EQ(y[3], 0.0f);
}

TEST(Mvn, GeneratedCMatchesReference) {
  OnnxBuilder m(13);
  m.input("x", DType::Float32, {3, 4, 5, 6});
  int k = 0;
  for (const ints& axes : {ints{0, 2, 3}, ints{1}, ints{-1}, ints{0, 1, 2, 3}, ints{2, 3}, ints{0, -1}}) {
    const std::string y = fmt::format("y{}", k++);
    m.node("MeanVarianceNormalization", {"x"}, {y}, {{"axes", axes}}).output(y);
  }
  m.node("MeanVarianceNormalization", {"x"}, {"dflt"}).output("dflt");
  test::expect_matches_reference(save(m), {{"x", random_tensor(DType::Float32, {3, 4, 5, 6}, 6, -3, 3)}}, 0, 0);
}

// Random shapes for the three, a few seeds.
TEST(Normalization, GeneratedCRandomized) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int rank = pick(3, 5);
    Shape x;
    for (int i = 0; i < rank; ++i) x.push_back(pick(1, 6));
    OnnxBuilder m(17);
    m.input("x", DType::Float32, x);
    m.initializer("s", random_tensor(DType::Float32, {x[1]}, seed, 0.5, 1.5));
    m.initializer("b", random_tensor(DType::Float32, {x[1]}, seed + 1));
    m.node("InstanceNormalization", {"x", "s", "b"}, {"inorm"}).output("inorm");
    m.node("LRN", {"x"}, {"lrn"}, {{"size", int64_t{pick(1, 6)}}}).output("lrn");
    ints axes;
    for (int a = 0; a < rank; ++a)
      if (pick(0, 1)) axes.push_back(a - (pick(0, 1) ? rank : 0));
    if (axes.empty()) axes.push_back(0);
    m.node("MeanVarianceNormalization", {"x"}, {"mvn"}, {{"axes", axes}}).output("mvn");
    SCOPED_TRACE(fmt::format("seed {} shape {}", seed, shape_str(x)));
    test::expect_matches_reference(save(m), {{"x", random_tensor(DType::Float32, x, seed, -2, 2)}}, 0, 0);
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_normalization
