// The MLIP support rules (mlip/support.h): one reason per operator, the
// riders (activations, flatten, transpose) decided with their neighbours,
// tensors with no elements kept on the CPU, and the OCM rule of a layer
// being its planner's own formula.
#include <memory>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "driver/compile.h"
#include "frontend/onnx_import.h"
#include "mlip/partition.h"
#include "mlip/report.h"
#include "mlip/layers/rules.h"
#include "mlip/support.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_mlip_support {
namespace {

using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("support_{}.onnx", k++));
}

mlip::Options options(const std::string& mcpu = "cn10ka", bool pin = false) {
  mlip::Options o;
  o.mcpu = mcpu;
  o.num_tiles = mcpu == "cn10ka" ? 8 : 4;
  o.wb_pin_ocm = pin;
  return o;
}

// The reason for the node named `name` (select_nodes), "" when it runs on the MLIP.
std::string reason(const OnnxBuilder& b, const std::string& name, const mlip::Options& o = options()) {
  Graph g = frontend::import_onnx(save(b));
  mlip::Selection s = mlip::select_nodes(g, o);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].name == name) return s.reason[i];
  return "no node " + name;
}

// x [N, C, H, W] -> Conv(w [M, C, k, k], attrs) named "conv".
OnnxBuilder& conv(OnnxBuilder& b, const Shape& x, int64_t m, int64_t k,
                  const std::vector<std::pair<std::string, AttrValue>>& attrs = {}) {
  b.input("x", DType::Float32, x);
  b.initializer("w", random_tensor(DType::Float32, {m, x[1], k, k}, 1));
  b.node("Conv", {"x", "w"}, {"y"}, attrs, "conv");
  b.output("y");
  return b;
}

TEST(MlipSupport, EveryOperatorSaysWhyItStaysOnTheCpu) {
  {
    OnnxBuilder b;
    EXPECT_EQ(reason(conv(b, {1, 3, 8, 8}, 4, 3), "conv"), "");
  }
  {
    OnnxBuilder b;
    EXPECT_EQ(reason(conv(b, {1, 3, 40, 40}, 4, 3, {{"strides", ints{9, 9}}}), "conv"),
              "stride 9 exceeds the cn10ka maximum of 8, and no space-to-depth form: that needs group 1, no dilation along the width, and a factor of the "
              "stride dividing the kernel, both pads and the input width that brings the stride within the "
              "maximum");
  }
  {
    OnnxBuilder b;
    EXPECT_EQ(reason(conv(b, {1, 1, 20, 20}, 2, 17), "conv"), "kernel 17 exceeds the cn10ka maximum of 16");
  }
  {
    OnnxBuilder b;
    conv(b, {1, 3, 12, 12}, 4, 3, {{"dilations", ints{2, 2}}});
    EXPECT_EQ(reason(b, "conv"), "");
    EXPECT_EQ(reason(b, "conv", options("cnf10kb")), "dilation 2 is not supported on cnf10kb");
  }
  {
    OnnxBuilder b;
    EXPECT_EQ(reason(conv(b, {9, 3, 8, 8}, 4, 3), "conv"), "batch size 9 above the MLIP's 8");
  }
  {
    OnnxBuilder b;
    b.input("x", DType::Float32, {1, 3, 8, 8}).input("w", DType::Float32, {4, 3, 3, 3});
    b.node("Conv", {"x", "w"}, {"y"}, {}, "conv").output("y");
    EXPECT_EQ(reason(b, "conv"), "weights are not constant");
  }
  {
    OnnxBuilder b;
    b.input("x", DType::Float32, {1, 2, 9, 9});
    b.node("MaxPool", {"x"}, {"y"}, {{"kernel_shape", ints{2, 2}}, {"ceil_mode", int64_t{1}}}, "pool").output("y");
    EXPECT_EQ(reason(b, "pool"), "");  // ceil_mode runs on the MLIP
  }
  {
    OnnxBuilder b;
    b.input("x", DType::Float32, {1, 2, 9, 9});
    b.node("MaxPool", {"x"}, {"y"}, {{"kernel_shape", ints{2, 2}}, {"dilations", ints{2, 2}}}, "pool").output("y");
    EXPECT_EQ(reason(b, "pool"), "");  // dilated windows run on the MLIP where convolutions' do
    EXPECT_EQ(reason(b, "pool", options("cnf10kb")), "dilation 2 is not supported on cnf10kb");
  }
  {
    OnnxBuilder b;  // a gap (dilation - 1) beyond the command's 16 bits
    b.input("x", DType::Float32, {1, 1, 65540, 1});
    b.node("MaxPool", {"x"}, {"y"}, {{"kernel_shape", ints{2, 1}}, {"dilations", ints{65537, 1}}}, "pool").output("y");
    EXPECT_EQ(reason(b, "pool"), "dilation 65537 above the 65536 of a MAXPOOL or AVGPOOL window");
  }
  {
    OnnxBuilder b;
    b.input("a", DType::Float32, {1, 3, 4, 4}).input("c", DType::Float32, {1, 1, 4, 4});
    b.node("Add", {"a", "c"}, {"y"}, {}, "add").output("y");
    EXPECT_EQ(reason(b, "add"), "");  // the trailing dimensions: ELTWISE of row-major tensors
  }
  {
    OnnxBuilder b;
    b.input("a", DType::Float32, {1, 3, 4, 4}).input("c", DType::Float32, {1, 3, 1, 4});
    b.node("Add", {"a", "c"}, {"y"}, {}, "add").output("y");
    EXPECT_EQ(reason(b, "add"), "only broadcasting of one value per channel or a scalar");
  }
  {
    OnnxBuilder b;
    b.input("a", DType::Float32, {1, 3, 4, 4}).input("c", DType::Float32, {1, 3, 4, 4});
    b.node("Concat", {"a", "c"}, {"y"}, {{"axis", int64_t{2}}}, "cat").output("y");
    EXPECT_EQ(reason(b, "cat"), "");  // CONCAT_ROWS
  }
  {
    OnnxBuilder b;
    b.input("a", DType::Float32, {6, 1});
    b.initializer("w", random_tensor(DType::Float32, {6, 4}, 2));
    b.node("Gemm", {"a", "w"}, {"y"}, {{"transA", int64_t{1}}}, "fc").output("y");
    EXPECT_EQ(reason(b, "fc"), "transA=1");
  }
  {
    OnnxBuilder b;
    b.input("a", DType::Float32, {1, 10});
    b.node("Softmax", {"a"}, {"y"}, {}, "sm").output("y");
    EXPECT_EQ(reason(b, "sm"), "");
  }
  {
    OnnxBuilder b;
    b.input("a", DType::Float32, {2, 10});
    b.node("Softmax", {"a"}, {"y"}, {{"axis", int64_t{0}}}, "sm").output("y");
    EXPECT_EQ(reason(b, "sm"), "only along the last axis (or the trailing axes of the coerced form)");
  }
  {
    OnnxBuilder b;
    b.input("a", DType::Float32, {1, 4, 2, 2, 2, 2, 2}).initializer("s", random_tensor(DType::Float32, {2}, 3));
    b.node("Mul", {"a", "s"}, {"y"}, {}, "mul7").output("y");
    EXPECT_EQ(reason(b, "mul7"), "only 2-D and 4-D tensors");
  }
}

