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

// Mixed precision: a threshold between the two layers' int8 SQNRs (and at
// most the worse one's 16x8 SQNR) makes the worse layer 16x8 rather than
// float; above its 16x8 SQNR too (when the better layer's int8 one allows
// such a threshold) it stays float.
TEST(Quantize, TheBadLayerTries16x8BeforeFloat) {
  Graph probe = small_cnn();
  const ptq::QuantizeReport all = ptq::quantize(probe, samples(4, 10), {});
  Graph probe16 = small_cnn();
  ptq::QuantizeOptions o16;
  o16.act_bits = 16;
  o16.weight_rounding = ptq::WeightRounding::Nearest;  // as mixed precision's 16x8 tries round
  const ptq::QuantizeReport all16 = ptq::quantize(probe16, samples(4, 10), o16);
  const size_t worse = all.layers[0].sqnr_db < all.layers[1].sqnr_db ? 0 : 1;
  const double worse8 = all.layers[worse].sqnr_db, better8 = all.layers[1 - worse].sqnr_db;
  const double worse16 = all16.layers[worse].sqnr_db;
  ASSERT_GT(worse16, worse8 + 3.0);  // int16 activations: a smaller error
  {
    Graph g = small_cnn();
    ptq::QuantizeOptions o;
    o.min_sqnr_db = (worse8 + std::min(better8, worse16)) / 2;
    const ptq::QuantizeReport r = ptq::quantize(g, samples(4, 10), o);
    EXPECT_TRUE(r.layers[worse].int8) << r.layers[worse].why;
    EXPECT_EQ(r.layers[worse].act_bits, 16);
    EXPECT_EQ(r.layers[worse].sqnr_db, worse16);  // its figures are the 16x8 form's
    EXPECT_TRUE(r.layers[1 - worse].int8);
    Graph folded = g;
    passes::fold_qdq(folded);
    const Node& n = node_named(folded, r.layers[worse].node);
    EXPECT_EQ(n.op, "QLinearConv");
    EXPECT_EQ(folded.value(n.inputs[0]).dtype, DType::Int16);
    EXPECT_EQ(node_named(folded, r.layers[1 - worse].node).op, "QLinearConv");
  }
  if (worse16 < better8) {
    Graph g = small_cnn();
    ptq::QuantizeOptions o;
    o.min_sqnr_db = (worse16 + better8) / 2;
    const ptq::QuantizeReport r = ptq::quantize(g, samples(4, 10), o);
    EXPECT_FALSE(r.layers[worse].int8);
    EXPECT_NE(r.layers[worse].why.find("and its 16x8 SQNR"), std::string::npos) << r.layers[worse].why;
    EXPECT_TRUE(r.layers[1 - worse].int8);
    Graph folded = g;
    passes::fold_qdq(folded);
    EXPECT_EQ(node_named(folded, r.layers[worse].node).op, r.layers[worse].op);
  }
}

// --quantize int16x8: every layer 16x8. The activations are int16 and
// symmetric (zero point 0, scale max |x| / 32767), the weights int8 per
// channel, the bias stays float in the QDQ model and becomes int64 in the
// QLinearConv; the output is closer to fp32 than int8's.
TEST(Quantize, Int16x8QuantizesEveryLayerWithInt16Activations) {
  Graph g8 = small_cnn();
  const ptq::QuantizeReport r8 = ptq::quantize(g8, samples(8, 10), {});
  Graph g = small_cnn();
  const Graph fp32 = g;
  ptq::QuantizeOptions o;
  o.act_bits = 16;
  // Round to nearest: GPTQ (16x8's default) fits the weights to the 8
  // samples, and the held-out one below is the scheme's check, not its.
  o.weight_rounding = ptq::WeightRounding::Nearest;
  const ptq::QuantizeReport r = ptq::quantize(g, samples(8, 10), o);
  ASSERT_EQ(r.layers.size(), 2u);
  for (const auto& l : r.layers) {
    EXPECT_TRUE(l.int8) << l.node << ": " << l.why;
    EXPECT_EQ(l.act_bits, 16) << l.node;
  }
  const Node& xq = node_named(g, "x_QuantizeLinear");
  EXPECT_EQ(g.value(xq.outputs[0]).dtype, DType::Int16);
  EXPECT_EQ(g.value(xq.inputs[2]).constant->as_int64()[0], 0);
  // x's scale: max |x| over the samples / 32767.
  double amax = 0.0;
  for (const auto& s : samples(8, 10))
    for (double v : s[0].as_double()) amax = std::max(amax, std::fabs(v));
  EXPECT_EQ(g.value(xq.inputs[1]).constant->data<float>()[0], static_cast<float>(amax) / 32767.0f);
  EXPECT_EQ(g.value(node_named(g, "w_DequantizeLinear").inputs[0]).constant->dtype(), DType::Int8);
  EXPECT_EQ(count(g, "DequantizeLinear"), 6);  // four activations and two weights; the biases stay float

  Graph folded = g;
  EXPECT_TRUE(passes::fold_qdq(folded).empty());
  const Node& conv = node_named(folded, "conv");
  EXPECT_EQ(conv.op, "QLinearConv");
  EXPECT_EQ(folded.value(conv.inputs[8]).dtype, DType::Int64);
  EXPECT_EQ(folded.value(conv.outputs[0]).dtype, DType::Int16);
  EXPECT_GT(r.outputs[0].sqnr_db, r8.outputs[0].sqnr_db + 3.0);
  const std::vector<TensorData> in = samples(1, 99)[0];
  const std::vector<double> a = evaluate(folded, in)[0].as_double(), e = evaluate(fp32, in)[0].as_double();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], e[i], 0.02 + 0.01 * std::fabs(e[i]));
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

