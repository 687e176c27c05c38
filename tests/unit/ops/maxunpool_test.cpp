// MaxUnpool: shape rule, reference by hand, generated C against the
// reference (indices from MaxPool and from the model's input), bad indices.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_maxunpool {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using Attr = std::pair<std::string, AttrValue>;

// x and i as model inputs; output_shape as a constant when given, or as an input.
fs::path model(const std::string& name, const Shape& x, const std::vector<Attr>& attrs, const ints* out_shape = nullptr,
               bool shape_input = false, DType t = DType::Float32) {
  OnnxBuilder m;
  m.input("x", t, x);
  m.input("i", DType::Int64, x);
  std::vector<std::string> ins = {"x", "i"};
  if (out_shape) {
    const TensorData s = TensorData::from<int64_t>({static_cast<int64_t>(out_shape->size())}, *out_shape);
    if (shape_input) m.input("s", DType::Int64, s.shape());
    else m.initializer("s", s);
    ins.push_back("s");
  }
  m.node("MaxUnpool", ins, {"y"}, attrs);
  m.output("y");
  return m.save(test::scratch_dir(), "maxunpool_" + name + ".onnx");
}

using test::import_error;

Shape out_shape(const fs::path& p) {
  Graph g = frontend::import_onnx(p);
  return g.value(g.outputs[0].value).shape;
}

TEST(MaxUnpool, ShapeRule) {
  const std::vector<Attr> k2s2 = {{"kernel_shape", ints{2, 2}}, {"strides", ints{2, 2}}};
  EXPECT_EQ(out_shape(model("s_default", {1, 3, 2, 3}, k2s2)), (Shape{1, 3, 4, 6}));
  EXPECT_EQ(out_shape(model("s_pads", {1, 3, 2, 3}, {{"kernel_shape", ints{3, 3}}, {"strides", ints{2, 2}},
                                                      {"pads", ints{1, 0, 0, 1}}})),
            (Shape{1, 3, 4, 6}));
  const ints five = {1, 3, 5, 7};
  EXPECT_EQ(out_shape(model("s_given", {1, 3, 2, 3}, k2s2, &five)), (Shape{1, 3, 5, 7}));
  EXPECT_EQ(out_shape(model("s_1d", {2, 1, 4}, {{"kernel_shape", ints{3}}})), (Shape{2, 1, 6}));
}

TEST(MaxUnpool, ShapeRuleErrors) {
  EXPECT_THAT(import_error(model("e_ks", {1, 1, 2, 2}, {})), HasSubstr("kernel_shape is required"));
  EXPECT_THAT(import_error(model("e_ksn", {1, 1, 2, 2}, {{"kernel_shape", ints{2}}})),
              HasSubstr("must have 2, 2 and 4 values for 2 spatial axes"));
  const ints bad = {1, 2, 4, 4};
  EXPECT_THAT(import_error(model("e_shape", {1, 1, 2, 2}, {{"kernel_shape", ints{2, 2}}}, &bad)),
              HasSubstr("output_shape [1,2,4,4] must be [1, 1, spatial...]"));
  const ints small = {1, 1, 3, 4};
  EXPECT_THAT(import_error(model("e_small", {1, 1, 2, 2}, {{"kernel_shape", ints{2, 2}}, {"strides", ints{2, 2}}}, &small)),
              HasSubstr("output_shape [1,1,3,4] is smaller than [1,1,4,4]"));
  const ints ok = {1, 1, 4, 4};
  EXPECT_THAT(import_error(model("e_runtime", {1, 1, 2, 2}, {{"kernel_shape", ints{2, 2}}}, &ok, true)),
              HasSubstr("('s', output_shape) must be a constant known at compile time"));
  EXPECT_THAT(import_error(model("e_dtype", {1, 1, 2, 2}, {{"kernel_shape", ints{2, 2}}}, nullptr, false, DType::Int32)),
              HasSubstr("element type int32; supported: float32, float64"));
  // Constant indices are checked at compile time.
  OnnxBuilder m;
  m.input("x", DType::Float32, {1, 1, 1, 2});
  m.initializer("i", TensorData::from<int64_t>({1, 1, 1, 2}, {0, 4}));
  m.node("MaxUnpool", {"x", "i"}, {"y"}, {{"kernel_shape", ints{1, 2}}});
  m.output("y");
  EXPECT_THAT(import_error(m.save(test::scratch_dir(), "maxunpool_e_idx.onnx")),
              HasSubstr("input I holds 4; indices must lie in [0, 3)"));
}

