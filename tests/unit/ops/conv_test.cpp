// Conv: shape rule, reference kernel, and the generated C against the reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "driver/compile.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"
#include "testlib/op_model.h"

namespace mlipc::unit_ops_conv {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test::floats;
using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using Attr = std::pair<std::string, AttrValue>;

// One Conv node: x an input, w (and b) constants unless told otherwise.
test::OpModel conv(const Shape& x, const TensorData& w, const TensorData* b, const std::vector<Attr>& attrs,
                   bool w_input = false) {
  test::OpModel m("Conv");
  m.input("x", DType::Float32, x);
  if (w_input) m.input("w", DType::Float32, w.shape());
  else m.constant("w", w);
  if (b) m.constant("b", *b);
  for (const auto& [k, v] : attrs) m.attr(k, v);
  return m;
}

// Conv followed by an activation the compiler fuses into it.
fs::path conv_act_model(const std::string& name, const Shape& x, const TensorData& w, const TensorData* b,
                        const std::vector<Attr>& attrs, const std::string& act) {
  OnnxBuilder m;
  m.input("x", DType::Float32, x);
  m.initializer("w", w);
  std::vector<std::string> ins = {"x", "w"};
  if (b) {
    m.initializer("b", *b);
    ins.push_back("b");
  }
  m.node("Conv", ins, {"c"}, attrs);
  if (act == "LeakyRelu") m.node(act, {"c"}, {"y"}, {{"alpha", 0.2f}});
  else m.node(act, {"c"}, {"y"});
  m.output("y");
  return m.save(test::scratch_dir(), "conv_" + name + ".onnx");
}

using test::infer;
using test::infer_error;

TEST(Conv, ShapeRuleExplicitPads) {
  TensorData w(DType::Float32, {4, 3, 3, 3});
  test::Inferred g = infer(conv({2, 3, 8, 7}, w, nullptr, {{"pads", ints{1, 1, 1, 1}}, {"strides", ints{2, 2}}}));
  EXPECT_EQ(g.shapes[0], (Shape{2, 4, 4, 4}));
  EXPECT_EQ(g.attrs.get_ints("kernel_shape"), (ints{3, 3}));  // taken from W
  EXPECT_EQ(g.attrs.get_ints("dilations"), (ints{1, 1}));
}

TEST(Conv, ShapeRuleResolvesAutoPad) {
  TensorData w(DType::Float32, {2, 2, 3, 3});
  test::Inferred g = infer(conv({1, 2, 6, 5}, w, nullptr, {{"auto_pad", std::string("SAME_UPPER")}, {"strides", ints{2, 2}}}));
  EXPECT_EQ(g.shapes[0], (Shape{1, 2, 3, 3}));
  EXPECT_FALSE(g.attrs.has("auto_pad"));
  EXPECT_EQ(g.attrs.get_ints("pads"), (ints{0, 1, 1, 1}));
  EXPECT_EQ(infer(conv({1, 2, 6, 5}, w, nullptr, {{"auto_pad", std::string("VALID")}})).shapes[0], (Shape{1, 2, 4, 3}));
}

TEST(Conv, ShapeRule1dAnd3dAndGroups) {
  TensorData w1(DType::Float32, {6, 2, 3});
  EXPECT_EQ(infer(conv({1, 4, 10}, w1, nullptr, {{"group", int64_t{2}}, {"dilations", ints{2}}})).shapes[0],
            (Shape{1, 6, 6}));
  TensorData w3(DType::Float32, {2, 1, 2, 2, 2});
  EXPECT_EQ(infer(conv({1, 1, 4, 5, 6}, w3, nullptr, {})).shapes[0], (Shape{1, 2, 3, 4, 5}));
}

TEST(Conv, ShapeRuleErrors) {
  TensorData w(DType::Float32, {4, 3, 3, 3});
  EXPECT_THAT(infer_error(conv({1, 2, 8, 8}, w, nullptr, {})),
              HasSubstr("3 input channels per group; input X [1,2,8,8] with group 1 needs 2"));
  EXPECT_THAT(infer_error(conv({1, 3, 8, 8}, w, nullptr, {{"group", int64_t{2}}})),
              HasSubstr("group 2 must be positive and divide"));
  TensorData b(DType::Float32, {3});
  EXPECT_THAT(infer_error(conv({1, 3, 8, 8}, w, &b, {})), HasSubstr("bias B has shape [3]"));
  TensorData w2(DType::Float32, {4, 3});
  EXPECT_THAT(infer_error(conv({1, 3}, w2, nullptr, {})), HasSubstr("1-D to 3-D"));
  EXPECT_THAT(infer_error(conv({1, 3, 8, 8}, TensorData(DType::Float32, {4, 3, 3}), nullptr, {})),
              HasSubstr("weights W have shape [4,3,3]"));
  EXPECT_THAT(infer_error(conv({1, 3, 8, 8}, w, nullptr, {{"kernel_shape", ints{2, 2}}})),
              HasSubstr("does not match the weights"));
  EXPECT_THAT(infer_error(conv({1, 3, 2, 8}, w, nullptr, {})), HasSubstr("larger than the padded input"));
}

TEST(Conv, ReferenceSmallCases) {
  // 3x3 input 0..8, 2x2 kernel of ones, bias 1.
  TensorData w = TensorData::from<float>({1, 1, 2, 2}, {1, 1, 1, 1});
  TensorData b = TensorData::from<float>({1}, {1});
  TensorData x = TensorData::from<float>({1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  TensorData y = test::reference(conv({1, 1, 3, 3}, w, &b, {}), {{"x", x}})[0].second;
  EXPECT_EQ(y, TensorData::from<float>({1, 1, 2, 2}, {9, 13, 21, 25}));

  // Pads 1 and stride 2: the corners see 4 taps, minus padding.
  EXPECT_EQ(test::reference(conv({1, 1, 3, 3}, w, nullptr, {{"pads", ints{1, 1, 1, 1}}, {"strides", ints{2, 2}}}),
                            {{"x", x}})[0].second,
            TensorData::from<float>({1, 1, 2, 2}, {0, 1 + 2, 3 + 6, 4 + 5 + 7 + 8}));

  // Depthwise with multiplier 2: group 2, 4 output channels, 1x1 kernels.
  TensorData wd = TensorData::from<float>({4, 1, 1, 1}, {1, -1, 2, 10});
  TensorData xd = TensorData::from<float>({1, 2, 1, 2}, {1, 2, 3, 4});
  EXPECT_EQ(test::reference(conv({1, 2, 1, 2}, wd, nullptr, {{"group", int64_t{2}}}), {{"x", xd}})[0].second,
            TensorData::from<float>({1, 4, 1, 2}, {1, 2, -1, -2, 6, 8, 30, 40}));

  // Dilation 2 in 1-D: y[i] = x[i] + x[i + 2].
  TensorData w1 = TensorData::from<float>({1, 1, 2}, {1, 1});
  EXPECT_EQ(test::reference(conv({1, 1, 5}, w1, nullptr, {{"dilations", ints{2}}}),
                            {{"x", TensorData::from<float>({1, 1, 5}, {1, 2, 3, 4, 5})}})[0].second,
            TensorData::from<float>({1, 1, 3}, {4, 6, 8}));
}

struct CCase {
  std::string name;
  Shape x, w;
  bool bias;
  std::vector<Attr> attrs;
};

// The kernel keeps the reference's summation order: bit-identical.
void add_case(test::OpBatch& b, const CCase& c, bool w_input = false) {
  TensorData w = random_tensor(DType::Float32, c.w, 2);
  TensorData bias = random_tensor(DType::Float32, {c.w[0]}, 3);
  io::NamedTensors in = {{"x", random_tensor(DType::Float32, c.x, 1)}};
  if (w_input) in.emplace_back("w", w);
  b.add(c.name, conv(c.x, w, c.bias ? &bias : nullptr, c.attrs, w_input), in);
}

// 1-D, 2-D, 3-D, groups, depthwise, dilations, SAME pads, weights given at
// run time: one model.
TEST(Conv, GeneratedCMatchesReference) {
  test::OpBatch b;
  add_case(b, {"2d", {2, 3, 9, 8}, {4, 3, 3, 2}, true, {{"pads", ints{1, 0, 2, 1}}, {"strides", ints{2, 1}}}});
  add_case(b, {"2d_same_lower_dil", {1, 2, 7, 7}, {3, 2, 3, 3}, false,
               {{"auto_pad", std::string("SAME_LOWER")}, {"dilations", ints{2, 1}}, {"strides", ints{1, 2}}}});
  add_case(b, {"1d", {1, 4, 17}, {6, 2, 3}, true,
               {{"group", int64_t{2}}, {"pads", ints{2, 1}}, {"strides", ints{3}}, {"dilations", ints{2}}}});
  add_case(b, {"3d", {1, 2, 5, 6, 4}, {4, 1, 2, 3, 2}, true,
               {{"group", int64_t{2}}, {"pads", ints{1, 0, 1, 0, 1, 1}}, {"strides", ints{1, 2, 1}}}});
  add_case(b, {"dw", {1, 4, 8, 8}, {4, 1, 3, 3}, true,
               {{"group", int64_t{4}}, {"pads", ints{1, 1, 1, 1}}, {"strides", ints{2, 2}}}});
  add_case(b, {"dw_mult", {1, 3, 6, 6}, {6, 1, 3, 3}, false, {{"group", int64_t{3}}}});
  add_case(b, {"w_input", {1, 2, 5, 5}, {3, 2, 3, 3}, false, {{"pads", ints{1, 1, 1, 1}}}}, /*w_input=*/true);
  b.expect_matches_reference();
}

// A fused activation: bit-identical, except through libm's exp (Sigmoid).
TEST(Conv, GeneratedCMatchesReferenceFusedActivation) {
  struct Act {
    std::string act;
    Shape x, w;
    bool bias;
    std::vector<Attr> attrs;
  };
  for (const Act& a : std::vector<Act>{{"Relu", {1, 3, 6, 6}, {4, 3, 3, 3}, true, {{"pads", ints{1, 1, 1, 1}}}},
                                       {"LeakyRelu", {1, 3, 6, 6}, {4, 3, 1, 1}, false, {}},
                                       {"Sigmoid", {1, 2, 5, 5}, {2, 2, 3, 3}, true, {}}}) {
    SCOPED_TRACE(a.act);
    TensorData w = random_tensor(DType::Float32, a.w, 2);
    TensorData b = random_tensor(DType::Float32, {a.w[0]}, 3);
    const bool exact = a.act != "Sigmoid";
    test::expect_matches_reference(conv_act_model(a.act, a.x, w, a.bias ? &b : nullptr, a.attrs, a.act),
                                   {{"x", random_tensor(DType::Float32, a.x, 1)}}, exact ? 0.0 : 1e-5,
                                   exact ? 0.0 : 1e-6);
  }
}

TEST(Conv, CompiledActivationIsFused) {
  TensorData w = random_tensor(DType::Float32, {2, 2, 3, 3}, 2);
  driver::CompileResult r = driver::compile_model(conv_act_model("fused", {1, 2, 5, 5}, w, nullptr, {}, "Relu"), {});
  ASSERT_EQ(r.graph.nodes.size(), 1u);
  EXPECT_EQ(r.graph.nodes[0].attrs.get_string("activation"), "relu");
}

}  // namespace
}  // namespace mlipc::unit_ops_conv
