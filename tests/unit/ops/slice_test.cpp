#include <array>
#include <limits>
#include <optional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "driver/compile.h"
#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_slice {
namespace {

using test::ints;
using test::OnnxBuilder;
using ::testing::HasSubstr;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TensorData i64(const ints& v) { return TensorData::from<int64_t>({static_cast<int64_t>(v.size())}, v); }

// Slice of a constant 0..n-1 tensor (folded); returns the folded output.
TensorData sliced(const Shape& shape, const ints& starts, const ints& ends, std::optional<ints> axes,
                  std::optional<ints> steps) {
  OnnxBuilder b;
  std::vector<int32_t> iota(static_cast<size_t>(numel(shape)));
  for (size_t i = 0; i < iota.size(); ++i) iota[i] = static_cast<int32_t>(i);
  b.initializer("d", TensorData::from<int32_t>(shape, iota));
  b.initializer("s", i64(starts)).initializer("e", i64(ends));
  std::vector<std::string> ins = {"d", "s", "e"};
  if (axes) b.initializer("a", i64(*axes));
  if (steps) b.initializer("t", i64(*steps));
  ins.push_back(axes ? "a" : "");
  ins.push_back(steps ? "t" : "");
  b.node("Slice", ins, {"y"});
  b.output("y");
  Graph g = frontend::import_onnx(b.save(test::scratch_dir(), "slice.onnx"));
  EXPECT_TRUE(g.nodes.empty());
  return *g.value(g.outputs[0].value).constant;
}

TensorData i32(const Shape& shape, const std::vector<int32_t>& v) { return TensorData::from<int32_t>(shape, v); }

std::string slice_error(const Shape& shape, const ints& starts, const ints& ends, std::optional<ints> axes,
                        std::optional<ints> steps) {
  try {
    sliced(shape, starts, ends, axes, steps);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Slice, Basic) {
  EXPECT_EQ(sliced({5}, {1}, {3}, std::nullopt, std::nullopt), i32({2}, {1, 2}));
  EXPECT_EQ(sliced({3, 4}, {0, 1}, {2, 3}, std::nullopt, std::nullopt), i32({2, 2}, {1, 2, 5, 6}));
  EXPECT_EQ(sliced({3, 4}, {1}, {kMax}, ints{-1}, std::nullopt), i32({3, 3}, {1, 2, 3, 5, 6, 7, 9, 10, 11}));
  EXPECT_EQ(sliced({6}, {0}, {6}, ints{0}, ints{2}), i32({3}, {0, 2, 4}));
  EXPECT_EQ(sliced({7}, {1}, {6}, ints{0}, ints{2}), i32({3}, {1, 3, 5}));
}

TEST(Slice, NegativeAndOutOfRangeBoundsAreClamped) {
  EXPECT_EQ(sliced({5}, {-3}, {-1}, std::nullopt, std::nullopt), i32({2}, {2, 3}));
  EXPECT_EQ(sliced({5}, {-100}, {100}, std::nullopt, std::nullopt), i32({5}, {0, 1, 2, 3, 4}));
  EXPECT_EQ(sliced({5}, {10}, {20}, std::nullopt, std::nullopt), i32({0}, {}));
  EXPECT_EQ(sliced({5}, {3}, {1}, std::nullopt, std::nullopt), i32({0}, {}));
  EXPECT_EQ(sliced({5}, {kMin}, {kMax}, std::nullopt, std::nullopt), i32({5}, {0, 1, 2, 3, 4}));
}

TEST(Slice, NegativeSteps) {
  // The exporters' reversal idiom: start -1, end INT64_MIN(+1), step -1.
  EXPECT_EQ(sliced({4}, {-1}, {kMin + 1}, ints{0}, ints{-1}), i32({4}, {3, 2, 1, 0}));
  EXPECT_EQ(sliced({4}, {-1}, {kMin}, ints{0}, ints{-1}), i32({4}, {3, 2, 1, 0}));
  EXPECT_EQ(sliced({5}, {100}, {0}, ints{0}, ints{-2}), i32({2}, {4, 2}));  // start clamps to dim - 1
  EXPECT_EQ(sliced({5}, {3}, {-100}, ints{0}, ints{-3}), i32({2}, {3, 0}));
  EXPECT_EQ(sliced({2, 3}, {-1, 2}, {kMin, 0}, ints{0, 1}, ints{-1, -1}), i32({2, 2}, {5, 4, 2, 1}));
  EXPECT_EQ(sliced({5}, {1}, {3}, ints{0}, ints{-1}), i32({0}, {}));
  EXPECT_EQ(sliced({5}, {4}, {0}, ints{0}, ints{kMin}), i32({1}, {4}));  // huge steps do not overflow
  EXPECT_EQ(sliced({5}, {0}, {5}, ints{0}, ints{kMax}), i32({1}, {0}));
}

TEST(Slice, Errors) {
  EXPECT_THAT(slice_error({5}, {0}, {1}, ints{0}, ints{0}), HasSubstr("steps entry 0 is 0; steps must be non-zero"));
  EXPECT_THAT(slice_error({5}, {0, 0}, {1}, std::nullopt, std::nullopt), HasSubstr("starts has 2 entries but ends has 1"));
  EXPECT_THAT(slice_error({5}, {0}, {1}, ints{1}, std::nullopt), HasSubstr("axes entry 1 is out of range for rank 1"));
  EXPECT_THAT(slice_error({3, 3}, {0, 0}, {1, 1}, ints{0, -2}, std::nullopt), HasSubstr("axes name axis 0 twice"));

  OnnxBuilder b;  // bounds computed at run time
  b.input("x", DType::Float32, {4}).input("s", DType::Int64, {1});
  b.initializer("e", i64({3}));
  b.node("Slice", {"x", "s", "e"}, {"y"}).output("y");
  try {
    frontend::import_onnx(b.save(test::scratch_dir(), "slice_rt.onnx"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("input #1 ('s', starts) must be a constant known at compile time: the output "
                                    "shape depends on its value"));
  }
}

TEST(Slice, Opset9AttributeForm) {
  OnnxBuilder b(9);
  b.initializer("d", i32({2, 3}, {0, 1, 2, 3, 4, 5}));
  b.node("Slice", {"d"}, {"y"}, {{"starts", ints{1}}, {"ends", ints{3}}, {"axes", ints{1}}});
  b.output("y");
  Graph g = frontend::import_onnx(b.save(test::scratch_dir(), "slice9.onnx"));
  EXPECT_EQ(*g.value(g.outputs[0].value).constant, i32({2, 2}, {1, 2, 4, 5}));
}

TEST(Slice, ReferenceOnRuntimeData) {
  OnnxBuilder b;
  b.input("x", DType::Int32, {3, 4});
  b.initializer("s", i64({-1, 0})).initializer("e", i64({kMin, 4})).initializer("a", i64({0, 1}));
  b.initializer("t", i64({-2, 3}));
  b.node("Slice", {"x", "s", "e", "a", "t"}, {"y"}).output("y");
  io::NamedTensors out = test::reference_run(b.save(test::scratch_dir(), "slice_ref.onnx"),
                                             {{"x", i32({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})}});
  EXPECT_EQ(out[0].second, i32({2, 2}, {8, 11, 0, 3}));
}

// Slices of one run-time input (several Slice nodes in one model: one compile).
struct SliceCase {
  ints starts, ends;
  std::optional<ints> axes, steps;
};

std::filesystem::path slice_model(DType dt, const Shape& shape, const std::vector<SliceCase>& cases,
                                  const std::string& file) {
  OnnxBuilder b;
  b.input("x", dt, shape);
  for (size_t k = 0; k < cases.size(); ++k) {
    const std::string p = std::to_string(k);
    const SliceCase& c = cases[k];
    b.initializer("s" + p, i64(c.starts)).initializer("e" + p, i64(c.ends));
    std::vector<std::string> ins = {"x", "s" + p, "e" + p};
    if (c.axes) b.initializer("a" + p, i64(*c.axes));
    if (c.steps) b.initializer("t" + p, i64(*c.steps));
    ins.push_back(c.axes ? "a" + p : "");
    ins.push_back(c.steps ? "t" + p : "");
    b.node("Slice", ins, {"y" + p}).output("y" + p);
  }
  return b.save(test::scratch_dir(), file);
}

TEST(Slice, GeneratedCMatchesReference) {
  const std::vector<SliceCase> cases = {
      {{1, 0}, {3, 4}, std::nullopt, std::nullopt},           // leading axes
      {{-1}, {kMin}, ints{-1}, ints{-1}},                      // reverse the last axis
      {{4, 1}, {-100, 100}, ints{0, 2}, ints{-2, 2}},          // negative step, clamped bounds
      {{0, 0, 0}, {kMax, kMax, kMax}, ints{0, 1, 2}, std::nullopt},  // everything
      {{2}, {2}, ints{1}, std::nullopt},                       // empty
      {{1}, {2}, ints{-2}, ints{3}},                           // one row (a single element axis)
      {{-3, 5}, {kMin, 0}, ints{2, 1}, ints{-3, -2}},          // two negative steps
  };
  test::expect_matches_reference(slice_model(DType::Float32, {5, 6, 7}, cases, "slice_c.onnx"),
                                 {{"x", test::random_tensor(DType::Float32, {5, 6, 7}, 1)}}, 0, 0);
  test::expect_matches_reference(slice_model(DType::Int64, {5, 6, 7}, cases, "slice_c64.onnx"),
                                 {{"x", test::random_tensor(DType::Int64, {5, 6, 7}, 2, -1000, 1000)}}, 0, 0);
}

// Bounds computed at run time, with the output shape the model declares.
std::filesystem::path runtime_model(const Shape& shape, bool axes, bool steps, DType it, const Shape& declared,
                                    const std::string& file) {
  OnnxBuilder b;
  b.input("x", DType::Float32, shape).input("s", it, {2}).input("e", it, {2});
  std::vector<std::string> ins = {"x", "s", "e"};
  if (axes) b.input("a", it, {2});
  if (steps) b.input("t", it, {2});
  ins.push_back(axes ? "a" : "");
  ins.push_back(steps ? "t" : "");
  b.node("Slice", ins, {"y"}).declare("y", DType::Float32, declared).output("y");
  return b.save(test::scratch_dir(), file);
}

TEST(Slice, RuntimeBoundsWithADeclaredOutputShape) {
  const Shape shape = {5, 6, 7};
  const TensorData x = test::random_tensor(DType::Float32, shape, 5);
  const auto m = runtime_model(shape, true, true, DType::Int64, {5, 3, 2}, "slice_rt_decl.onnx");
  // Several bounds that all give [5, 3, 2]: negative steps, clamping, INT64 extremes.
  for (const auto& [st, e, a, t] : std::vector<std::array<ints, 4>>{{ints{1, 0}, ints{4, 7}, ints{1, 2}, ints{1, 4}},
                                                                   {ints{-1, 6}, ints{-100, 0}, ints{-2, -1}, ints{-2, -3}},
                                                                   {ints{kMin, 2}, ints{3, kMax}, ints{1, -1}, ints{1, 3}}}) {
    test::expect_matches_reference(m, {{"x", x}, {"s", i64(st)}, {"e", i64(e)}, {"a", i64(a)}, {"t", i64(t)}}, 0, 0);
  }
  // int32 bounds, default axes and steps.
  const auto m32 = runtime_model(shape, false, false, DType::Int32, {2, 4, 7}, "slice_rt_decl32.onnx");
  test::expect_matches_reference(m32, {{"x", x}, {"s", TensorData::from<int32_t>({2}, {3, -4})},
                                       {"e", TensorData::from<int32_t>({2}, {9, 6})}}, 0, 0);
  // Bounds that give another shape fail the run (and the reference says why).
  const io::NamedTensors bad = {{"x", x}, {"s", i64({0, 0})}, {"e", i64({5, 5})}, {"a", i64({1, 2})}, {"t", i64({1, 1})}};
  EXPECT_THROW(test::compile_and_run(m, bad), Error);
  try {
    test::reference_run(m, bad);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("the run-time bounds give the output shape [5,5,5] but the model declares [5,3,2]"));
  }
  // A declared shape no slice can give.
  try {
    frontend::import_onnx(runtime_model(shape, true, true, DType::Int64, {5, 8, 2}, "slice_rt_bad.onnx"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("the model declares the output [5,8,2], longer than the data [5,6,7] at axis 1"));
  }
}

TEST(Slice, ShuffleNetChannelSplitOnTheMlipTarget) {
  // The channel halves of a run-time tensor (ShuffleNet's split), after a
  // convolution that runs on the MLIP.
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 4, 6, 6});
  b.initializer("w", test::random_tensor(DType::Float32, {8, 4, 3, 3}, 3));
  b.node("Conv", {"x", "w"}, {"c"}, {{"pads", ints{1, 1, 1, 1}}});
  b.initializer("s0", i64({0})).initializer("e0", i64({4})).initializer("a", i64({1}));
  b.initializer("s1", i64({4})).initializer("e1", i64({8}));
  b.node("Slice", {"c", "s0", "e0", "a"}, {"y0"}).output("y0");
  b.node("Slice", {"c", "s1", "e1", "a"}, {"y1"}).output("y1");
  driver::CompileOptions opt;
  opt.target = "mrvl, c";
  test::expect_matches_reference(b.save(test::scratch_dir(), "slice_mrvl.onnx"),
                                 {{"x", test::random_tensor(DType::Float32, {1, 4, 6, 6}, 4)}}, 2e-2, 2e-2, opt);
}

}  // namespace
}  // namespace mlipc::unit_ops_slice
