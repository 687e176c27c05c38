// passes/fuse_layer_norm: LayerNormalization's opset-13 decomposition
// becomes one LayerNormalization (mlipc_divide: d / sd as the Div does)
// whose generated C gives the decomposition's reference bits, on odd row
// widths, with and without the affine Mul and Add, Pow(d, 2) or Mul(d, d),
// the ReduceMean axes as an attribute (opset 13) or an input (opset 18);
// and what is not that pattern stays: a reduction over another axis, a Pow
// by 3, a gamma of one value per row instead of per column, an
// intermediate read twice or a graph output. Pow(d, 2)'s reference
// (mlip_powf) gives d * d's bits on every float of [1, 2): the premise of
// the bit equality.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "driver/compile.h"
#include "mlip/kmath.h"
#include "testlib/graph_query.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_passes_fuse_layer_norm {
namespace {

namespace fs = std::filesystem;
using test::count_ops;
using test::ints;
using test::OnnxBuilder;
using test::random_tensor;

TensorData scalar(float v) { return TensorData::from<float>({}, {v}); }

struct Pattern {
  int opset = 13;
  int64_t width = 37;
  int64_t axis = -1;         // the ReduceMeans' axis
  bool affine = true;        // Mul gamma, Add beta
  bool gamma_only = false;   // Mul gamma, no Add
  bool square_by_mul = false;
  float power = 2.0f;
  bool gamma_per_row = false;
  bool sub_is_output = false;
};

fs::path model(const Pattern& p, const std::string& file) {
  OnnxBuilder b(p.opset);
  const Shape s = {2, 5, p.width};
  b.input("x", DType::Float32, s);
  b.initializer("eps", scalar(1e-5f)).initializer("two", scalar(p.power));
  const Shape gs = p.gamma_per_row ? Shape{5, 1} : Shape{p.width};
  b.initializer("gamma", random_tensor(DType::Float32, gs, 3, 0.5, 1.5));
  b.initializer("beta", random_tensor(DType::Float32, {p.width}, 4));
  auto reduce = [&](const std::string& in, const std::string& out) {
    if (p.opset >= 18) {
      b.initializer(out + "_axes", TensorData::from<int64_t>({1}, {p.axis}));
      b.node("ReduceMean", {in, out + "_axes"}, {out});
    } else {
      b.node("ReduceMean", {in}, {out}, {{"axes", ints{p.axis}}});
    }
  };
  b.node("Relu", {"x"}, {"r"});
  b.node("Sub", {"x", "r"}, {"xn"});  // the input comes from a node, as in a model
  reduce("xn", "mean");
  b.node("Sub", {"xn", "mean"}, {"d"});
  if (p.square_by_mul) b.node("Mul", {"d", "d"}, {"sq"});
  else b.node("Pow", {"d", "two"}, {"sq"});
  reduce("sq", "var");
  b.node("Add", {"var", "eps"}, {"ve"});
  b.node("Sqrt", {"ve"}, {"sd"});
  b.node("Div", {"d", "sd"}, {"n"});
  std::string y = "n";
  if (p.affine || p.gamma_only) {
    b.node("Mul", {"gamma", "n"}, {"ng"});
    y = "ng";
  }
  if (p.affine) {
    b.node("Add", {y, "beta"}, {"nb"});
    y = "nb";
  }
  b.node("Relu", {y}, {"y"});
  b.output("y");
  if (p.sub_is_output) b.output("d");
  return b.save(test::scratch_dir(), file);
}

void expect(const Pattern& p, const std::string& file, bool fused) {
  SCOPED_TRACE(file);
  const fs::path f = model(p, file);
  const driver::CompileResult r = driver::compile_model(f, {});
  EXPECT_EQ(count_ops(r.graph, "LayerNormalization"), fused ? 1 : 0);
  EXPECT_EQ(count_ops(r.graph, "Sqrt"), fused ? 0 : 1);
  EXPECT_EQ(count_ops(r.graph, "ReduceMean"), fused ? 0 : 2);
  test::expect_matches_reference(f, {{"x", random_tensor(DType::Float32, {2, 5, p.width}, 7, -3.0, 5.0)}}, 0.0, 0.0);
}

TEST(FuseLayerNorm, TheDecompositionBecomesOneLayerNormWithItsBits) {
  expect({}, "ln13.onnx", true);
  Pattern p18;
  p18.opset = 18;
  p18.width = 64;
  expect(p18, "ln18.onnx", true);
  Pattern plain;
  plain.affine = false;
  plain.width = 1;  // a row of one: not fused (nothing to normalize)
  expect(plain, "ln_width1.onnx", false);
  plain.width = 19;
  expect(plain, "ln_plain.onnx", true);
  Pattern gamma;
  gamma.affine = false;
  gamma.gamma_only = true;
  gamma.square_by_mul = true;
  expect(gamma, "ln_gamma_mul.onnx", true);
}

TEST(FuseLayerNorm, OtherAxesPowersConstantsAndSharedValuesStay) {
  Pattern axis;
  axis.axis = 1;
  expect(axis, "ln_axis1.onnx", false);
  Pattern cube;
  cube.power = 3.0f;
  expect(cube, "ln_pow3.onnx", false);
  Pattern row;
  row.gamma_per_row = true;  // the normalization is fused, the Mul by a per-row gamma is not
  {
    const fs::path f = model(row, "ln_gamma_row.onnx");
    const driver::CompileResult r = driver::compile_model(f, {});
    EXPECT_EQ(count_ops(r.graph, "LayerNormalization"), 1);
    EXPECT_EQ(count_ops(r.graph, "Mul"), 1);
    test::expect_matches_reference(f, {{"x", random_tensor(DType::Float32, {2, 5, 37}, 7)}}, 0.0, 0.0);
  }
  Pattern out;
  out.sub_is_output = true;
  expect(out, "ln_sub_output.onnx", false);
}

TEST(FuseLayerNorm, PowByTwoIsTheProductsBits) {
  for (uint32_t u = 0x3f800000u; u < 0x40000000u; u += 7) {
    float d;
    std::memcpy(&d, &u, 4);
    const float p = mlip_powf(d, 2.0f), m = d * d;
    ASSERT_EQ(std::memcmp(&p, &m, 4), 0) << d;
  }
}

}  // namespace
}  // namespace mlipc::unit_passes_fuse_layer_norm
