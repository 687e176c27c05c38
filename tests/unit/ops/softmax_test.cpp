#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "ops/softmax.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_softmax {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("softmax_{}.onnx", k++));
}

fs::path model(const std::string& op, const Shape& shape, const std::optional<int64_t>& axis, int opset = 17) {
  OnnxBuilder m(opset);
  m.input("x", DType::Float32, shape);
  if (axis) m.node(op, {"x"}, {"y"}, {{"axis", *axis}});
  else m.node(op, {"x"}, {"y"});
  m.output("y");
  return save(m);
}

TEST(Softmax, Dims) {
  Attrs a;
  ops::SoftmaxDims d = ops::softmax_dims(a, {2, 3, 4});  // default axis -1
  EXPECT_EQ(d.outer, 6);
  EXPECT_EQ(d.n, 4);
  EXPECT_EQ(d.inner, 1);
  a.set("axis", int64_t{1});
  d = ops::softmax_dims(a, {2, 3, 4});
  EXPECT_EQ(d.outer, 2);
  EXPECT_EQ(d.n, 3);
  EXPECT_EQ(d.inner, 4);
  a.set("coerce_2d", int64_t{1});  // opset < 13: everything from axis on
  d = ops::softmax_dims(a, {2, 3, 4});
  EXPECT_EQ(d.outer, 2);
  EXPECT_EQ(d.n, 12);
  EXPECT_EQ(d.inner, 1);
}

TEST(Softmax, ShapeRule) {
  Graph g = frontend::import_onnx(model("Softmax", {2, 3}, 0));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 3}));
  try {
    frontend::import_onnx(model("LogSoftmax", {2, 3}, 2));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("axis 2 is out of range for rank 2"));
  }
  OnnxBuilder m;
  m.input("x", DType::Int32, {2}).node("Softmax", {"x"}, {"y"}).output("y");
  EXPECT_THROW(frontend::import_onnx(save(m)), Error);
}

std::vector<float> eval(const std::string& op, const Shape& shape, const std::vector<float>& x, int64_t axis,
                        int opset = 17) {
  const TensorData y =
      test::reference_run(model(op, shape, axis, opset), {{"x", TensorData::from<float>(shape, x)}}).at(0).second;
  return std::vector<float>(y.data<float>(), y.data<float>() + y.numel());
}

TEST(Softmax, Reference) {
  const std::vector<float> s = eval("Softmax", {1, 3}, {1, 2, 3}, -1);
  const float z = std::exp(1.0f) + std::exp(2.0f) + std::exp(3.0f);
  EXPECT_NEAR(s[0], std::exp(1.0f) / z, 1e-6);
  EXPECT_NEAR(s[2], std::exp(3.0f) / z, 1e-6);
  const std::vector<float> ls = eval("LogSoftmax", {1, 3}, {1, 2, 3}, -1);
  EXPECT_NEAR(ls[1], 2.0f - std::log(z), 1e-6);
  // Large inputs do not overflow: the maximum is subtracted first.
  const std::vector<float> big = eval("Softmax", {2}, {10000, 10000}, 0);
  EXPECT_FLOAT_EQ(big[0], 0.5f);
  EXPECT_FLOAT_EQ(eval("LogSoftmax", {2}, {1000, 1000}, 0)[1], -std::log(2.0f));
  // axis 0 of [2,2]: columns sum to 1.
  const std::vector<float> col = eval("Softmax", {2, 2}, {0, 5, 0, -5}, 0);
  EXPECT_FLOAT_EQ(col[0], 0.5f);
  EXPECT_FLOAT_EQ(col[2], 0.5f);
  EXPECT_NEAR(col[1] + col[3], 1.0f, 1e-6);
}

TEST(Softmax, ReferenceOpset11CoercesTo2D) {
  // Opset 11, axis 1 of [2,2,2]: each batch's four values share one normalization.
  const std::vector<float> s = eval("Softmax", {2, 2, 2}, {0, 0, 0, 0, 1, 1, 1, 1}, 1, 11);
  for (float v : s) EXPECT_FLOAT_EQ(v, 0.25f);
  const std::vector<float> s13 = eval("Softmax", {2, 2, 2}, {0, 0, 0, 0, 1, 1, 1, 1}, 1, 13);
  for (float v : s13) EXPECT_FLOAT_EQ(v, 0.5f);
}