// 1-D and transposed convolutions (issue 30, item 7): CONV2D's 1 x K form
// and CONV_TRANSPOSE's stride phases; what stays on the CPU says why.
TEST(MlipSupport, OneDimensionalAndTransposedConvolutionReasons) {
  auto convt = [](OnnxBuilder& b, const Shape& x, const Shape& w,
                  const std::vector<std::pair<std::string, AttrValue>>& attrs) -> OnnxBuilder& {
    b.input("x", DType::Float32, x);
    b.initializer("w", random_tensor(DType::Float32, w, 1));
    b.node("ConvTranspose", {"x", "w"}, {"y"}, attrs, "convt");
    b.output("y");
    return b;
  };
  {
    OnnxBuilder b;  // Conv1d: dilated, strided, grouped
    b.input("x", DType::Float32, {1, 4, 32});
    b.initializer("w", random_tensor(DType::Float32, {8, 2, 3}, 1));
    b.node("Conv", {"x", "w"}, {"y"}, {{"dilations", ints{4}}, {"strides", ints{2}}, {"group", int64_t{2}}}, "conv");
    b.output("y");
    EXPECT_EQ(reason(b, "conv"), "");
    EXPECT_EQ(reason(b, "conv", options("cnf10kb")), "dilation 4 is not supported on cnf10kb");
  }
  {
    OnnxBuilder b;  // 3-D convolution
    b.input("x", DType::Float32, {1, 2, 4, 4, 4});
    b.initializer("w", random_tensor(DType::Float32, {2, 2, 1, 1, 1}, 1));
    b.node("Conv", {"x", "w"}, {"y"}, {}, "conv");
    b.output("y");
    EXPECT_EQ(reason(b, "conv"), "only 1-D and 2-D float32 convolution (3-D and 4-D NCHW tensors) runs on the MLIP");
  }
  {
    OnnxBuilder b;
    EXPECT_EQ(reason(convt(b, {1, 4, 5, 5}, {4, 3, 3, 3},
                           {{"strides", ints{2, 2}}, {"pads", ints{1, 1, 1, 1}}, {"output_padding", ints{1, 1}},
                            {"group", int64_t{2}}}),
                     "convt"),
              "");
  }
  {
    OnnxBuilder b;  // 1-D
    EXPECT_EQ(reason(convt(b, {1, 4, 9}, {4, 2, 5}, {{"strides", ints{2}}, {"pads", ints{2, 2}}}), "convt"), "");
  }
  {
    OnnxBuilder b;  // kernel 1 at stride 2: the odd outputs take no tap
    EXPECT_EQ(reason(convt(b, {1, 2, 4}, {2, 2, 1}, {{"strides", ints{2}}}), "convt"),
              "output phase 1 of the stride has no kernel tap (kernel smaller than the stride)");
  }
  {
    OnnxBuilder b;  // output_shape beyond the kernel's reach
    EXPECT_EQ(reason(convt(b, {1, 1, 3}, {1, 1, 3}, {{"output_shape", ints{7}}}), "convt"),
              "negative pads (an output_shape beyond the kernel's reach)");
  }
  {
    OnnxBuilder b;  // dilation 3 at stride 2: each phase's taps 3 inputs apart
    convt(b, {1, 2, 8, 8}, {2, 2, 3, 3}, {{"strides", ints{2, 2}}, {"dilations", ints{3, 3}}});
    EXPECT_EQ(reason(b, "convt"), "");
    EXPECT_EQ(reason(b, "convt", options("cnf10kb")), "dilation 3 is not supported on cnf10kb");
  }
  {
    OnnxBuilder b;
    EXPECT_EQ(reason(convt(b, {1, 2, 2, 4, 4}, {2, 2, 1, 1, 1}, {}), "convt"),
              "only 1-D and 2-D float32 transposed convolution (3-D and 4-D tensors) runs on the MLIP");
  }
  {
    OnnxBuilder b;
    b.input("x", DType::Float32, {1, 2, 4, 4}).input("w", DType::Float32, {2, 2, 3, 3});
    b.node("ConvTranspose", {"x", "w"}, {"y"}, {}, "convt").output("y");
    EXPECT_EQ(reason(b, "convt"), "weights are not constant");
  }
  {
    OnnxBuilder b;  // a phase's taps beyond the kernel limit: 34 taps at stride 2 are 17 per phase
    EXPECT_EQ(reason(convt(b, {1, 1, 1, 40}, {1, 1, 1, 34}, {{"strides", ints{1, 2}}}), "convt"),
              "kernel 17 exceeds the cn10ka maximum of 16");
  }
}

