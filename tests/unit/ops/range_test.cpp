#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_range {
namespace {

using test::OnnxBuilder;
using ::testing::HasSubstr;

template <class T>
std::filesystem::path model(T start, T limit, T delta, const std::string& file) {
  OnnxBuilder b;
  b.initializer("s", TensorData::scalar<T>(start)).initializer("l", TensorData::scalar<T>(limit));
  b.initializer("d", TensorData::scalar<T>(delta));
  b.node("Range", {"s", "l", "d"}, {"y"}).output("y");
  return b.save(test::scratch_dir(), file);
}

TensorData folded(const std::filesystem::path& p) {
  Graph g = frontend::import_onnx(p);
  EXPECT_TRUE(g.nodes.empty());
  return *g.value(g.outputs[0].value).constant;
}

using test::import_error;

TEST(Range, FoldsOnConstants) {
  EXPECT_EQ(folded(model<float>(1, 5, 2, "r1.onnx")), TensorData::from<float>({2}, {1, 3}));
  EXPECT_EQ(folded(model<int32_t>(10, 4, -3, "r2.onnx")), TensorData::from<int32_t>({2}, {10, 7}));
  EXPECT_EQ(folded(model<int64_t>(3, 3, 1, "r3.onnx")), TensorData(DType::Int64, {0}));
  EXPECT_EQ(folded(model<int64_t>(0, 5, -1, "r4.onnx")), TensorData(DType::Int64, {0}));
  EXPECT_EQ(folded(model<double>(0, 1, 0.25, "r5.onnx")), TensorData::from<double>({4}, {0, 0.25, 0.5, 0.75}));
}

TEST(Range, Errors) {
  EXPECT_THAT(import_error(model<int64_t>(0, 5, 0, "r_e1.onnx")), HasSubstr("delta is 0"));
  OnnxBuilder b;  // a run-time limit: the length depends on it
  b.initializer("s", TensorData::scalar<int64_t>(0)).input("l", DType::Int64, {});
  b.initializer("d", TensorData::scalar<int64_t>(1));
  b.node("Range", {"s", "l", "d"}, {"y"}).output("y");
  EXPECT_THAT(import_error(b.save(test::scratch_dir(), "r_e2.onnx")),
              HasSubstr("input #1 ('l', limit) must be a constant known at compile time: the output shape depends"));
}

TEST(Range, RuntimeValuesWithADeclaredLength) {
  for (DType t : {DType::Float32, DType::Int32, DType::Int64, DType::Int16, DType::Float64}) {
    SCOPED_TRACE(dtype_name(t));
    OnnxBuilder b;
    b.input("s", t, {}).input("l", t, {}).input("d", t, {});
    b.node("Range", {"s", "l", "d"}, {"y"}).declare("y", t, {4}).output("y");
    const auto m = b.save(test::scratch_dir(), "r_rt_" + std::string(dtype_name(t)) + ".onnx");
    auto scalar = [&](double v) { return TensorData::scalar<double>(v).cast(t); };
    test::expect_matches_reference(m, {{"s", scalar(10)}, {"l", scalar(2)}, {"d", scalar(-2)}}, 0, 0);  // 10 8 6 4
    EXPECT_THROW(test::compile_and_run(m, {{"s", scalar(0)}, {"l", scalar(5)}, {"d", scalar(1)}}), Error);
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_range
