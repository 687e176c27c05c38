#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_dropout {
namespace {

using test::OnnxBuilder;
using test::random_tensor;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path save(const OnnxBuilder& b) {
  static int k = 0;
  return b.save(test::scratch_dir(), fmt::format("dropout_{}.onnx", k++));
}

std::string import_error(const OnnxBuilder& b) {
  try {
    frontend::import_onnx(save(b));
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// Dropout(x, ratio, training_mode) -> y, mask; ratio/training_mode are
// constants when given a value, omitted otherwise.
OnnxBuilder& dropout(OnnxBuilder& m, std::optional<float> ratio, std::optional<bool> training) {
  m.input("x", DType::Float32, {2, 3});
  std::vector<std::string> ins = {"x", "", ""};
  if (ratio) {
    m.initializer("r", TensorData::scalar<float>(*ratio));
    ins[1] = "r";
  }
  if (training) {
    TensorData t(DType::Bool, {});
    t.raw()[0] = *training;
    m.initializer("t", t);
    ins[2] = "t";
  }
  return m.node("Dropout", ins, {"y", "mask"}).output("y").output("mask");
}

TEST(Dropout, ShapeRule) {
  OnnxBuilder m;
  Graph g = frontend::import_onnx(save(dropout(m, 0.3f, false)));
  EXPECT_EQ(g.value(g.outputs[0].value).shape, (Shape{2, 3}));
  EXPECT_EQ(g.value(g.outputs[0].value).dtype, DType::Float32);
  EXPECT_EQ(g.value(g.outputs[1].value).shape, (Shape{2, 3}));
  EXPECT_EQ(g.value(g.outputs[1].value).dtype, DType::Bool);
  // Training mode with ratio 0 is the identity too.
  OnnxBuilder zero;
  EXPECT_EQ(import_error(dropout(zero, 0.0f, true)), "no error");
}

TEST(Dropout, TrainingModeIsRefused) {
  {
    OnnxBuilder m;
    EXPECT_THAT(import_error(dropout(m, 0.5f, true)),
                HasSubstr("training-mode Dropout is random; export the model in inference mode"));
  }
  {
    OnnxBuilder m;  // the default ratio is 0.5
    EXPECT_THAT(import_error(dropout(m, std::nullopt, true)), HasSubstr("training-mode Dropout is random"));
  }
  {
    OnnxBuilder m;
    m.input("x", DType::Float32, {2}).input("t", DType::Bool, {});
    m.node("Dropout", {"x", "", "t"}, {"y"}).output("y");
    EXPECT_THAT(import_error(m), HasSubstr("('t', training_mode) must be a constant"));
  }
}

TEST(Dropout, ReferenceIsIdentityWithTrueMask) {
  OnnxBuilder m;
  const fs::path model = save(dropout(m, 0.5f, std::nullopt));
  const TensorData x = random_tensor(DType::Float32, {2, 3}, 1);
  io::NamedTensors out = test::reference_run(model, {{"x", x}});
  EXPECT_EQ(out.at(0).second, x);
  ASSERT_EQ(out.at(1).second.dtype(), DType::Bool);
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(out.at(1).second.raw()[i], 1);
}

TEST(Dropout, GeneratedCMatchesReference) {
  // Opset 11 carries ratio as an attribute; opset 17 as an input.
  OnnxBuilder old(11);
  old.input("x", DType::Float32, {2, 3}).node("Dropout", {"x"}, {"d"}, {{"ratio", 0.2f}});
  old.node("Relu", {"d"}, {"y"}).output("y");
  test::expect_matches_reference(save(old), {{"x", random_tensor(DType::Float32, {2, 3}, 2)}});
  OnnxBuilder m;
  test::expect_matches_reference(save(dropout(m, 0.1f, false)), {{"x", random_tensor(DType::Float32, {2, 3}, 3)}});
}

}  // namespace
}  // namespace mlipc::unit_ops_dropout
