// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (ops/loss.cpp,
// c/kernels/loss.cpp): values computed by hand for each reduction, with
// ignore_index and weights; the generated C against the reference bit for
// bit (same order) with SCE's log_prob output, as strict C99; a target out
// of range fails the run; the shape rule's one-line errors.
#include <cmath>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/onnx_import.h"
#include "support/error.h"
#include "testlib/c_runner.h"
#include "testlib/onnx_builder.h"

namespace mlipc::unit_ops_loss {
namespace {

using test::OnnxBuilder;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

struct Spec {
  std::string op = "NegativeLogLikelihoodLoss";
  Shape x = {2, 3};
  DType t = DType::Int64;
  bool weight = false, log_prob = false;
  std::string reduction;  // "" : the default (mean)
  std::optional<int64_t> ignore;
};

fs::path model(const Spec& s) {
  static int k = 0;
  OnnxBuilder b(13);
  b.input("x", DType::Float32, s.x);
  Shape ts = {s.x[0]};
  for (size_t d = 2; d < s.x.size(); ++d) ts.push_back(s.x[d]);
  b.input("t", s.t, ts);
  std::vector<std::string> in = {"x", "t"};
  if (s.weight) {
    b.input("w", DType::Float32, {s.x[1]});
    in.push_back("w");
  }
  std::vector<std::pair<std::string, AttrValue>> attrs;
  if (!s.reduction.empty()) attrs.push_back({"reduction", s.reduction});
  if (s.ignore) attrs.push_back({"ignore_index", *s.ignore});
  std::vector<std::string> out = {"y"};
  if (s.log_prob) out.push_back("lp");
  b.node(s.op, in, out, attrs);
  for (const auto& o : out) b.output(o);
  return b.save(test::scratch_dir(), fmt::format("loss_{}.onnx", k++));
}

std::vector<float> run_ref(const Spec& s, const io::NamedTensors& in, size_t out = 0) {
  const TensorData y = test::reference_run(model(s), in).at(out).second;
  return std::vector<float>(y.data<float>(), y.data<float>() + y.numel());
}

// x [2, 3] (log-probabilities as given), targets {2, 0}, weights {1, 2, 4}.
const TensorData kX = TensorData::from<float>({2, 3}, {-1.0f, -2.0f, -3.0f, -0.5f, -1.5f, -2.5f});
const TensorData kT = TensorData::from<int64_t>({2}, {2, 0});
const TensorData kW = TensorData::from<float>({3}, {1.0f, 2.0f, 4.0f});

TEST(Loss, NllByHand) {
  Spec s;
  s.reduction = "none";
  EXPECT_EQ(run_ref(s, {{"x", kX}, {"t", kT}}), (std::vector<float>{3.0f, 0.5f}));
  s.reduction = "sum";
  EXPECT_EQ(run_ref(s, {{"x", kX}, {"t", kT}}), (std::vector<float>{3.5f}));
  s.reduction = "";  // mean: 3.5 / 2
  EXPECT_EQ(run_ref(s, {{"x", kX}, {"t", kT}}), (std::vector<float>{1.75f}));
  // Weights: 3 * 4 and 0.5 * 1; the mean divides by the weights used, 4 + 1.
  s.weight = true;
  EXPECT_EQ(run_ref(s, {{"x", kX}, {"t", kT}, {"w", kW}}), (std::vector<float>{12.5f / 5.0f}));
  s.reduction = "none";
  EXPECT_EQ(run_ref(s, {{"x", kX}, {"t", kT}, {"w", kW}}), (std::vector<float>{12.0f, 0.5f}));
  // ignore_index 0: the second target counts 0, weight 0: mean 12 / 4.
  s.reduction = "mean";
  s.ignore = 0;
  EXPECT_EQ(run_ref(s, {{"x", kX}, {"t", kT}, {"w", kW}}), (std::vector<float>{3.0f}));
  // A negative ignore_index, a target equal to it.
  s.ignore = -1;
  s.weight = false;
  EXPECT_EQ(run_ref(s, {{"x", kX}, {"t", TensorData::from<int64_t>({2}, {-1, 1})}}), (std::vector<float>{1.5f}));
}

TEST(Loss, SoftmaxCrossEntropyByHand) {
  // Scores {0, ln 3} : log-softmax {ln 1/4, ln 3/4}; targets {1, 0}.
  const float l3 = std::log(3.0f);
  const TensorData x = TensorData::from<float>({2, 2}, {0.0f, l3, l3, 0.0f});
  const TensorData t = TensorData::from<int64_t>({2}, {1, 0});
  Spec s;
  s.op = "SoftmaxCrossEntropyLoss";
  s.x = {2, 2};
  s.reduction = "none";
  s.log_prob = true;
  const std::vector<float> y = run_ref(s, {{"x", x}, {"t", t}});
  EXPECT_NEAR(y[0], -std::log(0.75f), 1e-6);
  EXPECT_NEAR(y[1], -std::log(0.75f), 1e-6);
  const std::vector<float> lp = run_ref(s, {{"x", x}, {"t", t}}, 1);
  EXPECT_NEAR(lp[0], std::log(0.25f), 1e-6);
  EXPECT_NEAR(lp[1], std::log(0.75f), 1e-6);
  EXPECT_NEAR(lp[2], std::log(0.75f), 1e-6);
}

TEST(Loss, GeneratedCMatchesReference) {
  const TensorData x = test::random_tensor(DType::Float32, {3, 5, 2, 4}, 1, -3.0, 3.0);
  const TensorData t64 = test::random_tensor(DType::Int64, {3, 2, 4}, 2, 0, 4);
  const TensorData w = test::random_tensor(DType::Float32, {5}, 3, 0.1, 2.0);
  for (const std::string op : {"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"})
    for (const std::string r : {"none", "sum", "mean"})
      for (bool weight : {false, true})
        for (int ignore : {-1, 2}) {
          Spec s;
          s.op = op;
          s.x = {3, 5, 2, 4};
          s.reduction = r;
          s.weight = weight;
          if (ignore >= 0) s.ignore = ignore;
          s.log_prob = op == "SoftmaxCrossEntropyLoss" && weight;
          s.t = ignore >= 0 ? DType::Int32 : DType::Int64;
          io::NamedTensors in = {{"x", x}, {"t", s.t == DType::Int32 ? t64.cast(DType::Int32) : t64}};
          if (weight) in.emplace_back("w", w);
          SCOPED_TRACE(fmt::format("{} {} weight {} ignore {}", op, r, weight, ignore));
          test::expect_matches_reference(model(s), in, 0, 0);
        }
}

TEST(Loss, EveryFormCompilesAsStrictC99) {
  Spec a;
  a.reduction = "none";
  EXPECT_EQ(test::strict_c99_errors(model(a)), "");
  Spec b;
  b.op = "SoftmaxCrossEntropyLoss";
  b.x = {2, 3, 4};
  b.weight = b.log_prob = true;
  b.ignore = -1;
  b.t = DType::Int32;
  EXPECT_EQ(test::strict_c99_errors(model(b)), "");
  b.reduction = "sum";
  b.log_prob = false;
  EXPECT_EQ(test::strict_c99_errors(model(b)), "");
}

TEST(Loss, TargetOutOfRangeFailsTheRun) {
  Spec s;
  s.ignore = -100;
  const io::NamedTensors in = {{"x", kX}, {"t", TensorData::from<int64_t>({2}, {1, 3})}};
  try {
    test::compile_and_run(model(s), in);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("the model failed"));
  }
  try {
    test::reference_run(model(s), in);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("target 3 (element 1) is not a class in [0, 3) nor ignore_index"));
  }
}

TEST(Loss, ShapeRuleErrors) {
  Spec s;
  s.reduction = "max";
  try {
    frontend::import_onnx(model(s));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("reduction 'max' (allowed: none, sum, mean)"));
  }
  OnnxBuilder b(13);
  b.input("x", DType::Float32, {2, 3, 4}).input("t", DType::Int64, {2, 3});
  b.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}).output("y");
  try {
    frontend::import_onnx(b.save(test::scratch_dir(), "loss_bad_target.onnx"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("the target must be [2,4] for the input [2,3,4], got [2,3]"));
  }
}

}  // namespace
}  // namespace mlipc::unit_ops_loss
