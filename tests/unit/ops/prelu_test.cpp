// PRelu: slope broadcast to the input (and the per-channel slope of opset < 7),
// float and integer types; generated C bit-identical to the reference.
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_prelu {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;
using Attrs = std::vector<std::pair<std::string, AttrValue>>;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("prelu_{}.onnx", k++));
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

TEST(PRelu, ShapeRule) {
  Graph g = frontend::import_onnx(binary_model("PRelu", DType::Float32, {2, 3, 4}, DType::Float32, {3, 1}));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 3, 4}));
  // The slope broadcasts to the input, never the other way.
  EXPECT_THAT(import_error(binary_model("PRelu", DType::Float32, {4}, DType::Float32, {3, 4})),
              HasSubstr("slope of shape [3,4] does not broadcast to the input's shape [4]"));
  EXPECT_THAT(import_error(binary_model("PRelu", DType::Int8, {4}, DType::Int8, {4})),
              HasSubstr("has element type int8; supported: float16, float32, float64, int32, int64, uint32, uint64"));
}

TEST(PRelu, Reference) {
  EXPECT_EQ(eval("PRelu", TensorData::from<float>({2, 2}, {-2, 3, -4, 5}), TensorData::from<float>({2}, {0.5f, 2})),
            TensorData::from<float>({2, 2}, {-1, 3, -2, 5}));
  EXPECT_EQ(eval("PRelu", TensorData::from<int32_t>({3}, {-3, 0, 3}), TensorData::from<int32_t>({}, {-2})),
            TensorData::from<int32_t>({3}, {6, 0, 3}));
}

TEST(PRelu, OpsetBelow7SlopeIsPerChannel) {
  // PyTorch's opset-6 export: x [N, C, L], slope [C].
  OnnxBuilder m(6);
  m.input("x", DType::Float32, {2, 3, 4});
  m.initializer("slope", TensorData::from<float>({3}, {0.1f, 0.2f, 0.3f}));
  m.node("PRelu", {"x", "slope"}, {"y"}).output("y");
  const fs::path p = save(m);
  const TensorData x = random_tensor(DType::Float32, {2, 3, 4}, 130, -1, 1);
  const TensorData y = test::reference_run(p, {{"x", x}}).at(0).second;
  for (int64_t i = 0; i < 24; ++i) {
    const float v = x.data<float>()[i], s = 0.1f * static_cast<float>(i / 4 % 3 + 1);
    EXPECT_FLOAT_EQ(y.data<float>()[i], v < 0 ? v * s : v) << i;
  }
  test::expect_matches_reference(p, {{"x", x}}, 0, 0);
}

TEST(PRelu, GeneratedCMatchesReferenceBitForBit) {
  OnnxBuilder m;
  io::NamedTensors inputs;
  uint32_t seed = 140;
  for (DType t : {DType::Float16, DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::UInt32,
                  DType::UInt64}) {
    const std::string n(dtype_name(t));
    m.input("x_" + n, t, {2, 3, 5}).input("s_" + n, t, {3, 1}).input("c_" + n, t, {});
    inputs.emplace_back("x_" + n, random_tensor(t, {2, 3, 5}, seed++, dtype_is_signed(t) ? -20 : 0, 20));
    inputs.emplace_back("s_" + n, random_tensor(t, {3, 1}, seed++, dtype_is_signed(t) ? -3 : 0, 3));
    inputs.emplace_back("c_" + n, random_tensor(t, {}, seed++, 0, 3));
    m.node("PRelu", {"x_" + n, "s_" + n}, {"y_" + n}).output("y_" + n);
    m.node("PRelu", {"x_" + n, "c_" + n}, {"z_" + n}).output("z_" + n);
  }
  test::expect_matches_reference(save(m), inputs, 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_prelu
