// passes::fuse_pad on integer convolutions: a constant Pad of the spatial
// axes whose value is the QLinearConv's input zero point (a real 0) merges
// into the QLinearConv's pads, in QOperator models (Pad on the integers)
// and in QDQ models (DQ -> Pad -> Q -> DQ -> Conv -> Q, after fold_qdq); a
// Pad of another value, of the channels, or in another mode stays a Pad.
// Every case gives the graph's outputs bit for bit before and after.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "frontend/onnx_import.h"
#include "ops/evaluator.h"
#include "passes/passes.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/reference.h"

namespace mlipc::unit_passes_fuse_pad {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ints = std::vector<int64_t>;

Graph import(const OnnxBuilder& b) { return test::import_built(b, "fuse_pad"); }

// What the driver runs up to partitioning: before the second fuse_pad, and with it.
void fold_first(Graph& g) {
  passes::simplify(g);
  passes::fuse_pad(g);
  passes::fold_qdq(g);
}
void fold(Graph& g) {
  fold_first(g);
  passes::fuse_pad(g);
}

std::vector<std::string> ops(const Graph& g) {
  std::vector<std::string> v;
  for (const Node& n : g.nodes) v.push_back(n.op);
  return v;
}

const Node& only(const Graph& g, const std::string& op) {
  auto it = std::find_if(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return n.op == op; });
  if (it == g.nodes.end()) throw std::runtime_error("no " + op);
  return *it;
}

// The weights, scales and zero points of a QLinearConv 3x3 from 2 to 3
// channels (int8, per channel), input zero point xz.
void qconv_inits(OnnxBuilder& b, int8_t xz) {
  b.initializer("xs", TensorData::from<float>({}, {0.05f}));
  b.initializer("xz", TensorData::from<int8_t>({}, {xz}));
  b.initializer("w", random_tensor(DType::Int8, {3, 2, 3, 3}, 21, -127, 127));
  b.initializer("ws", TensorData::from<float>({3}, {0.01f, 0.02f, 0.015f}));
  b.initializer("wz", TensorData::from<int8_t>({3}, {0, 0, 0}));
  b.initializer("ys", TensorData::from<float>({}, {0.2f}));
  b.initializer("yz", TensorData::from<int8_t>({}, {4}));
  b.initializer("bias", TensorData::from<int32_t>({3}, {100, -200, 7}));
}

// x (int8) -> Pad (pads, value v, mode) -> QLinearConv (x_zp xz, stride 2, no pads).
Graph qop_model(const ints& pads, std::optional<int8_t> v, int8_t xz, const std::string& mode = "constant") {
  OnnxBuilder b(13);
  b.input("x", DType::Int8, {1, 2, 7, 8});
  qconv_inits(b, xz);
  b.initializer("pads", TensorData::from<int64_t>({8}, pads));
  std::vector<std::string> pin = {"x", "pads"};
  if (v) {
    b.initializer("v", TensorData::from<int8_t>({}, {*v}));
    pin.push_back("v");
  }
  b.node("Pad", pin, {"p"}, {{"mode", mode}}, "pad");
  b.node("QLinearConv", {"p", "xs", "xz", "w", "ws", "wz", "ys", "yz", "bias"}, {"y"}, {{"strides", ints{2, 2}}},
         "conv");
  b.output("y");
  return import(b);
}

void expect_same_outputs(const Graph& before, const Graph& after, DType in, const Shape& shape) {
  const TensorData x = in == DType::Float32 ? random_tensor(in, shape, 5, -3.0, 3.0) : random_tensor(in, shape, 5, -128, 127);
  const std::vector<TensorData> a = evaluate(before, {x}), b = evaluate(after, {x});
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(test::compare(b[i], a[i], 0, 0), "");
}

TEST(FusePadQLinearConv, ZeroPointPadMergesIntoThePads) {
  // TF 'same' for stride 2: nothing before, one after; x_zp -3 padded with -3.
  const Graph before = qop_model({0, 0, 0, 0, 0, 0, 1, 1}, int8_t{-3}, -3);
  Graph g = before;
  fold(g);
  EXPECT_EQ(ops(g), (std::vector<std::string>{"QLinearConv"}));
  const Node& c = only(g, "QLinearConv");
  EXPECT_EQ(c.attrs.get_ints("pads"), (ints{0, 0, 1, 1}));
  EXPECT_EQ(c.origins.front(), "pad (Pad)");
  EXPECT_EQ(g.value(c.inputs[0]).name, "x");
  expect_same_outputs(before, g, DType::Int8, {1, 2, 7, 8});
}

