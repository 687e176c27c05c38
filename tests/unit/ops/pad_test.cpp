#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_pad {
namespace {

using test::ints;
using test::OnnxBuilder;
using ::testing::HasSubstr;

// Pad (opset 17) of a runtime input with constant pads and optional value.
std::filesystem::path pad_model(const Shape& shape, DType dt, const ints& pads, const std::string& mode,
                                const TensorData* value, const std::string& file) {
  OnnxBuilder b;
  b.input("x", dt, shape);
  b.initializer("pads", TensorData::from<int64_t>({static_cast<int64_t>(pads.size())}, pads));
  std::vector<std::string> ins = {"x", "pads"};
  if (value) {
    b.initializer("value", *value);
    ins.push_back("value");
  }
  b.node("Pad", ins, {"y"}, {{"mode", mode}});
  b.output("y");
  return b.save(test::scratch_dir(), file);
}

using test::import_error;

TensorData run_ref(const std::filesystem::path& model, const TensorData& x) {
  return test::reference_run(model, {{"x", x}})[0].second;
}

TEST(Pad, ShapeRule) {
  Graph g = frontend::import_onnx(pad_model({1, 3, 4, 5}, DType::Float32, {0, 0, 1, 2, 0, 0, 3, -1}, "constant",
                                            nullptr, "p_s1.onnx"));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{1, 3, 8, 6}));
  g = frontend::import_onnx(pad_model({4}, DType::Int32, {-2, -2}, "edge", nullptr, "p_s2.onnx"));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{0}));
}

TEST(Pad, ShapeErrors) {
  EXPECT_THAT(import_error(pad_model({2, 3}, DType::Float32, {1, 1}, "constant", nullptr, "p_e1.onnx")),
              HasSubstr("pads has 2 entries; expected 2 * 2 = 4"));
  EXPECT_THAT(import_error(pad_model({2, 3}, DType::Float32, {0, 0, 0, 1}, "wrap", nullptr, "p_e2.onnx")),
              HasSubstr("mode 'wrap' is not supported (supported: constant, reflect, edge)"));
  EXPECT_THAT(import_error(pad_model({2, 3}, DType::Float32, {0, -2, 0, -2}, "constant", nullptr, "p_e3.onnx")),
              HasSubstr("crop 4 elements from axis 1, which has only 3"));
  EXPECT_THAT(import_error(pad_model({2, 3}, DType::Float32, {0, -3, 0, 1}, "reflect", nullptr, "p_e4.onnx")),
              HasSubstr("reflect padding of axis 1 needs at least one element"));
  const TensorData two = TensorData::from<float>({2}, {1, 2});
  EXPECT_THAT(import_error(pad_model({2, 3}, DType::Float32, {0, 0, 0, 1}, "constant", &two, "p_e5.onnx")),
              HasSubstr("constant_value must be a scalar"));

  OnnxBuilder b;  // pads computed at run time
  b.input("x", DType::Float32, {2, 3}).input("p", DType::Int64, {4});
  b.node("Pad", {"x", "p"}, {"y"}).output("y");
  EXPECT_THAT(import_error(b.save(test::scratch_dir(), "p_e6.onnx")),
              HasSubstr("input #1 ('p', pads) must be a constant known at compile time"));
}

