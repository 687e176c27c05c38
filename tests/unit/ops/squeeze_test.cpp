#include <optional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_squeeze {
namespace {

using test::ints;
using test::OnnxBuilder;
using ::testing::HasSubstr;

Shape squeezed(const Shape& in, std::optional<ints> axes, int opset = 17) {
  OnnxBuilder b(opset);
  b.input("x", DType::Float32, in);
  if (!axes) {
    b.node("Squeeze", {"x"}, {"y"});
  } else if (opset < 13) {
    b.node("Squeeze", {"x"}, {"y"}, {{"axes", *axes}});
  } else {
    b.initializer("axes", TensorData::from<int64_t>({static_cast<int64_t>(axes->size())}, *axes));
    b.node("Squeeze", {"x", "axes"}, {"y"});
  }
  b.output("y");
  Graph g = frontend::import_onnx(b.save(test::scratch_dir(), "sq.onnx"));
  return g.value(g.outputs[0].value).shape;
}

std::string squeeze_error(const Shape& in, std::optional<ints> axes) {
  try {
    squeezed(in, axes);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Squeeze, ShapeRule) {
  EXPECT_EQ(squeezed({1, 3, 1, 5}, std::nullopt), (Shape{3, 5}));  // all size-1 axes
  EXPECT_EQ(squeezed({1, 3, 1, 5}, ints{0}), (Shape{3, 1, 5}));
  EXPECT_EQ(squeezed({1, 3, 1, 5}, ints{-2, 0}), (Shape{3, 5}));
  EXPECT_EQ(squeezed({1, 3, 1, 5}, ints{2}, 11), (Shape{1, 3, 5}));  // opset 11 attribute form
  EXPECT_EQ(squeezed({1, 1}, std::nullopt), (Shape{}));
  EXPECT_EQ(squeezed({3, 4}, std::nullopt), (Shape{3, 4}));
}

TEST(Squeeze, ShapeErrors) {
  EXPECT_THAT(squeeze_error({1, 3}, ints{1}), HasSubstr("cannot squeeze axis 1 of input [1,3]: its size is 3, not 1"));
  EXPECT_THAT(squeeze_error({1, 3}, ints{2}), HasSubstr("out of range for rank 2"));
  EXPECT_THAT(squeeze_error({1, 3}, ints{0, -2}), HasSubstr("name axis 0 twice"));
}

TEST(Squeeze, ViewBetweenKernels) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 3, 1, 4});
  b.initializer("axes", TensorData::from<int64_t>({1}, {2}));
  b.node("Transpose", {"x"}, {"t"}, {{"perm", ints{0, 2, 3, 1}}});
  b.node("Squeeze", {"t"}, {"s"});
  b.node("Transpose", {"s"}, {"y"});
  b.output("y");
  test::expect_matches_reference(b.save(test::scratch_dir(), "sq_view.onnx"),
                                 {{"x", test::random_tensor(DType::Float32, {1, 3, 1, 4}, 2)}}, 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_squeeze
