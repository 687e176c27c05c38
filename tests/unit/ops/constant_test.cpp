#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_constant {
namespace {

using test::OnnxBuilder;
using ::testing::HasSubstr;

Graph constant_graph(const std::vector<std::pair<std::string, AttrValue>>& attrs) {
  OnnxBuilder b;
  b.node("Constant", {}, {"y"}, attrs);
  b.output("y");
  return frontend::import_onnx(b.save(test::scratch_dir(), "const.onnx"));
}

TensorData constant_of(const std::vector<std::pair<std::string, AttrValue>>& attrs) {
  Graph g = constant_graph(attrs);
  EXPECT_TRUE(g.nodes.empty());  // always folded
  return *g.value(g.outputs[0].value).constant;
}

std::string constant_error(const std::vector<std::pair<std::string, AttrValue>>& attrs) {
  try {
    constant_graph(attrs);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Constant, EachValueAttribute) {
  const TensorData t = TensorData::from<int8_t>({2, 2}, {1, -2, 3, -4});
  EXPECT_EQ(constant_of({{"value", t}}), t);
  EXPECT_EQ(constant_of({{"value_float", 2.5f}}), TensorData::scalar<float>(2.5f));
  EXPECT_EQ(constant_of({{"value_floats", test::floats{1.0f, -1.0f}}}), TensorData::from<float>({2}, {1.0f, -1.0f}));
  EXPECT_EQ(constant_of({{"value_int", int64_t{-7}}}), TensorData::scalar<int64_t>(-7));
  EXPECT_EQ(constant_of({{"value_ints", test::ints{4, 5, 6}}}), TensorData::from<int64_t>({3}, {4, 5, 6}));
}

TEST(Constant, Errors) {
  EXPECT_THAT(constant_error({{"value_string", std::string("hi")}}),
              HasSubstr("attribute 'value_string' is not supported: mlipc has no string tensors"));
  EXPECT_THAT(constant_error({}), HasSubstr("needs exactly one value attribute, got 0"));
  EXPECT_THAT(constant_error({{"value_int", int64_t{1}}, {"value_float", 1.0f}}),
              HasSubstr("needs exactly one value attribute, got 2"));
}

TEST(Constant, FeedsAKernel) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {2, 2});
  b.node("Constant", {}, {"c"}, {{"value", TensorData::from<float>({2, 1}, {7.0f, 8.0f})}});
  b.node("Concat", {"x", "c"}, {"y"}, {{"axis", int64_t{1}}});
  b.output("y");
  io::NamedTensors out = test::compile_and_run(b.save(test::scratch_dir(), "const_run.onnx"),
                                               {{"x", TensorData::from<float>({2, 2}, {1, 2, 3, 4})}});
  EXPECT_EQ(out[0].second, TensorData::from<float>({2, 3}, {1, 2, 7, 3, 4, 8}));
}

}  // namespace
}  // namespace mlipc::unit_ops_constant
