#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_gather {
namespace {

using test::OnnxBuilder;
using ::testing::HasSubstr;

// Gather of constants (folded): returns the folded output.
TensorData gathered(const TensorData& data, const TensorData& idx, int64_t axis) {
  OnnxBuilder b;
  b.initializer("d", data).initializer("i", idx);
  b.node("Gather", {"d", "i"}, {"y"}, {{"axis", axis}});
  b.output("y");
  Graph g = frontend::import_onnx(b.save(test::scratch_dir(), "gather.onnx"));
  EXPECT_TRUE(g.nodes.empty());
  return *g.value(g.outputs[0].value).constant;
}

std::string gather_error(const TensorData& data, const TensorData& idx, int64_t axis) {
  try {
    gathered(data, idx, axis);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Gather, Axis0) {
  const TensorData d = TensorData::from<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(gathered(d, TensorData::from<int64_t>({2, 2}, {0, 1, 1, 2}), 0),
            TensorData::from<float>({2, 2, 2}, {1, 2, 3, 4, 3, 4, 5, 6}));
  // A scalar index drops the axis (the exporters' Shape -> Gather idiom).
  EXPECT_EQ(gathered(TensorData::from<int64_t>({3}, {7, 8, 9}), TensorData::scalar<int64_t>(1), 0),
            TensorData::scalar<int64_t>(8));
}

TEST(Gather, OtherAxesNegativeIndicesAndTypes) {
  const TensorData d = TensorData::from<int16_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(gathered(d, TensorData::from<int32_t>({2}, {-1, 0}), 1), TensorData::from<int16_t>({2, 2}, {3, 1, 6, 4}));
  EXPECT_EQ(gathered(d, TensorData::from<int64_t>({1}, {2}), -1), TensorData::from<int16_t>({2, 1}, {3, 6}));
  const TensorData b = TensorData::from<uint8_t>({3}, {1, 0, 1}).cast(DType::Bool);
  EXPECT_EQ(gathered(b, TensorData::from<int64_t>({2}, {1, -3}), 0), TensorData::from<uint8_t>({2}, {0, 1}).cast(DType::Bool));
  // Empty index tensor.
  EXPECT_EQ(gathered(d, TensorData(DType::Int64, {0}), 0), TensorData(DType::Int16, {0, 3}));
}

TEST(Gather, Errors) {
  const TensorData d = TensorData::from<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_THAT(gather_error(d, TensorData::from<int64_t>({1}, {3}), 0),
              HasSubstr("index 3 is out of range for an axis of size 3 (allowed: [-3, 2])"));
  EXPECT_THAT(gather_error(d, TensorData::from<int64_t>({1}, {-3}), 1), HasSubstr("index -3 is out of range"));
  EXPECT_THAT(gather_error(d, TensorData::from<int64_t>({1}, {0}), 2), HasSubstr("axis 2 is out of range for rank 2"));
  EXPECT_THAT(gather_error(d, TensorData::from<float>({1}, {0}), 0), HasSubstr("has element type float32; supported: int64, int32"));
}

// Gather of run-time data and indices through the generated C.
std::filesystem::path gather_model(DType dt, const Shape& data, DType it, const Shape& idx, int64_t axis,
                                   const std::string& file, bool const_data = false) {
  OnnxBuilder b;
  if (const_data) b.initializer("x", test::random_tensor(dt, data, 9, -50, 50));
  else b.input("x", dt, data);
  b.input("i", it, idx);
  b.node("Gather", {"x", "i"}, {"y"}, {{"axis", axis}}).output("y");
  return b.save(test::scratch_dir(), file);
}

TensorData indices(DType it, const Shape& shape, int64_t dim, uint32_t seed) {
  return test::random_tensor(it, shape, seed, static_cast<double>(-dim), static_cast<double>(dim - 1));
}

TEST(Gather, GeneratedCMatchesReference) {
  struct Case {
    DType dt;
    Shape data;
    DType it;
    Shape idx;
    int64_t axis;
  };
  const std::vector<Case> cases = {
      {DType::Float32, {5, 4, 3}, DType::Int64, {3}, 0},       // rows
      {DType::Float32, {5, 4, 3}, DType::Int32, {2, 3}, 1},    // middle axis, 2-D indices, int32
      {DType::Int64, {4, 7}, DType::Int64, {}, -1},            // scalar index drops the axis
      {DType::UInt8, {3, 3, 5}, DType::Int64, {4, 1}, 2},      // last axis
      {DType::Bool, {6}, DType::Int32, {5}, 0},
      {DType::Float16, {2, 9}, DType::Int64, {0}, 1},          // empty indices
  };
  // All cases in one model: one compile.
  OnnxBuilder b;
  io::NamedTensors in;
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    const std::string x = "x" + std::to_string(k), i = "i" + std::to_string(k), y = "y" + std::to_string(k);
    b.input(x, c.dt, c.data).input(i, c.it, c.idx);
    b.node("Gather", {x, i}, {y}, {{"axis", c.axis}}).output(y);
    const int axis = c.axis < 0 ? static_cast<int>(c.axis) + static_cast<int>(c.data.size()) : static_cast<int>(c.axis);
    in.emplace_back(x, c.dt == DType::Bool ? test::random_tensor(DType::UInt8, c.data, 3 + k, 0, 1).cast(DType::Bool)
                                           : test::random_tensor(c.dt, c.data, 3 + k, -50, 50));
    in.emplace_back(i, indices(c.it, c.idx, c.data[axis], 20 + k));
  }
  test::expect_matches_reference(b.save(test::scratch_dir(), "g_run.onnx"), in, 0, 0);
}

TEST(Gather, EmbeddingLookupOfConstantData) {
  // The data is a constant table (in .rodata), the indices come at run time.
  test::expect_matches_reference(gather_model(DType::Float32, {50, 8}, DType::Int64, {2, 6}, 0, "g_embed.onnx", true),
                                 {{"i", indices(DType::Int64, {2, 6}, 50, 4)}}, 0, 0);
}

TEST(Gather, IndexOutOfRangeAtRunTimeFailsTheRun) {
  const auto model = gather_model(DType::Float32, {4, 3}, DType::Int64, {2}, 0, "g_oob.onnx");
  const io::NamedTensors in = {{"x", test::random_tensor(DType::Float32, {4, 3}, 1)},
                               {"i", TensorData::from<int64_t>({2}, {1, 4})}};
  try {
    test::compile_and_run(model, in);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("the model failed"));
  }
  EXPECT_THROW(test::reference_run(model, in), Error);
}

}  // namespace
}  // namespace mlipc::unit_ops_gather
