// passes/fold_qdq on Resize and ConvTranspose. A nearest Resize between a
// DequantizeLinear and a QuantizeLinear of one scale and zero point copies
// elements, so it runs on the integers and gives the float graph's bits;
// a linear Resize (no integer kernel) stays float between its
// DequantizeLinear and QuantizeLinear, and `mlipc inspect` says why; a
// ConvTranspose with its Relu becomes the integer mlipc.QLinearConvTranspose;
// a float bias beyond int32 at its accumulator's scale is a one-line error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>

#include "driver/compile.h"
#include "support/error.h"
#include "support/file_util.h"
#include "support/process.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace mlipc::test::e2e_quantized_fold {
namespace {

using ints = std::vector<int64_t>;

fs::path fold_model_path(const OnnxBuilder& b, const std::string& name) { return b.save(scratch_dir(), name); }

std::vector<std::string> folded_ops(const driver::CompileResult& r) {
  std::vector<std::string> ops;
  for (const Node& n : r.graph.nodes) ops.push_back(n.op);
  return ops;
}

// x [1,2,3,4] -> Q/DQ (int8, 0.05, -3) -> Resize x2 (mode) -> Q/DQ (same) -> y
fs::path resize_model(const std::string& mode, const std::string& file) {
  OnnxBuilder b(13);
  b.input("x", DType::Float32, {1, 2, 3, 4});
  b.initializer("s", TensorData::from<float>({}, {0.05f}));
  b.initializer("z", TensorData::from<int8_t>({}, {-3}));
  b.initializer("roi", TensorData::from<float>({0}, {}));
  b.initializer("scales", TensorData::from<float>({4}, {1.0f, 1.0f, 2.0f, 2.0f}));
  b.node("QuantizeLinear", {"x", "s", "z"}, {"xq"}, {}, "qx");
  b.node("DequantizeLinear", {"xq", "s", "z"}, {"xd"}, {}, "dqx");
  b.node("Resize", {"xd", "roi", "scales"}, {"r"}, {{"mode", mode}}, "resize");
  b.node("QuantizeLinear", {"r", "s", "z"}, {"rq"}, {}, "qr");
  b.node("DequantizeLinear", {"rq", "s", "z"}, {"y"}, {}, "dqy");
  b.output("y");
  return fold_model_path(b, file);
}

TEST(FoldQdqResize, NearestRunsOnTheIntegersWithTheFloatGraphsBits) {
  const fs::path p = resize_model("nearest", "qdq_resize_nearest.onnx");
  driver::CompileResult r;
  const io::NamedTensors in = {{"x", random_tensor(DType::Float32, {1, 2, 3, 4}, 5, -7.0, 7.0)}};
  const io::NamedTensors got = compile_and_run(p, in, {}, &r);
  const std::vector<std::string> ops = folded_ops(r);
  EXPECT_THAT(ops, ::testing::Contains("Resize"));
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "QuantizeLinear"), 1) << "only the border one is left";
  EXPECT_TRUE(r.float_notes.empty());
  for (const Node& n : r.graph.nodes) {
    if (n.op == "Resize") { EXPECT_EQ(r.graph.value(n.inputs[0]).dtype, DType::Int8); }
  }
  // Nearest copies values: the float graph (nothing folded) gives the same bits.
  EXPECT_EQ(compare(got[0].second, reference_run(p, in)[0].second, 0, 0), "");
  EXPECT_EQ(got[0].second.shape(), (Shape{1, 2, 6, 8}));
}

TEST(FoldQdqResize, LinearStaysFloatAndSaysWhy) {
  const fs::path p = resize_model("linear", "qdq_resize_linear.onnx");
  driver::CompileResult r;
  const io::NamedTensors in = {{"x", random_tensor(DType::Float32, {1, 2, 3, 4}, 6, -7.0, 7.0)}};
  const io::NamedTensors got = compile_and_run(p, in, {}, &r);
  ASSERT_EQ(r.float_notes.size(), 1u);
  EXPECT_EQ(r.float_notes[0].node, "dqx");
  EXPECT_EQ(r.float_notes[0].why,
            "feeds node 'resize' (Resize): only nearest Resize folds (mode linear interpolates, and no integer "
            "interpolation kernel exists on the CPU or the MLIP)");
  // Float between the border conversions: the float graph's values within a step.
  EXPECT_EQ(compare(got[0].second, reference_run(p, in)[0].second, 0, 0.05 * 1.001), "");
}

