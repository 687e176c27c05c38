// Hardmax (ops/hardmax.cpp, c/kernels/hardmax.cpp): the opset-13 axis
// form and the opset < 13 coerced-2D form.
#include <cmath>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_hardmax {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("hardmax_{}.onnx", k++));
}

fs::path model(const Shape& shape, std::optional<int64_t> axis, int opset) {
  OnnxBuilder m(opset);
  m.input("x", DType::Float32, shape);
  if (axis) m.node("Hardmax", {"x"}, {"y"}, {{"axis", *axis}});
  else m.node("Hardmax", {"x"}, {"y"});
  m.output("y");
  return save(m);
}

std::vector<float> run_ref(const fs::path& p, const TensorData& x) {
  const TensorData y = test::reference_run(p, {{"x", x}}).at(0).second;
  return std::vector<float>(y.data<float>(), y.data<float>() + y.numel());
}

TEST(Hardmax, ShapeRule) {
  Graph g = frontend::import_onnx(model({2, 3}, std::nullopt, 13));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 3}));
  try {
    frontend::import_onnx(model({2, 3}, 2, 13));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("axis 2 is out of range for rank 2"));
  }
}

TEST(Hardmax, ReferenceAxisAndCoerced) {
  // [2, 2, 2]: opset 13 default axis -1 picks within pairs; opset 11 default
  // axis 1 picks one of the four elements of each batch (ties: the first).
  const TensorData x = TensorData::from<float>({2, 2, 2}, {1, 2, 5, 5, 0, 3, 3, 1});
  EXPECT_EQ(run_ref(model({2, 2, 2}, std::nullopt, 13), x), (std::vector<float>{0, 1, 1, 0, 0, 1, 1, 0}));
  EXPECT_EQ(run_ref(model({2, 2, 2}, std::nullopt, 11), x), (std::vector<float>{0, 0, 1, 0, 0, 1, 0, 0}));
  EXPECT_EQ(run_ref(model({2, 2, 2}, 0, 13), x), (std::vector<float>{1, 0, 1, 1, 0, 1, 0, 0}));
  const TensorData nan = TensorData::from<float>({3}, {1, NAN, 2});
  EXPECT_EQ(run_ref(model({3}, std::nullopt, 13), nan), (std::vector<float>{0, 1, 0}));
}

TEST(Hardmax, GeneratedCMatchesReference) {
  const Shape shape = {2, 3, 4, 5};
  for (int opset : {11, 13}) {
    OnnxBuilder m(opset);
    m.input("x", DType::Float32, shape);
    int k = 0;
    for (int64_t axis : {0, 1, 2, 3, -1, -3}) {
      const std::string y = fmt::format("y{}", k++);
      m.node("Hardmax", {"x"}, {y}, {{"axis", axis}}).output(y);
    }
    m.node("Hardmax", {"x"}, {"dflt"}).output("dflt");
    TensorData x = random_tensor(DType::Int32, shape, 4, 0, 3).cast(DType::Float32);  // ties
    x.data<float>()[7] = NAN;
    SCOPED_TRACE(opset);
    test::expect_matches_reference(save(m), {{"x", x}}, 0, 0);
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_hardmax