// Resize: nearest and linear of the spatial axes with constant scales or
// sizes; what stays on the CPU says why.
TEST(MlipSupport, ResizeReasons) {
  auto resize = [](OnnxBuilder& b, const std::vector<float>& scales, const std::string& mode,
                   const std::string& coord = "half_pixel") -> OnnxBuilder& {
    b.input("x", DType::Float32, {1, 4, 6, 6});
    b.initializer("s", TensorData::from<float>({4}, scales));
    b.node("Resize", {"x", "", "s"}, {"y"}, {{"mode", mode}, {"coordinate_transformation_mode", coord}}, "rs")
        .output("y");
    return b;
  };
  {
    OnnxBuilder b;
    EXPECT_EQ(reason(resize(b, {1, 1, 2, 2}, "nearest", "asymmetric"), "rs"), "");
  }
  {
    OnnxBuilder b;
    EXPECT_EQ(reason(resize(b, {1, 1, 2, 0.5f}, "linear", "align_corners"), "rs"), "");
  }
  {
    OnnxBuilder b;
    EXPECT_EQ(reason(resize(b, {1, 1, 2, 2}, "cubic"), "rs"), "cubic interpolation (nearest and linear run on the MLIP)");
  }
  {
    OnnxBuilder b;
    EXPECT_EQ(reason(resize(b, {1, 2, 2, 2}, "nearest"), "rs"), "resizing the batch or channel axis");
  }
  {
    OnnxBuilder b;
    b.input("x", DType::Float32, {1, 4, 6, 6});
    b.initializer("roi", TensorData::from<float>({8}, {0, 0, -0.5f, 0, 1, 1, 1, 1}));
    b.initializer("s", TensorData::from<float>({4}, {1, 1, 2, 2}));
    b.node("Resize", {"x", "roi", "s"}, {"y"},
           {{"mode", std::string("linear")}, {"coordinate_transformation_mode", std::string("tf_crop_and_resize")}},
           "rs")
        .output("y");
    EXPECT_EQ(reason(b, "rs"), "tf_crop_and_resize with positions outside the input (extrapolation_value)");
  }
  {
    OnnxBuilder b;  // 120000 output columns: their taps alone (960000 bytes) and one row do not fit
    b.input("x", DType::Float32, {1, 4, 2, 60000});
    b.initializer("s", TensorData::from<float>({4}, {1, 1, 1, 2}));
    b.node("Resize", {"x", "", "s"}, {"y"}, {{"mode", std::string("nearest")}}, "rs").output("y");
    EXPECT_THAT(reason(b, "rs"), HasSubstr("one output row needs"));
  }
}

TEST(MlipSupport, ChannelSliceReasons) {
  {
    OnnxBuilder b;
    b.input("x", DType::Float32, {1, 4, 6, 6});
    b.initializer("sp", TensorData::from<int64_t>({2}, {3, 3}));
    b.node("Split", {"x", "sp"}, {"a", "c"}, {{"axis", int64_t{2}}}, "split").output("a").output("c");
    EXPECT_EQ(reason(b, "split"), "");  // rows of another axis: PERMUTE
  }
  {
    OnnxBuilder b;
    b.input("x", DType::Float32, {1, 4, 6, 6});
    b.initializer("st", TensorData::from<int64_t>({1}, {0}));
    b.initializer("en", TensorData::from<int64_t>({1}, {4}));
    b.initializer("ax", TensorData::from<int64_t>({1}, {1}));
    b.initializer("sp", TensorData::from<int64_t>({1}, {2}));
    b.node("Slice", {"x", "st", "en", "ax", "sp"}, {"y"}, {}, "slice").output("y");
    EXPECT_EQ(reason(b, "slice"), "");  // a step: PERMUTE
  }
  {
    OnnxBuilder b;
    b.input("x", DType::Float32, {1, 4, 6, 6});
    b.initializer("st", TensorData::from<int64_t>({1}, {1}));
    b.initializer("en", TensorData::from<int64_t>({1}, {3}));
    b.initializer("ax", TensorData::from<int64_t>({1}, {1}));
    b.node("Slice", {"x", "st", "en", "ax"}, {"y"}, {}, "slice").output("y");
    EXPECT_EQ(reason(b, "slice"), "");
  }
}