TEST(Pad, ReferenceModes) {
  const TensorData x = TensorData::from<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  const TensorData nine = TensorData::scalar<int32_t>(9);
  EXPECT_EQ(run_ref(pad_model({2, 3}, DType::Int32, {0, 1, 1, 0}, "constant", &nine, "p_r1.onnx"), x),
            TensorData::from<int32_t>({3, 4}, {9, 1, 2, 3, 9, 4, 5, 6, 9, 9, 9, 9}));
  EXPECT_EQ(run_ref(pad_model({2, 3}, DType::Int32, {0, 2, 0, 1}, "reflect", nullptr, "p_r2.onnx"), x),
            TensorData::from<int32_t>({2, 6}, {3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5}));
  EXPECT_EQ(run_ref(pad_model({2, 3}, DType::Int32, {1, 1, 0, 0}, "edge", nullptr, "p_r3.onnx"), x),
            TensorData::from<int32_t>({3, 4}, {1, 1, 2, 3, 1, 1, 2, 3, 4, 4, 5, 6}));
  // Negative pads crop first; reflect then works on what is left ([2, 3] and [5, 6]).
  EXPECT_EQ(run_ref(pad_model({2, 3}, DType::Int32, {0, -1, 0, 1}, "reflect", nullptr, "p_r4.onnx"), x),
            TensorData::from<int32_t>({2, 3}, {2, 3, 2, 5, 6, 5}));
  // Pads longer than the axis reflect periodically, as numpy does.
  EXPECT_EQ(run_ref(pad_model({3}, DType::Int32, {4, 3}, "reflect", nullptr, "p_r5.onnx"),
                    TensorData::from<int32_t>({3}, {1, 2, 3})),
            TensorData::from<int32_t>({10}, {1, 2, 3, 2, 1, 2, 3, 2, 1, 2}));
  // A one-element axis reflects to itself.
  EXPECT_EQ(run_ref(pad_model({1}, DType::Int32, {2, 1}, "reflect", nullptr, "p_r6.onnx"),
                    TensorData::from<int32_t>({1}, {7})),
            TensorData::from<int32_t>({4}, {7, 7, 7, 7}));
}

TEST(Pad, FloatValueIsCastToTheDataType) {
  // Opset < 11 models carry `value` as a float attribute; the frontend makes
  // it a float32 input even for integer data.
  OnnxBuilder b(6);
  b.input("x", DType::Int32, {2});
  b.node("Pad", {"x"}, {"y"}, {{"pads", ints{1, 2}}, {"value", 3.7f}});
  b.output("y");
  const auto model = b.save(test::scratch_dir(), "p_opset2.onnx");
  const TensorData x = TensorData::from<int32_t>({2}, {1, 2});
  EXPECT_EQ(run_ref(model, x), TensorData::from<int32_t>({5}, {3, 1, 2, 3, 3}));
  test::expect_matches_reference(model, {{"x", x}}, 0, 0);

  const TensorData half_value = TensorData::scalar<float>(-2.5f);
  test::expect_matches_reference(pad_model({2, 2}, DType::Float16, {1, 0, 0, 1}, "constant", &half_value, "p_f16.onnx"),
                                 {{"x", test::random_tensor(DType::Float16, {2, 2}, 1)}}, 0, 0);
}

TEST(Pad, GeneratedCMatchesReference) {
  struct Case {
    Shape shape;
    DType dt;
    ints pads;
    std::string mode;
    std::optional<TensorData> value;
  };
  const std::vector<Case> cases = {
      {{1, 3, 5, 6}, DType::Float32, {0, 0, 1, 2, 0, 0, 2, 1}, "constant", TensorData::scalar<float>(0.5f)},
      {{1, 3, 5, 6}, DType::Float32, {0, 0, 2, 3, 0, 0, 1, 2}, "reflect", std::nullopt},
      {{1, 3, 5, 6}, DType::Float32, {0, 0, 3, 1, 0, 0, 1, 4}, "edge", std::nullopt},
      {{2, 3, 4}, DType::Int64, {1, -1, 2, -1, 1, -2}, "constant", TensorData::scalar<int64_t>(-7)},
      {{2, 3, 4}, DType::Int16, {0, -1, 5, 1, -1, 6}, "reflect", std::nullopt},
      {{2, 3, 4}, DType::UInt8, {1, 0, -1, 0, 2, 3}, "edge", std::nullopt},
      {{3, 1}, DType::Float64, {0, 2, 0, 3}, "reflect", std::nullopt},
      {{2, 2}, DType::Bool, {1, 1, 1, 1}, "constant", TensorData::from<uint8_t>({}, {1}).cast(DType::Bool)},
      {{0, 2}, DType::Float32, {1, 0, 1, 0}, "constant", TensorData::scalar<float>(1.0f)},  // from empty
      {{}, DType::Float32, {}, "constant", std::nullopt},  // scalar: nothing to pad
  };
  int k = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(k);
    io::NamedTensors in = {{"x", test::random_tensor(c.dt, c.shape, 5, -50, 50)}};
    test::expect_matches_reference(pad_model(c.shape, c.dt, c.pads, c.mode, c.value ? &*c.value : nullptr,
                                             "p_run" + std::to_string(k++) + ".onnx"),
                                   in, 0, 0);
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_pad
