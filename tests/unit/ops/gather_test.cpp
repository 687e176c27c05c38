#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "driver/compile.h"
#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc {
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

TEST(Gather, RuntimeDataIsRefusedByTheCBackend) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {4, 3});
  b.initializer("i", TensorData::from<int64_t>({2}, {0, 2}));
  b.node("Gather", {"x", "i"}, {"y"});
  b.output("y");
  const auto model = b.save(test::scratch_dir(), "gather_rt.onnx");
  // The reference evaluator runs it...
  const TensorData x = test::random_tensor(DType::Float32, {4, 3}, 1);
  io::NamedTensors out = test::reference_run(model, {{"x", x}});
  EXPECT_EQ(out[0].second.shape(), (Shape{2, 3}));
  EXPECT_EQ(out[0].second.data<float>()[3], x.data<float>()[6]);
  // ...but there is no CPU kernel.
  try {
    driver::compile_model(model, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("Gather is supported only on constant inputs"));
  }
}

}  // namespace
}  // namespace mlipc
