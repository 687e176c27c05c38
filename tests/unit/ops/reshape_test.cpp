#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "ops/op.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_reshape {
namespace {

using test::ints;
using test::OnnxBuilder;
using ::testing::HasSubstr;

std::filesystem::path reshape_model(const Shape& in, const ints& spec, int64_t allowzero, const std::string& file) {
  OnnxBuilder b;
  b.input("x", DType::Float32, in);
  b.initializer("shape", TensorData::from<int64_t>({static_cast<int64_t>(spec.size())}, spec));
  b.node("Reshape", {"x", "shape"}, {"y"}, {{"allowzero", allowzero}});
  b.output("y");
  return b.save(test::scratch_dir(), file);
}

Shape reshaped(const Shape& in, const ints& spec, int64_t allowzero = 0) {
  Graph g = frontend::import_onnx(reshape_model(in, spec, allowzero, "r_shape.onnx"));
  return g.value(g.outputs[0].value).shape;
}

std::string reshape_error(const Shape& in, const ints& spec, int64_t allowzero = 0) {
  try {
    reshaped(in, spec, allowzero);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Reshape, ShapeRule) {
  EXPECT_EQ(reshaped({2, 3, 4}, {4, 6}), (Shape{4, 6}));
  EXPECT_EQ(reshaped({2, 3, 4}, {-1}), (Shape{24}));
  EXPECT_EQ(reshaped({2, 3, 4}, {0, -1}), (Shape{2, 12}));     // 0 copies the input's dimension
  EXPECT_EQ(reshaped({2, 3, 4}, {0, 0, 2, -1}), (Shape{2, 3, 2, 2}));
  EXPECT_EQ(reshaped({0, 3}, {3, 0}, 1), (Shape{3, 0}));        // allowzero: 0 is an empty axis
  EXPECT_EQ(reshaped({0, 3}, {0, 3}), (Shape{0, 3}));
  EXPECT_EQ(reshaped({1}, {}), (Shape{}));                      // to a scalar
}

TEST(Reshape, ShapeErrors) {
  EXPECT_THAT(reshape_error({2, 3}, {-1, -1}), HasSubstr("more than one -1"));
  EXPECT_THAT(reshape_error({2, 3}, {-2, 3}), HasSubstr("invalid dimension -2"));
  EXPECT_THAT(reshape_error({2, 3}, {4, -1}), HasSubstr("cannot infer the -1 in shape [4,-1]: input [2,3] has 6 elements"));
  EXPECT_THAT(reshape_error({2, 3}, {5}), HasSubstr("cannot reshape input [2,3] (6 elements) to [5]"));
  EXPECT_THAT(reshape_error({6}, {3, 0}), HasSubstr("0 at position 1, which copies an input dimension, but the input [6] has rank 1"));
  EXPECT_THAT(reshape_error({0, 3}, {0, -1}, 1), HasSubstr("both 0 and -1"));
  EXPECT_THAT(reshape_error({2, 3}, {6, 0}, 1), HasSubstr("cannot reshape input [2,3] (6 elements) to [6,0]"));

  OnnxBuilder b;
  b.input("x", DType::Float32, {2, 3}).input("s", DType::Int64, {2});
  b.node("Reshape", {"x", "s"}, {"y"}).output("y");
  try {
    frontend::import_onnx(b.save(test::scratch_dir(), "r_rt.onnx"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("input #1 ('s', shape) must be a constant known at compile time"));
  }
}

TEST(Reshape, IsAViewInTheCompiledCode) {
  // Transpose -> Reshape -> Transpose: the reshape costs nothing, and its
  // output shares the first transpose's bytes.
  OnnxBuilder b;
  b.input("x", DType::Float32, {2, 3, 4});
  b.initializer("shape", TensorData::from<int64_t>({2}, {4, -1}));
  b.node("Transpose", {"x"}, {"t"}, {{"perm", ints{2, 0, 1}}});
  b.node("Reshape", {"t", "shape"}, {"r"});
  b.node("Transpose", {"r"}, {"y"});
  b.output("y");
  const auto model = b.save(test::scratch_dir(), "r_view.onnx");
  Graph g = frontend::import_onnx(model);
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_TRUE(is_view(g.nodes[1]));
  test::expect_matches_reference(model, {{"x", test::random_tensor(DType::Float32, {2, 3, 4}, 1)}}, 0, 0);
}

TEST(Reshape, FoldsOnConstants) {
  OnnxBuilder b;
  b.initializer("c", TensorData::from<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6}));
  b.initializer("shape", TensorData::from<int64_t>({2}, {3, -1}));
  b.node("Reshape", {"c", "shape"}, {"y"}).output("y");
  Graph g = frontend::import_onnx(b.save(test::scratch_dir(), "r_fold.onnx"));
  EXPECT_TRUE(g.nodes.empty());
  EXPECT_EQ(*g.value(g.outputs[0].value).constant, TensorData::from<int32_t>({3, 2}, {1, 2, 3, 4, 5, 6}));
}

}  // namespace
}  // namespace mlipc::unit_ops_reshape
