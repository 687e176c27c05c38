// GlobalAveragePool, GlobalMaxPool: shape rule, reference kernel, and the
// generated C against the reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_global_pool {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test::OnnxBuilder;
using test::random_tensor;

fs::path global_model(const std::string& op, const Shape& x, DType dtype = DType::Float32) {
  OnnxBuilder m;
  m.input("x", dtype, x);
  m.node(op, {"x"}, {"y"});
  m.output("y");
  return m.save(test::scratch_dir(), op + "_" + std::to_string(x.size()) + "_" + std::string(dtype_name(dtype)) + ".onnx");
}

using test::import_error;

TEST(GlobalPool, ShapeRule) {
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
    Graph g = frontend::import_onnx(global_model(op, {2, 3, 4, 5, 6}));
    EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 3, 1, 1, 1})) << op;
    Graph g1 = frontend::import_onnx(global_model(op, {2, 3, 4}));
    EXPECT_EQ(g1.value(g1.outputs[0].value).shape, (Shape{2, 3, 1})) << op;
  }
}

TEST(GlobalPool, ShapeRuleErrors) {
  EXPECT_THAT(import_error(global_model("GlobalMaxPool", {2, 3})), HasSubstr("at least one spatial axis"));
  EXPECT_THAT(import_error(global_model("GlobalAveragePool", {1, 1, 4}, DType::Int32)), HasSubstr("element type int32"));
}

TEST(GlobalPool, Reference) {
  TensorData x = TensorData::from<float>({1, 2, 2, 2}, {1, 2, 3, 4, -5, -6, -7, -8});
  EXPECT_EQ(test::reference_run(global_model("GlobalAveragePool", {1, 2, 2, 2}), {{"x", x}})[0].second,
            TensorData::from<float>({1, 2, 1, 1}, {2.5f, -6.5f}));
  EXPECT_EQ(test::reference_run(global_model("GlobalMaxPool", {1, 2, 2, 2}), {{"x", x}})[0].second,
            TensorData::from<float>({1, 2, 1, 1}, {4, -5}));
}

TEST(GlobalPool, GeneratedCMatchesReference) {
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"})
    for (const Shape& x : {Shape{2, 3, 7}, Shape{1, 4, 5, 6}, Shape{2, 2, 3, 4, 5}}) {
      SCOPED_TRACE(std::string(op) + " " + shape_str(x));
      test::expect_matches_reference(global_model(op, x), {{"x", random_tensor(DType::Float32, x, 9)}});
    }
}

}  // namespace
}  // namespace mlipc::unit_ops_global_pool
