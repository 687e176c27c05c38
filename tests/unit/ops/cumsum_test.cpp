#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_cumsum {
namespace {

using test::OnnxBuilder;
using ::testing::HasSubstr;

// axis as a constant (const_axis) or a run-time int32 input.
std::filesystem::path model(DType dt, const Shape& in, int64_t axis, bool const_axis, int64_t exclusive, int64_t reverse,
                            const std::string& file) {
  OnnxBuilder b;
  b.input("x", dt, in);
  if (const_axis) b.initializer("a", TensorData::scalar<int64_t>(axis));
  else b.input("a", DType::Int32, {});
  b.node("CumSum", {"x", "a"}, {"y"}, {{"exclusive", exclusive}, {"reverse", reverse}}).output("y");
  return b.save(test::scratch_dir(), file);
}

using test::import_error;

TEST(CumSum, Reference) {
  const TensorData x = TensorData::from<double>({5}, {1, 2, 3, 4, 5});
  auto run = [&](int64_t ex, int64_t rev, const std::string& f) {
    return test::reference_run(model(DType::Float64, {5}, 0, true, ex, rev, f), {{"x", x}})[0].second;
  };
  EXPECT_EQ(run(0, 0, "cs1.onnx"), TensorData::from<double>({5}, {1, 3, 6, 10, 15}));
  EXPECT_EQ(run(1, 0, "cs2.onnx"), TensorData::from<double>({5}, {0, 1, 3, 6, 10}));
  EXPECT_EQ(run(0, 1, "cs3.onnx"), TensorData::from<double>({5}, {15, 14, 12, 9, 5}));
  EXPECT_EQ(run(1, 1, "cs4.onnx"), TensorData::from<double>({5}, {14, 12, 9, 5, 0}));
}

TEST(CumSum, Errors) {
  EXPECT_THAT(import_error(model(DType::Float32, {2, 3}, 2, true, 0, 0, "cs_e1.onnx")),
              HasSubstr("axis 2 is out of range for rank 2"));
  EXPECT_THAT(import_error(model(DType::Int8, {2, 3}, 0, true, 0, 0, "cs_e2.onnx")),
              HasSubstr("has element type int8"));
}

TEST(CumSum, GeneratedCMatchesReference) {
  OnnxBuilder b;  // per type, every axis x exclusive x reverse: one model
  io::NamedTensors in;
  for (DType dt : {DType::Float32, DType::Int32, DType::UInt64}) {
    const std::string x = "x_" + std::string(dtype_name(dt));
    b.input(x, dt, {3, 4, 5});
    in.emplace_back(x, test::random_tensor(dt, {3, 4, 5}, static_cast<uint32_t>(in.size()), 0, 1000));
    for (int64_t axis : {0, -1, 1}) {
      const std::string a = "a" + std::to_string(axis + 1);
      if (dt == DType::Float32) b.initializer(a, TensorData::scalar<int64_t>(axis));
      for (int64_t ex : {0, 1})
        for (int64_t rev : {0, 1}) {
          const std::string y = x + "_" + a + "_" + std::to_string(ex) + std::to_string(rev);
          b.node("CumSum", {x, a}, {y}, {{"exclusive", ex}, {"reverse", rev}}).output(y);
        }
    }
  }
  test::expect_matches_reference(b.save(test::scratch_dir(), "cs_c.onnx"), in, 0, 0);
}

TEST(CumSum, AxisComputedAtRunTime) {
  const auto m = model(DType::Float32, {3, 4, 5}, 0, false, 1, 1, "cs_rt.onnx");
  for (int32_t axis : {0, 2, -2})
    test::expect_matches_reference(m, {{"x", test::random_tensor(DType::Float32, {3, 4, 5}, 3)},
                                       {"a", TensorData::scalar<int32_t>(axis)}},
                                   0, 0);
  EXPECT_THROW(test::compile_and_run(m, {{"x", test::random_tensor(DType::Float32, {3, 4, 5}, 3)},
                                         {"a", TensorData::scalar<int32_t>(3)}}),
               Error);
}

}  // namespace
}  // namespace mlipc::unit_ops_cumsum
