// ScatterElements, Scatter (its deprecated opset 9-10 name) and ScatterND.
#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_scatter {
namespace {

using test::OnnxBuilder;
using ::testing::HasSubstr;

std::filesystem::path model(const std::string& op, DType dt, const Shape& data, DType it, const Shape& idx,
                            const Shape& upd, std::vector<std::pair<std::string, AttrValue>> attrs,
                            const std::string& file, int opset = 17) {
  OnnxBuilder b(opset);
  b.input("x", dt, data).input("i", it, idx).input("u", dt, upd);
  b.node(op, {"x", "i", "u"}, {"y"}, attrs).output("y");
  return b.save(test::scratch_dir(), file);
}

using test::import_error;

TEST(ScatterElements, ReferenceWithDuplicatesAndReductions) {
  const TensorData x = TensorData::from<float>({1, 5}, {1, 2, 3, 4, 5});
  const TensorData i = TensorData::from<int64_t>({1, 2}, {1, 1});
  const TensorData u = TensorData::from<float>({1, 2}, {1.1f, 2.1f});
  auto run = [&](const std::string& reduction) {
    const auto m = model("ScatterElements", DType::Float32, {1, 5}, DType::Int64, {1, 2}, {1, 2},
                         {{"axis", int64_t{1}}, {"reduction", reduction}}, "se_" + reduction + ".onnx");
    return test::reference_run(m, {{"x", x}, {"i", i}, {"u", u}})[0].second;
  };
  EXPECT_EQ(run("none"), TensorData::from<float>({1, 5}, {1, 2.1f, 3, 4, 5}));  // the last one wins
  EXPECT_EQ(run("add"), TensorData::from<float>({1, 5}, {1, 2 + 1.1f + 2.1f, 3, 4, 5}));
  EXPECT_EQ(run("mul"), TensorData::from<float>({1, 5}, {1, 2 * 1.1f * 2.1f, 3, 4, 5}));
  EXPECT_EQ(run("max"), TensorData::from<float>({1, 5}, {1, 2.1f, 3, 4, 5}));
  EXPECT_EQ(run("min"), TensorData::from<float>({1, 5}, {1, 1.1f, 3, 4, 5}));
}

TEST(ScatterElements, Errors) {
  EXPECT_THAT(import_error(model("ScatterElements", DType::Float32, {3}, DType::Int64, {2}, {3}, {}, "se_e1.onnx")),
              HasSubstr("updates [3] must have the shape of indices [2]"));
  EXPECT_THAT(import_error(model("ScatterElements", DType::Float32, {3}, DType::Int64, {2}, {2},
                                 {{"reduction", std::string("sum")}}, "se_e2.onnx")),
              HasSubstr("reduction 'sum' is not supported (supported: none, add, mul, max, min)"));
  EXPECT_THAT(import_error(model("ScatterElements", DType::Bool, {3}, DType::Int64, {2}, {2},
                                 {{"reduction", std::string("add")}}, "se_e3.onnx")),
              HasSubstr("reduction 'add' on bool data is not supported"));
  EXPECT_THAT(import_error(model("ScatterND", DType::Float32, {4, 3}, DType::Int64, {2, 1}, {2, 4}, {}, "snd_e1.onnx")),
              HasSubstr("updates [2,4] must have shape [2,3]"));
}

TEST(ScatterElements, GeneratedCMatchesReference) {
  // Every reduction x element type, in two models (at most 64 inputs and outputs each).
  const Shape data = {4, 5, 3}, idx = {3, 6, 2};  // indices larger on the axis, smaller elsewhere
  int k = 0;
  for (const std::vector<const char*>& reds : {std::vector<const char*>{"none", "add", "mul"}, {"max", "min"}}) {
    OnnxBuilder b;
    io::NamedTensors in;
    for (const char* red : reds)
      for (DType dt : {DType::Float32, DType::Int32, DType::UInt8, DType::Int64}) {
        const std::string p = std::to_string(k);
        b.input("x" + p, dt, data).input("i" + p, DType::Int64, idx).input("u" + p, dt, idx);
        b.node("ScatterElements", {"x" + p, "i" + p, "u" + p}, {"y" + p},
               {{"axis", int64_t{-2}}, {"reduction", std::string(red)}})
            .output("y" + p);
        const double lo = dt == DType::UInt8 ? 0 : -9;
        in.emplace_back("x" + p, test::random_tensor(dt, data, 1 + k, lo, 9));
        in.emplace_back("i" + p, test::random_tensor(DType::Int64, idx, 2 + k, -5, 4));
        in.emplace_back("u" + p, test::random_tensor(dt, idx, 3 + k, lo, 9));
        ++k;
      }
    test::expect_matches_reference(b.save(test::scratch_dir(), "se_c" + std::to_string(k) + ".onnx"), in, 0, 0);
  }
}

TEST(ScatterElements, NaNPropagatesThroughMaxAndMin) {
  for (const char* red : {"max", "min"}) {
    const auto m = model("ScatterElements", DType::Float32, {4}, DType::Int32, {3}, {3},
                         {{"reduction", std::string(red)}}, std::string("se_nan_") + red + ".onnx");
    const io::NamedTensors in = {{"x", TensorData::from<float>({4}, {1, std::nanf(""), 3, 4})},
                                 {"i", TensorData::from<int32_t>({3}, {0, 1, 2})},
                                 {"u", TensorData::from<float>({3}, {std::nanf(""), 5, 2})}};
    test::expect_matches_reference(m, in, 0, 0);
    const TensorData y = test::reference_run(m, in)[0].second;
    EXPECT_TRUE(std::isnan(y.data<float>()[0]) && std::isnan(y.data<float>()[1]));
  }
}

TEST(Scatter, Opset9NameRunsAsScatterElements) {
  const auto m = model("Scatter", DType::Float32, {3, 3}, DType::Int64, {2, 3}, {2, 3}, {{"axis", int64_t{0}}}, "sc9.onnx", 9);
  test::expect_matches_reference(m, {{"x", test::random_tensor(DType::Float32, {3, 3}, 1)},
                                     {"i", TensorData::from<int64_t>({2, 3}, {1, 0, 2, 0, 2, 1})},
                                     {"u", test::random_tensor(DType::Float32, {2, 3}, 2)}},
                                 0, 0);
}

TEST(ScatterND, ReferenceOnTheSpecExample) {
  const auto m = model("ScatterND", DType::Float32, {8}, DType::Int64, {4, 1}, {4}, {}, "snd_ex.onnx");
  const TensorData y = test::reference_run(m, {{"x", TensorData::from<float>({8}, {1, 2, 3, 4, 5, 6, 7, 8})},
                                               {"i", TensorData::from<int64_t>({4, 1}, {4, 3, 1, 7})},
                                               {"u", TensorData::from<float>({4}, {9, 10, 11, 12})}})[0].second;
  EXPECT_EQ(y, TensorData::from<float>({8}, {1, 11, 3, 10, 9, 6, 7, 12}));
}

TEST(ScatterND, GeneratedCMatchesReference) {
  OnnxBuilder b;  // every reduction x two element types: one model
  io::NamedTensors in;
  // Slices (k = 1), elements (k = 3), and rows (k = 2) with duplicates.
  const std::vector<std::pair<Shape, Shape>> shapes = {{{5, 1}, {5, 4, 3}}, {{2, 3, 3}, {2, 3}}, {{7, 2}, {7, 3}}};
  int k = 0;
  for (const char* red : {"none", "add", "mul", "max", "min"})
    for (DType dt : {DType::Float32, DType::Int16}) {
      const std::string p = std::to_string(k);
      const auto& [idx, upd] = shapes[static_cast<size_t>(k % 3)];
      b.input("x" + p, dt, {4, 4, 3}).input("i" + p, DType::Int64, idx).input("u" + p, dt, upd);
      b.node("ScatterND", {"x" + p, "i" + p, "u" + p}, {"y" + p}, {{"reduction", std::string(red)}}).output("y" + p);
      in.emplace_back("x" + p, test::random_tensor(dt, {4, 4, 3}, 1 + k, -9, 9));
      in.emplace_back("i" + p, test::random_tensor(DType::Int64, idx, 2 + k, -3, 2));
      in.emplace_back("u" + p, test::random_tensor(dt, upd, 3 + k, -9, 9));
      ++k;
    }
  test::expect_matches_reference(b.save(test::scratch_dir(), "snd_c.onnx"), in, 0, 0);
}

}  // namespace
}  // namespace mlipc::unit_ops_scatter
