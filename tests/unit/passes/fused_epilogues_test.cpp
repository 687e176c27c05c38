// The epilogues fused for arena reuse (--arena-reuse on): a residual Add
// into the Conv before it (passes/fuse_residual), a bias Add into the
// MatMul before it (passes/fuse_matmul_bias), x * Sigmoid(x) (SiLU),
// x * HardSigmoid(x), HardSigmoid and HardSwish into their producer
// (passes/fuse_activation), a MaxPool into the Conv before it
// (passes/fuse_pool). Each keeps the unfused nodes' arithmetic, so the
// generated C equals the reference at tolerance 0; the intermediate tensors
// are gone; and what may not be fused is not.
#include <gtest/gtest.h>

#include <random>

#include <fmt/format.h>

#include "driver/compile.h"
#include "ops/activation.h"
#include "testlib/graph_query.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/tensors.h"

namespace mlipc::unit_passes_fused_epilogues {
namespace {

namespace fs = std::filesystem;
using test::count_ops;
using test::producer;
using test::ints;
using test::OnnxBuilder;
using test::pick;
using test::random_tensor;

void conv(OnnxBuilder& b, const std::string& x, int64_t c, int64_t m, const std::string& y, uint32_t seed, bool bias) {
  b.initializer(y + "_w", random_tensor(DType::Float32, {m, c, 3, 3}, seed));
  std::vector<std::string> ins = {x, y + "_w"};
  if (bias) {
    b.initializer(y + "_b", random_tensor(DType::Float32, {m}, seed + 1));
    ins.push_back(y + "_b");
  }
  b.node("Conv", ins, {y}, {{"pads", ints{1, 1, 1, 1}}});
}

// Residual blocks: the shortcut is the block's input (Add(conv, x) with a
// Relu after), another convolution (Add(sc, conv)), a graph input, and a
// convolution with weights computed at run time (conv.c). The first block's
// output takes over its input's bytes, so the arena holds two tensors.
TEST(FusedEpilogues, ResidualAddJoinsTheConvBeforeIt) {
  OnnxBuilder b;
  const Shape s = {2, 8, 7, 6};
  b.input("x", DType::Float32, s).input("skip", DType::Float32, s).input("wr", DType::Float32, {8, 8, 3, 3});
  conv(b, "x", 8, 8, "a", 1, true);
  b.node("Relu", {"a"}, {"ar"});
  conv(b, "ar", 8, 8, "c1", 3, true);
  conv(b, "c1", 8, 8, "c2", 5, false);
  b.node("Add", {"c2", "ar"}, {"s1"});
  b.node("Relu", {"s1"}, {"b1"});
  conv(b, "b1", 8, 8, "sc", 7, true);
  conv(b, "b1", 8, 8, "c3", 9, true);
  b.node("Add", {"sc", "c3"}, {"b2"});
  conv(b, "b2", 8, 8, "c4", 11, false);
  b.node("Add", {"skip", "c4"}, {"b3"});
  b.node("Conv", {"b3", "wr"}, {"c5"}, {{"pads", ints{1, 1, 1, 1}}});
  b.node("Add", {"c5", "b3"}, {"y"});
  b.output("y");
  const fs::path p = b.save(test::scratch_dir(), "fused_residual.onnx");
  const io::NamedTensors in = {{"x", random_tensor(DType::Float32, s, 20)},
                               {"skip", random_tensor(DType::Float32, s, 21)},
                               {"wr", random_tensor(DType::Float32, {8, 8, 3, 3}, 22)}};
  test::expect_matches_reference(p, in, 0.0, 0.0);

  const driver::CompileResult r = driver::compile_model(p, {});
  EXPECT_EQ(count_ops(r.graph, "Add"), 0);
  const Node* b1 = producer(r.graph, "b1");
  ASSERT_NE(b1, nullptr);
  EXPECT_EQ(b1->op, "Conv");
  EXPECT_EQ(r.graph.value(b1->inputs.at(3)).name, "ar");
  EXPECT_EQ(activation_of(b1->attrs).kind, Activation::Relu);
  EXPECT_EQ(r.graph.value(producer(r.graph, "b2")->inputs.at(3)).name, "sc");  // the later conv takes the Add
  driver::CompileOptions off;
  off.codegen.arena_reuse = false;
  const driver::CompileResult o = driver::compile_model(p, off);
  EXPECT_EQ(count_ops(o.graph, "Add"), 4);
  const size_t t = 8 * 7 * 6 * 2 * 4;
  EXPECT_EQ(o.module.workspace_lower_bound, 3 * t);  // a block's input, c1, c2
  EXPECT_EQ(r.module.workspace_lower_bound, 2 * t);  // c2 + ar is written over ar
}

TEST(FusedEpilogues, AResidualAddThatCannotJoinStaysAnAdd) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 4, 5, 5}).input("v", DType::Float32, {1, 4, 1, 1});
  conv(b, "x", 4, 4, "c", 1, true);
  b.node("Add", {"c", "v"}, {"bc"});  // broadcast: not a residual
  conv(b, "bc", 4, 4, "d", 3, true);
  b.node("Add", {"d", "x"}, {"s"});
  b.node("Neg", {"d"}, {"nd"});  // d is read twice
  b.output("s").output("nd");
  const fs::path p = b.save(test::scratch_dir(), "fused_residual_not.onnx");
  const driver::CompileResult r = driver::compile_model(p, {});
  EXPECT_EQ(count_ops(r.graph, "Add"), 2);
  test::expect_matches_reference(
      p, {{"x", random_tensor(DType::Float32, {1, 4, 5, 5}, 4)}, {"v", random_tensor(DType::Float32, {1, 4, 1, 1}, 5)}},
      0.0, 0.0);
}

