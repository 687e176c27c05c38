#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_gather_nd {
namespace {

using test::OnnxBuilder;
using ::testing::HasSubstr;

std::filesystem::path model(DType dt, const Shape& data, const Shape& idx, int64_t batch_dims, const std::string& file,
                            DType it = DType::Int64) {
  OnnxBuilder b;
  b.input("x", dt, data).input("i", it, idx);
  b.node("GatherND", {"x", "i"}, {"y"}, {{"batch_dims", batch_dims}}).output("y");
  return b.save(test::scratch_dir(), file);
}

using test::import_error;

TensorData run_ref(const std::filesystem::path& m, const TensorData& x, const TensorData& i) {
  return test::reference_run(m, {{"x", x}, {"i", i}})[0].second;
}

TEST(GatherND, ReferenceOnTheSpecExamples) {
  const TensorData d22 = TensorData::from<int32_t>({2, 2}, {0, 1, 2, 3});
  EXPECT_EQ(run_ref(model(DType::Int32, {2, 2}, {2, 2}, 0, "gnd1.onnx"), d22, TensorData::from<int64_t>({2, 2}, {0, 0, 1, 1})),
            TensorData::from<int32_t>({2}, {0, 3}));
  EXPECT_EQ(run_ref(model(DType::Int32, {2, 2}, {2, 1}, 0, "gnd2.onnx"), d22, TensorData::from<int64_t>({2, 1}, {1, 0})),
            TensorData::from<int32_t>({2, 2}, {2, 3, 0, 1}));
  const TensorData d222 = TensorData::from<int32_t>({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(run_ref(model(DType::Int32, {2, 2, 2}, {2, 1, 2}, 0, "gnd3.onnx"), d222,
                    TensorData::from<int64_t>({2, 1, 2}, {0, 1, 1, 0})),
            TensorData::from<int32_t>({2, 1, 2}, {2, 3, 4, 5}));
  EXPECT_EQ(run_ref(model(DType::Int32, {2, 2, 2}, {2, 1}, 1, "gnd4.onnx"), d222, TensorData::from<int64_t>({2, 1}, {1, 0})),
            TensorData::from<int32_t>({2, 2}, {2, 3, 4, 5}));  // batch_dims 1
  EXPECT_EQ(run_ref(model(DType::Int32, {2, 2}, {1, 2}, 0, "gnd5.onnx"), d22, TensorData::from<int64_t>({1, 2}, {-1, -2})),
            TensorData::from<int32_t>({1}, {2}));  // negative coordinates
}

TEST(GatherND, Errors) {
  EXPECT_THAT(import_error(model(DType::Float32, {2, 2}, {2, 3}, 0, "gnde1.onnx")),
              HasSubstr("indices' last axis has length 3; it must be in [1, 2]"));
  EXPECT_THAT(import_error(model(DType::Float32, {2, 2}, {3, 1}, 1, "gnde2.onnx")),
              HasSubstr("batch axis 0 differs"));
  EXPECT_THAT(import_error(model(DType::Float32, {2, 2}, {2, 1}, 2, "gnde3.onnx")),
              HasSubstr("batch_dims 2 must be in [0, 2)"));
}

TEST(GatherND, GeneratedCMatchesReference) {
  struct Case {
    DType dt;
    Shape data, idx;
    int64_t b;
  };
  const std::vector<Case> cases = {{DType::Float32, {4, 5, 3}, {6, 2}, 0},
                                   {DType::Float32, {4, 5, 3}, {2, 3, 3}, 0},  // full coordinates: elements
                                   {DType::Int64, {3, 4, 5}, {3, 2, 1}, 1},
                                   {DType::UInt8, {2, 3, 4, 2}, {2, 3, 5, 1}, 2},
                                   {DType::Float16, {3, 4}, {0, 1}, 0}};
  OnnxBuilder b;  // every case with int64 and int32 indices, in one model
  io::NamedTensors in;
  int k = 0;
  for (const Case& c : cases) {
    // Coordinates valid for the smallest indexed axis, negative ones included.
    int64_t lo = c.data[c.b];
    for (int64_t d = c.b; d < c.b + c.idx.back(); ++d) lo = std::min(lo, c.data[static_cast<size_t>(d)]);
    for (DType it : {DType::Int64, DType::Int32}) {
      const std::string x = "x" + std::to_string(k), i = "i" + std::to_string(k), y = "y" + std::to_string(k);
      b.input(x, c.dt, c.data).input(i, it, c.idx);
      b.node("GatherND", {x, i}, {y}, {{"batch_dims", c.b}}).output(y);
      in.emplace_back(x, test::random_tensor(c.dt, c.data, k, -50, 50));
      in.emplace_back(i, test::random_tensor(it, c.idx, 9 + k, static_cast<double>(-lo), static_cast<double>(lo - 1)));
      ++k;
    }
  }
  test::expect_matches_reference(b.save(test::scratch_dir(), "gnd_c.onnx"), in, 0, 0);
}

TEST(GatherND, CoordinateOutOfRangeAtRunTimeFailsTheRun) {
  const auto m = model(DType::Float32, {2, 3}, {1, 2}, 0, "gnd_oob.onnx");
  EXPECT_THROW(test::compile_and_run(m, {{"x", test::random_tensor(DType::Float32, {2, 3}, 1)},
                                         {"i", TensorData::from<int64_t>({1, 2}, {1, 3})}}),
               Error);
}

}  // namespace
}  // namespace mlipc::unit_ops_gather_nd