TEST(MlipSupport, ActivationsAndViewsAreDecidedWithTheirNeighbours) {
  {
    // An activation that rides on nothing is a layer of its own, in any layout.
    OnnxBuilder b;
    b.input("x", DType::Float32, {1, 3, 4, 4}).input("v", DType::Float32, {2, 3, 4});
    b.node("Sigmoid", {"x"}, {"s"}, {}, "sig").node("Relu", {"s"}, {"y"}, {}, "relu").output("y");
    b.node("Tanh", {"v"}, {"t"}, {}, "tanh").output("t");
    EXPECT_EQ(reason(b, "sig"), "");
    EXPECT_EQ(reason(b, "relu"), "");
    EXPECT_EQ(reason(b, "tanh"), "");
  }
  {
    // Clip with any constant bounds (min > max gives max, as ONNX), not computed ones.
    OnnxBuilder b;
    conv(b, {1, 3, 8, 8}, 4, 3);
    b.input("m", DType::Float32, {});
    b.initializer("lo", TensorData::scalar<float>(1.0f)).initializer("hi", TensorData::scalar<float>(0.0f));
    b.node("Clip", {"y", "lo", "hi"}, {"z"}, {}, "clip").output("z");
    b.node("Clip", {"y", "m"}, {"z2"}, {}, "clip2").output("z2");
    EXPECT_EQ(reason(b, "clip"), "");
    EXPECT_EQ(reason(b, "clip2"), "Clip bounds that are not constant");
  }
  {
    // A flatten that feeds no dense layer, and the transpose before it, are
    // views or PERMUTE layers of row-major bytes.
    OnnxBuilder b;
    conv(b, {1, 3, 8, 8}, 4, 3);
    b.node("Transpose", {"y"}, {"t"}, {{"perm", ints{0, 2, 3, 1}}}, "tr");
    b.node("Flatten", {"t"}, {"f"}, {}, "flat").node("Softmax", {"f"}, {"z"}, {}, "sm").output("z");
    EXPECT_EQ(reason(b, "flat"), "");
    EXPECT_EQ(reason(b, "tr"), "");
  }
}

// ELTWISE: equal shapes, one value per channel, a scalar, or (row-major)
// one run of dimensions, computed or constant; the reasons for the rest.
TEST(MlipSupport, ElementwiseBroadcastsPerChannel) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {2, 3, 4, 4}).input("g", DType::Float32, {2, 3, 1, 1});
  b.input("s", DType::Float32, {1, 1, 4, 4}).input("v", DType::Float32, {2, 3});
  b.initializer("pc", random_tensor(DType::Float32, {3, 1, 1}, 5));
  b.initializer("pc2", random_tensor(DType::Float32, {2, 3, 1, 1}, 6));
  b.initializer("slope", random_tensor(DType::Float32, {3, 1, 1}, 7));
  b.initializer("one", TensorData::scalar<float>(0.25f));
  b.initializer("full", random_tensor(DType::Float32, {1, 3, 4, 4}, 8));
  b.node("Mul", {"g", "x"}, {"m"}, {}, "gate").output("m");
  b.node("Sub", {"pc", "x"}, {"d"}, {}, "rsub").output("d");
  b.node("Max", {"x", "one"}, {"mx"}, {}, "max").output("mx");
  b.node("Min", {"x", "x"}, {"mn"}, {}, "min").output("mn");
  b.node("PRelu", {"x", "slope"}, {"p"}, {}, "prelu").output("p");
  b.node("Add", {"v", "v"}, {"vv"}, {}, "add2d").output("vv");
  b.node("Mul", {"x", "s"}, {"ms"}, {}, "spatial").output("ms");
  b.node("Mul", {"x", "pc2"}, {"mi"}, {}, "perimage").output("mi");
  b.node("Add", {"x", "full"}, {"af"}, {}, "addfull").output("af");
  b.node("Max", {"x", "x", "x"}, {"m3"}, {}, "max3").output("m3");
  b.input("r3", DType::Float32, {2, 3, 4});
  b.node("PRelu", {"r3", "one"}, {"p3"}, {}, "prelu3").output("p3");
  b.node("PRelu", {"x", "one"}, {"p4"}, {}, "prelu_scalar").output("p4");
  for (const char* ok : {"gate", "rsub", "max", "min", "prelu", "add2d"}) EXPECT_EQ(reason(b, ok), "") << ok;
  for (const char* rows : {"spatial", "perimage", "addfull"}) EXPECT_EQ(reason(b, rows), "") << rows;
  EXPECT_EQ(reason(b, "max3"), "only two operands");
  EXPECT_EQ(reason(b, "prelu3"), "only 2-D and 4-D tensors");  // one slope: LEAKYRELU, 2-D and 4-D only
  EXPECT_EQ(reason(b, "prelu_scalar"), "");
}

