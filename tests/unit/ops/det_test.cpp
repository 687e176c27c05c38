// Det: shape rule, reference on hand-computed matrices, generated C against
// the reference (bit-identical).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_det {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test::OnnxBuilder;
using test::random_tensor;

fs::path model(const std::string& name, const std::vector<Shape>& shapes, DType t = DType::Float32) {
  OnnxBuilder m;
  for (size_t i = 0; i < shapes.size(); ++i) {
    m.input("x" + std::to_string(i), t, shapes[i]);
    m.node("Det", {"x" + std::to_string(i)}, {"y" + std::to_string(i)});
    m.output("y" + std::to_string(i));
  }
  return m.save(test::scratch_dir(), "det_" + name + ".onnx");
}

TEST(Det, ShapeRule) {
  Graph g = frontend::import_onnx(model("shape", {{3, 2, 4, 4}, {5, 5}}));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{3, 2}));
  EXPECT_EQ(g.value(g.outputs[1].value).shape, (Shape{}));
  for (const Shape& bad : {Shape{3}, Shape{2, 3, 4}}) {
    try {
      frontend::import_onnx(model("bad", {bad}));
      ADD_FAILURE() << shape_str(bad);
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("Det needs square matrices in the last two axes"));
    }
  }
  try {
    frontend::import_onnx(model("int", {{2, 2}}, DType::Int32));
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("element type int32; supported: float32, float64"));
  }
}

TEST(Det, ReferenceByHand) {
  // [[1, 2], [3, 4]] -> -2; a row swap; a singular matrix; a 3x3 needing a pivot.
  TensorData x = TensorData::from<float>({4, 3, 3}, {2, 0, 0, 0, 3, 0, 0, 0, 4,     // 24
                                                     0, 1, 0, 1, 0, 0, 0, 0, 1,     // -1 (one swap)
                                                     1, 2, 3, 2, 4, 6, 7, 8, 9,     // 0 (rows 1, 2 dependent)
                                                     0, 2, 1, 1, 1, 1, 3, 0, 2});   // 0*(2-0) - 2*(2-3) + 1*(0-3) = -1
  TensorData y = test::reference_run(model("ref", {{4, 3, 3}}), {{"x0", x}})[0].second;
  EXPECT_EQ(y, TensorData::from<float>({4}, {24, -1, 0, -1}));
}

TEST(Det, GeneratedCMatchesReference) {
  io::NamedTensors in = {{"x0", random_tensor(DType::Float32, {3, 2, 5, 5}, 1)},
                         {"x1", random_tensor(DType::Float32, {1, 1}, 2)},
                         {"x2", random_tensor(DType::Float32, {7, 7}, 3)},
                         {"x3", TensorData::from<float>({2, 2, 2}, {1, 2, 2, 4, 0, 0, 0, 0})}};
  test::expect_matches_reference(model("c", {{3, 2, 5, 5}, {1, 1}, {7, 7}, {2, 2, 2}}), in, 0.0, 0.0);
  io::NamedTensors d = {{"x0", random_tensor(DType::Float64, {4, 6, 6}, 4)}};
  test::expect_matches_reference(model("c64", {{4, 6, 6}}, DType::Float64), d, 0.0, 0.0);
}

}  // namespace
}  // namespace mlipc::unit_ops_det
