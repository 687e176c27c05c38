#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_gather_elements {
namespace {

using test::OnnxBuilder;
using ::testing::HasSubstr;

std::filesystem::path model(DType dt, const Shape& data, DType it, const Shape& idx, int64_t axis, const std::string& file) {
  OnnxBuilder b;
  b.input("x", dt, data).input("i", it, idx);
  b.node("GatherElements", {"x", "i"}, {"y"}, {{"axis", axis}}).output("y");
  return b.save(test::scratch_dir(), file);
}

using test::import_error;

TEST(GatherElements, Reference) {
  // The ONNX example: axis 1, data [[1,2],[3,4]], indices [[0,0],[1,0]].
  const auto m = model(DType::Float32, {2, 2}, DType::Int64, {2, 2}, 1, "ge_ref.onnx");
  const io::NamedTensors out = test::reference_run(
      m, {{"x", TensorData::from<float>({2, 2}, {1, 2, 3, 4})}, {"i", TensorData::from<int64_t>({2, 2}, {0, 0, 1, 0})}});
  EXPECT_EQ(out[0].second, TensorData::from<float>({2, 2}, {1, 1, 4, 3}));
  // Negative indices, axis 0, indices smaller than data.
  const auto m2 = model(DType::Int32, {3, 3}, DType::Int32, {2, 3}, 0, "ge_ref2.onnx");
  const io::NamedTensors out2 = test::reference_run(
      m2, {{"x", TensorData::from<int32_t>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})},
           {"i", TensorData::from<int32_t>({2, 3}, {-1, -2, 0, 2, 0, -3})}});
  EXPECT_EQ(out2[0].second, TensorData::from<int32_t>({2, 3}, {7, 5, 3, 7, 2, 3}));
}

TEST(GatherElements, Errors) {
  EXPECT_THAT(import_error(model(DType::Float32, {2, 2}, DType::Int64, {2}, 0, "ge_e1.onnx")),
              HasSubstr("indices [2] must have the rank of data [2,2]"));
  EXPECT_THAT(import_error(model(DType::Float32, {2, 2}, DType::Int64, {3, 3}, 0, "ge_e2.onnx")),
              HasSubstr("indices [3,3] is larger than data [2,2] at axis 1"));
  EXPECT_THAT(import_error(model(DType::Float32, {2, 2}, DType::Float32, {2, 2}, 0, "ge_e3.onnx")),
              HasSubstr("has element type float32; supported: int64, int32"));
  EXPECT_THAT(import_error(model(DType::Float32, {2, 2}, DType::Int64, {2, 2}, -3, "ge_e4.onnx")),
              HasSubstr("axis -3 is out of range for rank 2"));
}

TEST(GatherElements, GeneratedCMatchesReference) {
  struct Case {
    DType dt;
    Shape data, idx;
    int64_t axis;
  };
  const std::vector<Case> cases = {{DType::Float32, {3, 4, 5}, {3, 7, 5}, 1},   // axis larger in indices
                                   {DType::Float32, {3, 4, 5}, {2, 3, 4}, -1},  // smaller everywhere
                                   {DType::Int64, {6}, {9}, 0},
                                   {DType::UInt8, {2, 3, 4, 5}, {2, 3, 4, 2}, 0}};
  OnnxBuilder b;  // every case with int64 and int32 indices, in one model
  io::NamedTensors in;
  int k = 0;
  for (const Case& c : cases)
    for (DType it : {DType::Int64, DType::Int32}) {
      const std::string x = "x" + std::to_string(k), i = "i" + std::to_string(k), y = "y" + std::to_string(k);
      b.input(x, c.dt, c.data).input(i, it, c.idx);
      b.node("GatherElements", {x, i}, {y}, {{"axis", c.axis}}).output(y);
      const int axis = static_cast<int>(c.axis < 0 ? c.axis + static_cast<int64_t>(c.data.size()) : c.axis);
      const double dim = static_cast<double>(c.data[axis]);
      in.emplace_back(x, test::random_tensor(c.dt, c.data, 1 + k, -100, 100));
      in.emplace_back(i, test::random_tensor(it, c.idx, 7 + k, -dim, dim - 1));
      ++k;
    }
  test::expect_matches_reference(b.save(test::scratch_dir(), "ge_c.onnx"), in, 0, 0);
}

TEST(GatherElements, IndexOutOfRangeAtRunTimeFailsTheRun) {
  const auto m = model(DType::Float32, {2, 2}, DType::Int64, {1, 2}, 1, "ge_oob.onnx");
  EXPECT_THROW(test::compile_and_run(m, {{"x", TensorData::from<float>({2, 2}, {1, 2, 3, 4})},
                                         {"i", TensorData::from<int64_t>({1, 2}, {0, -3})}}),
               Error);
}

}  // namespace
}  // namespace mlipc::unit_ops_gather_elements
