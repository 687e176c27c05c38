#include <cstdint>
#include <limits>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "ops/evaluator.h"
#include "passes/passes.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_elementwise {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("elementwise_{}.onnx", k++));
}

std::string import_error(const OnnxBuilder& b) {
  try {
    frontend::import_onnx(save(b));
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// y = a <op> b with graph inputs of the given types and shapes.
fs::path binary_model(const std::string& op, DType ta, const Shape& a, DType tb, const Shape& b, int opset = 17,
                      const std::vector<std::pair<std::string, AttrValue>>& attrs = {}) {
  OnnxBuilder m(opset);
  m.input("a", ta, a).input("b", tb, b).node(op, {"a", "b"}, {"y"}, attrs).output("y");
  return save(m);
}

Shape out_shape(const fs::path& model) {
  Graph g = frontend::import_onnx(model);
  return g.value(g.outputs[0].value).shape;
}

TEST(Elementwise, ShapeRuleBroadcasts) {
  const DType f = DType::Float32;
  EXPECT_EQ(out_shape(binary_model("Add", f, {2, 3, 4}, f, {3, 1})), (Shape{2, 3, 4}));
  EXPECT_EQ(out_shape(binary_model("Sub", f, {4}, f, {2, 3, 1})), (Shape{2, 3, 4}));
  EXPECT_EQ(out_shape(binary_model("Mul", f, {}, f, {5})), (Shape{5}));
  EXPECT_EQ(out_shape(binary_model("Div", DType::Int32, {1, 1}, DType::Int32, {})), (Shape{1, 1}));
}

TEST(Elementwise, ShapeRuleErrors) {
  const DType f = DType::Float32;
  OnnxBuilder m;
  m.input("a", f, {2, 3}).input("b", f, {4, 3}).node("Add", {"a", "b"}, {"y"}).output("y");
  EXPECT_THAT(import_error(m), HasSubstr("shapes [2,3] and [4,3] cannot be broadcast"));
  OnnxBuilder mixed;
  mixed.input("a", f, {2}).input("b", DType::Int32, {2}).node("Mul", {"a", "b"}, {"y"}).output("y");
  EXPECT_THAT(import_error(mixed), HasSubstr("different element types (float32 and int32)"));
  OnnxBuilder boolean;
  boolean.input("a", DType::Bool, {2}).input("b", DType::Bool, {2}).node("Add", {"a", "b"}, {"y"}).output("y");
  EXPECT_THAT(import_error(boolean), HasSubstr("has element type bool; supported: float16, float32, float64, int8"));
}

TEST(Elementwise, LegacyBroadcastAlongTrailingAxesIsNumpy) {
  // Opset 6 broadcast=1, axis=1: B [3,4] aligned with A [2,3,4] from axis 1 = rank(A) - rank(B).
  const fs::path ok = binary_model("Add", DType::Float32, {2, 3, 4}, DType::Float32, {3, 4}, 6,
                                   {{"broadcast", int64_t{1}}, {"axis", int64_t{1}}});
  EXPECT_EQ(out_shape(ok), (Shape{2, 3, 4}));
  test::expect_matches_reference(
      ok, {{"a", random_tensor(DType::Float32, {2, 3, 4}, 1)}, {"b", random_tensor(DType::Float32, {3, 4}, 2)}});
  // axis=0 would align B [2] with A's first axis: not numpy broadcasting.
  OnnxBuilder m(6);
  m.input("a", DType::Float32, {2, 3}).input("b", DType::Float32, {2});
  m.node("Mul", {"a", "b"}, {"y"}, {{"broadcast", int64_t{1}}, {"axis", int64_t{0}}}).output("y");
  EXPECT_THAT(import_error(m), HasSubstr("legacy broadcasting along axis 0 is not supported"));
}

// Evaluates y = a <op> b on constants with the reference kernel.
template <class T>
std::vector<T> eval(const std::string& op, const Shape& sa, const std::vector<T>& a, const Shape& sb,
                    const std::vector<T>& b) {
  OnnxBuilder m;
  m.initializer("a", TensorData::from<T>(sa, a)).initializer("b", TensorData::from<T>(sb, b));
  m.node(op, {"a", "b"}, {"y"}).output("y");
  io::NamedTensors out = test::reference_run(save(m), {});
  const TensorData& y = out.at(0).second;
  return std::vector<T>(y.data<T>(), y.data<T>() + y.numel());
}

TEST(Elementwise, ReferenceFloatBroadcasting) {
  using V = std::vector<float>;
  // [2,1] op [3]: rows of a against the columns of b.
  EXPECT_EQ(eval<float>("Add", {2, 1}, {1, 2}, {3}, {10, 20, 30}), (V{11, 21, 31, 12, 22, 32}));
  EXPECT_EQ(eval<float>("Sub", {2, 1}, {1, 2}, {3}, {10, 20, 30}), (V{-9, -19, -29, -8, -18, -28}));
  EXPECT_EQ(eval<float>("Mul", {3}, {1, 2, 3}, {}, {2}), (V{2, 4, 6}));
  EXPECT_EQ(eval<float>("Div", {}, {1}, {2}, {4, -8}), (V{0.25f, -0.125f}));
}

TEST(Elementwise, ReferenceIntegerArithmeticWraps) {
  using U8 = std::vector<uint8_t>;
  EXPECT_EQ(eval<uint8_t>("Add", {2}, {250, 1}, {2}, {10, 2}), (U8{4, 3}));
  EXPECT_EQ(eval<uint8_t>("Sub", {2}, {3, 9}, {2}, {5, 2}), (U8{254, 7}));
  EXPECT_EQ(eval<uint8_t>("Mul", {2}, {16, 3}, {2}, {16, 5}), (U8{0, 15}));
  EXPECT_EQ(eval<uint8_t>("Div", {2}, {200, 7}, {2}, {3, 2}), (U8{66, 3}));
  using U16 = std::vector<uint16_t>;
  EXPECT_EQ(eval<uint16_t>("Mul", {1}, {65535}, {1}, {65535}), (U16{1}));  // no signed-int overflow
  const int32_t big = std::numeric_limits<int32_t>::max();
  EXPECT_EQ(eval<int32_t>("Add", {1}, {big}, {1}, {1}), (std::vector<int32_t>{std::numeric_limits<int32_t>::min()}));
}

TEST(Elementwise, ReferenceIntegerDivTruncatesTowardZero) {
  using I32 = std::vector<int32_t>;
  // ONNX's reference divides in floating point and casts back: truncation, as in C (numpy's // would floor).
  EXPECT_EQ(eval<int32_t>("Div", {4}, {-7, 7, -7, 6}, {4}, {2, -2, -2, 3}), (I32{-3, -3, 3, 2}));
  // The cases C traps on: x / 0 is 0 (numpy's result), INT_MIN / -1 wraps.
  const int32_t mn = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(eval<int32_t>("Div", {2}, {5, mn}, {2}, {0, -1}), (I32{0, mn}));
  EXPECT_EQ(eval<int8_t>("Div", {1}, {-128}, {1}, {-1}), (std::vector<int8_t>{-128}));
  EXPECT_EQ(eval<int64_t>("Div", {2}, {-9, std::numeric_limits<int64_t>::min()}, {2}, {4, -1}),
            (std::vector<int64_t>{-2, std::numeric_limits<int64_t>::min()}));
}

TEST(Elementwise, ReferenceAppliesFusedActivation) {
  OnnxBuilder m;
  m.input("a", DType::Float32, {2, 3}).input("b", DType::Float32, {3});
  m.node("Sub", {"a", "b"}, {"t"}).node("Relu", {"t"}, {"y"}).output("y");
  Graph g = frontend::import_onnx(save(m));
  const std::vector<TensorData> in = {random_tensor(DType::Float32, {2, 3}, 3), random_tensor(DType::Float32, {3}, 4)};
  const TensorData want = evaluate(g, in)[0];
  passes::fuse_activation(g);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_TRUE(g.nodes[0].attrs.has("activation"));
  EXPECT_EQ(test::compare(evaluate(g, in)[0], want, 0, 0), "");
}

TEST(Elementwise, GeneratedCFloatBroadcasting) {
  struct Case {
    Shape a, b;
  };
  const std::vector<Case> cases = {{{2, 3, 4}, {2, 3, 4}}, {{2, 3, 4}, {3, 1}}, {{4}, {2, 3, 4}},
                                   {{2, 1, 4, 1}, {3, 1, 5}}, {{}, {3}},          {{}, {}}};
  // One model per case with all four operators, so each case compiles once.
  uint32_t seed = 10;
  for (const Case& c : cases) {
    OnnxBuilder m;
    m.input("a", DType::Float32, c.a).input("b", DType::Float32, c.b);
    for (const char* op : {"Add", "Sub", "Mul", "Div"}) m.node(op, {"a", "b"}, {op}).output(op);
    SCOPED_TRACE(shape_str(c.a) + " op " + shape_str(c.b));
    test::expect_matches_reference(save(m), {{"a", random_tensor(DType::Float32, c.a, seed++)},
                                             {"b", random_tensor(DType::Float32, c.b, seed++, 0.5, 2.0)}});
  }
}

TEST(Elementwise, GeneratedCIntegerTypes) {
  struct Case {
    DType t;
    double lo, hi;
  };
  // Ranges wide enough to overflow (wrapping) and to divide by 0 and -1.
  const std::vector<Case> cases = {
      {DType::Int8, -128, 127},          {DType::UInt8, 0, 255},        {DType::Int16, -32768, 32767},
      {DType::UInt16, 0, 65535},         {DType::Int32, -3e9 / 2, 3e9 / 2}, {DType::UInt32, 0, 4e9},
      {DType::Int64, -1e15, 1e15},       {DType::UInt64, 0, 1e15},
  };
  uint32_t seed = 20;
  for (const Case& c : cases) {
    OnnxBuilder m;
    m.input("a", c.t, {3, 4}).input("b", c.t, {4}).input("s", c.t, {3, 1});
    for (const char* op : {"Add", "Sub", "Mul", "Div"}) m.node(op, {"a", "b"}, {op}).output(op);
    m.node("Div", {"a", "s"}, {"div_small"}).output("div_small");  // small divisors: 0, -1, 1
    SCOPED_TRACE(std::string(dtype_name(c.t)));
    TensorData s = random_tensor(c.t, {3, 1}, seed++, dtype_is_signed(c.t) ? -1 : 0, 1);
    test::expect_matches_reference(save(m), {{"a", random_tensor(c.t, {3, 4}, seed++, c.lo, c.hi)},
                                             {"b", random_tensor(c.t, {4}, seed++, c.lo, c.hi)},
                                             {"s", s}},
                                   0, 0);
  }
}

TEST(Elementwise, GeneratedCFloat64AndFloat16) {
  OnnxBuilder m;
  m.input("a", DType::Float64, {2, 3}).input("b", DType::Float64, {2, 1});
  m.input("h", DType::Float16, {2, 3}).input("k", DType::Float16, {3});
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    m.node(op, {"a", "b"}, {std::string(op) + "_f64"}).output(std::string(op) + "_f64");
    m.node(op, {"h", "k"}, {std::string(op) + "_f16"}).output(std::string(op) + "_f16");
  }
  test::expect_matches_reference(save(m),
                                 {{"a", random_tensor(DType::Float64, {2, 3}, 30)},
                                  {"b", random_tensor(DType::Float64, {2, 1}, 31)},
                                  {"h", random_tensor(DType::Float16, {2, 3}, 32, -100, 100)},
                                  {"k", random_tensor(DType::Float16, {3}, 33, -2, 2)}},
                                 0, 0);
}

TEST(Elementwise, ReferenceFloat16RoundsOnce) {
  // 1 + 2^-11 is halfway between 1 and the next float16 (1 + 2^-10): even gives 1.
  const TensorData one = TensorData::from<float>({1}, {1.0f}).cast(DType::Float16);
  const TensorData tiny = TensorData::from<float>({1}, {1.0f / 2048}).cast(DType::Float16);
  OnnxBuilder m;
  m.initializer("a", one).initializer("b", tiny).node("Add", {"a", "b"}, {"y"}).output("y");
  EXPECT_EQ(test::reference_run(save(m), {}).at(0).second.raw_as<uint16_t>()[0], 0x3C00);
}

TEST(Elementwise, GeneratedCFusedActivation) {
  OnnxBuilder m(13);
  m.input("a", DType::Float32, {2, 3, 4}).input("b", DType::Float32, {4});
  m.initializer("lo", TensorData::scalar<float>(-0.2f)).initializer("hi", TensorData::scalar<float>(0.3f));
  m.node("Add", {"a", "b"}, {"t1"}).node("Relu", {"t1"}, {"relu"}).output("relu");
  m.node("Mul", {"a", "b"}, {"t2"}).node("Sigmoid", {"t2"}, {"sigmoid"}).output("sigmoid");
  m.node("Sub", {"a", "b"}, {"t3"}).node("Clip", {"t3", "lo", "hi"}, {"clip"}).output("clip");
  m.node("Div", {"a", "b"}, {"t4"}).node("LeakyRelu", {"t4"}, {"leaky"}, {{"alpha", 0.2f}}).output("leaky");
  const fs::path model = save(m);
  driver::CompileResult r = driver::compile_model(model, {});
  int fused = 0;
  for (const Node& n : r.graph.nodes) fused += n.attrs.has("activation");
  EXPECT_EQ(fused, 4);
  test::expect_matches_reference(
      model, {{"a", random_tensor(DType::Float32, {2, 3, 4}, 40)}, {"b", random_tensor(DType::Float32, {4}, 41)}});
}

}  // namespace
}  // namespace mlipc::unit_ops_elementwise
