// 4-bit weights (--weight-bits 4, ptq/weight_scale.h) against values
// computed by hand: per channel at max |w| / 7 in [-7, 7], rounded half to
// even, saturated; a dense layer's blocks at max |w| / 112 with sub-scales
// 2^e (e in [0, 4], the smallest that holds the block), the values q * 2^e;
// the bias-safe rule at qmax 7; and the nibble packing the CPU kernels read
// (c/kernels/conv_integer.cpp, mlip/kq4.h): low nibble first, odd counts,
// the block exponents after the values; ptq::quantize at 4 bits on a small
// Conv -> Relu -> Flatten -> Gemm model: the marks fold_qdq keeps, the
// emitted QDQ model without them, mixed precision from 4 to 8 bits to float.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "c/kernels/kernels.h"
#include "ops/quant.h"
#include "passes/passes.h"
#include "ptq/quantize.h"
#include "small_cnn.h"
#include "ptq/weight_scale.h"
#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ptq_int4_weights {
namespace {

std::vector<int32_t> ints(const TensorData& t) {
  std::vector<int32_t> v;
  for (int64_t x : t.as_int64()) v.push_back(static_cast<int32_t>(x));
  return v;
}

std::vector<int> bytes(const TensorData& t) {
  std::vector<int> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(static_cast<uint8_t>(t.data<int8_t>()[i]));
  return v;
}

TEST(Int4Weights, PerChannelOverSevenHalfToEvenSaturated) {
  // Channels along axis 0: max |w| 14 -> scale 2 (/ 8 gives 1.75), 7 -> 1.
  const TensorData w = TensorData::from<float>({2, 4}, {14.0f, -5.0f, 3.0f, 7.0f, 2.5f, -3.5f, 0.5f, -7.0f});
  const std::vector<float> s = ptq::weight_scales(ptq::channel_amax(w, 0), {}, 0.0f, nullptr, ptq::kInt4Max);
  EXPECT_EQ(s, (std::vector<float>{2.0f, 1.0f}));
  // 14/2 = 7, -2.5 -> -2, 1.5 -> 2, 3.5 -> 4 (ties to even); 2.5 -> 2,
  // -3.5 -> -4, 0.5 -> 0, -7.
  EXPECT_EQ(ints(ptq::quantize_weight(w, 0, s, ptq::kInt4Max)), (std::vector<int32_t>{7, -2, 2, 4, 2, -4, 0, -7}));
  // Saturated to [-7, 7], not [-8, 7]: 7.5 -> 8 -> 7, -9 -> -7.
  EXPECT_EQ(ints(ptq::quantize_weight(TensorData::from<float>({1, 3}, {7.5f, -9.0f, -8.0f}), 0, {1.0f}, ptq::kInt4Max)),
            (std::vector<int32_t>{7, -7, -7}));
}

TEST(Int4Weights, BiasSafeScaleHoldsAtSevenToo) {
  // max |w| 7e-7 -> 1e-7; a bias of 0.5 at x_scale 2^-10 needs w_scale >=
  // 0.5 / (2^-10 * 2^30) = 2^-21 (4.77e-7): raised to it; channel 0 not.
  std::vector<int64_t> raised;
  const float xs = std::ldexp(1.0f, -10);
  const std::vector<float> s = ptq::weight_scales({7.0f, 7e-7f}, {1.0, 0.5}, xs, &raised, ptq::kInt4Max);
  EXPECT_EQ(s[0], 1.0f);
  EXPECT_EQ(s[1], std::ldexp(1.0f, -21));
  EXPECT_EQ(raised, (std::vector<int64_t>{1}));
  // int8's rule on the same channel: 1.0 / 127 * 7, not raised at 127 when it fits.
  EXPECT_EQ(ptq::weight_scales({127.0f}, {}, 0.0f, nullptr)[0], 1.0f);
}

TEST(Int4Weights, BlocksHavePowerOfTwoSubScales) {
  // MatMul's B [K = 8, N = 2] (channels on axis 1), blocks of 4 along K.
  // Column 0: block 0 {112, -56, 8, 0} (max 112: e = 4, step 16: 7, -3.5
  // -> -4, 0.5 -> 0, 0), block 1 {1, -1, 0.5, 1.5} (max 1.5: e = 0, step
  // 1: 1, -1, 0, 2). Column 1: max 3.5 -> scale 3.5 / 112 = 1/32; block 0
  // {3.5, 0, 0, 0}: e = 4 (step 0.5: 7); block 1 {0.25, -0.1, 0, 0.4375}:
  // 7 / 32 < 0.4375 <= 14 / 32: e = 1 (step 1/16: 4, -1.6 -> -2, 0, 7).
  const TensorData w = TensorData::from<float>(
      {8, 2}, {112.0f, 3.5f, -56.0f, 0.0f, 8.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.25f, -1.0f, -0.1f, 0.5f, 0.0f, 1.5f, 0.4375f});
  const std::vector<float> s = ptq::weight_scales(ptq::channel_amax(w, 1), {}, 0.0f, nullptr, ptq::kBlockQMax);
  EXPECT_EQ(s, (std::vector<float>{1.0f, 1.0f / 32.0f}));
  // The int8 values q * 2^e at the channel's scale, in B's layout [K, N].
  EXPECT_EQ(ints(ptq::quantize_weight_blocks(w, 1, s, 4)),
            (std::vector<int32_t>{112, 112, -64, 0, 0, 0, 0, 0, 1, 8, -1, -4, 0, 0, 2, 14}));
  // Gemm's transB layout [N, K] (channels on axis 0), K = 5 in blocks of 2.
  const TensorData wt = TensorData::from<float>({1, 5}, {112.0f, -56.0f, 8.0f, 1.0f, -0.75f});
  // Blocks {112, -56}: e 4 -> 112, -64 (-3.5 -> -4); {8, 1}: e 1 (8 <= 14)
  // -> 8, 0 (0.5 -> 0); {-0.75}: e 0 -> -1 (-0.75 -> -1).
  EXPECT_EQ(ints(ptq::quantize_weight_blocks(wt, 0, {1.0f}, 2)), (std::vector<int32_t>{112, -64, 8, 0, -1}));
}

TEST(Int4Weights, PackingIsLowNibbleFirstWithExponentsAfter) {
  // One row of 5 values, one block: q 1, -1, 7, -8, 3 -> nibbles 1 F 7 8 3:
  // bytes F1 87 03 (odd count: the last high nibble 0), then the exponent 0.
  const TensorData a = TensorData::from<int8_t>({5}, {1, -1, 7, -8, 3});
  EXPECT_EQ(bytes(c::kernels::pack_weights_4bit(a, 1, 5, 5, "t")), (std::vector<int>{0xF1, 0x87, 0x03, 0x00}));
  // Two rows of 3 in blocks of 2 (blocks {0, 1}, {2}), each block at its
  // smallest exponent: row 0 {16, -32 | 1}: e 2 (q 4, -8), e 0 (q 1); row 1
  // {6, 0 | -112}: e 0 (q 6, 0), e 4 (q -7). Values 4 8 1 6 0 9 -> 84 61
  // 90; exponents 2 0 0 4 -> 02 40.
  const TensorData b = TensorData::from<int8_t>({6}, {16, -32, 1, 6, 0, -112});
  EXPECT_EQ(bytes(c::kernels::pack_weights_4bit(b, 2, 3, 2, "t")), (std::vector<int>{0x84, 0x61, 0x90, 0x02, 0x40}));
  // A value no int4 times 2^0..2^4 gives (17 is odd and above 7) is refused naming the layer.
  try {
    c::kernels::pack_weights_4bit(TensorData::from<int8_t>({2}, {17, 0}), 1, 2, 2, "node 'fc' (QLinearConv)");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("node 'fc' (QLinearConv)"));
  }
}

