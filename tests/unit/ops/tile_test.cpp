#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_tile {
namespace {

using test::ints;
using test::OnnxBuilder;
using ::testing::HasSubstr;

std::filesystem::path model(DType dt, const Shape& in, const ints& reps, const std::string& file) {
  OnnxBuilder b;
  b.input("x", dt, in);
  b.initializer("r", TensorData::from<int64_t>({static_cast<int64_t>(reps.size())}, reps));
  b.node("Tile", {"x", "r"}, {"y"}).output("y");
  return b.save(test::scratch_dir(), file);
}

using test::import_error;

TEST(Tile, Reference) {
  const TensorData y = test::reference_run(model(DType::Int32, {2, 2}, {2, 3}, "tile_ref.onnx"),
                                           {{"x", TensorData::from<int32_t>({2, 2}, {1, 2, 3, 4})}})[0].second;
  EXPECT_EQ(y, TensorData::from<int32_t>({4, 6}, {1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,
                                                  1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}));
}

TEST(Tile, Errors) {
  EXPECT_THAT(import_error(model(DType::Float32, {2, 2}, {2}, "tile_e1.onnx")),
              HasSubstr("repeats has 1 entries but the input [2,2] has rank 2"));
  EXPECT_THAT(import_error(model(DType::Float32, {2}, {-1}, "tile_e2.onnx")), HasSubstr("has a negative entry"));
  // Too large to index (and to fold): refused before anything is allocated.
  EXPECT_THAT(import_error(model(DType::Float32, {2, 3}, {int64_t{1} << 20, int64_t{1} << 40}, "tile_e4.onnx")),
              HasSubstr("make axis 1 of the input [2,3] longer than 2^31 - 1"));
  EXPECT_THAT(import_error(model(DType::Float32, {2, 3}, {int64_t{1} << 20, int64_t{1} << 10}, "tile_e4b.onnx")),
              HasSubstr("output #0 [2097152,3072] would have more than 2^31 - 1 elements"));
  OnnxBuilder c;
  c.initializer("x", TensorData::from<float>({1}, {1.0f}));
  c.initializer("s", TensorData::from<int64_t>({3}, {4096, 4096, 4096}));
  c.node("Expand", {"x", "s"}, {"y"}).output("y");
  EXPECT_THAT(import_error(c.save(test::scratch_dir(), "tile_e5.onnx")), HasSubstr("would have more than 2^31 - 1 elements"));
  OnnxBuilder b;
  b.input("x", DType::Float32, {3}).input("r", DType::Int64, {1});
  b.node("Tile", {"x", "r"}, {"y"}).output("y");
  EXPECT_THAT(import_error(b.save(test::scratch_dir(), "tile_e3.onnx")),
              HasSubstr("input #1 ('r', repeats) must be a constant known at compile time: the output shape depends"));
}

TEST(Tile, RuntimeRepeatsWithADeclaredOutputShape) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {2, 0, 3}).input("r", DType::Int64, {3});
  b.node("Tile", {"x", "r"}, {"y"}).declare("y", DType::Float32, {4, 0, 3}).output("y");
  const auto m = b.save(test::scratch_dir(), "tile_rt.onnx");
  const TensorData x(DType::Float32, {2, 0, 3});
  test::expect_matches_reference(m, {{"x", x}, {"r", TensorData::from<int64_t>({3}, {2, 7, 1})}}, 0, 0);
  EXPECT_THROW(test::compile_and_run(m, {{"x", x}, {"r", TensorData::from<int64_t>({3}, {2, 1, 2})}}), Error);
  OnnxBuilder c;
  c.input("x", DType::Int64, {2, 3}).input("r", DType::Int64, {2});
  c.node("Tile", {"x", "r"}, {"y"}).declare("y", DType::Int64, {6, 3}).output("y");
  const auto m2 = c.save(test::scratch_dir(), "tile_rt2.onnx");
  test::expect_matches_reference(m2, {{"x", test::random_tensor(DType::Int64, {2, 3}, 3, -9, 9)},
                                      {"r", TensorData::from<int64_t>({2}, {3, 1})}}, 0, 0);
  OnnxBuilder d;  // 7 is not a whole number of copies of 2
  d.input("x", DType::Int64, {2, 3}).input("r", DType::Int64, {2});
  d.node("Tile", {"x", "r"}, {"y"}).declare("y", DType::Int64, {7, 3}).output("y");
  EXPECT_THAT(import_error(d.save(test::scratch_dir(), "tile_rt_bad.onnx")),
              HasSubstr("the model declares the output [7,3], which no repeats give for the input [2,3]"));
}

TEST(Tile, GeneratedCMatchesReference) {
  struct Case {
    DType dt;
    Shape in;
    ints reps;
  };
  const std::vector<Case> cases = {{DType::Float32, {2, 3, 4}, {3, 1, 2}},
                                   {DType::Int64, {1, 5}, {4, 1}},
                                   {DType::UInt8, {3}, {0}},
                                   {DType::Float16, {2, 1, 3}, {1, 5, 1}}};
  OnnxBuilder b;  // all cases in one model
  io::NamedTensors in;
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    const std::string p = std::to_string(k);
    b.input("x" + p, c.dt, c.in);
    b.initializer("r" + p, TensorData::from<int64_t>({static_cast<int64_t>(c.reps.size())}, c.reps));
    b.node("Tile", {"x" + p, "r" + p}, {"y" + p}).output("y" + p);
    in.emplace_back("x" + p, test::random_tensor(c.dt, c.in, k, 0, 100));
  }
  test::expect_matches_reference(b.save(test::scratch_dir(), "tile_c.onnx"), in, 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_tile
