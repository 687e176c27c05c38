// The operator traits (ops/op.h, OpTraits): each trait on representative
// operators, the MAC counts against hand counts, and the consistency of
// every table row (a weight input comes with its axis and MAC count, a
// table activation is one ops::activation_function knows, ...).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "ops/conv.h"
#include "ops/conv_transpose.h"
#include "ops/op.h"
#include "ops/qlinear.h"

namespace mlipc::unit_ops_op_traits {
namespace {

// A graph holding one node whose inputs and outputs have the given shapes
// (no shape rule runs: the traits read what is there). An empty shape list
// entry with `omit` is an omitted input.
struct OneNode {
  Graph g;
  Node& node() { return g.nodes[0]; }
};

OneNode one_node(const std::string& op, const std::vector<Shape>& in, const Shape& out, Attrs attrs = {},
                 const std::vector<bool>& omitted = {}) {
  OneNode r;
  Node n;
  n.op = op;
  n.name = "n";
  for (size_t k = 0; k < in.size(); ++k) {
    if (k < omitted.size() && omitted[k]) {
      n.inputs.push_back(kNoValue);
      continue;
    }
    const ValueId v = r.g.add_value(fmt::format("in{}", k), DType::Float32);
    r.g.value(v).shape = in[k];
    n.inputs.push_back(v);
  }
  const ValueId y = r.g.add_value("out", DType::Float32);
  r.g.value(y).shape = out;
  n.outputs.push_back(y);
  n.attrs = std::move(attrs);
  r.g.nodes.push_back(std::move(n));
  return r;
}

TEST(OpTraits, ViewsAreTheOperatorsThatKeepTheBytes) {
  EXPECT_EQ(op_traits("Reshape").view, View::Reshape);
  EXPECT_EQ(op_traits("Flatten").view, View::Reshape);
  EXPECT_EQ(op_traits("Squeeze").view, View::Axes);
  EXPECT_EQ(op_traits("Unsqueeze").view, View::Axes);
  for (const char* op : {"Transpose", "Identity", "Conv", "Slice", "Concat", "MaxPool"})
    EXPECT_EQ(op_traits(op).view, View::None) << op;
  EXPECT_TRUE(is_view(one_node("Flatten", {{2, 3, 4}}, {2, 12}).node()));
  EXPECT_FALSE(is_view(one_node("Transpose", {{2, 3}}, {3, 2}).node()));
}

TEST(OpTraits, RearrangingIsTheViewsTransposeAndIdentity) {
  for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Identity"})
    EXPECT_TRUE(op_traits(op).rearranges) << op;
  // Data movement that drops, repeats or pads elements is not a rearrangement.
  for (const char* op : {"Slice", "Concat", "Pad", "Expand", "Gather", "MaxPool", "Relu"})
    EXPECT_FALSE(op_traits(op).rearranges) << op;
}

TEST(OpTraits, SameScaleOperatorsPassTheScaleThrough) {
  for (const char* op : {"MaxPool", "Pad", "Resize", "Flatten", "Reshape", "Transpose", "Squeeze", "Unsqueeze"})
    EXPECT_EQ(op_traits(op).qdq, QdqFold::SameScale) << op;
  // Identity passes the scale too, but simplify drops every Identity before
  // quantization: no fold class (as fold_qdq has always had it).
  EXPECT_EQ(op_traits("Identity").qdq, QdqFold::None);
  EXPECT_EQ(op_traits("AveragePool").qdq, QdqFold::AveragePool);  // sums: a scale of its own
}

TEST(OpTraits, FoldClasses) {
  EXPECT_EQ(op_traits("Conv").qdq, QdqFold::Conv);
  EXPECT_EQ(op_traits("ConvTranspose").qdq, QdqFold::Conv);
  EXPECT_EQ(op_traits("Gemm").qdq, QdqFold::Dense);
  EXPECT_EQ(op_traits("MatMul").qdq, QdqFold::Dense);
  EXPECT_EQ(op_traits("Add").qdq, QdqFold::Binary);
  EXPECT_EQ(op_traits("Mul").qdq, QdqFold::Binary);
  EXPECT_EQ(op_traits("GlobalAveragePool").qdq, QdqFold::GlobalAveragePool);
  EXPECT_EQ(op_traits("Concat").qdq, QdqFold::Concat);
  EXPECT_EQ(op_traits("Sigmoid").qdq, QdqFold::Table);
  EXPECT_EQ(op_traits("QLinearSigmoid").qdq, QdqFold::QOperatorTable);
  EXPECT_EQ(op_traits("QLinearLeakyRelu").qdq, QdqFold::QOperatorTable);
  EXPECT_EQ(op_traits("QLinearConcat").qdq, QdqFold::QOperatorConcat);
  for (const char* op : {"Sub", "Softmax", "Elu", "LpPool", "QLinearConv", "Identity"})
    EXPECT_EQ(op_traits(op).qdq, QdqFold::None) << op;
  // A Relu or Clip after these becomes the integer output's clamp; not after Mul.
  for (const char* op : {"Conv", "ConvTranspose", "Gemm", "MatMul", "Add"}) EXPECT_TRUE(op_traits(op).qdq_absorbs_clamp) << op;
  EXPECT_FALSE(op_traits("Mul").qdq_absorbs_clamp);
  EXPECT_TRUE(op_traits("Relu").clamps);
  EXPECT_TRUE(op_traits("Clip").clamps);
  EXPECT_FALSE(op_traits("Sigmoid").clamps);
}

TEST(OpTraits, ResizeAndPadFoldOnlyInTheirExactForms) {
  Attrs linear;
  linear.set("mode", std::string("linear"));
  const OpTraits& resize = op_traits("Resize");
  ASSERT_NE(resize.qdq_refusal, nullptr);
  EXPECT_EQ(resize.qdq_refusal(one_node("Resize", {{1, 1, 2, 2}}, {1, 1, 4, 4}).node()), "");
  EXPECT_NE(resize.qdq_refusal(one_node("Resize", {{1, 1, 2, 2}}, {1, 1, 4, 4}, linear).node()), "");
  Attrs reflect;
  reflect.set("mode", std::string("reflect"));
  const OpTraits& pad = op_traits("Pad");
  ASSERT_NE(pad.qdq_refusal, nullptr);
  EXPECT_EQ(pad.qdq_refusal(one_node("Pad", {{1, 4}}, {1, 6}).node()), "");
  EXPECT_EQ(pad.qdq_refusal(one_node("Pad", {{1, 4}}, {1, 6}, reflect).node()), "only constant padding folds");
}

TEST(OpTraits, FusedActivationProducers) {
  for (const char* op : {"Conv", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "BatchNormalization"})
    EXPECT_TRUE(op_traits(op).fuses_activation) << op;
  for (const char* op : {"ConvTranspose", "MaxPool", "Relu", "QLinearConv"}) EXPECT_FALSE(op_traits(op).fuses_activation) << op;
}

TEST(OpTraits, WeightBiasAndDataInputs) {
  EXPECT_EQ(op_traits("Conv").weight, 1);
  EXPECT_EQ(op_traits("Conv").bias, 2);
  EXPECT_EQ(op_traits("MatMul").weight, 1);
  EXPECT_EQ(op_traits("MatMul").bias, -1);
  EXPECT_EQ(op_traits("QLinearConv").weight, 3);
  EXPECT_EQ(op_traits("QLinearConv").bias, 8);
  EXPECT_EQ(op_traits("QLinearMatMul").weight, 3);
  EXPECT_EQ(op_traits("Add").weight, -1);
  // The output channels of the weights.
  EXPECT_EQ(op_traits("Conv").weight_axis(one_node("Conv", {}, {}).node()), 0);
  EXPECT_EQ(op_traits("ConvTranspose").weight_axis(one_node("ConvTranspose", {}, {}).node()), 1);
  EXPECT_EQ(op_traits("MatMul").weight_axis(one_node("MatMul", {}, {}).node()), 1);
  Attrs trans_b;
  trans_b.set("transB", int64_t{1});
  EXPECT_EQ(op_traits("Gemm").weight_axis(one_node("Gemm", {}, {}).node()), 1);
  EXPECT_EQ(op_traits("Gemm").weight_axis(one_node("Gemm", {}, {}, trans_b).node()), 0);
  // weight_of: the value, or none when the input is omitted or the op has no weights.
  OneNode conv = one_node("Conv", {{1, 2, 4, 4}, {3, 2, 1, 1}, {3}}, {1, 3, 4, 4});
  EXPECT_EQ(weight_of(conv.node()), conv.node().inputs[1]);
  EXPECT_EQ(weight_of(one_node("QLinearConv", {{1}, {1}, {1}}, {1}).node()), kNoValue);
  EXPECT_EQ(weight_of(one_node("Relu", {{4}}, {4}).node()), kNoValue);
  // Data inputs: the parameters of Pad, Reshape, Clip, ... are not data.
  EXPECT_EQ(data_inputs(conv.node()), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(data_inputs(one_node("Conv", {{1, 2, 4, 4}, {3, 2, 1, 1}, {3}}, {1, 3, 4, 4}, {}, {false, false, true}).node()),
            (std::vector<size_t>{0, 1}));
  EXPECT_EQ(data_inputs(one_node("Pad", {{1, 4}, {4}, {}}, {1, 6}).node()), (std::vector<size_t>{0}));
  EXPECT_EQ(data_inputs(one_node("Clip", {{4}, {}, {}}, {4}).node()), (std::vector<size_t>{0}));
  EXPECT_EQ(data_inputs(one_node("Concat", {{1, 2}, {1, 3}, {1, 4}}, {1, 9}).node()), (std::vector<size_t>{0, 1, 2}));
}

TEST(OpTraits, MacCountsAgainstHandCounts) {
  // Conv: 1x4x4x4 outputs, each 2 * 3 * 3 products.
  OneNode conv = one_node("Conv", {{1, 2, 6, 6}, {4, 2, 3, 3}, {4}}, {1, 4, 4, 4});
  EXPECT_EQ(node_macs(conv.g, conv.node()), 64u * 18u);
  // With a fused 2x2 MaxPool of stride 2 (passes/fuse_pool) the node's output
  // is the pool's, [1, 4, 2, 2]: the convolution's 4x4 plane is still summed.
  Attrs pool;
  pool.set("kernel_shape", std::vector<int64_t>{2, 2});
  pool.set("strides", std::vector<int64_t>{2, 2});
  Attrs pooled;
  ops::set_fused_pool(pooled, pool);
  OneNode conv_pool = one_node("Conv", {{1, 2, 6, 6}, {4, 2, 3, 3}, {4}}, {1, 4, 2, 2}, pooled);
  EXPECT_EQ(node_macs(conv_pool.g, conv_pool.node()), 64u * 18u);
  // Grouped (2 groups of 2 channels): weights [4, 1, 3, 3], 9 products per output.
  OneNode grouped = one_node("Conv", {{1, 2, 6, 6}, {4, 1, 3, 3}}, {1, 4, 4, 4});
  EXPECT_EQ(node_macs(grouped.g, grouped.node()), 64u * 9u);
  // QLinearConv: the weights are input 3.
  OneNode qconv = one_node("QLinearConv", {{1, 2, 6, 6}, {}, {}, {4, 2, 3, 3}, {}, {}, {}, {}}, {1, 4, 4, 4});
  EXPECT_EQ(node_macs(qconv.g, qconv.node()), 64u * 18u);
  // ConvTranspose: every input element scatters into C_out/group * k * k outputs.
  OneNode convt = one_node("ConvTranspose", {{1, 2, 3, 3}, {2, 5, 2, 2}}, {1, 5, 6, 6});
  EXPECT_EQ(node_macs(convt.g, convt.node()), 18u * 20u);
  // Gemm: [3, 8] x [8, 5]; with transA A is [8, 3] and K its rows.
  OneNode gemm = one_node("Gemm", {{3, 8}, {8, 5}}, {3, 5});
  EXPECT_EQ(node_macs(gemm.g, gemm.node()), 15u * 8u);
  Attrs trans_a;
  trans_a.set("transA", int64_t{1});
  OneNode gemm_t = one_node("Gemm", {{8, 3}, {8, 5}}, {3, 5}, trans_a);
  EXPECT_EQ(node_macs(gemm_t.g, gemm_t.node()), 15u * 8u);
  // MatMul, batched: [2, 3, 4] x [4, 6].
  OneNode mm = one_node("MatMul", {{2, 3, 4}, {4, 6}}, {2, 3, 6});
  EXPECT_EQ(node_macs(mm.g, mm.node()), 36u * 4u);
  OneNode qmm = one_node("QLinearMatMul", {{3, 4}, {}, {}, {4, 6}, {}, {}, {}, {}}, {3, 6});
  EXPECT_EQ(node_macs(qmm.g, qmm.node()), 18u * 4u);
  // The integer ConvTranspose: weights are input 3.
  OneNode qconvt =
      one_node(ops::kQConvTransposeOp, {{1, 2, 3, 3}, {}, {}, {2, 5, 2, 2}, {}, {}, {}, {}}, {1, 5, 6, 6});
  EXPECT_EQ(node_macs(qconvt.g, qconvt.node()), 18u * 20u);
  // LSTM, 2 directions, hidden 3, input 4, 5 steps of batch 2: W [2, 12, 4], R [2, 12, 3].
  OneNode lstm = one_node("LSTM", {{5, 2, 4}, {2, 12, 4}, {2, 12, 3}}, {5, 2, 2, 3});
  EXPECT_EQ(node_macs(lstm.g, lstm.node()), 10u * (96u + 72u));
  // No MACs: elementwise, and a product whose weights are omitted.
  OneNode add = one_node("Add", {{4}, {4}}, {4});
  EXPECT_EQ(node_macs(add.g, add.node()), 0u);
  OneNode short_qconv = one_node("QLinearConv", {{1, 2, 6, 6}, {}, {}}, {1, 4, 4, 4});
  EXPECT_EQ(node_macs(short_qconv.g, short_qconv.node()), 0u);
}

TEST(OpTraits, UnknownOperatorsHaveNone) {
  const OpTraits& t = op_traits("NoSuchOp");
  EXPECT_EQ(t.view, View::None);
  EXPECT_FALSE(t.rearranges);
  EXPECT_EQ(t.qdq, QdqFold::None);
  EXPECT_EQ(t.weight, -1);
  EXPECT_EQ(t.macs, nullptr);
  EXPECT_EQ(find_op("NoSuchOp"), nullptr);
  ASSERT_NE(find_op("Conv"), nullptr);
  EXPECT_EQ(find_op("Conv")->name, "Conv");
}

// Every row of the table: the traits that go together are there together.
TEST(OpTraits, EveryRowIsConsistent) {
  for (const OpDef& d : all_ops()) {
    const OpTraits& t = d.traits;
    const std::string op(d.name);
    EXPECT_EQ(&op_traits(d.name), &t) << op;
    if (t.weight >= 0) {
      EXPECT_NE(t.weight_axis, nullptr) << op << ": weights without their output-channel axis";
      EXPECT_NE(t.macs, nullptr) << op << ": weights without a MAC count";
      EXPECT_NE(t.bias, t.weight) << op;
      EXPECT_TRUE(t.data_inputs == OpTraits::kAllInputs || t.data_inputs > t.weight) << op << ": weights are data";
    } else {
      EXPECT_EQ(t.weight_axis, nullptr) << op;
    }
    if (t.bias >= 0) {
      EXPECT_GE(t.weight, 0) << op << ": a bias without weights";
      EXPECT_GT(t.bias, t.weight) << op;
    }
    EXPECT_TRUE(t.view == View::None || t.rearranges) << op << ": a view rearranges";
    EXPECT_TRUE(!t.rearranges || t.data_inputs == 1) << op << ": it rearranges input 0";
    const bool one_input_fold = t.qdq == QdqFold::SameScale || t.qdq == QdqFold::Table ||
                                t.qdq == QdqFold::AveragePool || t.qdq == QdqFold::GlobalAveragePool;
    EXPECT_TRUE(!one_input_fold || t.data_inputs == 1) << op << ": its fold reads input 0 alone";
    EXPECT_TRUE(!t.qdq_absorbs_clamp || t.qdq == QdqFold::Conv || t.qdq == QdqFold::Dense || t.qdq == QdqFold::Binary)
        << op;
    EXPECT_TRUE(!t.clamps || t.qdq == QdqFold::Table) << op << ": a clamp alone folds into a table";
    EXPECT_TRUE(!t.qdq_refusal || t.qdq != QdqFold::None) << op;
    // fold_qdq makes a table of exactly the activations it has a function for.
    EXPECT_EQ(t.qdq == QdqFold::Table, static_cast<bool>(ops::activation_function(d.name, Attrs(), 0.0, 1.0))) << op;
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_op_traits
