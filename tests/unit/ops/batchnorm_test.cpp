// BatchNormalization (inference): shape rule, reference kernel, and the
// generated C against the reference, with constant and run-time parameters.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_batchnorm {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using Attr = std::pair<std::string, AttrValue>;

const char* const kParams[] = {"scale", "b", "mean", "var"};

// Parameters for `c` channels; var is positive.
std::vector<TensorData> params(int64_t c) {
  return {random_tensor(DType::Float32, {c}, 11), random_tensor(DType::Float32, {c}, 12),
          random_tensor(DType::Float32, {c}, 13), random_tensor(DType::Float32, {c}, 14, 0.1, 2.0)};
}

struct Model {
  std::string name;
  Shape x;
  std::vector<Attr> attrs;
  bool params_as_inputs = false;
  std::string act;
  int opset = 17;
  std::vector<std::string> outputs = {"y"};
};

Model model(const std::string& name, const Shape& x, const std::vector<Attr>& attrs = {},
            bool params_as_inputs = false, const std::string& act = "", int opset = 17) {
  Model m;
  m.name = name;
  m.x = x;
  m.attrs = attrs;
  m.params_as_inputs = params_as_inputs;
  m.act = act;
  m.opset = opset;
  return m;
}

fs::path bn_model(const Model& md, const std::vector<TensorData>& p) {
  OnnxBuilder m(md.opset);
  m.input("x", DType::Float32, md.x);
  for (int i = 0; i < 4; ++i) {
    if (md.params_as_inputs) m.input(kParams[i], DType::Float32, p[static_cast<size_t>(i)].shape());
    else m.initializer(kParams[i], p[static_cast<size_t>(i)]);
  }
  std::vector<std::string> outs = md.outputs;
  if (!md.act.empty()) outs[0] = "bn";
  m.node("BatchNormalization", {"x", "scale", "b", "mean", "var"}, outs, md.attrs);
  if (!md.act.empty()) m.node(md.act, {"bn"}, {"y"});
  m.output("y");
  return m.save(test::scratch_dir(), "bn_" + md.name + ".onnx");
}

using test::import_error;

TEST(BatchNorm, ShapeRule) {
  Graph g = frontend::import_onnx(bn_model(model("shape", {2, 3, 4, 5}, {}), params(3)));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 3, 4, 5}));
  Graph g2 = frontend::import_onnx(bn_model(model("shape2d", {2, 3}, {}), params(3)));
  EXPECT_EQ(g2.value(g2.outputs[0].value).shape, (Shape{2, 3}));
}

TEST(BatchNorm, ShapeRuleErrors) {
  EXPECT_THAT(import_error(bn_model(model("err_train", {1, 3, 2}, {{"training_mode", int64_t{1}}}), params(3))),
              HasSubstr("training mode is not supported"));
  Model extra = model("err_outs", {1, 3, 2});
  extra.opset = 15;
  extra.outputs = {"y", "running_mean", "running_var"};
  EXPECT_THAT(import_error(bn_model(extra, params(3))), HasSubstr("exists only in training mode"));
  EXPECT_THAT(import_error(bn_model(model("err_c", {1, 4, 2}, {}), params(3))),
              HasSubstr("input scale has shape [3]; it must be [4]"));
  EXPECT_THAT(import_error(bn_model(model("err_rank", {4}, {}), params(4))), HasSubstr("rank 2 or more"));
}

TEST(BatchNorm, Reference) {
  std::vector<TensorData> p = {TensorData::from<float>({2}, {1, 2}), TensorData::from<float>({2}, {0, 1}),
                               TensorData::from<float>({2}, {1, -1}), TensorData::from<float>({2}, {4, 0.25f})};
  fs::path m = bn_model(model("ref", {1, 2, 2}, {{"epsilon", 0.0f}}), p);
  // c0: (x - 1) / 2 * 1 + 0; c1: (x + 1) / 0.5 * 2 + 1.
  TensorData x = TensorData::from<float>({1, 2, 2}, {3, 5, 0, 1});
  EXPECT_EQ(test::reference_run(m, {{"x", x}})[0].second, TensorData::from<float>({1, 2, 2}, {1, 2, 5, 9}));
}

void expect_c_matches(const Model& md) {
  SCOPED_TRACE(md.name);
  std::vector<TensorData> p = params(md.x[1]);
  io::NamedTensors in = {{"x", random_tensor(DType::Float32, md.x, 10)}};
  if (md.params_as_inputs)
    for (int i = 0; i < 4; ++i) in.emplace_back(kParams[i], p[static_cast<size_t>(i)]);
  test::expect_matches_reference(bn_model(md, p), in);
}

TEST(BatchNorm, GeneratedCMatchesReferenceConstantParams) {
  expect_c_matches(model("c_const", {2, 5, 3, 4}, {{"epsilon", 1e-3f}}));
  expect_c_matches(model("c_const_2d", {3, 4}, {}));
  expect_c_matches(model("c_const_relu", {1, 3, 2, 2, 2}, {}, false, "Relu"));
}

TEST(BatchNorm, GeneratedCMatchesReferenceRunTimeParams) {
  expect_c_matches(model("c_rt", {2, 5, 3, 4}, {{"epsilon", 1e-3f}}, true));
  expect_c_matches(model("c_rt_sigmoid", {1, 3, 7}, {}, true, "Sigmoid"));
}

TEST(BatchNorm, OpsetSixModel) {
  // Opset 6 carries is_test and spatial; the frontend drops them.
  expect_c_matches(model("c_opset6", {2, 3, 4}, {{"is_test", int64_t{1}}, {"epsilon", 1e-5f}}, false, "", 6));
}

TEST(BatchNorm, FoldedIntoConv) {
  // Conv + BatchNormalization with constants becomes one Conv.
  OnnxBuilder m;
  m.input("x", DType::Float32, {1, 2, 5, 5});
  m.initializer("w", random_tensor(DType::Float32, {3, 2, 3, 3}, 1));
  std::vector<TensorData> p = params(3);
  for (int i = 0; i < 4; ++i) m.initializer(kParams[i], p[static_cast<size_t>(i)]);
  m.node("Conv", {"x", "w"}, {"c"}, {{"pads", ints{1, 1, 1, 1}}});
  m.node("BatchNormalization", {"c", "scale", "b", "mean", "var"}, {"y"});
  m.output("y");
  fs::path path = m.save(test::scratch_dir(), "bn_fold.onnx");
  driver::CompileResult r = driver::compile_model(path, {});
  ASSERT_EQ(r.graph.nodes.size(), 1u);
  EXPECT_EQ(r.graph.nodes[0].op, "Conv");
  test::expect_matches_reference(path, {{"x", random_tensor(DType::Float32, {1, 2, 5, 5}, 4)}}, 1e-5, 1e-5);
}

}  // namespace
}  // namespace mlipc::unit_ops_batchnorm
