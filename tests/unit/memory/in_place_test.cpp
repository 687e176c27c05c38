// Outputs that take over the buffer of an input dying at their node
// (memory::InPlace; the elementwise kernels offer it): the arena shrinks, a
// chain shares one buffer, an input still read later keeps its own, and the
// results stay the reference's. Concat inputs written straight into their
// slices of its output (memory::Slice), in the arena and in the caller's
// output buffer.
#include <gtest/gtest.h>

#include <cmath>

#include "driver/compile.h"
#include "memory/liveness.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_memory_in_place {
namespace {

namespace fs = std::filesystem;
using test::OnnxBuilder;
using test::random_tensor;

// x -> Conv -> c; s = Tanh(c); t = Tanh(Mul(c, s)); s2 = Sigmoid(t);
// u = Add(t, s2); y = Conv(u). (Tanh: c * Sigmoid(c) would be fused into
// the Conv as SiLU.)
fs::path model(const std::string& name) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 8, 6, 6});
  b.initializer("w0", random_tensor(DType::Float32, {8, 8, 1, 1}, 1));
  b.initializer("w1", random_tensor(DType::Float32, {4, 8, 3, 3}, 2));
  b.node("Conv", {"x", "w0"}, {"c"});
  b.node("Tanh", {"c"}, {"s"});  // c is read again by Mul: s gets a buffer of its own
  b.node("Mul", {"c", "s"}, {"m"});  // both die here: (Mul + the fused Tanh) takes c's
  b.node("Tanh", {"m"}, {"t"});
  b.node("Sigmoid", {"t"}, {"s2"});  // t is read again by Add
  b.node("Add", {"t", "s2"}, {"u"});
  b.node("Conv", {"u", "w1"}, {"y"});
  b.output("y");
  return b.save(test::scratch_dir(), name + ".onnx");
}

// The arena buffer of a value (by name), or -1.
int buffer_of(const driver::CompileResult& r, const std::string& name) {
  const ValueId v = r.graph.find(name);
  if (v == kNoValue) return -1;
  const memory::Storage& st = r.module.liveness.storage[static_cast<size_t>(v)];
  return st.kind == memory::Storage::Arena ? st.index : -1;
}

TEST(InPlace, ElementwiseOutputsTakeOverDyingInputs) {
  const fs::path p = model("in_place");
  driver::CompileOptions on, off;
  off.codegen.arena_reuse = false;
  const driver::CompileResult a = driver::compile_model(p, on), b = driver::compile_model(p, off);
  const size_t t = 8 * 6 * 6 * 4;  // bytes of each tensor
  // Off: c, s and m live together at Mul. On: m is c's buffer, so two.
  EXPECT_EQ(b.module.workspace_lower_bound, 3 * t);
  EXPECT_EQ(a.module.workspace_lower_bound, 2 * t);
  EXPECT_LT(a.module.liveness.buffers.size(), b.module.liveness.buffers.size());
  // c, t (Mul with Tanh fused) and u (Add, where t and s2 die) share one buffer.
  EXPECT_GE(buffer_of(a, "c"), 0);
  EXPECT_EQ(buffer_of(a, "t"), buffer_of(a, "c"));
  EXPECT_EQ(buffer_of(a, "u"), buffer_of(a, "c"));
  EXPECT_NE(buffer_of(a, "s"), buffer_of(a, "c"));
  // The C's tanh and sigmoid are mlip/kmath_f.h's float-precision ones
  // (within 2 and 3 ulp; the reference's kmath.h within 1): u, below 2 in
  // magnitude, within 2^-20 of the reference's; y sums 72 products of
  // weights in [-1, 1] with it: within 72 2^-20.
  const io::NamedTensors in = {{"x", random_tensor(DType::Float32, {1, 8, 6, 6}, 3)}};
  test::expect_matches_reference(p, in, 0.0, 72 * std::ldexp(1.0, -20));
}