// A Linear's bias Add joins the MatMul before it (passes/fuse_matmul_bias)
// in both operand orders, with a Relu after it becoming the MatMul's
// activation; an Add of a tensor with a value per element, a MatMul whose B
// is an activation, a MatMul read twice, and a 1-D B stay Adds; and
// nothing joins with --arena-reuse off.
TEST(FusedEpilogues, ABiasAddJoinsTheMatMulBeforeIt) {
  OnnxBuilder b(14);
  b.input("x", DType::Float32, {2, 3, 8}).input("wa", DType::Float32, {8, 5});
  b.initializer("w", random_tensor(DType::Float32, {8, 17}, 1));
  b.initializer("bias", random_tensor(DType::Float32, {17}, 2));
  b.initializer("bias2", random_tensor(DType::Float32, {1, 17}, 3));
  b.initializer("full", random_tensor(DType::Float32, {3, 17}, 4));
  b.initializer("b5", random_tensor(DType::Float32, {5}, 5));
  b.initializer("v", random_tensor(DType::Float32, {8}, 6));
  b.initializer("b1", random_tensor(DType::Float32, {1}, 7));
  b.node("MatMul", {"x", "w"}, {"m1"});
  b.node("Add", {"m1", "bias"}, {"l1"});
  b.node("Relu", {"l1"}, {"y1"});
  b.node("MatMul", {"x", "w"}, {"m2"});
  b.node("Add", {"bias2", "m2"}, {"y2"});
  b.node("MatMul", {"x", "w"}, {"m3"});
  b.node("Add", {"m3", "full"}, {"y3"});  // a value per element: stays
  b.node("MatMul", {"x", "wa"}, {"m4"});
  b.node("Add", {"m4", "b5"}, {"y4"});  // B an activation: stays
  b.node("MatMul", {"x", "w"}, {"m5"});
  b.node("Add", {"m5", "bias"}, {"y5"});
  b.node("Neg", {"m5"}, {"y6"});  // m5 read twice: stays
  b.node("MatMul", {"x", "v"}, {"m7"});
  b.node("Add", {"m7", "b1"}, {"y7"});  // 1-D B: stays
  for (const char* y : {"y1", "y2", "y3", "y4", "y5", "y6", "y7"}) b.output(y);
  const fs::path p = b.save(test::scratch_dir(), "fused_bias.onnx");
  test::expect_matches_reference(
      p, {{"x", random_tensor(DType::Float32, {2, 3, 8}, 8)}, {"wa", random_tensor(DType::Float32, {8, 5}, 9)}}, 0.0,
      0.0);

  const driver::CompileResult r = driver::compile_model(p, {});
  EXPECT_EQ(count_ops(r.graph, "Add"), 4);
  for (const char* y : {"y1", "y2"}) {
    const Node* n = producer(r.graph, y);
    ASSERT_NE(n, nullptr) << y;
    EXPECT_EQ(n->op, "MatMul") << y;
    ASSERT_EQ(n->inputs.size(), 3u) << y;
  }
  EXPECT_EQ(r.graph.value(producer(r.graph, "y1")->inputs[2]).name, "bias");
  EXPECT_EQ(activation_of(producer(r.graph, "y1")->attrs).kind, Activation::Relu);
  EXPECT_EQ(r.graph.value(producer(r.graph, "y2")->inputs[2]).name, "bias2");
  driver::CompileOptions off;
  off.codegen.arena_reuse = false;
  EXPECT_EQ(count_ops(driver::compile_model(p, off).graph, "Add"), 6);
}