TEST(FusePadQLinearConv, NoPadValueMergesOnlyForZeroPointZero) {
  {
    const Graph before = qop_model({0, 0, 2, 1, 0, 0, 1, 0}, std::nullopt, 0);
    Graph g = before;
    fold(g);
    EXPECT_EQ(ops(g), (std::vector<std::string>{"QLinearConv"}));
    EXPECT_EQ(only(g, "QLinearConv").attrs.get_ints("pads"), (ints{2, 1, 1, 0}));
    expect_same_outputs(before, g, DType::Int8, {1, 2, 7, 8});
  }
  {
    Graph g = qop_model({0, 0, 2, 1, 0, 0, 1, 0}, std::nullopt, 5);  // pads 0, x_zp 5: a real -0.25
    fold(g);
    EXPECT_EQ(ops(g), (std::vector<std::string>{"Pad", "QLinearConv"}));
  }
}

TEST(FusePadQLinearConv, OtherValuesTheBatchAxisAndModesStayAPad) {
  Graph a = qop_model({0, 0, 1, 1, 0, 0, 1, 1}, int8_t{0}, -3);  // 0 is a real 0.15
  fold(a);
  EXPECT_EQ(ops(a), (std::vector<std::string>{"Pad", "QLinearConv"}));
  EXPECT_EQ(only(a, "QLinearConv").attrs.get_ints("pads"), (ints{0, 0, 0, 0}));
  Graph b = qop_model({1, 0, 1, 1, 0, 0, 1, 1}, int8_t{-3}, -3);  // the batch axis too
  fold(b);
  EXPECT_EQ(ops(b), (std::vector<std::string>{"Pad", "QLinearConv"}));
  Graph c = qop_model({0, 0, 1, 1, 0, 0, 1, 1}, int8_t{-3}, -3, "edge");
  fold(c);
  EXPECT_EQ(ops(c), (std::vector<std::string>{"Pad", "QLinearConv"}));
}

// x (float) -> Q/DQ (int8, 0.05, zp) -> Pad (value v) -> Q/DQ (same) -> Conv
// (per-channel int8 weights, bias) -> Relu -> Q/DQ -> y: the QDQ form.
Graph qdq_model(float v, int8_t zp) {
  OnnxBuilder b(13);
  b.input("x", DType::Float32, {1, 2, 7, 8});
  qconv_inits(b, zp);
  b.initializer("pads", TensorData::from<int64_t>({8}, {0, 0, 1, 0, 0, 0, 1, 2}));
  b.initializer("v", TensorData::from<float>({}, {v}));
  b.initializer("bs", TensorData::from<float>({3}, {0.0005f, 0.001f, 0.00075f}));
  b.initializer("bz", TensorData::from<int32_t>({3}, {0, 0, 0}));
  b.node("QuantizeLinear", {"x", "xs", "xz"}, {"xq"}, {}, "qx");
  b.node("DequantizeLinear", {"xq", "xs", "xz"}, {"xd"}, {}, "dqx");
  b.node("Pad", {"xd", "pads", "v"}, {"p"}, {}, "pad");
  b.node("QuantizeLinear", {"p", "xs", "xz"}, {"pq"}, {}, "qp");
  b.node("DequantizeLinear", {"pq", "xs", "xz"}, {"pd"}, {}, "dqp");
  b.node("DequantizeLinear", {"w", "ws", "wz"}, {"wd"}, {{"axis", int64_t{0}}}, "dqw");
  b.node("DequantizeLinear", {"bias", "bs", "bz"}, {"bd"}, {{"axis", int64_t{0}}}, "dqb");
  b.node("Conv", {"pd", "wd", "bd"}, {"c"}, {}, "conv");
  b.node("Relu", {"c"}, {"r"}, {}, "relu");
  b.node("QuantizeLinear", {"r", "ys", "yz"}, {"yq"}, {}, "qy");
  b.node("DequantizeLinear", {"yq", "ys", "yz"}, {"y"}, {}, "dqy");
  b.output("y");
  return import(b);
}

