#include <optional>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc {
namespace {

using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("reduce_mean_{}.onnx", k++));
}

fs::path model(const Shape& shape, const std::optional<ints>& axes, std::optional<int64_t> keepdims) {
  OnnxBuilder m(13);
  m.input("x", DType::Float32, shape);
  std::vector<std::pair<std::string, AttrValue>> attrs;
  if (axes) attrs.emplace_back("axes", *axes);
  if (keepdims) attrs.emplace_back("keepdims", *keepdims);
  m.node("ReduceMean", {"x"}, {"y"}, attrs).output("y");
  return save(m);
}

Shape out_shape(const Shape& shape, const std::optional<ints>& axes, std::optional<int64_t> keepdims) {
  Graph g = frontend::import_onnx(model(shape, axes, keepdims));
  return g.value(g.outputs[0].value).shape;
}

std::string import_error(const fs::path& p) {
  try {
    frontend::import_onnx(p);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(ReduceMean, ShapeRule) {
  EXPECT_EQ(out_shape({3, 2, 2}, ints{1}, std::nullopt), (Shape{3, 1, 2}));  // keepdims defaults to 1
  EXPECT_EQ(out_shape({3, 2, 2}, ints{1}, 0), (Shape{3, 2}));
  EXPECT_EQ(out_shape({3, 2, 2}, ints{-2, 0}, 1), (Shape{1, 1, 2}));
  EXPECT_EQ(out_shape({3, 2, 2}, std::nullopt, 1), (Shape{1, 1, 1}));  // no axes: all of them
  EXPECT_EQ(out_shape({3, 2, 2}, ints{}, 0), (Shape{}));
}

TEST(ReduceMean, ShapeRuleErrors) {
  EXPECT_THAT(import_error(model({3, 2}, ints{2}, 1)), HasSubstr("axis 2 is out of range for rank 2"));
  EXPECT_THAT(import_error(model({3, 2}, ints{1, -1}, 1)), HasSubstr("axes [1,-1] repeats axis 1"));
}

TEST(ReduceMean, Reference) {
  const TensorData x = TensorData::from<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto eval = [&](const std::optional<ints>& axes) {
    const TensorData y = test::reference_run(model({2, 3}, axes, 0), {{"x", x}}).at(0).second;
    return std::vector<float>(y.data<float>(), y.data<float>() + y.numel());
  };
  EXPECT_EQ(eval(ints{0}), (std::vector<float>{2.5f, 3.5f, 4.5f}));
  EXPECT_EQ(eval(ints{1}), (std::vector<float>{2, 5}));
  EXPECT_EQ(eval(std::nullopt), (std::vector<float>{3.5f}));
}

TEST(ReduceMean, GeneratedCMatchesReference) {
  const std::vector<std::pair<std::optional<ints>, int64_t>> cases = {
      {ints{0}, 1},    {ints{1}, 0},       {ints{3}, 1},  {ints{2, 3}, 1}, {ints{-1, 1}, 0},
      {ints{0, 2}, 0}, {std::nullopt, 1}, {ints{}, 0},   {ints{1, 2, 3}, 1}};
  OnnxBuilder m(13);
  m.input("x", DType::Float32, {2, 3, 4, 5});
  for (size_t i = 0; i < cases.size(); ++i) {
    std::vector<std::pair<std::string, AttrValue>> attrs = {{"keepdims", cases[i].second}};
    if (cases[i].first) attrs.emplace_back("axes", *cases[i].first);
    const std::string y = fmt::format("y{}", i);
    m.node("ReduceMean", {"x"}, {y}, attrs).output(y);
  }
  test::expect_matches_reference(save(m), {{"x", random_tensor(DType::Float32, {2, 3, 4, 5}, 1)}});
}

}  // namespace
}  // namespace mlipc