// A transformer's Linear on a 3-D tensor (torch exports x [B, T, d] . W
// [d, n] as a MatMul, then the bias Add): the MatMul is int8 (it stayed
// float with "A and B must be 2-D"), its weights per output column (axis 1),
// and fold_qdq makes it the dense layer's 1x1 QLinearConv on the B * T rows
// between Reshapes, the output [B, T, n] close to the fp32 graph's. A 4-D
// A takes the same path.
TEST(Quantize, AMatMulOnThreeOrFourDimensionsIsADenseLayer) {
  for (const Shape& xs : {Shape{2, 7, 8}, Shape{2, 3, 5, 8}}) {
    SCOPED_TRACE(shape_str(xs));
    OnnxBuilder b;
    b.input("x", DType::Float32, xs);
    b.initializer("w", random_tensor(DType::Float32, {8, 6}, 1));
    b.initializer("bias", random_tensor(DType::Float32, {6}, 2));
    b.node("MatMul", {"x", "w"}, {"m"}, {}, "linear");
    b.node("Add", {"m", "bias"}, {"y"}, {}, "add");
    b.output("y");
    Graph g = frontend::import_onnx(b.save(test::scratch_dir(), fmt::format("quantize_matmul{}d.onnx", xs.size())));
    const Graph fp32 = g;
    std::vector<std::vector<TensorData>> calib;
    for (uint32_t i = 0; i < 8; ++i) calib.push_back({random_tensor(DType::Float32, xs, 10 + i)});
    const ptq::QuantizeReport r = ptq::quantize(g, calib, {});
    bool seen = false;
    for (const auto& l : r.layers)
      if (l.node == "linear") {
        seen = true;
        EXPECT_TRUE(l.int8) << l.why;
      }
    EXPECT_TRUE(seen);
    EXPECT_EQ(node_named(g, "w_DequantizeLinear").attrs.get_int("axis"), 1);
    Graph folded = g;
    for (const passes::FloatNote& f : passes::fold_qdq(folded)) {
      EXPECT_NE(f.node, "linear") << f.why;
    }
    EXPECT_EQ(node_named(folded, "linear").op, "QLinearConv");
    const TensorData in = random_tensor(DType::Float32, xs, 99);
    const TensorData a = evaluate(folded, {in})[0], e = evaluate(fp32, {in})[0];
    Shape ys = xs;
    ys.back() = 6;
    EXPECT_EQ(a.shape(), ys);
    const std::vector<double> av = a.as_double(), ev = e.as_double();
    ASSERT_EQ(av.size(), ev.size());
    double hi = 0;
    for (double v : ev) hi = std::max(hi, std::fabs(v));
    // Three roundings (x, the MatMul's output, the Add's), each half a step
    // of its own range: within 4 steps of the output's range.
    for (size_t i = 0; i < av.size(); ++i) EXPECT_NEAR(av[i], ev[i], 4 * hi / 255 + 1e-6) << i;
  }
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

// A 16x8 QDQ model written as ONNX: its int16 QuantizeLinear/DequantizeLinear
// in the com.microsoft domain (ONNX has int16 ones from opset 21 only), the
// int8 weights' in the default one; it reads back the same.
TEST(Quantize, Int16x8QdqModelWrittenAsOnnxReadsBackTheSame) {
  Graph g = small_cnn();
  ptq::QuantizeOptions o;
  o.act_bits = 16;
  const ptq::QuantizeReport r = ptq::quantize(g, samples(4, 10), o);
  const std::string bytes = frontend::export_onnx(r.qdq);
  EXPECT_NE(bytes.find("com.microsoft"), std::string::npos);
  const Graph back = frontend::import_onnx_bytes(bytes, "qdq16.onnx");
  EXPECT_EQ(count(back, "QuantizeLinear"), count(r.qdq, "QuantizeLinear"));
  for (const Node& n : back.nodes)
    if (n.op == "QuantizeLinear") {
      EXPECT_EQ(back.value(n.outputs[0]).dtype, DType::Int16) << n.name;
    }
  const std::vector<TensorData> in = samples(1, 5)[0];
  EXPECT_EQ(evaluate(back, in)[0], evaluate(r.qdq, in)[0]);
}

}  // namespace
}  // namespace mlipc::unit_ptq_quantize
