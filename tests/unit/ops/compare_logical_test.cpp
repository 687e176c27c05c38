// Equal, Greater, Less, GreaterOrEqual, LessOrEqual (bool results) and Not,
// And, Or, Xor (bool inputs): shape rules, reference values, generated C
// bit-identical to the reference with broadcasting.
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_compare_logical {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;
using B = std::vector<uint8_t>;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("compare_{}.onnx", k++));
}

fs::path binary_model(const std::string& op, DType ta, const Shape& a, DType tb, const Shape& b, int opset = 17) {
  OnnxBuilder m(opset);
  m.input("a", ta, a).input("b", tb, b).node(op, {"a", "b"}, {"y"}).output("y");
  return save(m);
}

using test::import_error;

B eval(const std::string& op, const TensorData& a, const TensorData& b) {
  const TensorData y =
      test::reference_run(binary_model(op, a.dtype(), a.shape(), b.dtype(), b.shape()), {{"a", a}, {"b", b}})
          .at(0)
          .second;
  EXPECT_EQ(y.dtype(), DType::Bool);
  return B(y.raw(), y.raw() + y.numel());
}

TensorData bools(const Shape& s, const B& v) {
  TensorData t(DType::Bool, s);
  std::copy(v.begin(), v.end(), t.raw());
  return t;
}

TEST(Compare, ShapeRule) {
  Graph g = frontend::import_onnx(binary_model("Less", DType::Int8, {2, 1, 4}, DType::Int8, {3, 1}));
  EXPECT_EQ(g.value(g.outputs[0].value).dtype, DType::Bool);
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 3, 4}));
  EXPECT_THAT(import_error(binary_model("Equal", DType::Float32, {2}, DType::Int32, {2})),
              HasSubstr("different element types (float32 and int32)"));
  EXPECT_THAT(import_error(binary_model("Greater", DType::Bool, {2}, DType::Bool, {2})),
              HasSubstr("has element type bool; supported: float16"));
  EXPECT_THAT(import_error(binary_model("GreaterOrEqual", DType::Float32, {2, 3}, DType::Float32, {2})),
              HasSubstr("cannot be broadcast"));
  EXPECT_THAT(import_error(binary_model("And", DType::Int32, {2}, DType::Int32, {2})),
              HasSubstr("has element type int32; supported: bool"));
  EXPECT_THAT(import_error(binary_model("Or", DType::Bool, {2}, DType::UInt8, {2})),
              HasSubstr("input #1 ('b') has element type uint8; supported: bool"));
  OnnxBuilder not_float;
  not_float.input("x", DType::Float32, {2}).node("Not", {"x"}, {"y"}).output("y");
  EXPECT_THAT(import_error(save(not_float)), HasSubstr("supported: bool"));
}

TEST(Compare, Reference) {
  const TensorData a = TensorData::from<float>({4}, {1, 2, NAN, -0.0f});
  const TensorData b = TensorData::from<float>({4}, {2, 2, NAN, 0.0f});
  EXPECT_EQ(eval("Equal", a, b), (B{0, 1, 0, 1}));
  EXPECT_EQ(eval("Greater", a, b), (B{0, 0, 0, 0}));
  EXPECT_EQ(eval("Less", a, b), (B{1, 0, 0, 0}));
  EXPECT_EQ(eval("GreaterOrEqual", a, b), (B{0, 1, 0, 1}));
  EXPECT_EQ(eval("LessOrEqual", a, b), (B{1, 1, 0, 1}));
  // Broadcasting [2,1] against [3]; unsigned compares without sign tricks.
  const TensorData u = TensorData::from<uint32_t>({2, 1}, {5, 4000000000u});
  const TensorData v = TensorData::from<uint32_t>({3}, {4, 5, 4000000001u});
  EXPECT_EQ(eval("Greater", u, v), (B{1, 0, 0, 1, 1, 0}));
  EXPECT_EQ(eval("Equal", bools({3}, {0, 1, 1}), bools({3}, {0, 0, 1})), (B{1, 0, 1}));
}