// SiLU in both operand orders, x * HardSigmoid(x), HardSigmoid alone (the
// squeeze-and-excitation gate), ONNX HardSwish, after a Conv and a Gemm;
// Sigmoid whose output is read twice stays a node.
TEST(FusedEpilogues, ProductsOfATensorAndItsSigmoidJoinTheProducer) {
  OnnxBuilder b(14);
  const Shape s = {1, 6, 5, 5};
  b.input("x", DType::Float32, s).input("a", DType::Float32, {3, 7});
  conv(b, "x", 6, 6, "c1", 1, true);
  b.node("Sigmoid", {"c1"}, {"g1"});
  b.node("Mul", {"c1", "g1"}, {"silu1"});
  conv(b, "silu1", 6, 6, "c2", 3, false);
  b.node("Sigmoid", {"c2"}, {"g2"});
  b.node("Mul", {"g2", "c2"}, {"silu2"});
  conv(b, "silu2", 6, 6, "c3", 5, true);
  b.node("HardSigmoid", {"c3"}, {"h3"}, {{"alpha", 0.125f}, {"beta", 0.375f}});
  b.node("Mul", {"c3", "h3"}, {"hs3"});
  conv(b, "hs3", 6, 6, "c4", 7, true);
  b.node("HardSigmoid", {"c4"}, {"gate"});
  b.node("Mul", {"hs3", "gate"}, {"se"});  // a gate on another tensor: HardSigmoid alone fuses
  conv(b, "se", 6, 6, "c5", 9, true);
  b.node("HardSwish", {"c5"}, {"y1"});
  b.initializer("w", random_tensor(DType::Float32, {7, 9}, 11));
  b.node("Gemm", {"a", "w"}, {"m"});
  b.node("Sigmoid", {"m"}, {"gm"});
  b.node("Mul", {"m", "gm"}, {"y2"});
  b.node("Sigmoid", {"y2"}, {"t"});  // t read twice: stays
  b.node("Mul", {"y2", "t"}, {"y3"});
  b.node("Neg", {"t"}, {"y4"});
  b.output("y1").output("y3").output("y4");
  const fs::path p = b.save(test::scratch_dir(), "fused_products.onnx");
  // The C's SiLU and sigmoid are mlip/kmath_f.h's float-precision ones
  // (within 5.5 and 4 ulp of the reference's kmath.h ones); four
  // convolutions after the first SiLUs carry that into outputs up to 311:
  // at most 1.4e-4 apart here, the bound 1e-3.
  test::expect_matches_reference(
      p, {{"x", random_tensor(DType::Float32, s, 12, -4, 4)}, {"a", random_tensor(DType::Float32, {3, 7}, 13, -3, 3)}},
      0.0, 1e-3);

  const driver::CompileResult r = driver::compile_model(p, {});
  auto act = [&](const std::string& v) {
    const Node* n = producer(r.graph, v);
    return n ? activation_of(n->attrs).kind : Activation::None;
  };
  EXPECT_EQ(act("silu1"), Activation::Silu);
  EXPECT_EQ(act("silu2"), Activation::Silu);
  EXPECT_EQ(act("hs3"), Activation::HardSwish);
  EXPECT_EQ(act("gate"), Activation::HardSigmoid);
  EXPECT_EQ(act("y1"), Activation::HardSwish);
  EXPECT_EQ(act("y2"), Activation::Silu);
  EXPECT_EQ(count_ops(r.graph, "Sigmoid"), 1);
  EXPECT_EQ(count_ops(r.graph, "HardSigmoid"), 0);
  EXPECT_EQ(count_ops(r.graph, "Mul"), 2);  // the gate, and y2 * t
  driver::CompileOptions off;
  off.codegen.arena_reuse = false;
  const driver::CompileResult o = driver::compile_model(p, off);
  EXPECT_EQ(count_ops(o.graph, "Sigmoid"), 4);
  EXPECT_EQ(count_ops(o.graph, "HardSigmoid"), 2);
}

