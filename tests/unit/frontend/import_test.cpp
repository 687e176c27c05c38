#include "frontend/onnx_import.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/error.h"
#include "support/file_util.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

using ::testing::HasSubstr;

namespace mlipc::frontend::unit_frontend_import {
namespace {

using test::ints;
using test::OnnxBuilder;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Import, DynamicDimensionNeedsInputShapes) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {-1, 3});
  b.node("Relu", {"x"}, {"y"});
  b.output("y");
  auto p = b.save(test::scratch_dir(), "dyn.onnx");
  EXPECT_THAT(error_of([&] { import_onnx(p); }), HasSubstr("--input-shapes x:[1,3]"));
  ImportOptions o;
  o.input_shapes = parse_input_shapes("x:[5,3]");
  Graph g = import_onnx(p, o);
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{5, 3}));
  o.input_shapes = parse_input_shapes("x:[5,4]");
  EXPECT_THAT(error_of([&] { import_onnx(p, o); }), HasSubstr("fixes axis 1 to 3"));
  o.input_shapes = parse_input_shapes("z:[1]");
  EXPECT_THAT(error_of([&] { import_onnx(p, o); }), HasSubstr("'z', which is not an input"));
}

TEST(Import, InputShapesSyntax) {
  auto m = parse_input_shapes("a:[1,3,224,224] b:[10]  c:[]");
  EXPECT_EQ(m["a"], (Shape{1, 3, 224, 224}));
  EXPECT_EQ(m["b"], (Shape{10}));
  EXPECT_EQ(m["c"], (Shape{}));
  EXPECT_THROW(parse_input_shapes("a:[1,x]"), Error);
  EXPECT_THROW(parse_input_shapes("a[1]"), Error);
  EXPECT_THROW(parse_input_shapes("a:[1"), Error);
  EXPECT_THROW(parse_input_shapes("a:[-1]"), Error);
}

// An omitted trailing output is dropped; one before a named output keeps storage.
TEST(Import, OmittedOutputs) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 1, 4, 4});
  b.node("MaxPool", {"x"}, {"y", ""}, {{"kernel_shape", ints{2, 2}}});
  b.node("Dropout", {"y"}, {"", "mask"});
  b.output("y");
  b.output("mask");
  auto p = b.save(test::scratch_dir(), "omitted.onnx");
  Graph g = import_onnx(p);
  io::NamedTensors in = {{"x", test::random_tensor(DType::Float32, {1, 1, 4, 4}, 3)}};
  io::NamedTensors out = test::compile_and_run(p, in);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].second.dtype(), DType::Bool);
}

// Opset 1 forms: Reshape's shape attribute, Cast's type name.
TEST(Import, OldestOpsets) {
  OnnxBuilder b(1);
  b.input("x", DType::Float32, {2, 3});
  b.node("Reshape", {"x"}, {"r"}, {{"shape", ints{3, 2}}});
  b.node("Cast", {"r"}, {"y"}, {{"to", std::string("INT32")}});
  b.output("y");
  auto p = b.save(test::scratch_dir(), "opset1.onnx");
  io::NamedTensors in = {{"x", TensorData::from<float>({2, 3}, {1.5f, -2.5f, 3, 4, 5, 6})}};
  Graph g = import_onnx(p);
  EXPECT_EQ(g.value(g.outputs[0].value).dtype, DType::Int32);
  io::NamedTensors ref = test::reference_run(p, in);
  EXPECT_EQ(ref[0].second.as_int64(), (std::vector<int64_t>{1, -2, 3, 4, 5, 6}));
  EXPECT_EQ(ref[0].second.shape(), (Shape{3, 2}));
}

TEST(Import, RejectsWhatItCannotRead) {
  OnnxBuilder b(20);
  b.input("x", DType::Float32, {2});
  b.node("Relu", {"x"}, {"y"});
  b.output("y");
  auto p = b.save(test::scratch_dir(), "opset20.onnx");
  EXPECT_THAT(error_of([&] { import_onnx(p); }), HasSubstr("opset 20 is not supported (mlipc reads opsets 1 to 19)"));
  write_file(test::scratch_dir() / "empty.onnx", "");
  EXPECT_THAT(error_of([&] { import_onnx(test::scratch_dir() / "empty.onnx"); }), HasSubstr("not an ONNX model"));
  OnnxBuilder c;
  c.input("x", DType::Float32, {2});
  c.node("Relu", {"nope"}, {"y"}, {}, "r");
  c.output("y");
  auto q = c.save(test::scratch_dir(), "undefined.onnx");
  EXPECT_THAT(error_of([&] { import_onnx(q); }), HasSubstr("node 'r' (Relu): input 'nope' is not produced"));
}

}  // namespace
}  // namespace mlipc::frontend::unit_frontend_import
