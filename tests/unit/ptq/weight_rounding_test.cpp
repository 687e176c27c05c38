// Error-compensating weight rounding (--weight-rounding gptq,
// ptq/weight_rounding.h) against values computed by hand:
// - two columns with correlated inputs: the first rounds to nearest and
//   its error moves the second by err * H12 / (H22 + damp), which then
//   rounds the other way; the output error e^T H e is lower than nearest's;
// - uncorrelated inputs (H diagonal): exactly round-to-nearest, int8,
//   int4 per channel and int4 in blocks;
// - the values stay on the fixed grid and within [-qmax, qmax] (a block's
//   q * 2^e with the exponent quantize_weight_blocks chooses); two runs,
//   and the factor computed once beforehand, give the same bytes;
// - the Hessians collect_hessians accumulates are X^T X: w^T H w is the
//   sum of the squared outputs of the layer without bias (Conv grouped,
//   padded, strided, dilated and depthwise; Gemm with transA; MatMul of a
//   3-D input), from the reference evaluator;
// - ptq::quantize with gptq on a Gemm whose inputs are correlated: its
//   SQNR alone above round-to-nearest's, the report's count; a layer too
//   wide for the Hessian's bound keeps nearest, and the report says why.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "ops/evaluator.h"
#include "ptq/classify.h"
#include "ptq/quantize.h"
#include "ptq/weight_rounding.h"
#include "ptq/weight_scale.h"
#include "testlib/onnx_builder.h"
#include "testlib/reference.h"
#include "testlib/tensors.h"

