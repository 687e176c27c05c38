#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_expand {
namespace {

using test::ints;
using test::OnnxBuilder;
using ::testing::HasSubstr;

std::filesystem::path model(DType dt, const Shape& in, const ints& shape, const std::string& file) {
  OnnxBuilder b;
  b.input("x", dt, in);
  b.initializer("s", TensorData::from<int64_t>({static_cast<int64_t>(shape.size())}, shape));
  b.node("Expand", {"x", "s"}, {"y"}).output("y");
  return b.save(test::scratch_dir(), file);
}

using test::import_error;

TEST(Expand, ShapeRule) {
  auto shape_of = [](const std::filesystem::path& p) {
    Graph g = frontend::import_onnx(p);
    return g.value(g.outputs[0].value).shape;
  };
  EXPECT_EQ(shape_of(model(DType::Float32, {3, 1}, {2, 1, 6}, "ex1.onnx")), (Shape{2, 3, 6}));
  EXPECT_EQ(shape_of(model(DType::Float32, {3, 1}, {4}, "ex2.onnx")), (Shape{3, 4}));
  EXPECT_EQ(shape_of(model(DType::Float32, {3, 4}, {1, 1}, "ex3.onnx")), (Shape{3, 4}));  // shape smaller: kept
  EXPECT_THAT(import_error(model(DType::Float32, {3, 4}, {2, 4}, "ex4.onnx")), HasSubstr("cannot be broadcast"));
  EXPECT_THAT(import_error(model(DType::Float32, {3}, {-1}, "ex5.onnx")), HasSubstr("has a negative entry"));
  OnnxBuilder b;
  b.input("x", DType::Float32, {3}).input("s", DType::Int64, {2});
  b.node("Expand", {"x", "s"}, {"y"}).output("y");
  EXPECT_THAT(import_error(b.save(test::scratch_dir(), "ex6.onnx")),
              HasSubstr("input #1 ('s', shape) must be a constant known at compile time: the output shape depends"));
}

TEST(Expand, RuntimeShapeWithADeclaredOutputShape) {
  OnnxBuilder b;
  b.input("x", DType::Int32, {3, 1}).input("s", DType::Int64, {3});
  b.node("Expand", {"x", "s"}, {"y"}).declare("y", DType::Int32, {2, 3, 4}).output("y");
  const auto m = b.save(test::scratch_dir(), "ex_rt.onnx");
  const TensorData x = TensorData::from<int32_t>({3, 1}, {1, 2, 3});
  for (const ints& s : {ints{2, 3, 4}, ints{2, 1, 4}})  // both give [2, 3, 4]
    test::expect_matches_reference(m, {{"x", x}, {"s", TensorData::from<int64_t>({3}, s)}}, 0, 0);
  EXPECT_THROW(test::compile_and_run(m, {{"x", x}, {"s", TensorData::from<int64_t>({3}, {2, 3, 5})}}), Error);
  OnnxBuilder c;  // no shape gives [2, 4, 4] from [3, 1]
  c.input("x", DType::Int32, {3, 1}).input("s", DType::Int64, {3});
  c.node("Expand", {"x", "s"}, {"y"}).declare("y", DType::Int32, {2, 4, 4}).output("y");
  EXPECT_THAT(import_error(c.save(test::scratch_dir(), "ex_rt_bad.onnx")),
              HasSubstr("the model declares the output [2,4,4], which no shape of 3 entries gives for the input [3,1]"));
}

TEST(Expand, GeneratedCMatchesReference) {
  struct Case {
    DType dt;
    Shape in;
    ints shape;
  };
  const std::vector<Case> cases = {{DType::Float32, {3, 1}, {2, 3, 5}},
                                   {DType::Int64, {1, 4, 1}, {3, 1, 2}},
                                   {DType::Bool, {2}, {3, 2}},
                                   {DType::Float32, {2, 3}, {2, 3}},   // no broadcasting: a copy
                                   {DType::UInt8, {1}, {0, 4}}};       // empty
  OnnxBuilder b;  // all cases in one model
  io::NamedTensors in;
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    const std::string p = std::to_string(k);
    b.input("x" + p, c.dt, c.in);
    b.initializer("s" + p, TensorData::from<int64_t>({static_cast<int64_t>(c.shape.size())}, c.shape));
    b.node("Expand", {"x" + p, "s" + p}, {"y" + p}).output("y" + p);
    in.emplace_back("x" + p, c.dt == DType::Bool ? test::random_tensor(DType::UInt8, c.in, k, 0, 1).cast(DType::Bool)
                                                 : test::random_tensor(c.dt, c.in, k, 0, 100));
  }
  test::expect_matches_reference(b.save(test::scratch_dir(), "ex_c.onnx"), in, 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_expand
