// TopK (ops/topk.cpp, c/kernels/topk.cpp).
#include <cmath>
#include <random>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_topk {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;
using Attrs_ = std::vector<std::pair<std::string, AttrValue>>;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("topk_{}.onnx", k++));
}

// TopK-11 with K as an initializer.
fs::path model(const Shape& shape, int64_t k, const Attrs_& attrs, DType t = DType::Float32) {
  OnnxBuilder m(11);
  m.input("x", t, shape);
  m.initializer("k", TensorData::from<int64_t>({1}, {k}));
  m.node("TopK", {"x", "k"}, {"values", "indices"}, attrs).output("values").output("indices");
  return save(m);
}

using test::import_error;

struct Top {
  std::vector<float> values;
  std::vector<int64_t> indices;
};

Top run_ref(const fs::path& p, const TensorData& x) {
  io::NamedTensors out = test::reference_run(p, {{"x", x}});
  const TensorData& v = out.at(0).second;
  return {std::vector<float>(v.data<float>(), v.data<float>() + v.numel()), out.at(1).second.as_int64()};
}

TEST(TopK, ShapeRule) {
  Graph g = frontend::import_onnx(model({3, 5, 2}, 2, {{"axis", int64_t{1}}}));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{3, 2, 2}));
  EXPECT_EQ(g.value(g.outputs[1].value).shape, (Shape{3, 2, 2}));
  EXPECT_EQ(g.value(g.outputs[1].value).dtype, DType::Int64);
  g = frontend::import_onnx(model({3, 5}, 0, {}));  // axis -1 by default; k may be 0
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{3, 0}));
  // TopK-1: k is an attribute (frontend/opset.cpp makes it input #1).
  OnnxBuilder m(9);
  m.input("x", DType::Float32, {4, 6});
  m.node("TopK", {"x"}, {"v", "i"}, {{"k", int64_t{3}}, {"axis", int64_t{0}}}).output("v").output("i");
  g = frontend::import_onnx(save(m));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{3, 6}));
}

TEST(TopK, ShapeRuleErrors) {
  EXPECT_THAT(import_error(model({3, 5}, 6, {})), HasSubstr("K = 6 is out of range for axis 1 of size 5"));
  EXPECT_THAT(import_error(model({3, 5}, -1, {})), HasSubstr("K = -1 is out of range"));
  EXPECT_THAT(import_error(model({3, 5}, 1, {{"axis", int64_t{2}}})), HasSubstr("axis 2 is out of range for rank 2"));
  // K computed at run time: the output shape would depend on it.
  OnnxBuilder m(11);
  m.input("x", DType::Float32, {3, 5}).input("k", DType::Int64, {1});
  m.node("TopK", {"x", "k"}, {"v", "i"}).output("v").output("i");
  EXPECT_THAT(import_error(save(m)), HasSubstr("input #1 ('k', K) must be a constant known at compile time"));
}

TEST(TopK, ReferenceTiesByLowerIndex) {
  const TensorData x = TensorData::from<float>({6}, {3, 1, 3, 2, 1, 3});
  Top t = run_ref(model({6}, 4, {}), x);
  EXPECT_EQ(t.values, (std::vector<float>{3, 3, 3, 2}));
  EXPECT_EQ(t.indices, (std::vector<int64_t>{0, 2, 5, 3}));
  t = run_ref(model({6}, 3, {{"largest", int64_t{0}}}), x);
  EXPECT_EQ(t.values, (std::vector<float>{1, 1, 2}));
  EXPECT_EQ(t.indices, (std::vector<int64_t>{1, 4, 3}));
}

TEST(TopK, ReferenceNaNAboveEveryNumber) {
  const TensorData x = TensorData::from<float>({5}, {1, NAN, INFINITY, NAN, -1});
  Top t = run_ref(model({5}, 3, {}), x);
  EXPECT_EQ(t.indices, (std::vector<int64_t>{1, 3, 2}));
  t = run_ref(model({5}, 5, {{"largest", int64_t{0}}}), x);
  EXPECT_EQ(t.indices, (std::vector<int64_t>{4, 0, 2, 1, 3}));
}

// Axes, k from 0 to n, largest both ways, sorted both ways (sorted = 0 gives
// the sorted order too), ties and NaNs; int types; Values alone.
TEST(TopK, GeneratedCMatchesReference) {
  const Shape shape = {3, 7, 4};
  for (DType t : {DType::Float32, DType::Int32, DType::Int64, DType::Int8, DType::UInt8}) {
    OnnxBuilder m(11);
    m.input("x", t, shape);
    int n = 0;
    auto add = [&](int64_t k, int64_t axis, int64_t largest, int64_t sorted) {
      const std::string kname = fmt::format("k{}", n), v = fmt::format("v{}", n), i = fmt::format("i{}", n);
      ++n;
      m.initializer(kname, TensorData::from<int64_t>({1}, {k}));
      m.node("TopK", {"x", kname}, {v, i}, {{"axis", axis}, {"largest", largest}, {"sorted", sorted}});
      m.output(v).output(i);
    };
    add(3, 1, 1, 1);
    add(3, 1, 0, 1);
    add(7, -2, 1, 0);
    add(1, 0, 0, 1);
    add(3, -1, 1, 1);
    add(4, 2, 0, 1);
    add(0, 1, 1, 1);
    // Values only (the Indices output omitted).
    m.initializer("k_values", TensorData::from<int64_t>({1}, {2}));
    m.node("TopK", {"x", "k_values"}, {"only_values"}, {{"axis", int64_t{1}}}).output("only_values");
    TensorData x = random_tensor(DType::Int32, shape, 5, 0, 5).cast(t);
    if (t == DType::Float32)
      for (int64_t i : {3, 9, 10, 50, 70}) x.data<float>()[i] = NAN;
    SCOPED_TRACE(std::string(dtype_name(t)));
    test::expect_matches_reference(save(m), {{"x", x}}, 0, 0);
  }
}

TEST(TopK, GeneratedCRandomized) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int rank = pick(1, 3);
    Shape shape;
    for (int i = 0; i < rank; ++i) shape.push_back(pick(1, 9));
    OnnxBuilder m(11);
    m.input("x", DType::Float32, shape);
    for (int j = 0; j < 5; ++j) {
      const int axis = pick(-rank, rank - 1);
      const int64_t k = pick(0, static_cast<int>(shape[static_cast<size_t>(axis < 0 ? axis + rank : axis)]));
      const std::string kname = fmt::format("k{}", j), v = fmt::format("v{}", j), i = fmt::format("i{}", j);
      m.initializer(kname, TensorData::from<int64_t>({1}, {k}));
      m.node("TopK", {"x", kname}, {v, i}, {{"axis", int64_t{axis}}, {"largest", int64_t{pick(0, 1)}}});
      m.output(v).output(i);
    }
    SCOPED_TRACE(fmt::format("seed {} shape {}", seed, shape_str(shape)));
    test::expect_matches_reference(save(m), {{"x", random_tensor(DType::Float32, shape, seed)}}, 0, 0);
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_topk
