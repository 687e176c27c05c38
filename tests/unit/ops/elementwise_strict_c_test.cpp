// The elementwise kernels compile cleanly as strict C99 (-std=c99 -Wall
// -Wextra -Werror -pedantic), as every generated file must: one model with
// every operator on the element types that exercise each expression form
// (float16 conversions, bool, signed and unsigned integers, Pow's cases).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace fs = std::filesystem;

namespace mlipc::unit_ops_elementwise_strict_c {
namespace {

using test::OnnxBuilder;

TEST(ElementwiseStrictC, EveryExpressionFormCompilesAsStrictC99) {
  OnnxBuilder m;
  int k = 0;
  auto node = [&](const std::string& op, const std::vector<std::string>& in,
                  const std::vector<std::pair<std::string, AttrValue>>& attrs = {}) {
    const std::string y = fmt::format("y{}", k++);
    m.node(op, in, {y}, attrs).output(y);
  };
  const std::vector<std::pair<std::string, DType>> inputs = {
      {"f", DType::Float32}, {"h", DType::Float16}, {"d", DType::Float64}, {"i8", DType::Int8},
      {"i32", DType::Int32}, {"i64", DType::Int64}, {"u8", DType::UInt8},  {"u32", DType::UInt32},
      {"u64", DType::UInt64}, {"b", DType::Bool}};
  for (const auto& [name, t] : inputs) m.input(name, t, {2, 3});
  m.input("fs", DType::Float32, {3});
  for (const char* op : {"Exp", "Log", "Erf", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh",
                         "Acosh", "Atanh", "Softplus", "Softsign", "Elu", "Selu", "Celu", "HardSigmoid", "HardSwish",
                         "ThresholdedRelu", "Shrink", "LeakyRelu", "Sigmoid", "Tanh"})
    node(op, {"f"});
  for (const char* x : {"f", "h", "d"})
    for (const char* op : {"Sqrt", "Reciprocal", "Floor", "Ceil", "Round", "IsNaN", "IsInf", "Relu"}) node(op, {x});
  node("IsInf", {"f"}, {{"detect_negative", int64_t{0}}});
  node("IsInf", {"f"}, {{"detect_positive", int64_t{0}}});
  node("IsInf", {"f"}, {{"detect_positive", int64_t{0}}, {"detect_negative", int64_t{0}}});
  for (const char* x : {"h", "i8", "i64", "u8", "u64"})
    for (const char* op : {"Abs", "Sign", "Max", "Min", "Equal", "Less", "Add", "Div", "Mod"}) {
      const bool two = std::string(op) != "Abs" && std::string(op) != "Sign";
      node(op, two ? std::vector<std::string>{x, x} : std::vector<std::string>{x},
           std::string(op) == "Mod" && std::string(x) == "h" ? std::vector<std::pair<std::string, AttrValue>>{
                                                                    {"fmod", int64_t{1}}}
                                                              : std::vector<std::pair<std::string, AttrValue>>{});
    }
  node("Mod", {"i32", "i32"}, {{"fmod", int64_t{1}}});
  node("Neg", {"i8"});
  node("Neg", {"h"});
  for (const char* op : {"Sum", "Mean"}) node(op, {"h", "h", "h"});
  node("Max", {"f", "fs", "f"});
  for (const char* op : {"Not"}) node(op, {"b"});
  for (const char* op : {"And", "Or", "Xor", "Equal"}) node(op, {"b", "b"});
  for (const char* base : {"f", "i32", "i64"})
    for (const char* e : {"h", "i8", "u64"}) node("Pow", {base, e});
  for (const char* x : {"u8", "u32", "u64"}) {
    node("BitShift", {x, x}, {{"direction", std::string("LEFT")}});
    node("BitShift", {x, x}, {{"direction", std::string("RIGHT")}});
  }
  for (const char* x : {"f", "h", "i32", "u32"}) node("PRelu", {x, x});

  EXPECT_EQ(test::strict_c99_errors(m.save(test::scratch_dir(), "elementwise_strict.onnx")), "");
}

}  // namespace
}  // namespace mlipc::unit_ops_elementwise_strict_c
