// MaxPool: shape rule, reference kernel (values and Indices), and the
// generated C against the reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testlib/op_model.h"

namespace mlipc::unit_ops_maxpool {
namespace {

using ::testing::HasSubstr;
using test::infer;
using test::infer_error;
using test::ints;
using test::OpModel;
using test::random_tensor;
using Attr = std::pair<std::string, AttrValue>;

OpModel maxpool(DType dtype, const Shape& x, const std::vector<Attr>& attrs, bool indices = false) {
  OpModel m("MaxPool");
  m.input("x", dtype, x);
  for (const auto& [k, v] : attrs) m.attr(k, v);
  if (indices) m.outputs({"y", "i"});
  return m;
}

TEST(MaxPool, ShapeRule) {
  test::Inferred r = infer(maxpool(DType::Float32, {1, 3, 4, 4},
                                   {{"kernel_shape", ints{3, 3}}, {"strides", ints{2, 2}}, {"ceil_mode", int64_t{1}}},
                                   true));
  EXPECT_EQ(r.shapes[0], (Shape{1, 3, 2, 2}));
  EXPECT_EQ(r.shapes[1], (Shape{1, 3, 2, 2}));
  EXPECT_EQ(r.dtypes[1], DType::Int64);
  test::Inferred s = infer(maxpool(DType::UInt8, {1, 1, 5, 5, 5},
                                   {{"kernel_shape", ints{2, 3, 3}},
                                    {"strides", ints{2, 2, 1}},
                                    {"auto_pad", std::string("SAME_LOWER")}}));
  EXPECT_EQ(s.shapes[0], (Shape{1, 1, 3, 3, 5}));
  EXPECT_EQ(s.dtypes[0], DType::UInt8);
  EXPECT_EQ(s.attrs.get_ints("pads"), (ints{1, 1, 1, 0, 1, 1}));
}

TEST(MaxPool, ShapeRuleErrors) {
  EXPECT_THAT(infer_error(maxpool(DType::Float32, {1, 1, 4, 4}, {})), HasSubstr("kernel_shape is required"));
  EXPECT_THAT(infer_error(maxpool(DType::Float32, {1, 1, 2, 2, 2, 2}, {{"kernel_shape", ints{1, 1, 1, 1}}})),
              HasSubstr("1-D to 3-D"));
  EXPECT_THAT(infer_error(maxpool(DType::Int32, {1, 1, 4}, {{"kernel_shape", ints{2}}})),
              HasSubstr("element type int32"));
  EXPECT_THAT(infer_error(maxpool(DType::Float32, {1, 1, 4}, {{"kernel_shape", ints{2}}, {"storage_order", int64_t{2}}})),
              HasSubstr("storage_order is 2"));
}

TEST(MaxPool, ReferenceWithIndices) {
  // test_maxpool_with_argmax_2d_precomputed_strides: storage_order 1 numbers
  // the spatial axes column-major.
  TensorData x(DType::Float32, {1, 1, 5, 5});
  for (int i = 0; i < 25; ++i) x.data<float>()[i] = static_cast<float>(i + 1);
  io::NamedTensors out = test::reference(
      maxpool(DType::Float32, {1, 1, 5, 5},
              {{"kernel_shape", ints{2, 2}}, {"strides", ints{2, 2}}, {"storage_order", int64_t{1}}}, true),
      {{"x", x}});
  EXPECT_EQ(out[0].second, TensorData::from<float>({1, 1, 2, 2}, {7, 9, 17, 19}));
  EXPECT_EQ(out[1].second, TensorData::from<int64_t>({1, 1, 2, 2}, {6, 16, 8, 18}));

  // Row-major indices count the [n, c] planes before the window's plane;
  // padding taps are skipped.
  TensorData x2 = TensorData::from<float>({1, 2, 1, 3}, {5, 1, 2, 0, 7, 7});
  io::NamedTensors out2 = test::reference(
      maxpool(DType::Float32, {1, 2, 1, 3}, {{"kernel_shape", ints{1, 2}}, {"strides", ints{1, 2}}, {"pads", ints{0, 1, 0, 0}}},
              true),
      {{"x", x2}});
  EXPECT_EQ(out2[0].second, TensorData::from<float>({1, 2, 1, 2}, {5, 2, 0, 7}));
  EXPECT_EQ(out2[1].second, TensorData::from<int64_t>({1, 2, 1, 2}, {0, 2, 3, 4}));  // first maximum wins
}

TEST(MaxPool, ReferenceIntegerAndCeil) {
  TensorData x = TensorData::from<int8_t>({1, 1, 5}, {-128, -100, 3, -7, 9});
  OpModel m = maxpool(DType::Int8, {1, 1, 5}, {{"kernel_shape", ints{2}}, {"strides", ints{2}}, {"ceil_mode", int64_t{1}}});
  EXPECT_EQ(test::reference(m, {{"x", x}})[0].second, TensorData::from<int8_t>({1, 1, 3}, {-100, 3, 9}));
}

// Adds a case comparing the generated C with the reference bit for bit.
void add_case(test::OpBatch& b, const std::string& name, DType dtype, const Shape& x, const std::vector<Attr>& attrs,
              bool indices = false) {
  double lo = dtype == DType::UInt8 ? 0 : (dtype == DType::Int8 ? -128 : -1);
  double hi = dtype == DType::UInt8 ? 255 : (dtype == DType::Int8 ? 127 : 1);
  b.add(name, maxpool(dtype, x, attrs, indices), {{"x", random_tensor(dtype, x, 7, lo, hi)}});
}

// Every window form, element type and Indices layout, as one model.
TEST(MaxPool, GeneratedCMatchesReference) {
  test::OpBatch b;
  add_case(b, "2d", DType::Float32, {2, 3, 9, 8},
           {{"kernel_shape", ints{3, 2}}, {"strides", ints{2, 1}}, {"pads", ints{1, 0, 1, 1}}});
  add_case(b, "2d_ceil_dil", DType::Float32, {1, 2, 10, 9},
           {{"kernel_shape", ints{2, 3}}, {"strides", ints{3, 2}}, {"dilations", ints{2, 1}},
            {"pads", ints{1, 1, 1, 0}}, {"ceil_mode", int64_t{1}}});
  add_case(b, "1d_same", DType::Float32, {1, 3, 11},
           {{"kernel_shape", ints{4}}, {"strides", ints{3}}, {"auto_pad", std::string("SAME_UPPER")}});
  add_case(b, "3d", DType::Float32, {1, 2, 5, 6, 7},
           {{"kernel_shape", ints{2, 3, 2}}, {"strides", ints{2, 2, 3}}, {"pads", ints{0, 1, 1, 1, 1, 0}}});
  add_case(b, "u8", DType::UInt8, {1, 2, 6, 6}, {{"kernel_shape", ints{3, 3}}, {"pads", ints{1, 1, 1, 1}}});
  add_case(b, "i8", DType::Int8, {1, 2, 7}, {{"kernel_shape", ints{3}}, {"strides", ints{2}}, {"ceil_mode", int64_t{1}}});
  add_case(b, "f64", DType::Float64, {1, 1, 4, 4}, {{"kernel_shape", ints{2, 2}}});
  add_case(b, "idx_rm", DType::Float32, {2, 2, 5, 6},
           {{"kernel_shape", ints{2, 3}}, {"strides", ints{2, 2}}, {"pads", ints{1, 1, 0, 1}}}, true);
  add_case(b, "idx_cm", DType::Float32, {1, 2, 3, 5, 4},
           {{"kernel_shape", ints{2, 2, 2}}, {"storage_order", int64_t{1}}, {"ceil_mode", int64_t{1}},
            {"strides", ints{2, 2, 2}}},
           true);
  b.expect_matches_reference();
}

}  // namespace
}  // namespace mlipc::unit_ops_maxpool
