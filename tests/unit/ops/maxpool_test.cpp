// MaxPool: shape rule, reference kernel (values and Indices), and the
// generated C against the reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_maxpool {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test::ints;
using test::OnnxBuilder;
using test::random_tensor;
using Attr = std::pair<std::string, AttrValue>;

fs::path maxpool_model(const std::string& name, DType dtype, const Shape& x, const std::vector<Attr>& attrs,
                       bool indices = false) {
  OnnxBuilder m;
  m.input("x", dtype, x);
  m.node("MaxPool", {"x"}, indices ? std::vector<std::string>{"y", "i"} : std::vector<std::string>{"y"}, attrs);
  m.output("y");
  if (indices) m.output("i");
  return m.save(test::scratch_dir(), "maxpool_" + name + ".onnx");
}

using test::import_error;

TEST(MaxPool, ShapeRule) {
  Graph g = frontend::import_onnx(maxpool_model(
      "shape", DType::Float32, {1, 3, 4, 4}, {{"kernel_shape", ints{3, 3}}, {"strides", ints{2, 2}}, {"ceil_mode", int64_t{1}}},
      true));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{1, 3, 2, 2}));
  EXPECT_EQ(g.value(g.outputs[1].value).shape, (Shape{1, 3, 2, 2}));
  EXPECT_EQ(g.value(g.outputs[1].value).dtype, DType::Int64);
  Graph s = frontend::import_onnx(maxpool_model("shape_same", DType::UInt8, {1, 1, 5, 5, 5},
                                                {{"kernel_shape", ints{2, 3, 3}},
                                                 {"strides", ints{2, 2, 1}},
                                                 {"auto_pad", std::string("SAME_LOWER")}}));
  EXPECT_EQ(s.value(s.outputs[0].value).shape, (Shape{1, 1, 3, 3, 5}));
  EXPECT_EQ(s.value(s.outputs[0].value).dtype, DType::UInt8);
  EXPECT_EQ(s.nodes[0].attrs.get_ints("pads"), (ints{1, 1, 1, 0, 1, 1}));
}

TEST(MaxPool, ShapeRuleErrors) {
  EXPECT_THAT(import_error(maxpool_model("err_ks", DType::Float32, {1, 1, 4, 4}, {})),
              HasSubstr("kernel_shape is required"));
  EXPECT_THAT(import_error(maxpool_model("err_rank", DType::Float32, {1, 1, 2, 2, 2, 2}, {{"kernel_shape", ints{1, 1, 1, 1}}})),
              HasSubstr("1-D to 3-D"));
  EXPECT_THAT(import_error(maxpool_model("err_type", DType::Int32, {1, 1, 4}, {{"kernel_shape", ints{2}}})),
              HasSubstr("element type int32"));
  EXPECT_THAT(import_error(maxpool_model("err_order", DType::Float32, {1, 1, 4}, {{"kernel_shape", ints{2}}, {"storage_order", int64_t{2}}})),
              HasSubstr("storage_order is 2"));
}

TEST(MaxPool, ReferenceWithIndices) {
  // test_maxpool_with_argmax_2d_precomputed_strides: storage_order 1 numbers
  // the spatial axes column-major.
  TensorData x(DType::Float32, {1, 1, 5, 5});
  for (int i = 0; i < 25; ++i) x.data<float>()[i] = static_cast<float>(i + 1);
  fs::path p = maxpool_model("ref_cm", DType::Float32, {1, 1, 5, 5},
                             {{"kernel_shape", ints{2, 2}}, {"strides", ints{2, 2}}, {"storage_order", int64_t{1}}},
                             true);
  io::NamedTensors out = test::reference_run(p, {{"x", x}});
  EXPECT_EQ(out[0].second, TensorData::from<float>({1, 1, 2, 2}, {7, 9, 17, 19}));
  EXPECT_EQ(out[1].second, TensorData::from<int64_t>({1, 1, 2, 2}, {6, 16, 8, 18}));

  // Row-major indices count the [n, c] planes before the window's plane;
  // padding taps are skipped.
  TensorData x2 = TensorData::from<float>({1, 2, 1, 3}, {5, 1, 2, 0, 7, 7});
  fs::path p2 = maxpool_model("ref_rm", DType::Float32, {1, 2, 1, 3},
                              {{"kernel_shape", ints{1, 2}}, {"strides", ints{1, 2}}, {"pads", ints{0, 1, 0, 0}}}, true);
  io::NamedTensors out2 = test::reference_run(p2, {{"x", x2}});
  EXPECT_EQ(out2[0].second, TensorData::from<float>({1, 2, 1, 2}, {5, 2, 0, 7}));
  EXPECT_EQ(out2[1].second, TensorData::from<int64_t>({1, 2, 1, 2}, {0, 2, 3, 4}));  // first maximum wins
}