// x * Sigmoid(x) and x * HardSigmoid(x) after a layer are that layer's fused
// SILU / HARDSWISH; the squeeze-excitation block (GlobalAveragePool, 1x1
// convs, the gate fused into the second, the broadcast Mul) is one region.
TEST(MlipPartition, ActivationPatternsFuseAndSqueezeExcitationIsOneRegion) {
  for (const char* gate : {"Sigmoid", "HardSigmoid"}) {
    OnnxBuilder b;
    b.input("x", DType::Float32, {1, 8, 6, 6});
    b.initializer("w", random_tensor(DType::Float32, {8, 8, 3, 3}, 1));
    b.initializer("w1", random_tensor(DType::Float32, {2, 8, 1, 1}, 2));
    b.initializer("w2", random_tensor(DType::Float32, {8, 2, 1, 1}, 3));
    b.node("Conv", {"x", "w"}, {"c"}, {{"pads", ints{1, 1, 1, 1}}}, "conv");
    b.node(gate, {"c"}, {"cg"}, {}, "act_gate").node("Mul", {"c", "cg"}, {"a"}, {}, "act_mul");
    b.node("GlobalAveragePool", {"a"}, {"p"}, {}, "gap");
    b.node("Conv", {"p", "w1"}, {"s1"}, {}, "se1").node("Relu", {"s1"}, {"s1r"}, {}, "se_relu");
    b.node("Conv", {"s1r", "w2"}, {"s2"}, {}, "se2").node(gate, {"s2"}, {"g"}, {}, "se_gate");
    b.node("Mul", {"a", "g"}, {"y"}, {}, "se_mul").output("y");
    driver::CompileOptions o;
    o.target = "mrvl, c";
    driver::CompileResult r = driver::compile_model(save(b), o);
    ASSERT_EQ(r.mlip.regions.size(), 1u) << gate;
    EXPECT_TRUE(r.mlip.cpu_nodes.empty()) << gate;
    EXPECT_THAT(test::layer_kinds(r),
                ElementsAre("convert_in", "conv2d", "global_avgpool", "conv2d", "conv2d", "eltwise", "convert_out"))
        << gate;
    const std::string op = gate;
    EXPECT_THAT(r.mlip.regions[0]->report.layers[1].origins,
                ElementsAre("conv (Conv)", "act_gate (" + op + ")", "act_mul (Mul)"));
    EXPECT_THAT(r.mlip.regions[0]->report.layers[4].origins, ElementsAre("se2 (Conv)", "se_gate (" + op + ")"));
  }
}

// Zero elements (batch 0, an empty Add, global pooling of an empty image):
// the MLIP's commands have no empty form, so such nodes run on the CPU.
TEST(MlipSupport, TensorsWithNoElementsStayOnTheCpu) {
  OnnxBuilder batch0;
  conv(batch0, {0, 3, 8, 8}, 4, 3);
  OnnxBuilder add;
  add.input("a", DType::Float32, {0, 3}).input("c", DType::Float32, {0, 3});
  add.node("Add", {"a", "c"}, {"y"}, {}, "add").output("y");
  OnnxBuilder gap;
  gap.input("x", DType::Float32, {1, 2, 0, 0});
  gap.node("GlobalAveragePool", {"x"}, {"y"}, {}, "gap").output("y");
  EXPECT_EQ(reason(batch0, "conv"), "zero-size tensor 'x' [0,3,8,8]");
  EXPECT_EQ(reason(add, "add"), "zero-size tensor 'a' [0,3]");
  EXPECT_EQ(reason(gap, "gap"), "zero-size tensor 'x' [1,2,0,0]");
  for (const OnnxBuilder* b : {&batch0, &add, &gap}) {
    Graph g = frontend::import_onnx(save(*b));
    mlip::Partition p = mlip::partition(g, options());
    for (const Node& n : g.nodes) {
      EXPECT_NE(n.op, kSubgraphOp);
      EXPECT_THAT(p.cpu_reasons.at(n.name), HasSubstr("zero-size tensor"));
    }
  }
}

// A convolution's rule asks whether its smallest pass (one output row of one
// output channel) fits the OCM, by the planner's formula: input rows, output
// row, weights and bias, each 128-byte aligned. A 1x1 convolution with bias
// of 262080 channels needs 524160 + 128 + 524160 + 128 bytes, exactly the
// 1 MiB of a tile: it runs (the rule before it disagreed with the planner
// and kept it on the CPU). 64 channels more need 1048832 bytes: it stays.
TEST(MlipSupport, TheOcmRuleIsThePlannersFormula) {
  auto model = [](int64_t channels) {
    auto b = std::make_unique<OnnxBuilder>();
    b->input("x", DType::Float32, {1, channels, 1, 1});
    b->initializer("w", random_tensor(DType::Float32, {1, channels, 1, 1}, 3));
    b->initializer("bias", random_tensor(DType::Float32, {1}, 4));
    b->node("Conv", {"x", "w", "bias"}, {"y"}, {}, "conv").output("y");
    return b;
  };
  EXPECT_EQ(reason(*model(262080), "conv"), "");
  EXPECT_EQ(reason(*model(262144), "conv"), "one output row needs 1048832 bytes of OCM, more than the 1048576 available");
  // With wb_pin_ocm=1 a layer works in half the OCM.
  EXPECT_EQ(reason(*model(262080), "conv", options("cn10ka", true)),
            "one output row needs 1048576 bytes of OCM, more than the 524288 available");
  driver::CompileOptions o;
  o.target = "mrvl, c";
  o.mlip.num_tiles = 1;
  driver::CompileResult r = driver::compile_model(save(*model(262080)), o);
  ASSERT_EQ(r.mlip.regions.size(), 1u);
  EXPECT_TRUE(r.mlip.cpu_nodes.empty());
}


