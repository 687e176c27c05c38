// AveragePool: shape rule, reference kernel (count_include_pad, ceil_mode),
// and the generated C against the reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_averagepool {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using Attr = std::pair<std::string, AttrValue>;

fs::path avgpool_model(const std::string& name, const Shape& x, const std::vector<Attr>& attrs,
                       DType dtype = DType::Float32) {
  OnnxBuilder m;
  m.input("x", dtype, x);
  m.node("AveragePool", {"x"}, {"y"}, attrs);
  m.output("y");
  return m.save(test::scratch_dir(), "avgpool_" + name + ".onnx");
}

using test::import_error;

TEST(AveragePool, ShapeRule) {
  Graph g = frontend::import_onnx(avgpool_model(
      "shape", {2, 3, 7, 6}, {{"kernel_shape", ints{3, 2}}, {"strides", ints{2, 2}}, {"auto_pad", std::string("SAME_UPPER")}}));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 3, 4, 3}));
  EXPECT_EQ(g.nodes[0].attrs.get_ints("pads"), (ints{1, 0, 1, 0}));
  Graph c = frontend::import_onnx(
      avgpool_model("shape_ceil", {1, 1, 4}, {{"kernel_shape", ints{3}}, {"strides", ints{2}}, {"ceil_mode", int64_t{1}}}));
  EXPECT_EQ(c.value(c.outputs[0].value).shape, (Shape{1, 1, 2}));
}

TEST(AveragePool, ShapeRuleErrors) {
  EXPECT_THAT(import_error(avgpool_model("err_type", {1, 1, 4}, {{"kernel_shape", ints{2}}}, DType::UInt8)),
              HasSubstr("element type uint8"));
  EXPECT_THAT(import_error(avgpool_model("err_cip", {1, 1, 4}, {{"kernel_shape", ints{2}}, {"count_include_pad", int64_t{3}}})),
              HasSubstr("count_include_pad is 3"));
  EXPECT_THAT(import_error(avgpool_model("err_len", {1, 1, 4, 4}, {{"kernel_shape", ints{2}}})),
              HasSubstr("kernel_shape has 1 values; the input has 2 spatial axes"));
}

TEST(AveragePool, ReferenceCountIncludePad) {
  // 1-D [1, 2, 3, 4], kernel 3, pads 1: edges see 2 real taps and 1 pad.
  TensorData x = TensorData::from<float>({1, 1, 4}, {1, 2, 3, 4});
  fs::path ex = avgpool_model("ref_ex", {1, 1, 4}, {{"kernel_shape", ints{3}}, {"pads", ints{1, 1}}});
  EXPECT_EQ(test::reference_run(ex, {{"x", x}})[0].second, TensorData::from<float>({1, 1, 4}, {1.5f, 2, 3, 3.5f}));
  fs::path in = avgpool_model("ref_in", {1, 1, 4},
                              {{"kernel_shape", ints{3}}, {"pads", ints{1, 1}}, {"count_include_pad", int64_t{1}}});
  EXPECT_EQ(test::reference_run(in, {{"x", x}})[0].second, TensorData::from<float>({1, 1, 4}, {1, 2, 3, 7.0f / 3}));
}

TEST(AveragePool, ReferenceCeilModeWindowBeyondPaddingCountsNothing) {
  // 5 cells, kernel 2, stride 2, ceil: the last window [4, 5] overhangs the
  // input; with count_include_pad and no right padding only cell 4 counts.
  TensorData x = TensorData::from<float>({1, 1, 5}, {1, 2, 3, 4, 5});
  fs::path p = avgpool_model("ref_ceil", {1, 1, 5},
                             {{"kernel_shape", ints{2}}, {"strides", ints{2}}, {"ceil_mode", int64_t{1}},
                              {"count_include_pad", int64_t{1}}});
  EXPECT_EQ(test::reference_run(p, {{"x", x}})[0].second, TensorData::from<float>({1, 1, 3}, {1.5f, 3.5f, 5}));
  // With a right pad of 1 the pad cell counts: (5 + 0) / 2.
  fs::path q = avgpool_model("ref_ceil_pad", {1, 1, 5},
                             {{"kernel_shape", ints{2}}, {"strides", ints{2}}, {"ceil_mode", int64_t{1}},
                              {"pads", ints{0, 1}}, {"count_include_pad", int64_t{1}}});
  EXPECT_EQ(test::reference_run(q, {{"x", x}})[0].second, TensorData::from<float>({1, 1, 3}, {1.5f, 3.5f, 2.5f}));
}

void expect_c_matches(const std::string& name, const Shape& x, const std::vector<Attr>& attrs) {
  SCOPED_TRACE(name);
  test::expect_matches_reference(avgpool_model("c_" + name, x, attrs), {{"x", random_tensor(DType::Float32, x, 5)}});
}

TEST(AveragePool, GeneratedCMatchesReference) {
  expect_c_matches("2d", {2, 3, 9, 8}, {{"kernel_shape", ints{3, 2}}, {"strides", ints{2, 1}}, {"pads", ints{1, 0, 1, 1}}});
  expect_c_matches("2d_cip_ceil", {1, 2, 10, 9},
                   {{"kernel_shape", ints{3, 3}}, {"strides", ints{2, 2}}, {"pads", ints{1, 1, 1, 0}},
                    {"ceil_mode", int64_t{1}}, {"count_include_pad", int64_t{1}}});
  expect_c_matches("1d_same_lower", {1, 3, 11},
                   {{"kernel_shape", ints{4}}, {"strides", ints{3}}, {"auto_pad", std::string("SAME_LOWER")}});
  expect_c_matches("3d", {1, 2, 5, 6, 7},
                   {{"kernel_shape", ints{2, 3, 2}}, {"strides", ints{2, 2, 3}}, {"pads", ints{0, 1, 1, 1, 1, 0}},
                    {"count_include_pad", int64_t{1}}});
}

}  // namespace
}  // namespace mlipc::unit_ops_averagepool
