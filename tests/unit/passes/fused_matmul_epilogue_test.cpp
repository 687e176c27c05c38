// A Linear's epilogue in the MatMul's store (passes/fuse_matmul_bias,
// fuse_activation, fuse_matmul_epilogue): bias, then GELU (either form) or
// another activation, then a per-column (or scalar) scale, then a residual, each
// as the unfused nodes compute it, so the generated C equals the reference
// evaluator's outputs of the unfused graph bit for bit (tolerance 0), and
// the fused nodes are gone. Random sizes (odd, below and above a block of 16
// columns, with a tail), broadcast batches, transposed and computed operands,
// both operand orders; and what may not join stays a node.
#include <gtest/gtest.h>

#include <random>

#include <fmt/format.h>

#include "driver/compile.h"
#include "ops/activation.h"
#include "testlib/graph_query.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/tensors.h"

namespace mlipc::unit_passes_fused_matmul_epilogue {
namespace {

namespace fs = std::filesystem;
using test::count_ops;
using test::producer;
using test::ints;
using test::OnnxBuilder;
using test::pick;
using test::random_tensor;

// One random Linear chain: y = res + scale * act(x W + bias), each part
// present or not, the commutative nodes' operands in a random order.
struct Case {
  Shape a, b, out;
  bool b_const = true, transposed_a = false, bias = false, scale = false, residual = false;
  std::string act;  // "", "gelu", "gelu_tanh", "relu"
};

TEST(FusedEpilogues, LinearEpiloguesJoinTheMatMulBitForBit) {
  std::mt19937 rng(44);
  const std::vector<int64_t> widths = {5, 16, 17, 33, 40, 96};
  for (int t = 0; t < 14; ++t) {
    SCOPED_TRACE(fmt::format("case {}", t));
    Case c;
    const int64_t m = pick(rng, 1, 37), k = pick(rng, 1, 45), n = widths[static_cast<size_t>(pick(rng, 0, 5))];
    c.b_const = t % 4 != 3;
    // Batches: none, a broadcast one ([2, M, K] x [K, N]), one on both sides
    // with broadcasting ([2, 1, M, K] x [3, K, N]).
    const int shape_kind = t % 3;
    c.a = shape_kind == 0 ? Shape{m, k} : shape_kind == 1 ? Shape{2, m, k} : Shape{2, 1, m, k};
    c.b = shape_kind == 2 && !c.b_const ? Shape{3, k, n} : Shape{k, n};
    if (shape_kind == 2 && c.b_const && t % 2 == 0) c.b = Shape{3, k, n};
    c.out = shape_kind == 0 ? Shape{m, n} : shape_kind == 1 ? Shape{2, m, n} : Shape{2, c.b.size() == 3 ? 3 : 1, m, n};
    c.transposed_a = t % 5 == 1;
    c.bias = c.b_const && t % 3 != 1;
    c.scale = t % 4 != 2;
    c.residual = t % 6 != 4;
    const char* acts[] = {"", "gelu", "gelu_tanh", "relu"};
    c.act = acts[t % 4];

    OnnxBuilder bld(17);
    Shape at = c.a;
    if (c.transposed_a) std::swap(at[at.size() - 1], at[at.size() - 2]);
    bld.input("x", DType::Float32, at);
    if (c.b_const) bld.initializer("w", random_tensor(DType::Float32, c.b, 100 + t));
    else bld.input("w", DType::Float32, c.b);
    bld.input("r", DType::Float32, c.out);
    std::string cur = "x";
    if (c.transposed_a) {
      ints perm;
      for (size_t i = 0; i < at.size(); ++i) perm.push_back(static_cast<int64_t>(i));
      std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
      bld.node("Transpose", {"x"}, {"xt"}, {{"perm", perm}});
      cur = "xt";
    }
    bld.node("MatMul", {cur, "w"}, {"mm"});
    cur = "mm";
    const bool flip = pick(rng, 0, 1) == 1;
    auto two = [&](const std::string& op, const std::string& other, const std::string& out) {
      bld.node(op, flip ? std::vector<std::string>{other, cur} : std::vector<std::string>{cur, other}, {out});
      cur = out;
    };
    if (c.bias) {
      bld.initializer("bias", random_tensor(DType::Float32, t % 2 ? Shape{n} : Shape{1, n}, 200 + t));
      two("Add", "bias", "biased");
    }
    if (c.act == "gelu" || c.act == "gelu_tanh") {
      bld.node("Gelu", {cur}, {"act"}, {{"approximate", std::string(c.act == "gelu" ? "none" : "tanh")}});
      cur = "act";
    } else if (c.act == "relu") {
      bld.node("Relu", {cur}, {"act"});
      cur = "act";
    }
    if (c.scale) {
      // A column of N, or one value (attention's scale of Q K^T: rank 0 or
      // a shape of ones).
      const Shape gs = t % 5 == 0 ? Shape{} : t % 5 == 3 ? Shape{1, 1} : t % 2 ? Shape{1, n} : Shape{n};
      bld.initializer("gamma", random_tensor(DType::Float32, gs, 300 + t, -2, 2));
      two("Mul", "gamma", "scaled");
    }
    if (c.residual) two("Add", "r", "sum");
    bld.node("Neg", {cur}, {"y"});  // the chain's end read by another node, not a graph output
    bld.output("y");
    const fs::path p = bld.save(test::scratch_dir(), fmt::format("fused_linear_{}.onnx", t));
    io::NamedTensors in = {{"x", random_tensor(DType::Float32, at, 400 + t, -3, 3)}};
    if (!c.b_const) in.push_back({"w", random_tensor(DType::Float32, c.b, 500 + t)});
    in.push_back({"r", random_tensor(DType::Float32, c.out, 600 + t)});
    test::expect_matches_reference(p, in, 0.0, 0.0);

    const driver::CompileResult r = driver::compile_model(p, {});
    EXPECT_EQ(count_ops(r.graph, "MatMul"), 1);
    EXPECT_EQ(count_ops(r.graph, "Gelu") + count_ops(r.graph, "Relu") + count_ops(r.graph, "Add") +
                  count_ops(r.graph, "Mul"),
              0);
    const Node* mm = producer(r.graph, cur);
    ASSERT_NE(mm, nullptr);
    EXPECT_EQ(mm->op, "MatMul");
    EXPECT_EQ(mm->has_input(3), c.scale);
    EXPECT_EQ(mm->has_input(4), c.residual);
    const Activation::Kind want = c.act == "gelu"        ? Activation::Gelu
                                  : c.act == "gelu_tanh" ? Activation::GeluTanh
                                  : c.act == "relu"      ? Activation::Relu
                                                         : Activation::None;
    EXPECT_EQ(activation_of(mm->attrs).kind, want);
  }
}

// A transformer's MLP and ConvNeXt's block end: MatMul + bias -> Gelu ->
// MatMul + bias -> Mul by a layer scale -> Add of the block's input; and
// Gemm + Gelu. Two MatMuls and a Gemm are left, the C equal to the
// reference bit for bit.
TEST(FusedEpilogues, ATransformersMlpIsTwoMatMuls) {
  OnnxBuilder b(17);
  const int64_t t = 50, d = 24, h = 96;
  b.input("x", DType::Float32, {1, t, d}).input("z", DType::Float32, {3, d});
  b.initializer("w1", random_tensor(DType::Float32, {d, h}, 1));
  b.initializer("b1", random_tensor(DType::Float32, {h}, 2));
  b.initializer("w2", random_tensor(DType::Float32, {h, d}, 3));
  b.initializer("b2", random_tensor(DType::Float32, {d}, 4));
  b.initializer("g", random_tensor(DType::Float32, {d}, 5, 0.0, 0.1));
  b.initializer("wg", random_tensor(DType::Float32, {h, d}, 6));
  b.node("MatMul", {"x", "w1"}, {"h0"});
  b.node("Add", {"b1", "h0"}, {"h1"});
  b.node("Gelu", {"h1"}, {"h2"});
  b.node("MatMul", {"h2", "w2"}, {"o0"});
  b.node("Add", {"b2", "o0"}, {"o1"});
  b.node("Mul", {"g", "o1"}, {"o2"});
  b.node("Add", {"x", "o2"}, {"y"});
  b.node("Gemm", {"z", "wg"}, {"q0"}, {{"transB", int64_t{1}}});
  b.node("Gelu", {"q0"}, {"q"}, {{"approximate", std::string("tanh")}});
  b.output("y").output("q");
  const fs::path p = b.save(test::scratch_dir(), "fused_mlp.onnx");
  test::expect_matches_reference(p,
                                 {{"x", random_tensor(DType::Float32, {1, t, d}, 7, -2, 2)},
                                  {"z", random_tensor(DType::Float32, {3, d}, 8, -2, 2)}},
                                 0.0, 0.0);
  const driver::CompileResult r = driver::compile_model(p, {});
  EXPECT_EQ(r.graph.nodes.size(), 3u);
  EXPECT_EQ(count_ops(r.graph, "MatMul"), 2);
  EXPECT_EQ(activation_of(producer(r.graph, "q")->attrs).kind, Activation::GeluTanh);
  driver::CompileOptions off;
  off.codegen.arena_reuse = false;
  EXPECT_EQ(count_ops(driver::compile_model(p, off).graph, "Gelu"), 2);
}

// What does not join: a Mul by a tensor with a value per element, an Add
// that broadcasts, a Mul after the residual, an Add with an activation of
// its own, a chain read twice, a Gelu after a Conv (a node of its own), a
// scale on a 1-D B's output.
TEST(FusedEpilogues, WhatIsNotALinearEpilogueStaysANode) {
  OnnxBuilder b(17);
  b.input("x", DType::Float32, {4, 8}).input("r", DType::Float32, {4, 17}).input("rb", DType::Float32, {1, 17});
  b.input("c", DType::Float32, {1, 2, 5, 5});
  b.initializer("w", random_tensor(DType::Float32, {8, 17}, 1));
  b.initializer("full", random_tensor(DType::Float32, {4, 17}, 2));
  b.initializer("g", random_tensor(DType::Float32, {17}, 3));
  b.initializer("v", random_tensor(DType::Float32, {8}, 4));
  b.initializer("s1", random_tensor(DType::Float32, {1}, 5));
  b.initializer("cw", random_tensor(DType::Float32, {2, 2, 3, 3}, 6));
  b.node("MatMul", {"x", "w"}, {"m1"});
  b.node("Mul", {"m1", "full"}, {"y1"});  // a value per element: stays
  b.node("MatMul", {"x", "w"}, {"m2"});
  b.node("Add", {"m2", "rb"}, {"y2"});  // broadcasts: stays
  b.node("MatMul", {"x", "w"}, {"m3"});
  b.node("Add", {"m3", "r"}, {"s3"});   // joins
  b.node("Mul", {"s3", "g"}, {"y3"});   // after the residual: stays
  b.node("MatMul", {"x", "w"}, {"m4"});
  b.node("Add", {"m4", "r"}, {"a4"});   // its Relu makes it an Add with an activation: stays
  b.node("Relu", {"a4"}, {"y4"});
  b.node("MatMul", {"x", "w"}, {"m5"});
  b.node("Mul", {"m5", "g"}, {"y5"});   // read twice: stays
  b.node("Neg", {"m5"}, {"y6"});
  b.node("Conv", {"c", "cw"}, {"cv"}, {{"pads", ints{1, 1, 1, 1}}});
  b.node("Gelu", {"cv"}, {"y7"});       // after a Conv: stays
  b.node("MatMul", {"x", "v"}, {"m8"});
  b.node("Mul", {"m8", "s1"}, {"y8"});  // a 1-D B: stays
  for (const char* y : {"y1", "y2", "y3", "y4", "y5", "y6", "y7", "y8"}) b.output(y);
  const fs::path p = b.save(test::scratch_dir(), "fused_linear_not.onnx");
  test::expect_matches_reference(p,
                                 {{"x", random_tensor(DType::Float32, {4, 8}, 7)},
                                  {"r", random_tensor(DType::Float32, {4, 17}, 8)},
                                  {"rb", random_tensor(DType::Float32, {1, 17}, 9)},
                                  {"c", random_tensor(DType::Float32, {1, 2, 5, 5}, 10)}},
                                 0.0, 0.0);
  const driver::CompileResult r = driver::compile_model(p, {});
  EXPECT_EQ(count_ops(r.graph, "Mul"), 4);
  EXPECT_EQ(count_ops(r.graph, "Add"), 2);  // y2, and y4's Add with its Relu
  EXPECT_EQ(count_ops(r.graph, "Gelu"), 1);
  EXPECT_TRUE(producer(r.graph, "s3")->has_input(4));
  EXPECT_EQ(producer(r.graph, "s3")->op, "MatMul");
}

}  // namespace
}  // namespace mlipc::unit_passes_fused_matmul_epilogue
