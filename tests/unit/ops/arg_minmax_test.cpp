// ArgMax, ArgMin (ops/arg_minmax.cpp, c/kernels/arg_minmax.cpp).
#include <cmath>
#include <random>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_arg_minmax {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;
using Attrs_ = std::vector<std::pair<std::string, AttrValue>>;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("arg_minmax_{}.onnx", k++));
}

fs::path model(const std::string& op, const Shape& shape, const Attrs_& attrs, DType t = DType::Float32,
               int opset = 13) {
  OnnxBuilder m(opset);
  m.input("x", t, shape);
  m.node(op, {"x"}, {"y"}, attrs).output("y");
  return save(m);
}

using test::import_error;

std::vector<int64_t> run_ref(const std::string& op, const TensorData& x, const Attrs_& attrs) {
  return test::reference_run(model(op, x.shape(), attrs, x.dtype()), {{"x", x}}).at(0).second.as_int64();
}

TEST(ArgMinMax, ShapeRule) {
  auto shape = [](const Attrs_& attrs) {
    Graph g = frontend::import_onnx(model("ArgMax", {2, 3, 4}, attrs));
    EXPECT_EQ(g.value(g.outputs[0].value).dtype, DType::Int64);
    return g.value(g.outputs[0].value).shape;
  };
  EXPECT_EQ(shape({}), (Shape{1, 3, 4}));  // axis 0, keepdims 1 by default
  EXPECT_EQ(shape({{"axis", int64_t{1}}, {"keepdims", int64_t{0}}}), (Shape{2, 4}));
  EXPECT_EQ(shape({{"axis", int64_t{-1}}}), (Shape{2, 3, 1}));
  EXPECT_THAT(import_error(model("ArgMin", {2, 3}, {{"axis", int64_t{2}}})), HasSubstr("axis 2 is out of range for rank 2"));
  EXPECT_THAT(import_error(model("ArgMax", {2, 0}, {{"axis", int64_t{1}}})),
              HasSubstr("axis 1 has size 0; ArgMax over an empty axis has no index to return"));
  EXPECT_THAT(import_error(model("ArgMax", {2}, {}, DType::Bool)), HasSubstr("has element type bool"));
}

TEST(ArgMinMax, ReferenceTiesAndLastIndex) {
  const TensorData x = TensorData::from<float>({2, 3}, {1, 3, 3, 2, 0, 2});
  const Attrs_ row = {{"axis", int64_t{1}}, {"keepdims", int64_t{0}}};
  Attrs_ row_last = row;
  row_last.emplace_back("select_last_index", int64_t{1});
  EXPECT_EQ(run_ref("ArgMax", x, row), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(run_ref("ArgMax", x, row_last), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(run_ref("ArgMin", x, row), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(run_ref("ArgMin", x, row_last), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(run_ref("ArgMin", x, {}), (std::vector<int64_t>{0, 1, 1}));  // axis 0
}

TEST(ArgMinMax, ReferenceNaNWins) {
  // As numpy's argmax/argmin: the first NaN (the last with select_last_index).
  const TensorData x = TensorData::from<float>({5}, {1, NAN, 7, NAN, -3});
  EXPECT_EQ(run_ref("ArgMax", x, {}), (std::vector<int64_t>{1}));
  EXPECT_EQ(run_ref("ArgMin", x, {}), (std::vector<int64_t>{1}));
  EXPECT_EQ(run_ref("ArgMax", x, {{"select_last_index", int64_t{1}}}), (std::vector<int64_t>{3}));
  const TensorData first_nan = TensorData::from<float>({3}, {NAN, 9, -9});
  EXPECT_EQ(run_ref("ArgMax", first_nan, {}), (std::vector<int64_t>{0}));
  EXPECT_EQ(run_ref("ArgMin", first_nan, {}), (std::vector<int64_t>{0}));
}

// Every axis, keepdims both ways, select_last_index both ways, both ops, on
// data with many ties and a few NaNs; one model per element type.
TEST(ArgMinMax, GeneratedCMatchesReference) {
  const Shape shape = {3, 4, 5};
  for (DType t : {DType::Float32, DType::Int32, DType::Int64, DType::Int8, DType::UInt8}) {
    OnnxBuilder m(13);
    m.input("x", t, shape);
    int k = 0;
    for (const char* op : {"ArgMax", "ArgMin"})
      for (int64_t axis : {0, 1, -1})
        for (int64_t keep : {0, 1})
          for (int64_t last : {0, 1}) {
            if (t != DType::Float32 && keep == 0 && axis != 1) continue;  // fewer cases for integers
            const std::string y = fmt::format("y{}", k++);
            m.node(op, {"x"}, {y}, {{"axis", axis}, {"keepdims", keep}, {"select_last_index", last}}).output(y);
          }
    // Values in a small range: many ties.
    TensorData x = random_tensor(DType::Int32, shape, 3, 0, 4).cast(t);
    if (t == DType::Float32)
      for (int64_t i : {5, 17, 18, 40}) x.data<float>()[i] = NAN;
    SCOPED_TRACE(std::string(dtype_name(t)));
    test::expect_matches_reference(save(m), {{"x", x}}, 0, 0);
  }
}

TEST(ArgMinMax, GeneratedCRandomized) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int rank = pick(1, 4);
    Shape shape;
    for (int i = 0; i < rank; ++i) shape.push_back(pick(1, 6));
    OnnxBuilder m(12);
    m.input("x", DType::Float32, shape);
    for (int j = 0; j < 6; ++j) {
      const int64_t axis = pick(-rank, rank - 1);
      const std::string y = fmt::format("y{}", j);
      m.node(pick(0, 1) ? "ArgMax" : "ArgMin", {"x"}, {y},
             {{"axis", axis}, {"keepdims", int64_t{pick(0, 1)}}, {"select_last_index", int64_t{pick(0, 1)}}})
          .output(y);
    }
    SCOPED_TRACE(fmt::format("seed {} shape {}", seed, shape_str(shape)));
    test::expect_matches_reference(save(m), {{"x", random_tensor(DType::Float32, shape, seed, -2, 2)}}, 0, 0);
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_arg_minmax