// x [1,2,4,4] int8 QDQ -> ConvTranspose (per-channel int8 weights on axis 1,
// stride 2) -> Relu -> Q/DQ -> y: an integer ConvTranspose whose clamp is
// the Relu, within one step of the float graph; inspect lists nothing float.
TEST(FoldQdqConvTranspose, FoldsIntoTheIntegerConvTranspose) {
  OnnxBuilder b(13);
  b.input("x", DType::Float32, {1, 2, 4, 4});
  b.initializer("xs", TensorData::from<float>({}, {0.04f}));
  b.initializer("xz", TensorData::from<int8_t>({}, {1}));
  TensorData w = random_tensor(DType::Int8, {2, 3, 3, 3}, 9, -127, 127);
  b.initializer("w", w);
  b.initializer("ws", TensorData::from<float>({3}, {0.01f, 0.02f, 0.015f}));
  b.initializer("ys", TensorData::from<float>({}, {0.03f}));
  b.initializer("yz", TensorData::from<int8_t>({}, {-128}));
  b.node("QuantizeLinear", {"x", "xs", "xz"}, {"xq"}, {}, "qx");
  b.node("DequantizeLinear", {"xq", "xs", "xz"}, {"xd"}, {}, "dqx");
  b.node("DequantizeLinear", {"w", "ws"}, {"wd"}, {{"axis", int64_t{1}}}, "dqw");
  b.node("ConvTranspose", {"xd", "wd"}, {"c"}, {{"strides", ints{2, 2}}}, "convt");
  b.node("Relu", {"c"}, {"r"}, {}, "relu");
  b.node("QuantizeLinear", {"r", "ys", "yz"}, {"yq"}, {}, "qy");
  b.node("DequantizeLinear", {"yq", "ys", "yz"}, {"y"}, {}, "dqy");
  b.output("y");
  const fs::path p = fold_model_path(b, "qdq_convtranspose.onnx");
  driver::CompileResult r;
  const io::NamedTensors in = {{"x", random_tensor(DType::Float32, {1, 2, 4, 4}, 10, -4.0, 4.0)}};
  const io::NamedTensors got = compile_and_run(p, in, {}, &r);
  EXPECT_EQ(folded_ops(r), (std::vector<std::string>{"QuantizeLinear", "mlipc.QLinearConvTranspose", "DequantizeLinear"}));
  EXPECT_TRUE(r.float_notes.empty());
  EXPECT_EQ(got[0].second.shape(), (Shape{1, 3, 9, 9}));
  EXPECT_EQ(compare(got[0].second, reference_run(p, in)[0].second, 0, 0.03 * 1.001), "");

  TempDir dir("mlipc-qfold");
  ProcessResult c = run_process({MLIPC_BINARY, "compile", p.string(), "-o", "m.tar"}, dir.path(), 600);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  ProcessResult i = run_process({MLIPC_BINARY, "inspect", "m.tar"}, dir.path(), 600);
  ASSERT_EQ(i.exit_code, 0) << i.err;
  EXPECT_THAT(i.out, HasSubstr("CPU  mlipc.QLinearConvTranspose tvmgen_default_1_mlipc_qlinearconvtranspose convt "
                               "(ConvTranspose), qy (QuantizeLinear), relu (Relu)"));
  EXPECT_THAT(i.out, ::testing::Not(HasSubstr("quantized tensors computed in float")));
}

// A QDQ model whose float bias cannot be held as int32 at x_scale * w_scale
// (channel 7's weight scale 1e-10: 0.5 is 2.5e11 steps) is refused in one
// line naming the node and the channel (docs/user-guide.md, "Quantization":
// an error, not a clamp that would drop the bias silently).
TEST(FoldQdqBias, BiasBeyondInt32IsAOneLineError) {
  OnnxBuilder b(13);
  b.input("x", DType::Float32, {1, 3, 8, 8});
  b.initializer("s", TensorData::from<float>({}, {0.02f}));
  b.initializer("z", TensorData::from<int8_t>({}, {0}));
  TensorData wq(DType::Int8, {8, 3, 3, 3});
  for (int64_t k = 0; k < wq.numel(); ++k) wq.data<int8_t>()[k] = static_cast<int8_t>(k % 255 - 127);
  std::vector<float> ws(8, 0.01f);
  ws[7] = 1e-10f;
  std::vector<float> bias(8, 0.25f);
  bias[7] = 0.5f;
  b.initializer("wq", wq);
  b.initializer("ws", TensorData::from<float>({8}, ws));
  b.initializer("wz", TensorData(DType::Int8, {8}));
  b.initializer("bias", TensorData::from<float>({8}, bias));
  b.initializer("ys", TensorData::from<float>({}, {0.05f}));
  b.node("QuantizeLinear", {"x", "s", "z"}, {"xq"}, {}, "qx");
  b.node("DequantizeLinear", {"xq", "s", "z"}, {"xd"}, {}, "dqx");
  b.node("DequantizeLinear", {"wq", "ws", "wz"}, {"wd"}, {{"axis", int64_t{0}}}, "dqw");
  b.node("Conv", {"xd", "wd", "bias"}, {"c"}, {{"pads", ints{1, 1, 1, 1}}}, "conv");
  b.node("QuantizeLinear", {"c", "ys", "z"}, {"cq"}, {}, "qc");
  b.node("DequantizeLinear", {"cq", "ys", "z"}, {"y"}, {}, "dqy");
  b.output("y");
  const fs::path p = fold_model_path(b, "qdq_bias_overflow.onnx");
  try {
    driver::compile_model(p, {});
    FAIL() << "compiled";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_THAT(m, HasSubstr("node 'conv' (Conv): bias[7] = 0.5 is 2.5e+11 steps of x_scale * w_scale[7]"));
    EXPECT_THAT(m, HasSubstr("beyond int32"));
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace mlipc::test::e2e_quantized_fold
