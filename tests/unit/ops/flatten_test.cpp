#include <optional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/op_model.h"

namespace mlipc::unit_ops_flatten {
namespace {

using test::OnnxBuilder;
using ::testing::HasSubstr;

Shape flattened(const Shape& in, std::optional<int64_t> axis) {
  test::OpModel m("Flatten");
  m.input("x", DType::Float32, in);
  if (axis) m.attr("axis", *axis);
  return test::infer(m).shapes[0];
}

TEST(Flatten, ShapeRule) {
  EXPECT_EQ(flattened({2, 3, 4, 5}, std::nullopt), (Shape{2, 60}));  // default axis 1
  EXPECT_EQ(flattened({2, 3, 4, 5}, 0), (Shape{1, 120}));
  EXPECT_EQ(flattened({2, 3, 4, 5}, 2), (Shape{6, 20}));
  EXPECT_EQ(flattened({2, 3, 4, 5}, 4), (Shape{120, 1}));
  EXPECT_EQ(flattened({2, 3, 4, 5}, -1), (Shape{24, 5}));
  EXPECT_EQ(flattened({2, 3, 4, 5}, -4), (Shape{1, 120}));
  EXPECT_EQ(flattened({}, 0), (Shape{1, 1}));
}

TEST(Flatten, ShapeErrors) {
  try {
    flattened({2, 3}, 3);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("axis 3 is out of range for rank 2 (allowed: [-2, 2])"));
  }
  EXPECT_THROW(flattened({2, 3}, -3), Error);
}

TEST(Flatten, ViewBetweenKernels) {
  OnnxBuilder b;
  b.input("x", DType::Int32, {2, 3, 4});
  b.node("Transpose", {"x"}, {"t"}, {{"perm", test::ints{1, 0, 2}}});
  b.node("Flatten", {"t"}, {"f"}, {{"axis", int64_t{-1}}});
  b.node("Transpose", {"f"}, {"y"});
  b.output("y");
  test::expect_matches_reference(b.save(test::scratch_dir(), "f_view.onnx"),
                                 {{"x", test::random_tensor(DType::Int32, {2, 3, 4}, 1, -100, 100)}}, 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_flatten