// The reference's Softmax (each exponential times the sum's reciprocal)
// against float64 on the same float inputs: within ops/softmax.cpp's bound,
// (2.2 T + d + 8) 2^-24 relative (T the row's largest |x - max|, d the
// sum's depth, min(n - 1, ceil(n / 16) + 3) for a row of n) plus 2e-38
// absolute, on odd lengths, rows of 1025 and 4099 (where the bound of the
// sum in one chain, n - 1 deep, is 16 times as wide), the last axis and a
// middle one (inner > 1), and rows as wide as [-60, 60]. The kernels give these
// bits (GeneratedCMatchesReference, unit.AttentionKernels).
TEST(Softmax, WithinItsBoundOfFloat64) {
  double worst = 0.0;  // the largest error as a share of its bound
  int seed = 7;
  for (const Shape& shape : {Shape{3, 1}, Shape{5, 17}, Shape{4, 65}, Shape{3, 197}, Shape{2, 301}, Shape{2, 1025}, Shape{1, 4099},
                             Shape{3, 33, 5}, Shape{2, 129, 3}})
    for (float range : {4.0f, 20.0f, 60.0f}) {
      const TensorData x = random_tensor(DType::Float32, shape, seed++, -range, range);
      const int64_t axis = shape.size() == 2 ? -1 : 1;
      const std::vector<float> y = eval("Softmax", shape, std::vector<float>(x.data<float>(), x.data<float>() + x.numel()), axis);
      const int64_t outer = shape[0], n = shape[1], inner = shape.size() == 3 ? shape[2] : 1;
      const float* xv = x.data<float>();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t base = o * n * inner + i;
          double mx = -INFINITY, sum = 0.0, t_max = 0.0;
          for (int64_t k = 0; k < n; ++k) mx = std::fmax(mx, static_cast<double>(xv[base + k * inner]));
          for (int64_t k = 0; k < n; ++k) {
            sum += std::exp(static_cast<double>(xv[base + k * inner]) - mx);
            t_max = std::fmax(t_max, mx - xv[base + k * inner]);
          }
          const double depth = static_cast<double>(std::min<int64_t>(n - 1, (n + 15) / 16 + 3));
          const double rel = (2.2 * t_max + depth + 8.0) * std::ldexp(1.0, -24);
          for (int64_t k = 0; k < n; ++k) {
            const double exact = std::exp(static_cast<double>(xv[base + k * inner]) - mx) / sum;
            const double bound = rel * exact + 2e-38;
            const double err = std::fabs(static_cast<double>(y[base + k * inner]) - exact);
            ASSERT_LE(err, bound) << "shape [" << outer << ", " << n << ", " << inner << "], range " << range
                                  << ", row " << o << ", column " << i << ", k " << k;
            worst = std::fmax(worst, err / bound);
          }
        }
    }
  std::printf("Softmax against float64: worst error %.3f of the bound\n", worst);
}

TEST(Softmax, GeneratedCMatchesReference) {
  struct Case {
    std::string op;
    std::optional<int64_t> axis;
    int opset;
  };
  const std::vector<Case> cases = {{"Softmax", std::nullopt, 17}, {"Softmax", 0, 17},    {"Softmax", 1, 17},
                                   {"Softmax", -2, 17},           {"Softmax", 1, 11},    {"Softmax", std::nullopt, 11},
                                   {"LogSoftmax", 2, 17},         {"LogSoftmax", 1, 17}, {"LogSoftmax", 0, 11}};
  // One model per opset and shape, with every case of that opset; bit for
  // bit (the kernel sums in the reference's order). [2, 5, 70]: an inner
  // size over the kernel's 32 side-by-side columns, and rows of 70.
  for (const Shape& shape : {Shape{3, 4, 5}, Shape{2, 5, 70}})
  for (int opset : {11, 17}) {
    OnnxBuilder m(opset);
    m.input("x", DType::Float32, shape);
    int i = 0;
    for (const Case& c : cases) {
      if (c.opset != opset) continue;
      const std::string y = fmt::format("y{}", i++);
      if (c.axis) m.node(c.op, {"x"}, {y}, {{"axis", *c.axis}});
      else m.node(c.op, {"x"}, {y});
      m.output(y);
    }
    SCOPED_TRACE(fmt::format("opset {}, shape {}", opset, shape.size() == 3 ? shape[2] : 0));
    test::expect_matches_reference(save(m), {{"x", random_tensor(DType::Float32, shape, 1, -20, 20)}}, 0.0, 0.0);
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_softmax
