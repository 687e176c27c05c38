// passes/fuse_gelu: GELU's exact form, as exporters write it, becomes one
// Gelu node (ops/gelu.cpp, mlip/kmath_f.h's float-precision erf) whose
// generated C stays within the bound include/mlip/kmath_f.h states of the
// five operators' reference bits (5 2^-24 |x| + 1 ulp; the test allows
// 5 2^-24 * 8 + 2^-23 |y| on inputs in [-8, 8]); its tanh form (torch's and
// Hugging Face's "gelu_new") becomes a Gelu "tanh" with the operators' bits,
// or, with Pow(x, 3), within the bound derived at TanhFormWithPow; and what is
// not that pattern stays as it is: another constant, a constant of several
// values, an intermediate read twice or a graph output. The Gelu operator
// itself (ONNX opset 20, both approximations) gives the reference's bits.
#include <functional>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "driver/compile.h"
#include "testlib/graph_query.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_passes_fuse_gelu {
namespace {

namespace fs = std::filesystem;
using test::count_ops;
using test::OnnxBuilder;
using test::random_tensor;

TensorData scalar(float v, Shape shape = {}) {
  return TensorData::from<float>(shape, std::vector<float>(static_cast<size_t>(numel(shape)), v));
}

// The pattern's parts, each replaceable by a test.
struct Pattern {
  std::string scale_op = "Div";
  TensorData scale = scalar(1.41421354f);
  TensorData one = scalar(1.0f);
  std::string add_op = "Add";
  bool half_first = false;   // Mul(Mul(x, 0.5), s) instead of Mul(Mul(x, s), 0.5)
  bool swap = false;         // the binary nodes' operands the other way round
  bool erf_is_output = false;
};

using Bin = std::function<void(const std::string&, const std::string&, const std::string&, const std::string&)>;

// x [3, 7, 65] -> v = (x - Relu(x)) + Relu(x): any value of both signs, read
// again after the pattern (y = v + g): the GELU's input has another reader,
// as in a transformer's residual. Returns the builder of the pattern's
// binary nodes, operands as given or (swap) the other way round.
Bin start_model(OnnxBuilder& b, bool swap) {
  b.input("x", DType::Float32, {3, 7, 65});
  b.initializer("c_one", scalar(1.0f)).initializer("c_half", scalar(0.5f));
  b.node("Relu", {"x"}, {"r0"});
  b.node("Sub", {"x", "r0"}, {"r"});
  b.node("Add", {"r", "r0"}, {"v"});
  return [&b, swap](const std::string& op, const std::string& a, const std::string& c, const std::string& y) {
    b.node(op, swap ? std::vector<std::string>{c, a} : std::vector<std::string>{a, c}, {y});
  };
}

// Both forms' end from s = f + 1: g = Mul(Mul(v, s), 0.5), or (half_first)
// Mul(h, s) with h = Mul(v, 0.5) written before; then y = v + g.
void finish_model(OnnxBuilder& b, const Bin& bin, bool half_first) {
  if (half_first) {
    bin("Mul", "h", "s", "g");
  } else {
    bin("Mul", "v", "s", "m");
    bin("Mul", "m", "c_half", "g");
  }
  b.node("Add", {"v", "g"}, {"y"});
  b.output("y");
}

fs::path model(const Pattern& p, const std::string& file) {
  OnnxBuilder b;
  const Bin bin = start_model(b, p.swap);
  b.initializer("c_scale", p.scale).initializer("c_one_e", p.one);
  if (p.half_first) bin("Mul", "v", "c_half", "h");
  b.node(p.scale_op, {"v", "c_scale"}, {"d"});
  b.node("Erf", {"d"}, {"e"});
  bin(p.add_op, "e", "c_one_e", "s");
  finish_model(b, bin, p.half_first);
  if (p.erf_is_output) b.output("e");
  return b.save(test::scratch_dir(), file);
}

io::NamedTensors inputs() { return {{"x", random_tensor(DType::Float32, {3, 7, 65}, 5, -8.0, 8.0)}}; }

// Fused: one Gelu, no Erf, and the C within the bound of the reference.
void expect_fused(const Pattern& p, const std::string& file) {
  const fs::path f = model(p, file);
  const driver::CompileResult r = driver::compile_model(f, {});
  EXPECT_EQ(count_ops(r.graph, "Gelu"), 1) << file;
  EXPECT_EQ(count_ops(r.graph, "Erf"), 0) << file;
  EXPECT_EQ(count_ops(r.graph, "Mul"), 0) << file;
  // y = v + gelu(v), |v| <= 8: |gelu error| <= 5 2^-24 8 + 1 ulp, and the Add's rounding.
  test::expect_matches_reference(f, inputs(), std::ldexp(1.0, -22), 5.0 * 8.0 * std::ldexp(1.0, -24));
}

void expect_not_fused(const Pattern& p, const std::string& file) {
  const fs::path f = model(p, file);
  const driver::CompileResult r = driver::compile_model(f, {});
  EXPECT_EQ(count_ops(r.graph, "Gelu"), 0) << file;
  EXPECT_EQ(count_ops(r.graph, "Erf"), 1) << file;
  test::expect_matches_reference(f, inputs(), 0.0, 0.0);  // unfused: the reference's bits
}

TEST(FuseGelu, TheExportersFormsBecomeOneGelu) {
  expect_fused({}, "gelu_div.onnx");
  Pattern swapped;
  swapped.swap = true;
  expect_fused(swapped, "gelu_swapped.onnx");
  Pattern half;
  half.half_first = true;
  half.scale_op = "Mul";
  half.scale = scalar(0.707106769f, {1, 1});
  expect_fused(half, "gelu_mul_half_first.onnx");
}

TEST(FuseGelu, OtherConstantsAndSharedIntermediatesStay) {
  Pattern two;
  two.scale = scalar(2.0f);
  expect_not_fused(two, "gelu_div2.onnx");
  Pattern near;
  near.scale = scalar(1.41421342f);  // one float below
  expect_not_fused(near, "gelu_div_near.onnx");
  Pattern mul_sqrt2;
  mul_sqrt2.scale_op = "Mul";  // Mul by sqrt 2, not by its inverse
  expect_not_fused(mul_sqrt2, "gelu_mul_sqrt2.onnx");
  Pattern vec;
  vec.one = scalar(1.0f, {65});  // a constant of 65 values, all 1: not a scalar
  expect_not_fused(vec, "gelu_vector_one.onnx");
  Pattern sub;
  sub.add_op = "Sub";  // erf - 1: another node where the Add goes
  expect_not_fused(sub, "gelu_sub_one.onnx");
  Pattern out;
  out.erf_is_output = true;
  expect_not_fused(out, "gelu_erf_output.onnx");
}

// The tanh form's parts, each replaceable by a test. Default: torch's
// F.gelu(approximate="tanh") export with the constants second.
struct TanhPattern {
  bool pow = false;  // Pow(v, 3) (Hugging Face's gelu_new) instead of Mul(v, Mul(v, v))
  TensorData three = scalar(3.0f);
  TensorData kappa = scalar(0.044715f);
  TensorData beta = scalar(0.797884583f);  // sqrt(2 / pi) as a float
  bool half_first = false;  // Mul(Mul(v, 0.5), s), as gelu_new writes it
  bool swap = false;        // the binary nodes' operands the other way round (torch: constants first)
  bool square_of_other = false;  // Mul(v, Mul(r, r)): not v's cube
  bool tanh_is_output = false;
};

// x -> v (start_model()) -> the tanh form -> g, y = v + g.
fs::path tanh_model(const TanhPattern& p, const std::string& file) {
  OnnxBuilder b;
  const Bin bin = start_model(b, p.swap);
  b.initializer("c_three", p.three).initializer("c_kappa", p.kappa).initializer("c_beta", p.beta);
  if (p.half_first) bin("Mul", "v", "c_half", "h");  // where gelu_new's export puts it: first
  if (p.pow) {
    b.node("Pow", {"v", "c_three"}, {"c"});
  } else {
    const std::string base = p.square_of_other ? "r" : "v";
    b.node("Mul", {base, base}, {"q"});
    bin("Mul", "v", "q", "c");
  }
  bin("Mul", "c", "c_kappa", "k");
  bin("Add", "v", "k", "a");
  bin("Mul", "a", "c_beta", "u");
  b.node("Tanh", {"u"}, {"t"});
  bin("Add", "t", "c_one", "s");
  finish_model(b, bin, p.half_first);
  if (p.tanh_is_output) b.output("t");
  return b.save(test::scratch_dir(), file);
}

void expect_tanh_fused(const TanhPattern& p, const std::string& file, double atol) {
  const fs::path f = tanh_model(p, file);
  const driver::CompileResult r = driver::compile_model(f, {});
  ASSERT_EQ(count_ops(r.graph, "Gelu"), 1) << file;
  for (const Node& n : r.graph.nodes) {
    if (n.op == "Gelu") {
      EXPECT_EQ(n.attrs.get_string("approximate"), "tanh") << file;
    }
  }
  EXPECT_EQ(count_ops(r.graph, "Tanh"), 0) << file;
  EXPECT_EQ(count_ops(r.graph, "Mul"), 0) << file;
  EXPECT_EQ(count_ops(r.graph, "Pow"), 0) << file;
  test::expect_matches_reference(f, inputs(), 0.0, atol);
}

// The operators' order is mlip_gelu_tanh_f's ((v*v)*v, kappa, + v, beta, the
// Tanh operator's tanh, + 1, * v, * 0.5 or v * 0.5 first: exact for normal v),
// so the fused C gives their bits whichever way the operands stand.
TEST(FuseGelu, TanhFormsBecomeOneGeluWithTheOperatorsBits) {
  expect_tanh_fused({}, "gelu_tanh.onnx", 0.0);
  TanhPattern torch;
  torch.swap = true;
  expect_tanh_fused(torch, "gelu_tanh_torch.onnx", 0.0);
  TanhPattern half;
  half.half_first = true;
  expect_tanh_fused(half, "gelu_tanh_half_first.onnx", 0.0);
}

// With Pow(v, 3) (correctly rounded) against (v*v)*v (two roundings): the
// cubes differ by at most 3 2^-24 |v|^3 <= 1536 2^-24 for |v| <= 8. Carried
// through each operation (a difference d in, at most L d + one ulp of the
// result out): k = 0.044715 c (|k| < 23, ulp 2^-19) 100.7, a = v + k
// (|a| < 31) 132.7, u = beta a (|u| < 25) 137.9, t = tanh(u) (slope <= 1,
// each within 2 ulp of tanh) 141.9, s = t + 1 (ulp 2^-23) 143.9, v s
// (|v s| <= 16) 1167.2, half of it exactly 583.6, y = v + g (|y| <= 16)
// 599.6, in units of 2^-24.
TEST(FuseGelu, TanhFormWithPowStaysWithinTheCubesRounding) {
  TanhPattern gelu_new;
  gelu_new.pow = true;
  gelu_new.half_first = true;
  gelu_new.swap = true;
  expect_tanh_fused(gelu_new, "gelu_tanh_pow.onnx", 600.0 * std::ldexp(1.0, -24));
}

TEST(FuseGelu, TanhFormWithOtherConstantsOrAnotherCubeStays) {
  auto expect_tanh_not_fused = [](const TanhPattern& p, const std::string& file) {
    const fs::path f = tanh_model(p, file);
    const driver::CompileResult r = driver::compile_model(f, {});
    EXPECT_EQ(count_ops(r.graph, "Gelu"), 0) << file;  // (its Tanh may become another node's activation)
    test::expect_matches_reference(f, inputs(), 0.0, 0.0);
  };
  TanhPattern kappa;
  kappa.kappa = scalar(0.044716f);
  expect_tanh_not_fused(kappa, "gelu_tanh_kappa.onnx");
  TanhPattern beta;
  beta.beta = scalar(0.797884524f);  // one float below sqrt(2 / pi)
  expect_tanh_not_fused(beta, "gelu_tanh_beta.onnx");
  TanhPattern square;
  square.pow = true;
  square.three = scalar(2.0f);
  expect_tanh_not_fused(square, "gelu_tanh_pow2.onnx");
  TanhPattern other;
  other.square_of_other = true;
  expect_tanh_not_fused(other, "gelu_tanh_other_cube.onnx");
  TanhPattern out;
  out.tanh_is_output = true;
  expect_tanh_not_fused(out, "gelu_tanh_output.onnx");
}

// The Gelu operator (ONNX opset 20's, which mlipc reads in any opset): the C kernel gives the reference's bits, both
// approximations, on an odd width (the vector loop's tail) with the
// extremes of the float range and NaN.
TEST(FuseGelu, GeluOperatorMatchesReferenceBitForBit) {
  for (const char* approx : {"none", "tanh"}) {
    OnnxBuilder b;
    b.input("x", DType::Float32, {5, 37});
    b.node("Gelu", {"x"}, {"y"}, {{"approximate", std::string(approx)}});
    b.output("y");
    const fs::path f = b.save(test::scratch_dir(), fmt::format("gelu_op_{}.onnx", approx));
    TensorData x = random_tensor(DType::Float32, {5, 37}, 9, -12.0, 12.0);
    float* px = x.data<float>();
    px[0] = INFINITY;
    px[1] = -INFINITY;
    px[2] = NAN;
    px[3] = 3.4e38f;
    px[4] = -3.4e38f;
    px[5] = 1e-40f;
    test::expect_matches_reference(f, {{"x", x}}, 0.0, 0.0);
  }
}

}  // namespace
}  // namespace mlipc::unit_passes_fuse_gelu
