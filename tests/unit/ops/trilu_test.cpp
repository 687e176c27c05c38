#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_trilu {
namespace {

using test::OnnxBuilder;
using ::testing::HasSubstr;

// k: none, a constant, or a run-time input.
enum class K { None, Const, Input };

std::filesystem::path model(DType dt, const Shape& in, int64_t upper, K k, int64_t kval, const std::string& file) {
  OnnxBuilder b;
  b.input("x", dt, in);
  std::vector<std::string> ins = {"x"};
  if (k == K::Const) b.initializer("k", TensorData::scalar<int64_t>(kval));
  if (k == K::Input) b.input("k", DType::Int64, {});
  if (k != K::None) ins.push_back("k");
  b.node("Trilu", ins, {"y"}, {{"upper", upper}}).output("y");
  return b.save(test::scratch_dir(), file);
}

using test::import_error;

TEST(Trilu, Reference) {
  const TensorData x = TensorData::from<int32_t>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto run = [&](int64_t upper, int64_t k, const std::string& f) {
    return test::reference_run(model(DType::Int32, {3, 3}, upper, K::Const, k, f), {{"x", x}})[0].second;
  };
  EXPECT_EQ(run(1, 0, "tr1.onnx"), TensorData::from<int32_t>({3, 3}, {1, 2, 3, 0, 5, 6, 0, 0, 9}));
  EXPECT_EQ(run(0, 0, "tr2.onnx"), TensorData::from<int32_t>({3, 3}, {1, 0, 0, 4, 5, 0, 7, 8, 9}));
  EXPECT_EQ(run(1, 1, "tr3.onnx"), TensorData::from<int32_t>({3, 3}, {0, 2, 3, 0, 0, 6, 0, 0, 0}));
  EXPECT_EQ(run(0, -1, "tr4.onnx"), TensorData::from<int32_t>({3, 3}, {0, 0, 0, 4, 0, 0, 7, 8, 0}));
}

TEST(Trilu, Errors) {
  EXPECT_THAT(import_error(model(DType::Float32, {4}, 1, K::None, 0, "tr_e1.onnx")), HasSubstr("must have rank 2 or more"));
  EXPECT_THAT(import_error(model(DType::Float32, {2, 2}, 2, K::None, 0, "tr_e2.onnx")), HasSubstr("upper is 2"));
}

TEST(Trilu, GeneratedCMatchesReference) {
  OnnxBuilder b;  // both triangles x three element types x k none/constant: one model
  io::NamedTensors in;
  b.initializer("k", TensorData::scalar<int64_t>(-1));
  int n = 0;
  for (DType dt : {DType::Float32, DType::Int64, DType::UInt8}) {
    const std::string x = "x" + std::to_string(n);
    b.input(x, dt, {2, 4, 5});
    in.emplace_back(x, test::random_tensor(dt, {2, 4, 5}, n + 1, 1, 100));
    for (int64_t upper : {0, 1})
      for (bool with_k : {false, true}) {
        const std::string y = "y" + std::to_string(n++);
        b.node("Trilu", with_k ? std::vector<std::string>{x, "k"} : std::vector<std::string>{x}, {y}, {{"upper", upper}})
            .output(y);
      }
  }
  test::expect_matches_reference(b.save(test::scratch_dir(), "tr_c.onnx"), in, 0, 0);
  // k computed at run time, extreme values included (one model, run five times).
  const auto m = model(DType::Float32, {3, 6}, 1, K::Input, 0, "tr_rt.onnx");
  for (int64_t k : {int64_t{-2}, int64_t{3}, int64_t{7}, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()})
    test::expect_matches_reference(m, {{"x", test::random_tensor(DType::Float32, {3, 6}, 5)}, {"k", TensorData::scalar<int64_t>(k)}},
                                   0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_trilu
