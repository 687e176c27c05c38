#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_eye_like {
namespace {

using test::import_error;
using test::OnnxBuilder;
using ::testing::HasSubstr;

std::filesystem::path model(DType in, const Shape& shape, std::vector<std::pair<std::string, AttrValue>> attrs,
                            const std::string& file) {
  OnnxBuilder b(9);
  b.input("x", in, shape).node("EyeLike", {"x"}, {"y"}, attrs).output("y");
  return b.save(test::scratch_dir(), file);
}

TEST(EyeLike, Reference) {
  auto run = [](DType in, const Shape& s, std::vector<std::pair<std::string, AttrValue>> attrs, const std::string& f) {
    return test::reference_run(model(in, s, attrs, f), {{"x", test::random_tensor(in, s, 1, 0, 9)}})[0].second;
  };
  EXPECT_EQ(run(DType::Int32, {3, 4}, {}, "eye1.onnx"),
            TensorData::from<int32_t>({3, 4}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}));
  EXPECT_EQ(run(DType::Int32, {3, 4}, {{"dtype", int64_t{1}}, {"k", int64_t{1}}}, "eye2.onnx"),
            TensorData::from<float>({3, 4}, {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}));
  EXPECT_EQ(run(DType::Float32, {3, 2}, {{"dtype", int64_t{9}}, {"k", int64_t{-1}}}, "eye3.onnx"),
            TensorData::from<uint8_t>({3, 2}, {0, 0, 1, 0, 0, 1}).cast(DType::Bool));
  // k beyond the matrix: all zeros.
  EXPECT_EQ(run(DType::Int64, {2, 2}, {{"k", int64_t{5}}}, "eye4.onnx"), TensorData::from<int64_t>({2, 2}, {0, 0, 0, 0}));
  // float16: the bits of 1.0.
  EXPECT_EQ(run(DType::Float32, {2, 2}, {{"dtype", int64_t{10}}}, "eye5.onnx"),
            TensorData(DType::Float16, {2, 2}, {0x00, 0x3c, 0, 0, 0, 0, 0x00, 0x3c}));
}

TEST(EyeLike, Errors) {
  EXPECT_THAT(import_error(model(DType::Float32, {2, 2, 2}, {}, "eye_e1.onnx")), HasSubstr("must be 2-D"));
  EXPECT_THAT(import_error(model(DType::Float32, {2, 2}, {{"dtype", int64_t{8}}}, "eye_e2.onnx")),
              HasSubstr("'dtype' = 8 is the string type"));
  EXPECT_THAT(import_error(model(DType::Float32, {2, 2}, {{"dtype", int64_t{99}}}, "eye_e3.onnx")),
              HasSubstr("'dtype' = 99 is not an element type"));
}

TEST(EyeLike, GeneratedCMatchesReference) {
  OnnxBuilder b(9);  // every output type family, k on, above and below the diagonal, off the matrix: one model
  b.input("x", DType::Int32, {5, 7});
  b.input("z", DType::Float32, {4, 3});
  struct Case { const char* in; int64_t dtype; int64_t k; };
  const Case cases[] = {{"x", -1, 0}, {"x", 1, 2}, {"x", 11, -3}, {"z", 7, 1}, {"z", 9, 0}, {"z", 2, -1},
                        {"z", 10, 0}, {"x", 16, 1}, {"x", 3, 9},  {"z", 1, -4}, {"x", 6, int64_t{1} << 40}};
  int n = 0;
  for (const Case& c : cases) {
    std::vector<std::pair<std::string, AttrValue>> attrs = {{"k", c.k}};
    if (c.dtype >= 0) attrs.push_back({"dtype", c.dtype});
    const std::string y = "y" + std::to_string(n++);
    b.node("EyeLike", {c.in}, {y}, attrs).output(y);
  }
  test::expect_matches_reference(b.save(test::scratch_dir(), "eye_c.onnx"),
                                 {{"x", test::random_tensor(DType::Int32, {5, 7}, 2, -5, 5)},
                                  {"z", test::random_tensor(DType::Float32, {4, 3}, 3)}},
                                 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_eye_like
