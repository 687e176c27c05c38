// Mod: fmod 0 (the divisor's sign, integers) and 1 (the dividend's sign), every
// numeric type, division by zero; generated C bit-identical to the reference.
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_mod {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;
using Attrs = std::vector<std::pair<std::string, AttrValue>>;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("mod_{}.onnx", k++));
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

TEST(Mod, ShapeRule) {
  Graph g = frontend::import_onnx(binary_model("Mod", DType::Int32, {3, 1}, DType::Int32, {4}));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{3, 4}));
  EXPECT_THAT(import_error(binary_model("Mod", DType::Float32, {2}, DType::Float32, {2})),
              HasSubstr("fmod=0 (the remainder with the divisor's sign) is defined for integers only; float32 inputs "
                        "need fmod=1"));
  EXPECT_THAT(import_error(binary_model("Mod", DType::Int8, {2}, DType::Int8, {2}, {{"fmod", int64_t{2}}})),
              HasSubstr("fmod must be 0 or 1, got 2"));
  EXPECT_THAT(import_error(binary_model("Mod", DType::Int8, {2}, DType::Int16, {2})),
              HasSubstr("different element types (int8 and int16)"));
  EXPECT_THAT(import_error(binary_model("Mod", DType::Bool, {2}, DType::Bool, {2})), HasSubstr("has element type bool"));
}

TEST(Mod, ReferenceIntegers) {
  const TensorData x = TensorData::from<int32_t>({6}, {-4, 7, 5, 4, -7, 8});
  const TensorData y = TensorData::from<int32_t>({6}, {2, -3, 8, -2, 3, 5});
  // Python's % (numpy.mod): the divisor's sign.
  EXPECT_EQ(eval("Mod", x, y), TensorData::from<int32_t>({6}, {0, -2, 5, 0, 2, 3}));
  // C's %: the dividend's sign.
  EXPECT_EQ(eval("Mod", x, y, {{"fmod", int64_t{1}}}), TensorData::from<int32_t>({6}, {0, 1, 5, 0, -1, 3}));
  // Division by zero and INT_MIN % -1, which trap in C, give 0.
  const int64_t mn = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(eval("Mod", TensorData::from<int64_t>({3}, {5, mn, -5}), TensorData::from<int64_t>({3}, {0, -1, 0})),
            TensorData::from<int64_t>({3}, {0, 0, 0}));
  EXPECT_EQ(eval("Mod", TensorData::from<uint8_t>({3}, {250, 7, 9}), TensorData::from<uint8_t>({3}, {7, 0, 9})),
            TensorData::from<uint8_t>({3}, {5, 0, 0}));
}

TEST(Mod, ReferenceFloatsTakeTheDividendsSign) {
  const std::vector<float> a = {-4.3f, 7.2f, 5.0f, 4.3f, -7.2f, 8.0f}, b = {2.1f, -3.4f, 8.0f, -2.1f, 3.4f, 5.0f};
  std::vector<float> want;
  for (size_t i = 0; i < a.size(); ++i) want.push_back(std::fmod(a[i], b[i]));
  EXPECT_EQ(eval("Mod", TensorData::from<float>({6}, a), TensorData::from<float>({6}, b), {{"fmod", int64_t{1}}}),
            TensorData::from<float>({6}, want));
}

TEST(Mod, GeneratedCMatchesReferenceBitForBit) {
  OnnxBuilder m;
  io::NamedTensors inputs;
  uint32_t seed = 80;
  int k = 0;
  for (DType t : {DType::Int8, DType::Int16, DType::Int32, DType::Int64, DType::UInt8, DType::UInt16, DType::UInt32,
                  DType::UInt64, DType::Float16, DType::Float32, DType::Float64}) {
    const std::string a = fmt::format("a_{}", dtype_name(t)), b = fmt::format("b_{}", dtype_name(t));
    m.input(a, t, {2, 3, 5}).input(b, t, {3, 1});
    const bool is_signed = dtype_is_signed(t);
    inputs.emplace_back(a, random_tensor(t, {2, 3, 5}, seed++, is_signed ? -100 : 0, 100));
    // Divisors around zero (0 and -1 included for the integers).
    inputs.emplace_back(b, random_tensor(t, {3, 1}, seed++, is_signed ? -4 : 0, 4));
    for (int64_t fmod : {0, 1}) {
      if (fmod == 0 && dtype_is_float(t)) continue;
      const std::string y = fmt::format("mod_{}", k++);
      m.node("Mod", {a, b}, {y}, {{"fmod", fmod}}).output(y);
    }
  }
  m.input("mn", DType::Int32, {2}).input("neg1", DType::Int32, {});
  inputs.emplace_back("mn", TensorData::from<int32_t>({2}, {std::numeric_limits<int32_t>::min(), 7}));
  inputs.emplace_back("neg1", TensorData::from<int32_t>({}, {-1}));
  m.node("Mod", {"mn", "neg1"}, {"mod_min"}).output("mod_min");
  test::expect_matches_reference(save(m), inputs, 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_mod