namespace mlipc::unit_ptq_weight_rounding {
namespace {

using test::OnnxBuilder;
using test::random_tensor;

std::vector<int32_t> ints(const TensorData& t) {
  std::vector<int32_t> v;
  for (int64_t x : t.as_int64()) v.push_back(static_cast<int32_t>(x));
  return v;
}

ptq::LayerHessian hessian(int64_t groups, int64_t k, std::vector<double> h) {
  ptq::LayerHessian l;
  l.groups = groups;
  l.k = k;
  l.h = std::move(h);
  return l;
}

// e^T H e: the squared output error over the data H was made from.
double output_error(const std::vector<double>& e, const std::vector<double>& h) {
  const size_t k = e.size();
  double s = 0.0;
  for (size_t i = 0; i < k; ++i)
    for (size_t j = 0; j < k; ++j) s += e[i] * h[i * k + j] * e[j];
  return s;
}

TEST(WeightRounding, TwoCorrelatedColumnsByHand) {
  // H = [[1, 0.9], [0.9, 1]] (inputs correlated 0.9), damped by 1% of its
  // mean diagonal: [[1.01, 0.9], [0.9, 1.01]]. Weights [0.4, 0.4] at step 1.
  const std::vector<double> h = {1.0, 0.9, 0.9, 1.0};
  // The factor by hand: H'^-1 = [[a, -b], [-b, a]] / (a^2 - b^2), a = 1.01,
  // b = 0.9; U11 = sqrt(a / det), U12 = -b / sqrt(a det), U22 = 1 / sqrt(a).
  const double a = 1.01, b = 0.9, det = a * a - b * b;
  const std::vector<double> u = ptq::inverse_cholesky(h.data(), 2);
  ASSERT_EQ(u.size(), 4u);
  EXPECT_NEAR(u[0], std::sqrt(a / det), 1e-12);
  EXPECT_NEAR(u[1], -b / std::sqrt(a * det), 1e-12);
  EXPECT_EQ(u[2], 0.0);
  EXPECT_NEAR(u[3], 1.0 / std::sqrt(a), 1e-12);
  // Column 0: 0.4 rounds to 0 (error 0.4); column 1 becomes 0.4 + 0.4 *
  // b / a = 0.7564..., which rounds to 1. Nearest gives [0, 0].
  const TensorData w = TensorData::from<float>({1, 2}, {0.4f, 0.4f});
  EXPECT_EQ(ints(ptq::quantize_weight(w, 0, {1.0f})), (std::vector<int32_t>{0, 0}));
  const TensorData g = ptq::quantize_weight_gptq(w, 0, {1.0f}, 127, hessian(1, 2, h));
  EXPECT_EQ(ints(g), (std::vector<int32_t>{0, 1}));
  // Output error e^T H e: nearest 0.16 + 0.16 + 2 * 0.9 * 0.16 = 0.608;
  // GPTQ's (e = [0.4, -0.6]) 0.16 + 0.36 - 2 * 0.9 * 0.24 = 0.088.
  EXPECT_NEAR(output_error({0.4, 0.4}, h), 0.608, 1e-12);
  EXPECT_NEAR(output_error({0.4, -0.6}, h), 0.088, 1e-12);
  // The same weights with uncorrelated inputs: nearest's [0, 0].
  EXPECT_EQ(ints(ptq::quantize_weight_gptq(w, 0, {1.0f}, 127, hessian(1, 2, {1.0, 0.0, 0.0, 1.0}))),
            (std::vector<int32_t>{0, 0}));
}

// A random symmetric positive semi-definite H of k x k: X^T X of n rows,
// columns correlated through a shared component (strength `mix`).
std::vector<double> random_hessian(int64_t k, int n, double mix, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<double> h(static_cast<size_t>(k * k), 0.0), x(static_cast<size_t>(k));
  for (int r = 0; r < n; ++r) {
    const double common = g(rng);
    for (double& v : x) v = mix * common + g(rng);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < k; ++j) h[static_cast<size_t>(i * k + j)] += x[static_cast<size_t>(i)] * x[static_cast<size_t>(j)];
  }
  return h;
}

TEST(WeightRounding, DiagonalHessianIsRoundToNearest) {
  // Channels on axis 0 ([M, K], a Conv's rows) and on axis 1 ([K, N], a
  // MatMul's B); diagonal H of unequal entries, one column never seen (0).
  const int64_t k = 24, m = 5;
  std::vector<double> h(static_cast<size_t>(k * k), 0.0);
  for (int64_t i = 0; i < k; ++i) h[static_cast<size_t>(i * k + i)] = i == 3 ? 0.0 : 0.5 + static_cast<double>(i);
  for (int axis : {0, 1}) {
    const TensorData w = random_tensor(DType::Float32, axis == 0 ? Shape{m, k} : Shape{k, m}, 7, -2.0, 2.0);
    const std::vector<float> amax = ptq::channel_amax(w, axis);
    const std::vector<float> s8 = ptq::weight_scales(amax, {}, 0.0f, nullptr);
    EXPECT_EQ(ptq::quantize_weight_gptq(w, axis, s8, 127, hessian(1, k, h)), ptq::quantize_weight(w, axis, s8));
    const std::vector<float> s4 = ptq::weight_scales(amax, {}, 0.0f, nullptr, ptq::kInt4Max);
    EXPECT_EQ(ptq::quantize_weight_gptq(w, axis, s4, ptq::kInt4Max, hessian(1, k, h)),
              ptq::quantize_weight(w, axis, s4, ptq::kInt4Max));
    const std::vector<float> sb = ptq::weight_scales(amax, {}, 0.0f, nullptr, ptq::kBlockQMax);
    EXPECT_EQ(ptq::quantize_weight_gptq(w, axis, sb, ptq::kBlockQMax, hessian(1, k, h), 8),
              ptq::quantize_weight_blocks(w, axis, sb, 8));
  }
}

TEST(WeightRounding, CorrelatedInputsStayOnTheGridAndLowerTheOutputError) {
  const int64_t k = 32, m = 6;
  const std::vector<double> h = random_hessian(k, 200, 2.0, 3);
  const TensorData w = random_tensor(DType::Float32, {m, k}, 11, -1.0, 1.0);
  const float* wf = w.data<float>();
  const std::vector<float> amax = ptq::channel_amax(w, 0);
  struct Case {
    int qmax;
    int64_t block;
    std::vector<float> scale;
  };
  const std::vector<Case> cases = {{127, 0, ptq::weight_scales(amax, {}, 0.0f, nullptr)},
                                   {ptq::kInt4Max, 0, ptq::weight_scales(amax, {}, 0.0f, nullptr, ptq::kInt4Max)},
                                   {ptq::kBlockQMax, 8, ptq::weight_scales(amax, {}, 0.0f, nullptr, ptq::kBlockQMax)}};
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt::format("qmax {} block {}", c.qmax, c.block));
    const TensorData near = c.block ? ptq::quantize_weight_blocks(w, 0, c.scale, c.block)
                                    : ptq::quantize_weight(w, 0, c.scale, c.qmax);
    const TensorData gq = ptq::quantize_weight_gptq(w, 0, c.scale, c.qmax, hessian(1, k, h), c.block);
    EXPECT_EQ(gq, ptq::quantize_weight_gptq(w, 0, c.scale, c.qmax, hessian(1, k, h), c.block));  // deterministic
    EXPECT_FALSE(gq == near);
    ptq::Hessians hs;  // factored once (as ptq::quantize does): the same bytes
    hs.layers["fc"] = hessian(1, k, h);
    ptq::factor_hessians(hs);
    EXPECT_TRUE(hs.layers["fc"].factored);
    EXPECT_EQ(ptq::quantize_weight_gptq(w, 0, c.scale, c.qmax, hs.layers["fc"], c.block), gq);
    const int8_t* q = gq.data<int8_t>();
    const int8_t* n = near.data<int8_t>();
    double err_near = 0.0, err_gptq = 0.0;
    for (int64_t ch = 0; ch < m; ++ch) {
      const float s = c.scale[static_cast<size_t>(ch)];
      std::vector<double> en(static_cast<size_t>(k)), eg(static_cast<size_t>(k));
      for (int64_t t = 0; t < k; ++t) {
        const int64_t i = ch * k + t;
        int e = 0;  // a block's exponent, as quantize_weight_blocks chooses it
        if (c.block) {
          const int64_t b0 = t / c.block * c.block;
          float bmax = 0.0f;
          for (int64_t u = b0; u < b0 + c.block; ++u) bmax = std::max(bmax, std::fabs(wf[ch * k + u]));
          e = ptq::block_exponent(bmax, s);
        }
        // On the grid: q * 2^e, q in [-qmax, qmax].
        EXPECT_EQ(q[i] % (1 << e), 0) << "at " << i;
        EXPECT_LE(std::abs(q[i] >> e), c.block ? ptq::kInt4Max : c.qmax) << "at " << i;
        EXPECT_EQ(n[i] % (1 << e), 0);
        en[static_cast<size_t>(t)] = wf[i] - n[i] * static_cast<double>(s);
        eg[static_cast<size_t>(t)] = wf[i] - q[i] * static_cast<double>(s);
      }
      err_near += output_error(en, h);
      err_gptq += output_error(eg, h);
    }
    fmt::print("qmax {} block {}: output error nearest {:.4g}, gptq {:.4g} ({:.1f} dB lower)\n", c.qmax, c.block,
               err_near, err_gptq, 10.0 * std::log10(err_near / err_gptq));
    EXPECT_LT(err_gptq, 0.8 * err_near);
  }
}

