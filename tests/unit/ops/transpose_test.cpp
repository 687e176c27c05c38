#include <algorithm>
#include <optional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_transpose {
namespace {

using test::ints;
using test::OnnxBuilder;
using ::testing::HasSubstr;

std::filesystem::path transpose_model(const Shape& shape, const ints* perm, DType dt, const std::string& file) {
  OnnxBuilder b;
  b.input("x", dt, shape);
  if (perm) b.node("Transpose", {"x"}, {"y"}, {{"perm", *perm}});
  else b.node("Transpose", {"x"}, {"y"});
  b.output("y");
  return b.save(test::scratch_dir(), file);
}

using test::import_error;

TEST(Transpose, ShapeRule) {
  const ints perm = {0, 2, 3, 1};
  Graph g = frontend::import_onnx(transpose_model({1, 3, 4, 5}, &perm, DType::Float32, "t_s1.onnx"));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{1, 4, 5, 3}));
  g = frontend::import_onnx(transpose_model({2, 3, 4}, nullptr, DType::Float32, "t_s2.onnx"));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{4, 3, 2}));  // default: reversed
}

TEST(Transpose, ShapeErrors) {
  const ints short_perm = {1, 0};
  EXPECT_THAT(import_error(transpose_model({2, 3, 4}, &short_perm, DType::Float32, "t_e1.onnx")),
              HasSubstr("perm [1,0] has 2 entries but the input has rank 3"));
  const ints dup = {0, 0, 1};
  EXPECT_THAT(import_error(transpose_model({2, 3, 4}, &dup, DType::Float32, "t_e2.onnx")),
              HasSubstr("perm [0,0,1] is not a permutation of 0..2"));
  const ints neg = {-1, 0, 1};
  EXPECT_THAT(import_error(transpose_model({2, 3, 4}, &neg, DType::Float32, "t_e3.onnx")),
              HasSubstr("not a permutation"));
}

TEST(Transpose, Reference) {
  io::NamedTensors in = {{"x", TensorData::from<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6})}};
  io::NamedTensors out = test::reference_run(transpose_model({2, 3}, nullptr, DType::Int32, "t_ref.onnx"), in);
  EXPECT_EQ(out[0].second, TensorData::from<int32_t>({3, 2}, {1, 4, 2, 5, 3, 6}));

  const ints perm = {1, 2, 0};
  in = {{"x", TensorData::from<int64_t>({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7})}};
  out = test::reference_run(transpose_model({2, 2, 2}, &perm, DType::Int64, "t_ref2.onnx"), in);
  // y[i][j][k] = x[k][i][j]
  EXPECT_EQ(out[0].second, TensorData::from<int64_t>({2, 2, 2}, {0, 4, 1, 5, 2, 6, 3, 7}));
}

TEST(Transpose, GeneratedCMatchesReference) {
  struct Case {
    Shape shape;
    std::optional<ints> perm;
    DType dt;
  };
  const std::vector<Case> cases = {
      {{1, 3, 4, 5}, ints{0, 2, 3, 1}, DType::Float32},  // NCHW -> NHWC
      {{2, 3, 4, 5}, ints{3, 1, 0, 2}, DType::Int16},
      {{2, 3, 4}, std::nullopt, DType::Float64},          // default perm
      {{2, 1, 3, 1, 2}, ints{4, 3, 2, 1, 0}, DType::Int8},  // size-1 axes
      {{3, 4}, ints{0, 1}, DType::UInt32},                  // identity permutation
      {{2, 0, 3}, ints{2, 0, 1}, DType::Float32},           // empty
      {{7}, ints{0}, DType::Bool},
  };
  int k = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(k);
    io::NamedTensors in = {{"x", test::random_tensor(c.dt, c.shape, 7, -50, 50)}};
    test::expect_matches_reference(
        transpose_model(c.shape, c.perm ? &*c.perm : nullptr, c.dt, "t_run" + std::to_string(k++) + ".onnx"), in, 0, 0);
  }
}

TEST(Transpose, AllPermutationsOfRank4) {
  // Every permutation against the reference in one model: 24 outputs.
  OnnxBuilder b;
  const Shape shape = {2, 3, 4, 5};
  b.input("x", DType::Float32, shape);
  ints perm = {0, 1, 2, 3};
  int k = 0;
  do {
    const std::string y = "y" + std::to_string(k++);
    b.node("Transpose", {"x"}, {y}, {{"perm", perm}});
    b.output(y);
  } while (std::next_permutation(perm.begin(), perm.end()));
  io::NamedTensors in = {{"x", test::random_tensor(DType::Float32, shape, 3)}};
  test::expect_matches_reference(b.save(test::scratch_dir(), "t_all.onnx"), in, 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_transpose