TEST(Logical, Reference) {
  const TensorData a = bools({2, 2}, {0, 0, 1, 1});
  const TensorData b = bools({2, 2}, {0, 1, 0, 1});
  EXPECT_EQ(eval("And", a, b), (B{0, 0, 0, 1}));
  EXPECT_EQ(eval("Or", a, b), (B{0, 1, 1, 1}));
  EXPECT_EQ(eval("Xor", a, b), (B{0, 1, 1, 0}));
  EXPECT_EQ(eval("And", a, bools({2}, {1, 0})), (B{0, 0, 1, 0}));  // broadcast
  // Any non-zero byte is true, and results are 0 or 1.
  EXPECT_EQ(eval("Xor", bools({2}, {2, 7}), bools({2}, {1, 0})), (B{0, 1}));
  OnnxBuilder m;
  m.input("x", DType::Bool, {3}).node("Not", {"x"}, {"y"}).output("y");
  const TensorData y = test::reference_run(save(m), {{"x", bools({3}, {0, 1, 9})}}).at(0).second;
  EXPECT_EQ(B(y.raw(), y.raw() + 3), (B{1, 0, 0}));
}

TEST(Compare, LegacyBroadcastBeforeOpset7) {
  OnnxBuilder m(6);
  m.input("a", DType::Float32, {2, 3}).input("b", DType::Float32, {3});
  m.node("Greater", {"a", "b"}, {"y"}, {{"broadcast", int64_t{1}}}).output("y");
  Graph g = frontend::import_onnx(save(m));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 3}));
  OnnxBuilder bad(6);
  bad.input("a", DType::Bool, {2, 3}).input("b", DType::Bool, {2});
  bad.node("And", {"a", "b"}, {"y"}, {{"broadcast", int64_t{1}}, {"axis", int64_t{0}}}).output("y");
  EXPECT_THAT(import_error(save(bad)), HasSubstr("legacy broadcasting along axis 0 is not supported"));
}

// Every comparison on every numeric type and the bool operators, with
// broadcasting, in two models (each compiles once).
TEST(Compare, GeneratedCMatchesReferenceBitForBit) {
  const std::vector<std::vector<DType>> groups = {
      {DType::Float16, DType::Float32, DType::Float64, DType::Int8, DType::Int16},
      {DType::Int32, DType::Int64, DType::UInt8, DType::UInt16, DType::UInt32, DType::UInt64}};
  uint32_t seed = 20;
  int k = 0;
  for (const auto& types : groups) {  // the checked entry takes at most 64 tensors
  OnnxBuilder m;
  io::NamedTensors inputs;
  for (DType t : types) {
    const std::string a = fmt::format("a_{}", dtype_name(t)), b = fmt::format("b_{}", dtype_name(t));
    m.input(a, t, {3, 1, 5}).input(b, t, {4, 1});
    // Small integer ranges so that equal values occur.
    inputs.emplace_back(a, random_tensor(t, {3, 1, 5}, seed++, 0, 3));
    inputs.emplace_back(b, random_tensor(t, {4, 1}, seed++, 0, 3));
    for (const char* op : {"Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual"}) {
      const std::string y = fmt::format("{}_{}", op, k++);
      m.node(op, {a, b}, {y}).output(y);
    }
  }
  test::expect_matches_reference(save(m), inputs, 0, 0);
  }

  OnnxBuilder l;
  l.input("p", DType::Bool, {2, 3, 4}).input("q", DType::Bool, {3, 1}).input("r", DType::Bool, {});
  for (const char* op : {"And", "Or", "Xor", "Equal"}) {
    l.node(op, {"p", "q"}, {std::string(op) + "_pq"}).output(std::string(op) + "_pq");
    l.node(op, {"r", "p"}, {std::string(op) + "_rp"}).output(std::string(op) + "_rp");
  }
  l.node("Not", {"p"}, {"not_p"}).output("not_p");
  test::expect_matches_reference(save(l),
                                 {{"p", random_tensor(DType::Bool, {2, 3, 4}, 40, 0, 1)},
                                  {"q", random_tensor(DType::Bool, {3, 1}, 41, 0, 1)},
                                  {"r", bools({}, {1})}},
                                 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_compare_logical