// GELU's Erf form between one DequantizeLinear (scale 0.05, zero point 0)
// and one QuantizeLinear (scale 0.001, zero point 0) is one int8 chain of
// its six nodes (layers/q8_lookup.cpp), chosen whole; its table against
// hand-computed values, 0.5 x (1 + erf(x / sqrt 2)) / 0.001 rounded:
// x = 0.1 (v = 2): 53.98 -> 54; x = -0.2 (v = -4): -84.15 -> -84; x = 0: 0;
// saturation at both ends of int8: x = 6.35 (v = 127): 6350 -> 127, x =
// -0.75 (v = -15): -169.97 -> -128; and x = -6.4 (v = -128), where GELU is
// -5e-10: 0. A CPU node scheduled between the chain's nodes keeps the chain
// on the CPU (a region is a run of consecutive nodes).
TEST(MlipSupport, Int8GeluChainIsOneTable) {
  mlip::Options o = options();
  o.quantize = "int8";
  for (bool cut : {false, true}) {
    SCOPED_TRACE(cut);
    OnnxBuilder b(17);
    b.input("x", DType::Int8, {1, 4, 6});
    b.input("f", DType::Float32, {1, 4, 6});
    b.initializer("xs", TensorData::from<float>({}, {0.05f}));
    b.initializer("xz", TensorData::from<int8_t>({}, {0}));
    b.initializer("ys", TensorData::from<float>({}, {0.001f}));
    b.initializer("yz", TensorData::from<int8_t>({}, {0}));
    b.initializer("sqrt2", TensorData::from<float>({}, {1.41421354f}));
    b.initializer("one", TensorData::from<float>({}, {1.0f}));
    b.initializer("half", TensorData::from<float>({}, {0.5f}));
    b.node("DequantizeLinear", {"x", "xs", "xz"}, {"xd"}, {}, "dq");
    b.node("Div", {"xd", "sqrt2"}, {"d"}, {}, "div");
    if (cut) b.node("Sigmoid", {"f"}, {"fs"}, {}, "float_sigmoid");
    b.node("Erf", {"d"}, {"e"}, {}, "erf");
    b.node("Add", {"e", "one"}, {"a"}, {}, "add");
    b.node("Mul", {"xd", "a"}, {"m"}, {}, "mul");
    b.node("Mul", {"m", "half"}, {"g"}, {}, "mul_half");
    b.node("QuantizeLinear", {"g", "ys", "yz"}, {"y"}, {}, "q");
    b.output("y");
    if (cut) b.output("fs");
    for (const char* name : {"dq", "div", "erf", "add", "mul", "mul_half", "q"}) {
      if (cut)
        EXPECT_THAT(reason(b, name, o), HasSubstr("node 'float_sigmoid' between the nodes of its int8 chain")) << name;
      else
        EXPECT_EQ(reason(b, name, o), "") << name;
    }
    if (cut) continue;
    Graph g = frontend::import_onnx(save(b));
    const std::vector<mlip::layers::Q8Lookup> chains = mlip::layers::q8_lookups(g, g.consumers(), g.producers());
    ASSERT_EQ(chains.size(), 1u);
    EXPECT_EQ(chains[0].nodes.size(), 7u);
    EXPECT_EQ(g.value(chains[0].x).name, "x");
    EXPECT_EQ(g.value(chains[0].y).name, "y");
    const std::vector<int64_t> t = mlip::layers::q8_lookup_table(g, chains[0]);
    ASSERT_EQ(t.size(), 256u);
    EXPECT_EQ(t[128 + 2], 54);
    EXPECT_EQ(t[128 - 4], -84);
    EXPECT_EQ(t[128], 0);
    EXPECT_EQ(t[128 + 127], 127);
    EXPECT_EQ(t[128 - 15], -128);
    EXPECT_EQ(t[0], 0);
  }
}

// The int8 Split between QDQ pairs (layers/q8_split.cpp): chosen whole
// when every output reaches its own QuantizeLinear through views; an output
// read by a float node instead keeps the Split on the CPU.
TEST(MlipSupport, Int8SplitChainIsChosenWhole) {
  mlip::Options o = options();
  o.quantize = "int8";
  for (bool float_reader : {false, true}) {
    SCOPED_TRACE(float_reader);
    OnnxBuilder b(17);
    b.input("x", DType::Int8, {1, 6, 3, 4});
    b.initializer("xs", TensorData::from<float>({}, {0.05f}));
    b.initializer("xz", TensorData::from<int8_t>({}, {2}));
    b.initializer("ys", TensorData::from<float>({}, {0.02f}));
    b.initializer("yz", TensorData::from<int8_t>({}, {-3}));
    b.initializer("ax", TensorData::from<int64_t>({1}, {2}));
    b.node("DequantizeLinear", {"x", "xs", "xz"}, {"xd"}, {}, "dq");
    b.node("Split", {"xd"}, {"p0", "p1", "p2"}, {{"axis", int64_t{2}}}, "split");
    b.node("Squeeze", {"p0", "ax"}, {"s0"}, {}, "squeeze");
    b.node("QuantizeLinear", {"s0", "ys", "yz"}, {"y0"}, {}, "q0");
    b.node("QuantizeLinear", {"p1", "ys", "yz"}, {"y1"}, {}, "q1");
    if (float_reader)
      b.node("Relu", {"p2"}, {"y2"}, {}, "relu");
    else
      b.node("QuantizeLinear", {"p2", "xs", "xz"}, {"y2"}, {}, "q2");
    for (const char* y : {"y0", "y1", "y2"}) b.output(y);
    if (float_reader) {
      EXPECT_THAT(reason(b, "split", o), HasSubstr("Split on float tensors"));
    } else {
      for (const char* name : {"dq", "split", "squeeze", "q0", "q1", "q2"}) EXPECT_EQ(reason(b, name, o), "") << name;
    }
  }
}