TEST(MaxUnpool, ReferenceByHand) {
  fs::path p = model("ref", {1, 1, 2, 2}, {{"kernel_shape", ints{2, 2}}, {"strides", ints{2, 2}}});
  TensorData x = TensorData::from<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  TensorData i = TensorData::from<int64_t>({1, 1, 2, 2}, {5, 7, 13, 5});  // 5 twice: the later value stays
  TensorData y = test::reference_run(p, {{"x", x}, {"i", i}})[0].second;
  EXPECT_EQ(y, TensorData::from<float>({1, 1, 4, 4}, {0, 0, 0, 0, 0, 4, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0}));
  // A larger output_shape: the indices still address the 4x4 block, which
  // sits at the start of each axis.
  const ints five = {1, 1, 5, 5};
  fs::path p5 = model("ref5", {1, 1, 2, 2}, {{"kernel_shape", ints{2, 2}}, {"strides", ints{2, 2}}}, &five);
  EXPECT_EQ(test::reference_run(p5, {{"x", x}, {"i", i}})[0].second,
            TensorData::from<float>({1, 1, 5, 5}, {0, 0, 0, 0, 0, 0, 4, 0, 2, 0, 0, 0, 0, 0, 0,
                                                   0, 3, 0, 0, 0, 0, 0, 0, 0, 0}));
}

// MaxPool's Indices feed MaxUnpool, as in an encoder-decoder.
TEST(MaxUnpool, GeneratedCMatchesReferenceAfterMaxPool) {
  OnnxBuilder m;
  m.input("x", DType::Float32, {2, 3, 7, 6});
  const std::vector<Attr> pool = {{"kernel_shape", ints{3, 2}}, {"strides", ints{2, 2}}, {"pads", ints{1, 0, 1, 0}}};
  m.node("MaxPool", {"x"}, {"p", "idx"}, pool);
  m.initializer("s", TensorData::from<int64_t>({4}, {2, 3, 7, 6}));
  m.node("MaxUnpool", {"p", "idx", "s"}, {"y"}, pool);
  m.node("MaxUnpool", {"p", "idx"}, {"y2"}, {{"kernel_shape", ints{3, 2}}, {"strides", ints{2, 2}}});
  m.output("y");
  m.output("y2");
  test::expect_matches_reference(m.save(test::scratch_dir(), "maxunpool_pool.onnx"),
                                 {{"x", random_tensor(DType::Float32, {2, 3, 7, 6}, 1)}}, 0.0, 0.0);
}

TEST(MaxUnpool, GeneratedCMatchesReferenceIndicesAtRunTime) {
  // Scatter shape [1, 2, 3, 3, 3] (54 positions) inside a larger output.
  const ints shape = {1, 2, 3, 5, 4};
  fs::path p = model("c_3d", {1, 2, 2, 2, 2}, {{"kernel_shape", ints{2, 2, 2}}}, &shape, false, DType::Float64);
  io::NamedTensors in = {{"x", random_tensor(DType::Float64, {1, 2, 2, 2, 2}, 2)},
                         {"i", random_tensor(DType::Int64, {1, 2, 2, 2, 2}, 3, 0, 53)}};
  test::expect_matches_reference(p, in, 0.0, 0.0);
  // An index outside the scatter shape stops the run.
  in[1].second.data<int64_t>()[3] = 54;
  EXPECT_THROW(test::compile_and_run(p, in), Error);
}

}  // namespace
}  // namespace mlipc::unit_ops_maxunpool