Graph small_cnn() { return unit_ptq::small_cnn("int4"); }
std::vector<std::vector<TensorData>> samples(int n, uint32_t seed) { return unit_ptq::small_cnn_samples(n, seed); }

const Node& node_named(const Graph& g, const std::string& name) {
  for (const Node& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

ptq::QuantizeReport quantize4(Graph& g, double min_db, int bits = 4) {
  ptq::QuantizeOptions o;
  o.weight_bits = bits;
  o.weight_block = 16;
  o.min_sqnr_db = min_db;
  return ptq::quantize(g, samples(4, 10), o);
}

TEST(Int4Weights, FoldedLayersCarryTheMarksTheQdqModelDoesNot) {
  Graph g = small_cnn();
  const ptq::QuantizeReport r = quantize4(g, 0.0);
  ASSERT_EQ(r.layers.size(), 2u);
  for (const auto& l : r.layers) {
    EXPECT_TRUE(l.int8) << l.why;
    EXPECT_EQ(l.weight_bits, 4) << l.node;
  }
  // The Conv's weights in [-7, 7]; the Gemm's q * 2^e (|v| <= 112, some above 7).
  const TensorData& cw = *g.value(node_named(g, "w_DequantizeLinear").inputs[0]).constant;
  for (int64_t v : cw.as_int64()) EXPECT_LE(std::abs(v), 7);
  int64_t above = 0;
  for (int64_t v : g.value(node_named(g, "fw_DequantizeLinear").inputs[0]).constant->as_int64()) {
    EXPECT_LE(std::abs(v), 112);
    above += std::abs(v) > 7;
  }
  EXPECT_GT(above, 0);
  Graph folded = g;
  EXPECT_TRUE(passes::fold_qdq(folded).empty());
  const Node& conv = node_named(folded, "conv");
  const Node& fc = node_named(folded, "fc");
  EXPECT_EQ(conv.attrs.get_int(ops::kWeightBitsAttr, 8), 4);
  EXPECT_FALSE(conv.attrs.has(ops::kWeightBlockAttr));  // a Conv's row is one block
  EXPECT_EQ(fc.op, "QLinearConv");
  EXPECT_EQ(fc.attrs.get_int(ops::kWeightBitsAttr, 8), 4);
  EXPECT_EQ(fc.attrs.get_int(ops::kWeightBlockAttr, 0), 16);
  for (const Node& n : r.qdq.nodes) {  // what --emit-qdq writes: standard ONNX
    EXPECT_FALSE(n.attrs.has(ops::kWeightBitsAttr)) << n.name;
    EXPECT_FALSE(n.attrs.has(ops::kWeightBlockAttr)) << n.name;
  }
}

TEST(Int4Weights, MixedPrecisionTriesEightBitsBeforeFloat) {
  Graph a = small_cnn(), b = small_cnn();
  const ptq::QuantizeReport r4 = quantize4(a, 0.0), r8 = quantize4(b, 0.0, 8);
  double worst8 = 1e9, best4 = -1e9;
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(r8.layers[k].weight_bits, 8);
    worst8 = std::min(worst8, r8.layers[k].sqnr_db);
    best4 = std::max(best4, r4.layers[k].sqnr_db);
  }
  ASSERT_LT(best4, worst8);
  // Between the two: every layer falls back to 8 bits and stays int8.
  Graph g = small_cnn();
  const ptq::QuantizeReport r = quantize4(g, (best4 + worst8) / 2);
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_TRUE(r.layers[k].int8) << r.layers[k].why;
    EXPECT_EQ(r.layers[k].weight_bits, 8);
    EXPECT_EQ(r.layers[k].sqnr_db, r8.layers[k].sqnr_db);
  }
  // Above both: float, with the 8-bit figure's reason.
  Graph f = small_cnn();
  const ptq::QuantizeReport rf = quantize4(f, worst8 + 1000.0);
  for (const auto& l : rf.layers) {
    EXPECT_FALSE(l.int8);
    EXPECT_THAT(l.why, ::testing::HasSubstr("its int8 SQNR"));
  }
}

}  // namespace
}  // namespace mlipc::unit_ptq_int4_weights
