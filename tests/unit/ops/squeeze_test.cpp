#include <optional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/op_model.h"

namespace mlipc::unit_ops_squeeze {
namespace {

using test::ints;
using test::OnnxBuilder;
using ::testing::HasSubstr;

// Squeeze of x (axes as the opset's form: an attribute before 13, a
// constant input after).
test::OpModel squeeze(const Shape& in, std::optional<ints> axes, int opset = 17) {
  test::OpModel m("Squeeze", opset);
  m.input("x", DType::Float32, in);
  if (axes && opset < 13) m.attr("axes", *axes);
  else if (axes) m.constant("axes", TensorData::from<int64_t>({static_cast<int64_t>(axes->size())}, *axes));
  return m;
}

Shape squeezed(const Shape& in, std::optional<ints> axes, int opset = 17) {
  return test::infer(squeeze(in, axes, opset)).shapes[0];
}

std::string squeeze_error(const Shape& in, std::optional<ints> axes) { return test::infer_error(squeeze(in, axes)); }

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