// collect_hessians on one layer's model against the reference evaluator:
// for every output channel c (weights w_c, group g), w_c^T H_g w_c is the
// sum of the squared outputs of channel c over the samples.
void expect_hessian_is_xtx(OnnxBuilder& b, const std::string& tag, const std::vector<Shape>& in_shapes, int axis,
                           int64_t groups) {
  const Graph g = test::import_built(b, tag);
  const std::vector<ptq::Layer> layers = ptq::find_layers(g);
  ASSERT_EQ(layers.size(), 1u);
  const Node& n = g.nodes[static_cast<size_t>(layers[0].node)];
  ASSERT_TRUE(ptq::gptq_applies(g, n));
  std::vector<std::vector<TensorData>> inputs;
  for (uint32_t s = 0; s < 3; ++s) inputs.push_back({random_tensor(DType::Float32, in_shapes[0], 40 + s, -2.0, 2.0)});
  ptq::QuantizeOptions o;
  const ptq::Samples samples{inputs, o};
  const ptq::Hessians hs = ptq::collect_hessians(g, layers, samples);
  const ptq::LayerHessian* h = hs.of(n.name);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->groups, groups);
  const TensorData& w = *g.value(weight_of(n)).constant;
  const ptq::ChannelLayout l(w.shape(), axis);
  ASSERT_EQ(h->k, l.k());
  std::vector<double> want(static_cast<size_t>(l.count), 0.0);
  for (const auto& in : inputs) {
    const TensorData y = evaluate(g, in)[0];
    const Shape& ys = y.shape();
    // The channel axis of the output: 1 for a Conv (NCHW), last for a dense layer.
    const int64_t c_axis = n.op == "Conv" ? 1 : static_cast<int64_t>(ys.size()) - 1;
    int64_t inner = 1;
    for (size_t d = static_cast<size_t>(c_axis) + 1; d < ys.size(); ++d) inner *= ys[d];
    for (int64_t i = 0; i < y.numel(); ++i) {
      const double v = y.data<float>()[i];
      want[static_cast<size_t>(i / inner % l.count)] += v * v;
    }
  }
  const float* wf = w.data<float>();
  for (int64_t c = 0; c < l.count; ++c) {
    const double* hg = h->group(c / (l.count / groups));
    double got = 0.0;
    for (int64_t s = 0; s < l.k(); ++s)
      for (int64_t t = 0; t < l.k(); ++t) got += wf[l.of(c, s)] * hg[s * l.k() + t] * wf[l.of(c, t)];
    EXPECT_NEAR(got, want[static_cast<size_t>(c)], 1e-4 * want[static_cast<size_t>(c)]) << tag << " channel " << c;
  }
}

