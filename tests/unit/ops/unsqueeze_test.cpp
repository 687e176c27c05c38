#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_unsqueeze {
namespace {

using test::ints;
using test::OnnxBuilder;
using ::testing::HasSubstr;

Shape unsqueezed(const Shape& in, const ints& axes, int opset = 17) {
  OnnxBuilder b(opset);
  b.input("x", DType::Float32, in);
  if (opset < 13) {
    b.node("Unsqueeze", {"x"}, {"y"}, {{"axes", axes}});
  } else {
    b.initializer("axes", TensorData::from<int64_t>({static_cast<int64_t>(axes.size())}, axes));
    b.node("Unsqueeze", {"x", "axes"}, {"y"});
  }
  b.output("y");
  Graph g = frontend::import_onnx(b.save(test::scratch_dir(), "usq.onnx"));
  return g.value(g.outputs[0].value).shape;
}

std::string unsqueeze_error(const Shape& in, const ints& axes) {
  try {
    unsqueezed(in, axes);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Unsqueeze, ShapeRule) {
  EXPECT_EQ(unsqueezed({3, 4}, {0}), (Shape{1, 3, 4}));
  EXPECT_EQ(unsqueezed({3, 4}, {2}), (Shape{3, 4, 1}));
  EXPECT_EQ(unsqueezed({3, 4}, {-1}), (Shape{3, 4, 1}));
  EXPECT_EQ(unsqueezed({3, 4, 5}, {5, 4, 2}), (Shape{3, 4, 1, 5, 1, 1}));  // unsorted
  EXPECT_EQ(unsqueezed({3, 4}, {1, -2}), (Shape{3, 1, 1, 4}));
  EXPECT_EQ(unsqueezed({}, {0}), (Shape{1}));
  EXPECT_EQ(unsqueezed({3}, {0, 2}, 11), (Shape{1, 3, 1}));  // opset 11 attribute form
}

TEST(Unsqueeze, ShapeErrors) {
  EXPECT_THAT(unsqueeze_error({3, 4}, {3}), HasSubstr("axes [3] has 3, out of range for output rank 3"));
  EXPECT_THAT(unsqueeze_error({3, 4}, {1, -3}), HasSubstr("name axis 1 twice"));

  OnnxBuilder b;
  b.input("x", DType::Float32, {3});
  b.node("Unsqueeze", {"x"}, {"y"}).output("y");
  try {
    frontend::import_onnx(b.save(test::scratch_dir(), "usq_e.onnx"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("expects 2 input(s), got 1"));
  }
}

TEST(Unsqueeze, ViewBetweenKernels) {
  OnnxBuilder b;
  b.input("x", DType::UInt16, {3, 4});
  b.initializer("axes", TensorData::from<int64_t>({2}, {0, 3}));
  b.node("Transpose", {"x"}, {"t"});
  b.node("Unsqueeze", {"t", "axes"}, {"u"});
  b.node("Transpose", {"u"}, {"y"}, {{"perm", ints{3, 1, 0, 2}}});
  b.output("y");
  test::expect_matches_reference(b.save(test::scratch_dir(), "usq_view.onnx"),
                                 {{"x", test::random_tensor(DType::UInt16, {3, 4}, 2, 0, 1000)}}, 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_unsqueeze