TEST(MaxPool, ReferenceIntegerAndCeil) {
  TensorData x = TensorData::from<int8_t>({1, 1, 5}, {-128, -100, 3, -7, 9});
  fs::path p = maxpool_model("ref_i8", DType::Int8, {1, 1, 5}, {{"kernel_shape", ints{2}}, {"strides", ints{2}}, {"ceil_mode", int64_t{1}}});
  EXPECT_EQ(test::reference_run(p, {{"x", x}})[0].second, TensorData::from<int8_t>({1, 1, 3}, {-100, 3, 9}));
}

void expect_c_matches(const std::string& name, DType dtype, const Shape& x, const std::vector<Attr>& attrs,
                      bool indices = false) {
  SCOPED_TRACE(name);
  double lo = dtype == DType::UInt8 ? 0 : (dtype == DType::Int8 ? -128 : -1);
  double hi = dtype == DType::UInt8 ? 255 : (dtype == DType::Int8 ? 127 : 1);
  test::expect_matches_reference(maxpool_model("c_" + name, dtype, x, attrs, indices),
                                 {{"x", random_tensor(dtype, x, 7, lo, hi)}}, 0.0, 0.0);
}

TEST(MaxPool, GeneratedCMatchesReference) {
  expect_c_matches("2d", DType::Float32, {2, 3, 9, 8},
                   {{"kernel_shape", ints{3, 2}}, {"strides", ints{2, 1}}, {"pads", ints{1, 0, 1, 1}}});
  expect_c_matches("2d_ceil_dil", DType::Float32, {1, 2, 10, 9},
                   {{"kernel_shape", ints{2, 3}}, {"strides", ints{3, 2}}, {"dilations", ints{2, 1}},
                    {"pads", ints{1, 1, 1, 0}}, {"ceil_mode", int64_t{1}}});
  expect_c_matches("1d_same", DType::Float32, {1, 3, 11},
                   {{"kernel_shape", ints{4}}, {"strides", ints{3}}, {"auto_pad", std::string("SAME_UPPER")}});
  expect_c_matches("3d", DType::Float32, {1, 2, 5, 6, 7},
                   {{"kernel_shape", ints{2, 3, 2}}, {"strides", ints{2, 2, 3}}, {"pads", ints{0, 1, 1, 1, 1, 0}}});
}

TEST(MaxPool, GeneratedCMatchesReferenceIntegers) {
  expect_c_matches("u8", DType::UInt8, {1, 2, 6, 6}, {{"kernel_shape", ints{3, 3}}, {"pads", ints{1, 1, 1, 1}}});
  expect_c_matches("i8", DType::Int8, {1, 2, 7}, {{"kernel_shape", ints{3}}, {"strides", ints{2}}, {"ceil_mode", int64_t{1}}});
  expect_c_matches("f64", DType::Float64, {1, 1, 4, 4}, {{"kernel_shape", ints{2, 2}}});
}

TEST(MaxPool, GeneratedCMatchesReferenceIndices) {
  expect_c_matches("idx_rm", DType::Float32, {2, 2, 5, 6},
                   {{"kernel_shape", ints{2, 3}}, {"strides", ints{2, 2}}, {"pads", ints{1, 1, 0, 1}}}, true);
  expect_c_matches("idx_cm", DType::Float32, {1, 2, 3, 5, 4},
                   {{"kernel_shape", ints{2, 2, 2}}, {"storage_order", int64_t{1}}, {"ceil_mode", int64_t{1}},
                    {"strides", ints{2, 2, 2}}}, true);
}

}  // namespace
}  // namespace mlipc::unit_ops_maxpool