TEST(WeightRounding, HessiansAreTheInputsGram) {
  {  // Conv, 2 groups, padded, strided, dilated, batch 2
    OnnxBuilder b;
    b.input("x", DType::Float32, {2, 4, 5, 6});
    b.initializer("w", random_tensor(DType::Float32, {6, 2, 3, 2}, 1));
    b.node("Conv", {"x", "w"}, {"y"},
           {{"group", int64_t{2}},
            {"pads", std::vector<int64_t>{1, 0, 1, 1}},
            {"strides", std::vector<int64_t>{2, 1}},
            {"dilations", std::vector<int64_t>{1, 2}}},
           "conv");
    b.output("y");
    expect_hessian_is_xtx(b, "gptq_conv", {{2, 4, 5, 6}}, 0, 2);
  }
  {  // depthwise
    OnnxBuilder b;
    b.input("x", DType::Float32, {1, 3, 4, 4});
    b.initializer("w", random_tensor(DType::Float32, {3, 1, 3, 3}, 2));
    b.node("Conv", {"x", "w"}, {"y"}, {{"group", int64_t{3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}}, "dw");
    b.output("y");
    expect_hessian_is_xtx(b, "gptq_dw", {{1, 3, 4, 4}}, 0, 3);
  }
  {  // Conv 1-D
    OnnxBuilder b;
    b.input("x", DType::Float32, {1, 2, 9});
    b.initializer("w", random_tensor(DType::Float32, {3, 2, 4}, 3));
    b.node("Conv", {"x", "w"}, {"y"}, {{"pads", std::vector<int64_t>{2, 1}}}, "conv1d");
    b.output("y");
    expect_hessian_is_xtx(b, "gptq_conv1d", {{1, 2, 9}}, 0, 1);
  }
  {  // Gemm with transA: A [K = 4, M = 3], B [4, 2]
    OnnxBuilder b;
    b.input("a", DType::Float32, {4, 3});
    b.initializer("w", random_tensor(DType::Float32, {4, 2}, 4));
    b.node("Gemm", {"a", "w"}, {"y"}, {{"transA", int64_t{1}}}, "gemm");
    b.output("y");
    expect_hessian_is_xtx(b, "gptq_gemm", {{4, 3}}, 1, 1);
  }
  {  // MatMul of a 3-D input
    OnnxBuilder b;
    b.input("a", DType::Float32, {2, 3, 4});
    b.initializer("w", random_tensor(DType::Float32, {4, 5}, 5));
    b.node("MatMul", {"a", "w"}, {"y"}, {}, "matmul");
    b.output("y");
    expect_hessian_is_xtx(b, "gptq_matmul", {{2, 3, 4}}, 1, 1);
  }
}

// A Gemm [1, 16] -> [1, 6] whose 16 inputs share a common component, 16x8
// (int16 activations: the weights' rounding is most of the error): its
// SQNR alone with GPTQ's weights above round-to-nearest's.
TEST(WeightRounding, QuantizeWithGptqLowersTheLayersError) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 16});
  b.initializer("w", random_tensor(DType::Float32, {6, 16}, 21));
  b.initializer("bias", random_tensor(DType::Float32, {6}, 22));
  b.node("Gemm", {"x", "w", "bias"}, {"y"}, {{"transB", int64_t{1}}}, "fc");
  b.output("y");
  const Graph fp32 = test::import_built(b, "gptq_fc");
  std::mt19937 rng(5);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<std::vector<TensorData>> samples;
  for (int s = 0; s < 64; ++s) {
    std::vector<float> x(16);
    const float common = nd(rng);
    for (float& v : x) v = 3.0f * common + 0.3f * nd(rng);
    samples.push_back({TensorData::from<float>({1, 16}, x)});
  }
  ptq::QuantizeOptions o;
  o.act_bits = 16;  // 16x8: the weights' rounding is most of the layer's error
  o.weight_rounding = ptq::WeightRounding::Nearest;
  Graph g1 = fp32, g2 = fp32, g3 = fp32;
  const ptq::QuantizeReport near = ptq::quantize(g1, samples, o);
  o.weight_rounding = ptq::WeightRounding::Gptq;
  const ptq::QuantizeReport gptq = ptq::quantize(g2, samples, o);
  // Not given: 16x8 rounds by GPTQ (ptq/options.h), int8 to nearest.
  o.weight_rounding = ptq::WeightRounding::Auto;
  const ptq::QuantizeReport by_default = ptq::quantize(g3, samples, o);
  EXPECT_EQ(by_default.options.weight_rounding, ptq::WeightRounding::Gptq);
  EXPECT_EQ(by_default.gptq_layers, 1u);
  EXPECT_EQ(by_default.layers[0].sqnr_db, gptq.layers[0].sqnr_db);
  o.act_bits = 8;
  EXPECT_EQ(ptq::resolved_rounding(o), ptq::WeightRounding::Nearest);
  ASSERT_EQ(near.layers.size(), 1u);
  ASSERT_EQ(gptq.layers.size(), 1u);
  EXPECT_EQ(near.gptq_layers, 0u);
  EXPECT_EQ(gptq.gptq_layers, 1u);
  EXPECT_TRUE(gptq.rounded_nearest.empty());
  fmt::print("fc alone: nearest {:.1f} dB, gptq {:.1f} dB\n", near.layers[0].sqnr_db, gptq.layers[0].sqnr_db);
  EXPECT_GT(gptq.layers[0].sqnr_db, near.layers[0].sqnr_db + 1.0);
  // The same scales (the grid is fixed): only the integers differ.
  auto weights = [](const Graph& g, const char* what) -> const TensorData& {
    for (const Node& n : g.nodes)
      if (n.name == "w_DequantizeLinear") return *g.value(n.inputs[what[0] == 'q' ? 0 : 1]).constant;
    throw std::runtime_error("no weights");
  };
  EXPECT_EQ(weights(g1, "scale"), weights(g2, "scale"));
  EXPECT_FALSE(weights(g1, "q") == weights(g2, "q"));
}

