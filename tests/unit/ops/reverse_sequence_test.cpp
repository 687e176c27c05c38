#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_reverse_sequence {
namespace {

using test::OnnxBuilder;
using ::testing::HasSubstr;

std::filesystem::path model(DType dt, const Shape& in, int64_t time_axis, int64_t batch_axis, const std::string& file) {
  OnnxBuilder b;
  b.input("x", dt, in).input("l", DType::Int64, {in[static_cast<size_t>(batch_axis)]});
  b.node("ReverseSequence", {"x", "l"}, {"y"}, {{"time_axis", time_axis}, {"batch_axis", batch_axis}}).output("y");
  return b.save(test::scratch_dir(), file);
}

using test::import_error;

TEST(ReverseSequence, Reference) {
  // time_axis 0, batch_axis 1 (the spec's example).
  const auto m = model(DType::Float32, {4, 4}, 0, 1, "rs_ref.onnx");
  const TensorData y =
      test::reference_run(m, {{"x", TensorData::from<float>({4, 4}, {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15})},
                              {"l", TensorData::from<int64_t>({4}, {4, 3, 2, 1})}})[0].second;
  EXPECT_EQ(y, TensorData::from<float>({4, 4}, {3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15}));
}

TEST(ReverseSequence, Errors) {
  EXPECT_THAT(import_error(model(DType::Float32, {4, 4}, 0, 0, "rs_e1.onnx")),
              HasSubstr("time_axis 0 and batch_axis 0 must be 0 and 1 in some order"));
  EXPECT_THAT(import_error(model(DType::Float32, {4}, 0, 0, "rs_e2.onnx")), HasSubstr("must have rank 2 or more"));
}

TEST(ReverseSequence, GeneratedCMatchesReference) {
  OnnxBuilder m;  // both layouts, two element types, in one model
  io::NamedTensors in;
  int k = 0;
  for (int64_t t : {0, 1})
    for (DType dt : {DType::Float32, DType::Int8}) {
      const std::string p = std::to_string(k);
      const Shape s = {5, 3, 2, 2};
      const int64_t batch = s[static_cast<size_t>(1 - t)], time = s[static_cast<size_t>(t)];
      m.input("x" + p, dt, s).input("l" + p, DType::Int64, {batch});
      m.node("ReverseSequence", {"x" + p, "l" + p}, {"y" + p}, {{"time_axis", t}, {"batch_axis", 1 - t}}).output("y" + p);
      in.emplace_back("x" + p, test::random_tensor(dt, s, k, -100, 100));
      in.emplace_back("l" + p, test::random_tensor(DType::Int64, {batch}, 10 + k, 0, static_cast<double>(time)));
      ++k;
    }
  test::expect_matches_reference(m.save(test::scratch_dir(), "rs_c.onnx"), in, 0, 0);
  // A length beyond the time axis fails the run.
  EXPECT_THROW(test::compile_and_run(model(DType::Float32, {3, 2}, 0, 1, "rs_oob.onnx"),
                                     {{"x", test::random_tensor(DType::Float32, {3, 2}, 1)},
                                      {"l", TensorData::from<int64_t>({2}, {1, 4})}}),
               Error);
}

}  // namespace
}  // namespace mlipc::unit_ops_reverse_sequence