// Random Conv (+ Relu) -> MaxPool chains: pool windows that overlap (each
// convolution row read by several pooled rows), leave gaps, have pads,
// dilations and ceil mode; batch 2; blocks of output channels padded; the
// pooled tensor a graph output (row-major) or read by another Conv
// (channels-last). The digits CNN's arena drops to a quarter.
TEST(FusedEpilogues, MaxPoolJoinsTheConvBeforeIt) {
  std::mt19937 rng(99);
  OnnxBuilder b;
  io::NamedTensors in;
  for (int c = 0; c < 10; ++c) {
    const int64_t ch = pick(rng, 1, 5), m = pick(rng, 1, 20), hgt = pick(rng, 5, 13), wid = pick(rng, 5, 13);
    const Shape s = {pick(rng, 1, 2), ch, hgt, wid};
    const std::string x = fmt::format("x{}", c), cv = fmt::format("c{}", c), pl = fmt::format("p{}", c);
    b.input(x, DType::Float32, s);
    in.emplace_back(x, random_tensor(DType::Float32, s, 30 + static_cast<uint32_t>(c)));
    const int64_t k = pick(rng, 1, 3);
    b.initializer(cv + "_w", random_tensor(DType::Float32, {m, ch, k, k}, 50 + static_cast<uint32_t>(c)));
    b.initializer(cv + "_b", random_tensor(DType::Float32, {m}, 70 + static_cast<uint32_t>(c)));
    const int64_t pad = pick(rng, 0, 1);
    b.node("Conv", {x, cv + "_w", cv + "_b"}, {cv}, {{"pads", ints{pad, pad, pad, pad}}, {"strides", ints{1, pick(rng, 1, 2)}}});
    std::string pin = cv;
    if (c % 2) {
      b.node("Relu", {cv}, {cv + "_r"});
      pin = cv + "_r";
    }
    const int64_t pk = pick(rng, 1, 3), pd = pk > 1 && c % 3 == 0 ? 2 : 1;
    const int64_t pkw = pick(rng, 1, 3), pp = pick(rng, 0, pk - 1), ppw = pick(rng, 0, pkw - 1);
    b.node("MaxPool", {pin}, {pl},
           {{"kernel_shape", ints{pk, pkw}}, {"strides", ints{pick(rng, 1, 3), pick(rng, 1, 2)}},
            {"pads", ints{pp, ppw, 0, ppw}}, {"dilations", ints{pd, 1}}, {"ceil_mode", int64_t{c % 4 == 1}}});
    if (c % 3 == 2) {
      b.initializer(pl + "_w", random_tensor(DType::Float32, {3, m, 1, 1}, 90 + static_cast<uint32_t>(c)));
      b.node("Conv", {pl, pl + "_w"}, {pl + "_next"});
      b.output(pl + "_next");
    } else {
      b.output(pl);
    }
  }
  const fs::path p = b.save(test::scratch_dir(), "fused_pool.onnx");
  test::expect_matches_reference(p, in, 0.0, 0.0);
  const driver::CompileResult r = driver::compile_model(p, {});
  EXPECT_EQ(count_ops(r.graph, "MaxPool"), 0);

  const fs::path digits = fs::path(MLIPC_TEST_DATA).parent_path().parent_path() / "examples/digits/model.onnx";
  driver::CompileOptions off;
  off.codegen.arena_reuse = false;
  const driver::CompileResult d = driver::compile_model(digits, {}), o = driver::compile_model(digits, off);
  EXPECT_EQ(count_ops(d.graph, "MaxPool"), 0);
  EXPECT_LT(d.module.workspace_size * 4, o.module.workspace_size);
}

TEST(FusedEpilogues, AMaxPoolThatCannotJoinStaysAMaxPool) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 4, 6, 6});
  b.initializer("w", random_tensor(DType::Float32, {4, 2, 3, 3}, 1));
  b.node("Conv", {"x", "w"}, {"c"}, {{"group", int64_t{2}}});  // two groups
  b.node("MaxPool", {"c"}, {"p"}, {{"kernel_shape", ints{2, 2}}});
  b.initializer("w2", random_tensor(DType::Float32, {4, 4, 1, 1}, 2));
  b.node("Conv", {"p", "w2"}, {"c2"});
  b.node("MaxPool", {"c2"}, {"p2", "idx"}, {{"kernel_shape", ints{2, 2}}});  // with indices
  b.node("Conv", {"p", "w2"}, {"c3"});
  b.node("MaxPool", {"c3"}, {"p3"}, {{"kernel_shape", ints{2, 2}}});
  b.node("Neg", {"c3"}, {"n3"});  // c3 read twice
  b.output("p2").output("idx").output("p3").output("n3");
  const fs::path p = b.save(test::scratch_dir(), "fused_pool_not.onnx");
  EXPECT_EQ(count_ops(driver::compile_model(p, {}).graph, "MaxPool"), 3);
  test::expect_matches_reference(p, {{"x", random_tensor(DType::Float32, {1, 4, 6, 6}, 3)}}, 0.0, 0.0);
}

}  // namespace
}  // namespace mlipc::unit_passes_fused_epilogues
