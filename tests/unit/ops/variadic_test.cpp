// Max, Min, Sum, Mean: any number of inputs broadcast together, folded in
// input order. Shape rules, reference values, generated C bit-identical to
// the reference.
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_variadic {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("variadic_{}.onnx", k++));
}

fs::path model(const std::string& op, const std::vector<std::pair<DType, Shape>>& ins) {
  OnnxBuilder m;
  std::vector<std::string> names;
  for (size_t i = 0; i < ins.size(); ++i) {
    names.push_back(fmt::format("x{}", i));
    m.input(names.back(), ins[i].first, ins[i].second);
  }
  m.node(op, names, {"y"}).output("y");
  return save(m);
}

using test::import_error;

TensorData eval(const std::string& op, const std::vector<TensorData>& xs) {
  std::vector<std::pair<DType, Shape>> ins;
  io::NamedTensors named;
  for (size_t i = 0; i < xs.size(); ++i) {
    ins.emplace_back(xs[i].dtype(), xs[i].shape());
    named.emplace_back(fmt::format("x{}", i), xs[i]);
  }
  return test::reference_run(model(op, ins), named).at(0).second;
}

TEST(Variadic, ShapeRule) {
  const DType f = DType::Float32;
  Graph g = frontend::import_onnx(model("Max", {{f, {2, 1, 4}}, {f, {3, 1}}, {f, {}}}));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 3, 4}));
  g = frontend::import_onnx(model("Sum", {{f, {5}}}));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{5}));
  EXPECT_THAT(import_error(model("Min", {{f, {2}}, {f, {3}}})), HasSubstr("cannot be broadcast"));
  EXPECT_THAT(import_error(model("Mean", {{f, {2}}, {DType::Float64, {2}}})),
              HasSubstr("different element types (float32 and float64)"));
  EXPECT_THAT(import_error(model("Sum", {{DType::Int32, {2}}})), HasSubstr("has element type int32; supported: float16"));
  EXPECT_THAT(import_error(model("Max", {{DType::Bool, {2}}})), HasSubstr("has element type bool"));
  EXPECT_THAT(import_error(model("Max", {})), HasSubstr("expects 1 input(s), got 0"));
}

TEST(Variadic, Reference) {
  const TensorData a = TensorData::from<float>({3}, {1, 5, NAN});
  const TensorData b = TensorData::from<float>({3}, {4, NAN, 2});
  const TensorData c = TensorData::from<float>({}, {3});
  const TensorData mx = eval("Max", {a, b, c});
  EXPECT_EQ(mx.data<float>()[0], 4.0f);
  EXPECT_TRUE(std::isnan(mx.data<float>()[1]) && std::isnan(mx.data<float>()[2]));  // NaN propagates
  const TensorData mn = eval("Min", {TensorData::from<float>({2}, {1, 5}), c});
  EXPECT_EQ(mn, TensorData::from<float>({2}, {1, 3}));
  EXPECT_EQ(eval("Sum", {TensorData::from<float>({2}, {1, 5}), c, c}), TensorData::from<float>({2}, {7, 11}));
  EXPECT_EQ(eval("Mean", {TensorData::from<float>({2}, {1, 5}), c, TensorData::from<float>({2}, {2, 4})}),
            TensorData::from<float>({2}, {2, 4}));
  EXPECT_EQ(eval("Mean", {c}), c);
  const TensorData i = TensorData::from<int8_t>({3}, {-128, 0, 127});
  EXPECT_EQ(eval("Max", {i, TensorData::from<int8_t>({}, {-1})}), TensorData::from<int8_t>({3}, {-1, 0, 127}));
  EXPECT_EQ(eval("Min", {TensorData::from<uint64_t>({2}, {1ULL << 63, 3}), TensorData::from<uint64_t>({}, {5})}),
            TensorData::from<uint64_t>({2}, {5, 3}));
}

TEST(Variadic, Float16SumRoundsAfterEachAddition) {
  // 2048 + 1 is 2048 in float16 (the spacing is 2 there); adding 1 twice in
  // float16 stays 2048, where one rounding of 2050 would give 2050.
  const TensorData big = TensorData::from<float>({1}, {2048}).cast(DType::Float16);
  const TensorData one = TensorData::from<float>({1}, {1}).cast(DType::Float16);
  EXPECT_EQ(eval("Sum", {big, one, one}).cast(DType::Float32), TensorData::from<float>({1}, {2048}));
}

// Every operator with one, two and four broadcast inputs, one model per
// element type (the checked entry takes at most 64 tensors).
TEST(Variadic, GeneratedCMatchesReferenceBitForBit) {
  uint32_t seed = 60;
  int k = 0;
  for (DType t : {DType::Float16, DType::Float32, DType::Float64, DType::Int8, DType::Int64, DType::UInt16,
                  DType::UInt32}) {
    OnnxBuilder m;
    io::NamedTensors inputs;
    const std::string n = std::string(dtype_name(t));
    const std::vector<std::pair<std::string, Shape>> ins = {
        {"a_" + n, {2, 3, 4}}, {"b_" + n, {3, 1}}, {"c_" + n, {}}, {"d_" + n, {2, 1, 4}}};
    for (const auto& [name, shape] : ins) {
      m.input(name, t, shape);
      inputs.emplace_back(name, random_tensor(t, shape, seed++, dtype_is_float(t) ? -50 : 0, 50));
    }
    std::vector<std::vector<std::string>> arities = {{ins[0].first}, {ins[0].first, ins[1].first},
                                                     {ins[1].first, ins[2].first, ins[3].first, ins[0].first}};
    for (const char* op : {"Max", "Min", "Sum", "Mean"}) {
      if (!dtype_is_float(t) && (std::string(op) == "Sum" || std::string(op) == "Mean")) continue;
      for (const auto& args : arities) {
        const std::string y = fmt::format("{}_{}", op, k++);
        m.node(op, args, {y}).output(y);
      }
    }
    if (t == DType::Float32) {  // NaN and infinities through Max and Min
      m.input("s", DType::Float32, {4}).input("t", DType::Float32, {4});
      inputs.emplace_back("s", TensorData::from<float>({4}, {NAN, 1, INFINITY, -0.0f}));
      inputs.emplace_back("t", TensorData::from<float>({4}, {1, NAN, -INFINITY, 0.0f}));
      m.node("Max", {"s", "t"}, {"max_st"}).output("max_st").node("Min", {"t", "s"}, {"min_ts"}).output("min_ts");
    }
    test::expect_matches_reference(save(m), inputs, 0, 0);
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_variadic
