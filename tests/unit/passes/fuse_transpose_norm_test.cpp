// passes/fuse_transpose_norm: Transpose(x, [0, 2, ..., 1]) ->
// LayerNormalization over the last axis [-> Transpose back] becomes one
// LayerNormalization over x's channels (templates/kernels/layer_norm_cf.c,
// positions in vector lanes) whose generated C gives the unfused graph's
// reference bits: 1-D, 2-D and 3-D, position counts below, at and past
// the 64 and 16 of the kernel's strips, channel counts that are and are not
// whole vectors, with and without B, the opset-13 decomposition (divide),
// batches, values with NaN and infinities; and what is not that pattern
// stays: another perm, a Transpose read twice or a graph output, a
// LayerNormalization over two axes or with Mean and InvStdDev, a Scale of
// the normalized axes' shape.
#include <gtest/gtest.h>

#include <cmath>

#include "driver/compile.h"
#include "ops/evaluator.h"
#include "testlib/reference.h"
#include "testlib/tensors.h"
#include "testlib/graph_query.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_passes_fuse_transpose_norm {
namespace {

namespace fs = std::filesystem;
using test::count_ops;
using test::ints;
using test::OnnxBuilder;
using test::random_tensor;

struct Case {
  std::string name;
  Shape x;              // [N, C, S...]
  bool back = true;     // the Transpose back after it
  bool bias = true;
  bool decomposed = false;  // the opset-13 decomposition instead of the operator
  ints perm;            // the first Transpose's (default: channels last)
  int64_t axis = -1;
  bool stats = false;   // Mean and InvStdDev outputs too
  bool t_output = false;  // the transposed tensor is a graph output as well
  int transposes_left = 0;
};

fs::path model(const Case& c) {
  OnnxBuilder b(c.decomposed ? 13 : 17);
  const int r = static_cast<int>(c.x.size());
  b.input("x", DType::Float32, c.x);
  ints perm = c.perm, back = {0, r - 1};
  if (perm.empty()) {
    perm = {0};
    for (int a = 2; a < r; ++a) perm.push_back(a);
    perm.push_back(1);
  }
  for (int a = 1; a < r - 1; ++a) back.push_back(a);
  b.node("Relu", {"x"}, {"xr"});  // the input comes from a node, as in a model
  b.node("Transpose", {"xr"}, {"t"}, {{"perm", perm}});
  const int64_t c_last = c.x[static_cast<size_t>(perm.back())];
  b.initializer("s", random_tensor(DType::Float32, {c_last}, 3, 0.5, 1.5));
  b.initializer("b", random_tensor(DType::Float32, {c_last}, 4));
  if (c.decomposed) {
    b.initializer("eps", TensorData::from<float>({}, {1e-5f}));
    b.initializer("two", TensorData::from<float>({}, {2.0f}));
    test::layer_norm_decomposition(b, "t", "", "eps", "two", "s", "b", "ln");
  } else {
    std::vector<std::string> ins = {"t", "s"};
    if (c.bias) ins.push_back("b");
    std::vector<std::string> outs = {"ln"};
    if (c.stats) outs.insert(outs.end(), {"mean", "inv"});
    b.node("LayerNormalization", ins, outs, {{"axis", c.axis}, {"epsilon", 1e-3f}});
    if (c.stats) b.output("mean").output("inv");
  }
  if (c.back) {
    b.node("Transpose", {"ln"}, {"y"}, {{"perm", back}});
    b.output("y");
  } else {
    b.output("ln");
  }
  if (c.t_output) b.output("t");
  return b.save(test::scratch_dir(), "tnorm_" + c.name + ".onnx");
}

void expect(const Case& c) {
  SCOPED_TRACE(c.name);
  const fs::path f = model(c);
  const driver::CompileResult r = driver::compile_model(f, {});
  EXPECT_EQ(count_ops(r.graph, "Transpose"), c.transposes_left);
  TensorData x = random_tensor(DType::Float32, c.x, 7, -3.0, 5.0);
  x.data<float>()[3] = std::nanf("");
  x.data<float>()[numel(c.x) - 2] = INFINITY;
  test::expect_matches_reference(f, {{"x", x}}, 0.0, 0.0);
  // The reference evaluator on the fused graph (ops/layer_norm.cpp's
  // channels-first view) gives the unfused graph's bits too.
  const io::NamedTensors want = test::reference_run(f, {{"x", x}});
  const std::vector<TensorData> got = evaluate(r.graph, {x});
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(test::compare(got[i], want[i].second, 0.0, 0.0), "") << i;
}

Case fused(const std::string& name, const Shape& x, bool back = true, bool bias = true, bool decomposed = false) {
  Case c;
  c.name = name;
  c.x = x;
  c.back = back;
  c.bias = bias;
  c.decomposed = decomposed;
  return c;
}

TEST(FuseTransposeNorm, ChannelsLastLayerNormReadsAndWritesChannelsFirst) {
  expect(fused("convnext_stem", {1, 24, 9, 11}));  // 99 positions: a strip of 64, two of 16, 3 alone
  expect(fused("block", {2, 19, 8, 10}, false));   // out channels-last: 19 = whole vectors and the rest
  expect(fused("no_bias_1d", {1, 16, 130}, true, false));
  expect(fused("3d", {1, 8, 3, 4, 7}, false, false));
  expect(fused("few", {1, 33, 2, 5}));  // 10 positions: one at a time
  expect(fused("decomposed", {1, 32, 5, 16}, true, true, true));  // mlipc_divide
  expect(fused("decomposed_out_cl", {2, 17, 4, 20}, false, true, true));
}

TEST(FuseTransposeNorm, OtherPatternsStay) {
  Case perm = fused("perm", {1, 4, 6, 8}, false);
  perm.perm = {0, 3, 2, 1};
  perm.transposes_left = 1;
  expect(perm);
  Case axes = fused("two_axes", {1, 4, 6, 8});
  axes.axis = -2;
  axes.transposes_left = 2;
  expect(axes);
  Case stats = fused("stats", {1, 8, 6, 5}, false);
  stats.stats = true;
  stats.transposes_left = 1;
  expect(stats);
  Case out = fused("t_output", {1, 8, 6, 5});
  out.t_output = true;
  out.transposes_left = 2;
  expect(out);
}

}  // namespace
}  // namespace mlipc::unit_passes_fuse_transpose_norm