// The candidates alone, on a hand-made schedule: a candidate whose input is
// read after the node, or whose sizes differ, changes nothing.
TEST(InPlace, OnlyWhereTheInputDiesAndTheSizesMatch) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {2, 3});
  b.node("Relu", {"x"}, {"a"});
  b.node("Neg", {"a"}, {"n"});      // a is read again below
  b.node("Add", {"a", "n"}, {"s"});
  b.node("Cast", {"s"}, {"h"}, {{"to", int64_t{10}}});  // float16: half the size
  b.node("Cast", {"h"}, {"y"}, {{"to", int64_t{1}}});
  b.output("y");
  const driver::CompileResult r = driver::compile_model(b.save(test::scratch_dir(), "in_place_rules.onnx"), {});
  const Graph& g = r.graph;
  auto step_of = [&](const std::string& out) {
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (g.value(g.nodes[i].outputs[0]).name == out) return static_cast<int>(i);
    return -1;
  };
  const ValueId a = g.find("a"), n = g.find("n"), s = g.find("s"), h = g.find("h");
  const std::vector<memory::InPlace> cands = {{step_of("n"), a, n}, {step_of("s"), a, s}, {step_of("h"), s, h}};
  const memory::Liveness l = memory::analyze_liveness(g, cands);
  auto buffer = [&](ValueId v) { return l.storage[static_cast<size_t>(v)].index; };
  EXPECT_NE(buffer(a), buffer(n));  // a is still read by Add
  EXPECT_EQ(buffer(a), buffer(s));  // a dies at Add
  EXPECT_NE(buffer(s), buffer(h));  // float16 is half the size
  EXPECT_EQ(l.buffers.size(), 3u);
}

int count_layers(const driver::CompileResult& r, const std::string& op) {
  int k = 0;
  for (const c::Layer& l : r.module.layers) k += l.op == op;
  return k;
}

// Two convolutions and an Add concatenated along the channels (the slices
// are contiguous with N = 1) and read by a Conv; a second Concat that is a
// graph output; a third whose input is read twice, which copies.
TEST(InPlace, ConcatInputsAreWrittenIntoTheirSlices) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 3, 6, 5});
  b.initializer("w1", random_tensor(DType::Float32, {4, 3, 3, 3}, 1));
  b.initializer("w2", random_tensor(DType::Float32, {5, 3, 1, 1}, 2));
  b.initializer("w3", random_tensor(DType::Float32, {2, 12, 3, 3}, 3));
  b.node("Conv", {"x", "w1"}, {"a"}, {{"pads", test::ints{1, 1, 1, 1}}});
  b.node("Conv", {"x", "w2"}, {"c"});
  b.node("Add", {"x", "x"}, {"d"});
  b.node("Concat", {"a", "c", "d"}, {"cat"}, {{"axis", int64_t{1}}});
  b.node("Conv", {"cat", "w3"}, {"y"});
  b.node("Relu", {"y"}, {"r1"});
  b.node("Neg", {"y"}, {"r2"});
  b.node("Concat", {"r1", "r2"}, {"out"}, {{"axis", int64_t{-3}}});
  b.node("Sigmoid", {"x"}, {"s"});
  b.node("Concat", {"s", "s"}, {"twice"}, {{"axis", int64_t{1}}});
  b.output("out").output("twice");
  const fs::path p = b.save(test::scratch_dir(), "concat_slices.onnx");
  // Sigmoid: mlip/kmath_f.h's float precision in the C, within 4 ulp of
  // the reference's (2^-21 relative); the other outputs are exact.
  test::expect_matches_reference(p, {{"x", random_tensor(DType::Float32, {1, 3, 6, 5}, 4)}}, std::ldexp(1.0, -21), 0.0);

  driver::CompileOptions off;
  off.codegen.arena_reuse = false;
  const driver::CompileResult r = driver::compile_model(p, {}), o = driver::compile_model(p, off);
  EXPECT_EQ(count_layers(r, "Concat"), 1);  // the third
  EXPECT_EQ(count_layers(o, "Concat"), 3);
  const memory::Storage& a = r.module.liveness.storage[static_cast<size_t>(r.graph.find("a"))];
  const memory::Storage& c = r.module.liveness.storage[static_cast<size_t>(r.graph.find("c"))];
  EXPECT_EQ(a.root, r.graph.find("cat"));
  EXPECT_EQ(c.offset, 4u * 6 * 5 * 4);  // after a's 4 channels
  const memory::Storage& r2 = r.module.liveness.storage[static_cast<size_t>(r.graph.find("r2"))];
  EXPECT_EQ(r2.kind, memory::Storage::Output);
  EXPECT_EQ(r2.offset, 2u * 4 * 3 * 4);  // y is [1, 2, 4, 3]
  // Off: a, c, d and cat live together at the Concat.
  EXPECT_LT(r.module.workspace_lower_bound, o.module.workspace_lower_bound);
}

}  // namespace
}  // namespace mlipc::unit_memory_in_place