// An integer chain (x * x, then times a scalar: QLinearMul twice on 4-D
// int8 tensors, each an ELTWISE of its own) is one TABLE; a CPU node
// scheduled between its nodes leaves each to its own rule (both still run
// on the MLIP), not to the CPU.
TEST(MlipSupport, Int8IntegerChainFallsBackToItsNodesOwnLayers) {
  mlip::Options o = options();
  o.quantize = "int8";
  for (bool cut : {false, true}) {
    SCOPED_TRACE(cut);
    OnnxBuilder b(17);
    b.input("x", DType::Int8, {1, 2, 3, 4});
    b.input("f", DType::Float32, {1, 2, 3, 4});
    b.initializer("s", TensorData::from<float>({}, {0.05f}));
    b.initializer("z", TensorData::from<int8_t>({}, {1}));
    b.initializer("c", TensorData::from<int8_t>({}, {90}));
    b.node("QLinearMul", {"x", "s", "z", "x", "s", "z", "s", "z"}, {"m1"}, {}, "square").in_domain("com.microsoft");
    if (cut) b.node("Sigmoid", {"f"}, {"fs"}, {}, "float_sigmoid");
    b.node("QLinearMul", {"m1", "s", "z", "c", "s", "z", "s", "z"}, {"y"}, {}, "scale").in_domain("com.microsoft");
    b.output("y");
    if (cut) b.output("fs");
    EXPECT_EQ(reason(b, "square", o), "");
    EXPECT_EQ(reason(b, "scale", o), "");
    Graph g = frontend::import_onnx(save(b));
    const std::vector<mlip::layers::Q8Lookup> chains = mlip::layers::q8_lookups(g, g.consumers(), g.producers());
    ASSERT_EQ(chains.size(), 1u);
    EXPECT_EQ(chains[0].nodes.size(), 2u);
    const mlip::Partition p = mlip::partition(g, o);
    size_t regions = 0;
    for (const Node& n : g.nodes) regions += n.op == kSubgraphOp;
    EXPECT_EQ(regions, cut ? 2u : 1u);
    EXPECT_TRUE(p.cpu_reasons.count("square") == 0 && p.cpu_reasons.count("scale") == 0);
  }
}
}  // namespace
}  // namespace mlipc::unit_mlip_support

