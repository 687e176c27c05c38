// AveragePool: shape rule, reference kernel (count_include_pad, ceil_mode),
// and the generated C against the reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testlib/op_model.h"

namespace mlipc::unit_ops_averagepool {
namespace {

using ::testing::HasSubstr;
using test::infer;
using test::infer_error;
using test::ints;
using test::OpModel;
using test::random_tensor;
using Attr = std::pair<std::string, AttrValue>;

OpModel avgpool(const Shape& x, const std::vector<Attr>& attrs, DType dtype = DType::Float32) {
  OpModel m("AveragePool");
  m.input("x", dtype, x);
  for (const auto& [k, v] : attrs) m.attr(k, v);
  return m;
}

TEST(AveragePool, ShapeRule) {
  test::Inferred g =
      infer(avgpool({2, 3, 7, 6}, {{"kernel_shape", ints{3, 2}}, {"strides", ints{2, 2}}, {"auto_pad", std::string("SAME_UPPER")}}));
  EXPECT_EQ(g.shapes[0], (Shape{2, 3, 4, 3}));
  EXPECT_EQ(g.attrs.get_ints("pads"), (ints{1, 0, 1, 0}));
  EXPECT_EQ(infer(avgpool({1, 1, 4}, {{"kernel_shape", ints{3}}, {"strides", ints{2}}, {"ceil_mode", int64_t{1}}})).shapes[0],
            (Shape{1, 1, 2}));
}

TEST(AveragePool, ShapeRuleErrors) {
  EXPECT_THAT(infer_error(avgpool({1, 1, 4}, {{"kernel_shape", ints{2}}}, DType::UInt8)), HasSubstr("element type uint8"));
  EXPECT_THAT(infer_error(avgpool({1, 1, 4}, {{"kernel_shape", ints{2}}, {"count_include_pad", int64_t{3}}})),
              HasSubstr("count_include_pad is 3"));
  EXPECT_THAT(infer_error(avgpool({1, 1, 4, 4}, {{"kernel_shape", ints{2}}})),
              HasSubstr("kernel_shape has 1 values; the input has 2 spatial axes"));
}

TEST(AveragePool, ReferenceCountIncludePad) {
  // 1-D [1, 2, 3, 4], kernel 3, pads 1: edges see 2 real taps and 1 pad.
  TensorData x = TensorData::from<float>({1, 1, 4}, {1, 2, 3, 4});
  OpModel ex = avgpool({1, 1, 4}, {{"kernel_shape", ints{3}}, {"pads", ints{1, 1}}});
  EXPECT_EQ(test::reference(ex, {{"x", x}})[0].second, TensorData::from<float>({1, 1, 4}, {1.5f, 2, 3, 3.5f}));
  OpModel in = avgpool({1, 1, 4}, {{"kernel_shape", ints{3}}, {"pads", ints{1, 1}}, {"count_include_pad", int64_t{1}}});
  EXPECT_EQ(test::reference(in, {{"x", x}})[0].second, TensorData::from<float>({1, 1, 4}, {1, 2, 3, 7.0f / 3}));
}

TEST(AveragePool, ReferenceCeilModeWindowBeyondPaddingCountsNothing) {
  // 5 cells, kernel 2, stride 2, ceil: the last window [4, 5] overhangs the
  // input; with count_include_pad and no right padding only cell 4 counts.
  TensorData x = TensorData::from<float>({1, 1, 5}, {1, 2, 3, 4, 5});
  OpModel p = avgpool({1, 1, 5}, {{"kernel_shape", ints{2}}, {"strides", ints{2}}, {"ceil_mode", int64_t{1}},
                                  {"count_include_pad", int64_t{1}}});
  EXPECT_EQ(test::reference(p, {{"x", x}})[0].second, TensorData::from<float>({1, 1, 3}, {1.5f, 3.5f, 5}));
  // With a right pad of 1 the pad cell counts: (5 + 0) / 2.
  OpModel q = avgpool({1, 1, 5}, {{"kernel_shape", ints{2}}, {"strides", ints{2}}, {"ceil_mode", int64_t{1}},
                                  {"pads", ints{0, 1}}, {"count_include_pad", int64_t{1}}});
  EXPECT_EQ(test::reference(q, {{"x", x}})[0].second, TensorData::from<float>({1, 1, 3}, {1.5f, 3.5f, 2.5f}));
}

// Every window form as one model, within the default float tolerance (the
// kernel divides as the reference does, so in practice bit for bit).
TEST(AveragePool, GeneratedCMatchesReference) {
  test::OpBatch b;
  auto add = [&](const std::string& name, const Shape& x, const std::vector<Attr>& attrs) {
    b.add(name, avgpool(x, attrs), {{"x", random_tensor(DType::Float32, x, 5)}}, 1e-5, 1e-6);
  };
  add("2d", {2, 3, 9, 8}, {{"kernel_shape", ints{3, 2}}, {"strides", ints{2, 1}}, {"pads", ints{1, 0, 1, 1}}});
  add("2d_cip_ceil", {1, 2, 10, 9},
      {{"kernel_shape", ints{3, 3}}, {"strides", ints{2, 2}}, {"pads", ints{1, 1, 1, 0}}, {"ceil_mode", int64_t{1}},
       {"count_include_pad", int64_t{1}}});
  add("1d_same_lower", {1, 3, 11}, {{"kernel_shape", ints{4}}, {"strides", ints{3}}, {"auto_pad", std::string("SAME_LOWER")}});
  add("3d", {1, 2, 5, 6, 7},
      {{"kernel_shape", ints{2, 3, 2}}, {"strides", ints{2, 2, 3}}, {"pads", ints{0, 1, 1, 1, 1, 0}},
       {"count_include_pad", int64_t{1}}});
  b.expect_matches_reference();
}

}  // namespace
}  // namespace mlipc::unit_ops_averagepool
