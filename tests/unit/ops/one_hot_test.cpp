#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_one_hot {
namespace {

using test::OnnxBuilder;
using ::testing::HasSubstr;

std::filesystem::path model(DType it, const Shape& idx, const TensorData& depth, DType vt, int64_t axis,
                            const std::string& file) {
  OnnxBuilder b;
  b.input("i", it, idx).input("v", vt, {2});
  b.initializer("d", depth);
  b.node("OneHot", {"i", "d", "v"}, {"y"}, {{"axis", axis}}).output("y");
  return b.save(test::scratch_dir(), file);
}

using test::import_error;

TEST(OneHot, Reference) {
  const auto m = model(DType::Int64, {4}, TensorData::scalar<int64_t>(3), DType::Float32, -1, "oh_ref.onnx");
  const TensorData y = test::reference_run(m, {{"i", TensorData::from<int64_t>({4}, {0, -1, 5, 1})},
                                               {"v", TensorData::from<float>({2}, {-1, 7})}})[0].second;
  EXPECT_EQ(y, TensorData::from<float>({4, 3}, {7, -1, -1, -1, -1, 7, -1, -1, -1, -1, 7, -1}));
  // Axis 0, float indices truncated toward zero.
  const auto m2 = model(DType::Float32, {2}, TensorData::scalar<float>(2.7f), DType::Int32, 0, "oh_ref2.onnx");
  const TensorData y2 = test::reference_run(m2, {{"i", TensorData::from<float>({2}, {1.9f, -0.5f})},
                                                 {"v", TensorData::from<int32_t>({2}, {0, 1})}})[0].second;
  EXPECT_EQ(y2, TensorData::from<int32_t>({2, 2}, {0, 1, 1, 0}));
}

TEST(OneHot, Errors) {
  EXPECT_THAT(import_error(model(DType::Int64, {4}, TensorData::scalar<int64_t>(-2), DType::Float32, -1, "oh_e1.onnx")),
              HasSubstr("depth -2 must be a non-negative number"));
  EXPECT_THAT(import_error(model(DType::Int64, {4}, TensorData::scalar<int64_t>(3), DType::Float32, 2, "oh_e2.onnx")),
              HasSubstr("axis 2 is out of range for rank 2"));
  OnnxBuilder b;
  b.input("i", DType::Int64, {3}).input("d", DType::Int64, {}).input("v", DType::Float32, {2});
  b.node("OneHot", {"i", "d", "v"}, {"y"}).output("y");
  EXPECT_THAT(import_error(b.save(test::scratch_dir(), "oh_e3.onnx")),
              HasSubstr("input #1 ('d', depth) must be a constant known at compile time: the output shape depends"));
}

TEST(OneHot, RuntimeDepthWithADeclaredOutputShape) {
  OnnxBuilder b;
  b.input("i", DType::Int64, {3}).input("d", DType::Float32, {1}).input("v", DType::Float32, {2});
  b.node("OneHot", {"i", "d", "v"}, {"y"}, {{"axis", int64_t{0}}}).declare("y", DType::Float32, {5, 3}).output("y");
  const auto m = b.save(test::scratch_dir(), "oh_rt.onnx");
  const TensorData i = TensorData::from<int64_t>({3}, {4, -1, 7}), v = TensorData::from<float>({2}, {0, 3});
  test::expect_matches_reference(m, {{"i", i}, {"d", TensorData::from<float>({1}, {5.5f})}, {"v", v}}, 0, 0);
  EXPECT_THROW(test::compile_and_run(m, {{"i", i}, {"d", TensorData::from<float>({1}, {6})}, {"v", v}}), Error);
}

TEST(OneHot, GeneratedCMatchesReference) {
  struct Case {
    DType it;
    Shape idx;
    int64_t axis;
    DType vt;
  };
  const std::vector<Case> cases = {{DType::Int64, {5}, -1, DType::Float32},
                                   {DType::Int32, {2, 3}, 1, DType::Int64},
                                   {DType::Float32, {2, 2}, 0, DType::Float32},
                                   {DType::UInt8, {4}, -2, DType::UInt8},
                                   {DType::UInt64, {3}, -1, DType::Float32},
                                   {DType::Int8, {2, 2, 2}, 2, DType::Bool}};
  OnnxBuilder b;  // all cases in one model, depth 6
  b.initializer("d", TensorData::scalar<int64_t>(6));
  io::NamedTensors in;
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    const std::string p = std::to_string(k);
    b.input("i" + p, c.it, c.idx).input("v" + p, c.vt, {2});
    b.node("OneHot", {"i" + p, "d", "v" + p}, {"y" + p}, {{"axis", c.axis}}).output("y" + p);
    // Indices in range, negative, and out of range on both sides.
    TensorData idx = test::random_tensor(c.it, c.idx, 30 + k, dtype_is_signed(c.it) ? -9 : 0, 9);
    if (c.it == DType::UInt64) idx.data<uint64_t>()[0] = ~uint64_t{0};  // beyond INT64_MAX: out of range
    in.emplace_back("i" + p, idx);
    in.emplace_back("v" + p, c.vt == DType::Bool ? TensorData::from<uint8_t>({2}, {0, 1}).cast(DType::Bool)
                                                 : test::random_tensor(c.vt, {2}, k, 0, 100));
  }
  // Float indices: fractions, NaN, infinities (depth 4, as a float).
  b.initializer("d4", TensorData::from<float>({1}, {4.0f}));
  b.input("fi", DType::Float32, {8}).input("fv", DType::Float32, {2});
  b.node("OneHot", {"fi", "d4", "fv"}, {"fy"}).output("fy");
  in.emplace_back("fi", TensorData::from<float>({8}, {0.5f, -0.5f, -4.9f, -5.0f, 3.99f, 4.0f, std::nanf(""), -INFINITY}));
  in.emplace_back("fv", TensorData::from<float>({2}, {0, 1}));
  test::expect_matches_reference(b.save(test::scratch_dir(), "oh_c.onnx"), in, 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_one_hot