// The float graph rounds differently from the integer one: the outputs are
// compared with the folded graph before the second fuse_pad.
TEST(FusePadQLinearConv, QdqPadOfARealZeroFoldsIntoTheQLinearConv) {
  Graph before = qdq_model(0.0f, -3);
  fold_first(before);
  EXPECT_EQ(ops(before), (std::vector<std::string>{"QuantizeLinear", "Pad", "QLinearConv", "DequantizeLinear"}));
  Graph g = before;
  passes::fuse_pad(g);
  EXPECT_EQ(ops(g), (std::vector<std::string>{"QuantizeLinear", "QLinearConv", "DequantizeLinear"}));
  EXPECT_EQ(only(g, "QLinearConv").attrs.get_ints("pads"), (ints{1, 0, 1, 2}));
  expect_same_outputs(before, g, DType::Float32, {1, 2, 7, 8});
}

TEST(FusePadQLinearConv, QdqPadOfAnotherValueStaysAnIntegerPad) {
  Graph before = qdq_model(0.5f, -3);  // quantizes to 7, not the zero point
  fold_first(before);
  Graph g = before;
  passes::fuse_pad(g);
  EXPECT_EQ(ops(g), (std::vector<std::string>{"QuantizeLinear", "Pad", "QLinearConv", "DequantizeLinear"}));
  const Node& p = only(g, "Pad");
  EXPECT_EQ(g.value(p.inputs[0]).dtype, DType::Int8);
  EXPECT_EQ(g.value(p.inputs[2]).constant->at(0), 7.0);
  EXPECT_EQ(only(g, "QLinearConv").attrs.get_ints("pads"), (ints{0, 0, 0, 0}));
  expect_same_outputs(before, g, DType::Float32, {1, 2, 7, 8});
}

using PoolAttrs = std::vector<std::pair<std::string, AttrValue>>;

// x [1, 2, 9] -> Pad (zeros, pads) -> AveragePool (kernel 3, stride 2, attrs) -> y
Graph pad_avgpool(const ints& pads, const PoolAttrs& pool_attrs) {
  OnnxBuilder b(17);
  b.input("x", DType::Float32, {1, 2, 9});
  b.initializer("pads", TensorData::from<int64_t>({6}, pads));
  b.node("Pad", {"x", "pads"}, {"p"}, {{"mode", std::string("constant")}}, "pad");
  PoolAttrs a = {{"kernel_shape", ints{3}}, {"strides", ints{2}}};
  a.insert(a.end(), pool_attrs.begin(), pool_attrs.end());
  b.node("AveragePool", {"p"}, {"y"}, a, "pool");
  b.output("y");
  return import(b);
}

// torch's padded AvgPool1d: a zero Pad and a pool without pads of its own.
// Merged, the pool counts its padding; the outputs stay the same bits.
TEST(FusePadAveragePool, AZeroPadMergesAndThePoolCountsIt) {
  for (const PoolAttrs& attrs : {PoolAttrs{}, PoolAttrs{{"count_include_pad", int64_t{1}}, {"pads", ints{1, 0}}}}) {
    Graph before = pad_avgpool({0, 0, 1, 0, 0, 2}, attrs);
    Graph g = pad_avgpool({0, 0, 1, 0, 0, 2}, attrs);
    fold(g);
    ASSERT_EQ(ops(g), std::vector<std::string>{"AveragePool"});
    const Node& pool = only(g, "AveragePool");
    EXPECT_EQ(pool.attrs.get_int("count_include_pad", 0), 1);
    EXPECT_EQ(pool.attrs.get_ints("pads"), (attrs.empty() ? ints{1, 2} : ints{2, 2}));
    expect_same_outputs(before, g, DType::Float32, {1, 2, 9});
  }
}

// A pool that does not count pads of its own, one in ceil mode, and a merge
// that would make a pad as wide as the window keep the Pad.
TEST(FusePadAveragePool, OtherPoolsKeepThePad) {
  const std::vector<std::pair<ints, PoolAttrs>> cases = {
      {{0, 0, 1, 0, 0, 1}, PoolAttrs{{"pads", ints{1, 0}}}},
      {{0, 0, 1, 0, 0, 1}, PoolAttrs{{"ceil_mode", int64_t{1}}}},
      {{0, 0, 3, 0, 0, 0}, PoolAttrs{}},
  };
  for (const auto& [pads, attrs] : cases) {
    Graph g = pad_avgpool(pads, attrs);
    fold(g);
    EXPECT_EQ(ops(g), (std::vector<std::string>{"Pad", "AveragePool"}));
  }
}

}  // namespace
}  // namespace mlipc::unit_passes_fuse_pad