namespace mlipc::unit_mlip_support {
namespace {

// QLinearMatMul of two computed int8 operands a [2, 3, k] and b `bs` (b's
// type `bt`, its scale of `b_scales` values) named "mm".
OnnxBuilder& q8_matmul(OnnxBuilder& b, int64_t k, const Shape& bs, DType bt = DType::Int8, int64_t b_scales = 1) {
  b.input("a", DType::Int8, {2, 3, k});
  b.input("b", bt, bs);
  b.initializer("as", TensorData::from<float>({}, {0.05f}));
  b.initializer("az", TensorData::from<int8_t>({}, {3}));
  b.initializer("bsc", b_scales == 1 ? TensorData::from<float>({}, {0.02f})
                                     : TensorData::from<float>({b_scales}, std::vector<float>(static_cast<size_t>(b_scales), 0.02f)));
  if (bt == DType::Int8)
    b.initializer("bz", TensorData::from<int8_t>({}, {-1}));
  else
    b.initializer("bz", TensorData::from<uint8_t>({}, {128}));
  b.initializer("ys", TensorData::from<float>({}, {0.1f}));
  b.initializer("yz", TensorData::from<int8_t>({}, {0}));
  b.node("QLinearMatMul", {"a", "as", "az", "b", "bsc", "bz", "ys", "yz"}, {"y"}, {}, "mm");
  b.output("y");
  return b;
}

// int8 MATMUL (a QLinearMatMul of two computed operands): its rule's
// user-facing reasons, and no reason for a batched product of per-tensor
// scales and zero points. (More than 33025 products per output the
// importer refuses already: the int32 sum could overflow.)
TEST(MlipSupport, Int8MatmulOfTwoComputedOperandsReasons) {
  mlip::Options o = options();
  o.quantize = "int8";
  {
    OnnxBuilder b(13);
    EXPECT_EQ(reason(q8_matmul(b, 4, {2, 4, 5}), "mm", o), "");
  }
  {
    OnnxBuilder b(13);
    EXPECT_EQ(reason(q8_matmul(b, 4, {4, 5}), "mm", o), "");  // one B for both products
  }
  {
    OnnxBuilder b(13);
    EXPECT_THAT(reason(q8_matmul(b, 4, {2, 4, 5}, DType::Int8, 5), "mm", o), HasSubstr("only per-tensor scales"));
  }
  {
    OnnxBuilder b(13);
    EXPECT_THAT(reason(q8_matmul(b, 4, {2, 4, 5}, DType::UInt8), "mm", o),
                HasSubstr("int8 matrix products of one 8-bit type"));
  }
  {
    OnnxBuilder b(13);
    EXPECT_THAT(reason(q8_matmul(b, 4, {3, 2, 4, 5}), "mm", o), HasSubstr("a first operand that broadcasts"));
  }
  {
    OnnxBuilder b(13);
    o.quantize = "fp16";
    EXPECT_THAT(reason(q8_matmul(b, 4, {2, 4, 5}), "mm", o), HasSubstr("needs -quantize=int8"));
  }
}

// int8 SOFTMAX: a DequantizeLinear, Softmax, QuantizeLinear chain on the
// last axis is chosen whole (its DequantizeLinear and QuantizeLinear too);
// along another axis the Softmax says why it stays on the CPU.
TEST(MlipSupport, Int8SoftmaxChainIsChosenWhole) {
  mlip::Options o = options();
  o.quantize = "int8";
  for (int64_t axis : {-1, 1}) {
    SCOPED_TRACE(axis);
    OnnxBuilder b(13);
    b.input("x", DType::Int8, {1, 4, 6});
    b.initializer("xs", TensorData::from<float>({}, {0.05f}));
    b.initializer("xz", TensorData::from<int8_t>({}, {2}));
    b.initializer("ys", TensorData::from<float>({}, {1.0f / 256}));
    b.initializer("yz", TensorData::from<int8_t>({}, {-128}));
    b.node("DequantizeLinear", {"x", "xs", "xz"}, {"xd"}, {}, "dq");
    b.node("Softmax", {"xd"}, {"p"}, {{"axis", axis}}, "softmax");
    b.node("QuantizeLinear", {"p", "ys", "yz"}, {"y"}, {}, "q");
    b.output("y");
    if (axis == -1) {
      for (const char* name : {"dq", "softmax", "q"}) EXPECT_EQ(reason(b, name, o), "") << name;
    } else {
      EXPECT_THAT(reason(b, "softmax", o), HasSubstr("only along the last axis"));
      EXPECT_THAT(reason(b, "dq", o), HasSubstr("DequantizeLinear has no int8 MLIP layer"));
    }
  }
}

// int8 NORM: a DequantizeLinear, LayerNormalization, QuantizeLinear chain
// with a constant scale is chosen whole (its DequantizeLinear and
// QuantizeLinear too); a computed scale keeps the LayerNormalization on the
// CPU with the reason.
TEST(MlipSupport, Int8LayerNormChainIsChosenWhole) {
  mlip::Options o = options();
  o.quantize = "int8";
  for (bool const_scale : {true, false}) {
    SCOPED_TRACE(const_scale);
    OnnxBuilder b(17);
    b.input("x", DType::Int8, {1, 4, 6});
    if (const_scale)
      b.initializer("gamma", TensorData::from<float>({6}, {1.0f, 0.5f, 2.0f, 1.0f, 1.5f, 0.25f}));
    else
      b.input("gamma", DType::Float32, {6});
    b.initializer("xs", TensorData::from<float>({}, {0.05f}));
    b.initializer("xz", TensorData::from<int8_t>({}, {2}));
    b.initializer("ys", TensorData::from<float>({}, {0.02f}));
    b.initializer("yz", TensorData::from<int8_t>({}, {-3}));
    b.node("DequantizeLinear", {"x", "xs", "xz"}, {"xd"}, {}, "dq");
    b.node("LayerNormalization", {"xd", "gamma"}, {"n"}, {{"axis", int64_t{-1}}}, "ln");
    b.node("QuantizeLinear", {"n", "ys", "yz"}, {"y"}, {}, "q");
    b.output("y");
    if (const_scale) {
      for (const char* name : {"dq", "ln", "q"}) EXPECT_EQ(reason(b, name, o), "") << name;
    } else {
      EXPECT_THAT(reason(b, "ln", o), HasSubstr("scale or bias is not constant"));
      EXPECT_THAT(reason(b, "dq", o), HasSubstr("DequantizeLinear has no int8 MLIP layer"));
    }
  }
}
// int8 ADD of a constant: a QLinearAdd whose second operand is a constant of
// the first's shape runs on the MLIP; a constant first operand says why not.
// A constant operand on either side (torch writes a Linear's bias first),
// of the computed one's shape or broadcasting to it; not one the computed
// operand would have to broadcast to. Only 4-D tensors have images to count.
TEST(MlipSupport, Int8AddOfAConstantOperand) {
  mlip::Options o = options();
  o.quantize = "int8";
  struct Case {
    Shape k;
    bool k_first;
    Shape x;
    const char* reason;
  };
  for (const Case& c : {Case{{1, 4, 6}, false, {1, 4, 6}, ""}, Case{{1, 4, 6}, true, {1, 4, 6}, ""},
                        Case{{6}, true, {1, 4, 6}, ""}, Case{{4, 1}, false, {1, 4, 6}, ""},
                        Case{{1, 4, 6}, false, {1, 1, 6}, "a constant that broadcasts to the other operand"},
                        Case{{2, 4, 6}, true, {1, 4, 6}, "a constant that broadcasts to the other operand"},
                        // attention's in-projection bias on [tokens, 1, d]: tokens are not images
                        Case{{24}, true, {33, 1, 24}, ""}, Case{{9, 2, 3, 4}, false, {9, 2, 3, 4}, "batch size 9 above the MLIP's 8"}}) {
    SCOPED_TRACE(shape_str(c.k) + (c.k_first ? " first" : " second"));
    OnnxBuilder b(13);
    b.input("x", DType::Int8, c.x);
    b.initializer("c", TensorData::from<int8_t>(c.k, std::vector<int8_t>(static_cast<size_t>(numel(c.k)), 5)));
    b.initializer("s", TensorData::from<float>({}, {0.05f}));
    b.initializer("z", TensorData::from<int8_t>({}, {2}));
    const std::string first = c.k_first ? "c" : "x", second = c.k_first ? "x" : "c";
    b.node("QLinearAdd", {first, "s", "z", second, "s", "z", "s", "z"}, {"y"}, {}, "add").in_domain("com.microsoft");
    b.output("y");
    if (*c.reason == '\0')
      EXPECT_EQ(reason(b, "add", o), "");
    else
      EXPECT_THAT(reason(b, "add", o), HasSubstr(c.reason));
  }
}
}  // namespace
}  // namespace mlipc::unit_mlip_support
