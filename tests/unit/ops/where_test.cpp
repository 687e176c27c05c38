#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_where {
namespace {

using test::OnnxBuilder;
using ::testing::HasSubstr;

std::filesystem::path model(const Shape& c, DType dt, const Shape& a, const Shape& b_, const std::string& file,
                            DType ct = DType::Bool) {
  OnnxBuilder b;
  b.input("c", ct, c).input("a", dt, a).input("b", dt, b_);
  b.node("Where", {"c", "a", "b"}, {"y"}).output("y");
  return b.save(test::scratch_dir(), file);
}

using test::import_error;

TensorData bools(const Shape& s, uint32_t seed) { return test::random_tensor(DType::UInt8, s, seed, 0, 1).cast(DType::Bool); }

TEST(Where, Reference) {
  const auto m = model({2, 2}, DType::Int64, {2, 2}, {2}, "where_ref.onnx");
  const TensorData y = test::reference_run(m, {{"c", TensorData::from<uint8_t>({2, 2}, {1, 0, 0, 1}).cast(DType::Bool)},
                                               {"a", TensorData::from<int64_t>({2, 2}, {1, 2, 3, 4})},
                                               {"b", TensorData::from<int64_t>({2}, {9, 8})}})[0].second;
  EXPECT_EQ(y, TensorData::from<int64_t>({2, 2}, {1, 8, 9, 4}));
}

TEST(Where, Errors) {
  EXPECT_THAT(import_error(model({2}, DType::Float32, {2}, {2}, "where_e1.onnx", DType::Float32)),
              HasSubstr("input #0 ('c') has element type float32; supported: bool"));
  EXPECT_THAT(import_error(model({2}, DType::Float32, {3}, {2}, "where_e2.onnx")), HasSubstr("cannot be broadcast"));
  OnnxBuilder b;
  b.input("c", DType::Bool, {2}).input("a", DType::Float32, {2}).input("b", DType::Int32, {2});
  b.node("Where", {"c", "a", "b"}, {"y"}).output("y");
  EXPECT_THAT(import_error(b.save(test::scratch_dir(), "where_e3.onnx")),
              HasSubstr("x has element type float32 but y has int32"));
}

TEST(Where, GeneratedCMatchesReference) {
  struct Case {
    Shape c;
    DType dt;
    Shape a, b;
  };
  const std::vector<Case> cases = {{{3, 4}, DType::Float32, {3, 4}, {3, 4}},
                                   {{4}, DType::Float32, {3, 1}, {1}},        // all three broadcast
                                   {{2, 1, 5}, DType::Int64, {3, 1}, {2, 3, 5}},
                                   {{1}, DType::UInt8, {7}, {7}},
                                   {{2, 3}, DType::Bool, {2, 3}, {3}},
                                   {{0, 3}, DType::Float32, {3}, {1}}};        // empty
  OnnxBuilder m;  // all cases in one model
  io::NamedTensors in;
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    const std::string p = std::to_string(k);
    m.input("c" + p, DType::Bool, c.c).input("a" + p, c.dt, c.a).input("b" + p, c.dt, c.b);
    m.node("Where", {"c" + p, "a" + p, "b" + p}, {"y" + p}).output("y" + p);
    auto data = [&](const Shape& s, uint32_t seed) {
      return c.dt == DType::Bool ? bools(s, seed) : test::random_tensor(c.dt, s, seed, 0, 100);
    };
    in.emplace_back("c" + p, bools(c.c, k));
    in.emplace_back("a" + p, data(c.a, 10 + k));
    in.emplace_back("b" + p, data(c.b, 20 + k));
  }
  test::expect_matches_reference(m.save(test::scratch_dir(), "where_c.onnx"), in, 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_where
