// ptq::quantize (post-training quantization) on a small Conv -> Relu ->
// Flatten -> Gemm model: the pairs it inserts (per-channel int8 weights,
// int32 bias, int8 activations, the Relu inside the pair), what fold_qdq
// makes of them, mixed precision by the SQNR threshold, the report, the
// progress calls, and the QDQ model written as ONNX and read back.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>

#include "frontend/onnx_export.h"
#include "frontend/onnx_import.h"
#include "ops/evaluator.h"
#include "passes/passes.h"
#include "ptq/quantize.h"
#include "small_cnn.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ptq_quantize {
namespace {

using test::OnnxBuilder;
using test::random_tensor;

Graph small_cnn() { return unit_ptq::small_cnn("quantize"); }
std::vector<std::vector<TensorData>> samples(int n, uint32_t seed) { return unit_ptq::small_cnn_samples(n, seed); }

int count(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.op == op;
  return n;
}

const Node& node_named(const Graph& g, const std::string& name) {
  for (const Node& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

TEST(Quantize, InsertsPairsThatFoldIntoIntegerOperators) {
  Graph g = small_cnn();
  const Graph fp32 = g;
  std::map<std::string, size_t> calls;
  ptq::QuantizeOptions o;
  o.progress = [&](std::string_view phase, size_t done, size_t total) {
    EXPECT_EQ(total, 8u);
    EXPECT_LE(done, total);
    calls[std::string(phase)]++;
  };
  const ptq::QuantizeReport r = ptq::quantize(g, samples(8, 10), o);
  EXPECT_EQ(calls, (std::map<std::string, size_t>{{"ranges", 9}, {"layer errors", 9}, {"model error", 9}}));
  EXPECT_TRUE(passes::has_quantized_tensors(g));
  EXPECT_FALSE(passes::has_quantized_tensors(fp32));
  // x, r (after the Relu: its range narrows the output's), f (Flatten keeps r's scale), y.
  EXPECT_EQ(count(g, "QuantizeLinear"), 4);
  const Node& wdq = node_named(g, "w_DequantizeLinear");
  EXPECT_EQ(wdq.attrs.get_int("axis"), 0);
  const TensorData& wq = *g.value(wdq.inputs[0]).constant;
  EXPECT_EQ(wq.dtype(), DType::Int8);
  for (int64_t i = 0; i < wq.numel(); ++i) EXPECT_GE(wq.data<int8_t>()[i], -127);
  EXPECT_EQ(g.value(node_named(g, "b_DequantizeLinear").inputs[0]).constant->dtype(), DType::Int32);
  EXPECT_EQ(g.value(node_named(g, "r_QuantizeLinear").inputs[1]).constant->data<float>()[0],
            g.value(node_named(g, "f_QuantizeLinear").inputs[1]).constant->data<float>()[0]);
  ASSERT_EQ(r.layers.size(), 2u);  // the Flatten is a view, not a row
  for (const auto& l : r.layers) {
    EXPECT_TRUE(l.int8) << l.node << ": " << l.why;
    EXPECT_GT(l.sqnr_db, 30.0) << l.node;
    EXPECT_GT(l.max_abs_error, 0.0) << l.node;
  }
  EXPECT_EQ(r.layers[0].origins, (std::vector<std::string>{"conv (Conv)", "relu (Relu)"}));
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_GT(r.outputs[0].sqnr_db, 30.0);

  Graph folded = g;
  EXPECT_TRUE(passes::fold_qdq(folded).empty());
  const Node& conv = node_named(folded, "conv");
  EXPECT_EQ(conv.op, "QLinearConv");
  EXPECT_EQ(count(folded, "Relu"), 0);  // inside the pair: r's zero point is -128, the Relu's clamp the type's
  EXPECT_EQ(node_named(folded, "fc").op, "QLinearConv");  // the dense layer as a 1x1 convolution
  // The folded model is the fp32 model within the output's quantization.
  const std::vector<TensorData> in = samples(1, 99)[0];
  const std::vector<double> a = evaluate(folded, in)[0].as_double(), e = evaluate(fp32, in)[0].as_double();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], e[i], 0.1 + 0.05 * std::fabs(e[i]));
}

TEST(Quantize, LayersBelowTheThresholdStayFloat) {
  Graph g = small_cnn();
  ptq::QuantizeOptions o;
  o.min_sqnr_db = 1000.0;
  const ptq::QuantizeReport r = ptq::quantize(g, samples(4, 10), o);
  EXPECT_EQ(count(g, "QuantizeLinear"), 0);
  EXPECT_FALSE(passes::has_quantized_tensors(g));
  for (const auto& l : r.layers) {
    EXPECT_FALSE(l.int8);
    EXPECT_NE(l.why.find("is below 1000.0 dB"), std::string::npos) << l.why;
    EXPECT_EQ(l.model_max_abs_error, 0.0);  // nothing quantized: the model is the fp32 model
  }
}

TEST(Quantize, OnlyTheBadLayerStaysFloat) {
  Graph probe = small_cnn();
  const ptq::QuantizeReport all = ptq::quantize(probe, samples(4, 10), {});
  // A threshold between the two layers' SQNR keeps the worse one float.
  const double mid = (all.layers[0].sqnr_db + all.layers[1].sqnr_db) / 2;
  const size_t worse = all.layers[0].sqnr_db < all.layers[1].sqnr_db ? 0 : 1;
  Graph g = small_cnn();
  ptq::QuantizeOptions o;
  o.min_sqnr_db = mid;
  const ptq::QuantizeReport r = ptq::quantize(g, samples(4, 10), o);
  EXPECT_FALSE(r.layers[worse].int8);
  EXPECT_TRUE(r.layers[1 - worse].int8);
  Graph folded = g;
  passes::fold_qdq(folded);
  EXPECT_EQ(node_named(folded, r.layers[worse].node).op, r.layers[worse].op);
  EXPECT_EQ(node_named(folded, r.layers[1 - worse].node).op, "QLinearConv");
}

// A ConvTranspose (groups of 2; weights [C_in, C_out / group, kh, kw], so
// per channel on axis 1, the bias's scales repeating per group) becomes the
// integer ConvTranspose, within the output's quantization of the fp32 graph.
TEST(Quantize, ConvTransposeFoldsIntoTheIntegerConvTranspose) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 2, 6, 6});
  b.initializer("w", random_tensor(DType::Float32, {2, 3, 3, 3}, 1));
  b.initializer("b", random_tensor(DType::Float32, {6}, 2));
  b.node("ConvTranspose", {"x", "w", "b"}, {"c"}, {{"strides", std::vector<int64_t>{2, 2}}, {"group", int64_t{2}}},
         "up");
  b.node("Relu", {"c"}, {"y"}, {}, "relu");
  b.output("y");
  Graph g = frontend::import_onnx(b.save(test::scratch_dir(), "quantize_convtranspose.onnx"));
  const Graph fp32 = g;
  const ptq::QuantizeReport r = ptq::quantize(g, samples(8, 10), {});
  ASSERT_EQ(r.layers.size(), 1u);
  EXPECT_TRUE(r.layers[0].int8) << r.layers[0].why;
  EXPECT_EQ(node_named(g, "w_DequantizeLinear").attrs.get_int("axis"), 1);
  Graph folded = g;
  EXPECT_TRUE(passes::fold_qdq(folded).empty());
  EXPECT_EQ(node_named(folded, "up").op, "mlipc.QLinearConvTranspose");
  const std::vector<TensorData> in = samples(1, 99)[0];
  const std::vector<double> a = evaluate(folded, in)[0].as_double(), e = evaluate(fp32, in)[0].as_double();
  ASSERT_EQ(a.size(), e.size());
  double hi = 0;
  for (double v : e) hi = std::max(hi, std::fabs(v));
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], e[i], 2 * hi / 255 + 1e-6) << i;
}

TEST(Quantize, EmptyCalibrationSetIsRefused) {
  Graph g = small_cnn();
  EXPECT_THROW(ptq::quantize(g, {}, {}), Error);
}

TEST(Quantize, QdqModelWrittenAsOnnxReadsBackTheSame) {
  Graph g = small_cnn();
  const ptq::QuantizeReport r = ptq::quantize(g, samples(4, 10), {});
  const std::string bytes = frontend::export_onnx(r.qdq);
  const Graph back = frontend::import_onnx_bytes(bytes, "qdq.onnx");
  ASSERT_EQ(back.outputs.size(), 1u);
  EXPECT_EQ(back.outputs[0].name, "y");
  EXPECT_EQ(count(back, "QuantizeLinear"), count(r.qdq, "QuantizeLinear"));
  EXPECT_EQ(count(back, "DequantizeLinear"), count(r.qdq, "DequantizeLinear"));
  const std::vector<TensorData> in = samples(1, 5)[0];
  EXPECT_EQ(evaluate(back, in)[0], evaluate(r.qdq, in)[0]);
}

}  // namespace
}  // namespace mlipc::unit_ptq_quantize
