// BitShift: LEFT and RIGHT on every unsigned type, shifts past the width;
// generated C bit-identical to the reference.
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_bitshift {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;
using Attrs = std::vector<std::pair<std::string, AttrValue>>;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("bitshift_{}.onnx", k++));
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

TEST(BitShift, ShapeRule) {
  const Attrs left = {{"direction", std::string("LEFT")}};
  Graph g = frontend::import_onnx(binary_model("BitShift", DType::UInt8, {2, 3}, DType::UInt8, {3}, left));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 3}));
  EXPECT_THAT(import_error(binary_model("BitShift", DType::Int32, {2}, DType::Int32, {2}, left)),
              HasSubstr("has element type int32; supported: uint8, uint16, uint32, uint64"));
  EXPECT_THAT(import_error(binary_model("BitShift", DType::UInt8, {2}, DType::UInt8, {2})),
              HasSubstr("attribute 'direction' (\"LEFT\" or \"RIGHT\") is required"));
  EXPECT_THAT(import_error(binary_model("BitShift", DType::UInt8, {2}, DType::UInt8, {2},
                                        {{"direction", std::string("UP")}})),
              HasSubstr("direction must be \"LEFT\" or \"RIGHT\", got \"UP\""));
}

TEST(BitShift, Reference) {
  const Attrs left = {{"direction", std::string("LEFT")}}, right = {{"direction", std::string("RIGHT")}};
  const TensorData x = TensorData::from<uint8_t>({4}, {16, 4, 1, 255});
  const TensorData s = TensorData::from<uint8_t>({4}, {1, 2, 7, 8});
  EXPECT_EQ(eval("BitShift", x, s, left), TensorData::from<uint8_t>({4}, {32, 16, 128, 0}));
  EXPECT_EQ(eval("BitShift", x, s, right), TensorData::from<uint8_t>({4}, {8, 1, 0, 0}));
  const TensorData big = TensorData::from<uint64_t>({3}, {1, 1ULL << 63, 5});
  EXPECT_EQ(eval("BitShift", big, TensorData::from<uint64_t>({3}, {63, 64, 200}), left),
            TensorData::from<uint64_t>({3}, {1ULL << 63, 0, 0}));
}

TEST(BitShift, GeneratedCMatchesReferenceBitForBit) {
  OnnxBuilder m;
  io::NamedTensors inputs;
  uint32_t seed = 120;
  for (DType t : {DType::UInt8, DType::UInt16, DType::UInt32, DType::UInt64}) {
    const std::string x = fmt::format("x_{}", dtype_name(t)), s = fmt::format("s_{}", dtype_name(t));
    m.input(x, t, {3, 5}).input(s, t, {5});
    inputs.emplace_back(x, random_tensor(t, {3, 5}, seed++, 0, 250));
    inputs.emplace_back(s, random_tensor(t, {5}, seed++, 0, dtype_size(t) * 8 + 2));  // past the width too
    for (const char* dir : {"LEFT", "RIGHT"}) {
      const std::string y = fmt::format("{}_{}", dir, dtype_name(t));
      m.node("BitShift", {x, s}, {y}, {{"direction", std::string(dir)}}).output(y);
    }
  }
  test::expect_matches_reference(save(m), inputs, 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_bitshift
