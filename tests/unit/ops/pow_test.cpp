// Pow: float and integer bases with exponents of every numeric type,
// broadcasting; generated C bit-identical to the reference.
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_pow {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;
using Attrs = std::vector<std::pair<std::string, AttrValue>>;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("pow_{}.onnx", k++));
}

fs::path binary_model(const std::string& op, DType ta, const Shape& a, DType tb, const Shape& b,
                      const Attrs& attrs = {}, int opset = 17) {
  OnnxBuilder m(opset);
  m.input("a", ta, a).input("b", tb, b).node(op, {"a", "b"}, {"y"}, attrs).output("y");
  return save(m);
}

using test::import_error;

TensorData eval(const std::string& op, const TensorData& a, const TensorData& b, const Attrs& attrs = {}) {
  return test::reference_run(binary_model(op, a.dtype(), a.shape(), b.dtype(), b.shape(), attrs), {{"a", a}, {"b", b}})
      .at(0)
      .second;
}

TEST(Pow, ShapeRule) {
  Graph g = frontend::import_onnx(binary_model("Pow", DType::Int64, {2, 3}, DType::Float32, {3}));
  EXPECT_EQ(g.value(g.outputs[0].value).dtype, DType::Int64);
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 3}));
  EXPECT_THAT(import_error(binary_model("Pow", DType::Int8, {2}, DType::Int8, {2})),
              HasSubstr("input #0 ('a') has element type int8; supported: float32, int32, int64"));
  // No double pow in mlip/kmath.h: a float64 base is refused, not computed by a C library.
  EXPECT_THAT(import_error(binary_model("Pow", DType::Float64, {2}, DType::Float64, {2})),
              HasSubstr("has element type float64; supported: float32, int32, int64"));
  EXPECT_THAT(import_error(binary_model("Pow", DType::Float32, {2}, DType::Bool, {2})),
              HasSubstr("input #1 ('b') has element type bool"));
  EXPECT_THAT(import_error(binary_model("Pow", DType::Float32, {2}, DType::Float32, {3})), HasSubstr("cannot be broadcast"));
}

TEST(Pow, Reference) {
  EXPECT_EQ(eval("Pow", TensorData::from<float>({3}, {2, 4, -3}), TensorData::from<float>({3}, {3, 0.5f, 2})),
            TensorData::from<float>({3}, {8, 2, 9}));
  EXPECT_EQ(eval("Pow", TensorData::from<float>({2}, {2, 9}), TensorData::from<int64_t>({2}, {-1, 2})),
            TensorData::from<float>({2}, {0.5f, 81}));
  // Integer powers wrap like numpy's; negative exponents truncate the real result.
  EXPECT_EQ(eval("Pow", TensorData::from<int32_t>({4}, {3, 2, -2, 7}), TensorData::from<int32_t>({4}, {4, 31, 3, 0})),
            TensorData::from<int32_t>({4}, {81, std::numeric_limits<int32_t>::min(), -8, 1}));
  EXPECT_EQ(eval("Pow", TensorData::from<int64_t>({4}, {1, -1, -1, 2}), TensorData::from<int64_t>({4}, {-5, -3, -2, -1})),
            TensorData::from<int64_t>({4}, {1, -1, 1, 0}));
  // An integer base with a float exponent: the real power, truncated; out of range saturates.
  EXPECT_EQ(eval("Pow", TensorData::from<int32_t>({3}, {4, 10, 2}), TensorData::from<float>({3}, {0.5f, 10, -1})),
            TensorData::from<int32_t>({3}, {2, std::numeric_limits<int32_t>::max(), 0}));
}

TEST(Pow, LegacyBroadcastBeforeOpset7) {
  const fs::path ok = binary_model("Pow", DType::Float32, {2, 3}, DType::Float32, {3}, {{"broadcast", int64_t{1}}}, 6);
  EXPECT_EQ(eval("Pow", TensorData::from<float>({1}, {2}), TensorData::from<float>({1}, {5})),
            TensorData::from<float>({1}, {32}));
  Graph g = frontend::import_onnx(ok);
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 3}));
}

// One model per base type (the checked entry takes at most 64 tensors).
TEST(Pow, GeneratedCMatchesReferenceBitForBit) {
  uint32_t seed = 100;
  int k = 0;
  const std::vector<DType> exps = {DType::Float16, DType::Float32, DType::Float64, DType::Int8,  DType::Int32,
                                   DType::Int64,   DType::UInt8,   DType::UInt32,  DType::UInt64};
  for (DType base : {DType::Float32, DType::Int32, DType::Int64}) {
    OnnxBuilder m;
    io::NamedTensors inputs;
    const std::string x = fmt::format("x_{}", dtype_name(base));
    m.input(x, base, {2, 4, 3});
    inputs.emplace_back(x, random_tensor(base, {2, 4, 3}, seed++, dtype_is_float(base) ? 0.1 : -9, 9));
    for (DType e : exps) {
      const std::string y = fmt::format("y_{}_{}", dtype_name(base), dtype_name(e));
      m.input(y, e, {4, 1});
      const bool is_signed = dtype_is_signed(e);
      inputs.emplace_back(y, random_tensor(e, {4, 1}, seed++, is_signed ? -3 : 0, dtype_is_float(e) ? 3.5 : 12));
      const std::string out = fmt::format("pow_{}", k++);
      m.node("Pow", {x, y}, {out}).output(out);
    }
    test::expect_matches_reference(save(m), inputs, 0, 0);
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_pow
