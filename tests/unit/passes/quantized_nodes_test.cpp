// passes::quantized_nodes, the rule of a quantized model that chooses the
// MLIP's quantization when -quantize is unset (driver/quantization.cpp):
// QDQ nodes and integer (QOperator) nodes on computed 8-bit tensors count;
// a DequantizeLinear of constant weights alone and a Cast to uint8 in an
// fp32 model do not.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "passes/passes.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/reference.h"

namespace mlipc::unit_passes_quantized_nodes {
namespace {

using test::OnnxBuilder;
using test::random_tensor;

Graph import(const OnnxBuilder& b) {
  Graph g = test::import_built(b, "quantized_nodes");
  passes::simplify(g);
  return g;
}

TEST(QuantizedNodes, QdqNodesOnComputedTensorsCount) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 4});
  b.initializer("s", TensorData::from<float>({}, {0.05f}));
  b.initializer("z", TensorData::from<int8_t>({}, {0}));
  b.node("QuantizeLinear", {"x", "s", "z"}, {"q"});
  b.node("DequantizeLinear", {"q", "s", "z"}, {"y"});
  b.output("y");
  const passes::QuantizedNodes q = passes::quantized_nodes(import(b));
  EXPECT_EQ(q.qdq, 2);
  EXPECT_EQ(q.qoperator, 0);
  EXPECT_TRUE(q.any());
}

TEST(QuantizedNodes, IntegerOperatorsCountAsQOperator) {
  OnnxBuilder b;
  b.input("a", DType::UInt8, {2, 3});
  b.initializer("w", TensorData::from<uint8_t>({3, 2}, {1, 2, 3, 4, 5, 6}));
  b.node("MatMulInteger", {"a", "w"}, {"y"});
  b.output("y");
  const passes::QuantizedNodes q = passes::quantized_nodes(import(b));
  EXPECT_EQ(q.qdq, 0);
  EXPECT_EQ(q.qoperator, 1);
}

TEST(QuantizedNodes, WeightOnlyDequantizeAndCastsDoNotCount) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 3});
  b.initializer("wq", TensorData::from<int8_t>({3, 2}, {1, -2, 3, -4, 5, -6}));
  b.initializer("s", TensorData::from<float>({}, {0.1f}));
  b.node("DequantizeLinear", {"wq", "s"}, {"w"});
  b.node("MatMul", {"x", "w"}, {"m"});
  b.node("Cast", {"m"}, {"y"}, {{"to", int64_t{2}}});  // to uint8
  b.output("y");
  Graph g = import(b);
  EXPECT_FALSE(passes::quantized_nodes(g).any());
  EXPECT_FALSE(passes::has_quantized_tensors(g));
}

}  // namespace
}  // namespace mlipc::unit_passes_quantized_nodes