// Past the bound (a layer's Hessian at most 2^22 doubles: K = 2,049 needs
// 4,198,401) the layer keeps round-to-nearest, and the report says why.
TEST(WeightRounding, TooWideALayerRoundsToNearest) {
  const int64_t k = 2049;
  ASSERT_GT(k * k, ptq::kGptqMaxLayer);
  ASSERT_LE((k - 1) * (k - 1), ptq::kGptqMaxLayer);
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, k});
  b.initializer("w", random_tensor(DType::Float32, {2, k}, 31));
  b.node("Gemm", {"x", "w"}, {"y"}, {{"transB", int64_t{1}}}, "wide");
  b.output("y");
  const Graph fp32 = test::import_built(b, "gptq_wide");
  std::vector<std::vector<TensorData>> samples;
  for (uint32_t s = 0; s < 3; ++s) samples.push_back({random_tensor(DType::Float32, {1, k}, 50 + s)});
  ptq::QuantizeOptions o;
  Graph g1 = fp32, g2 = fp32;
  ptq::quantize(g1, samples, o);
  o.weight_rounding = ptq::WeightRounding::Gptq;
  const ptq::QuantizeReport r = ptq::quantize(g2, samples, o);
  EXPECT_EQ(r.gptq_layers, 0u);
  ASSERT_EQ(r.rounded_nearest.size(), 1u);
  EXPECT_EQ(r.rounded_nearest[0].first, "wide");
  EXPECT_EQ(r.rounded_nearest[0].second,
            "its Hessian would be 1 x 2049 x 2049 doubles, above the 4194304 (32 MiB) of one layer");
  auto weights = [](const Graph& g) -> const TensorData& {
    for (const Node& n : g.nodes)
      if (n.name == "w_DequantizeLinear") return *g.value(n.inputs[0]).constant;
    throw std::runtime_error("no weights");
  };
  EXPECT_EQ(weights(g1), weights(g2));
}

}  // namespace
}  // namespace mlipc::unit_ptq_weight_rounding
