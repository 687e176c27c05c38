// The conformance runner's own rules, on fake test folders: the summary
// fails without cases, counts only the cases it finds (a stale result file
// does not count, a missing result is a failure), and skips only for the
// classes issue 8 leaves out (or an operator the op table lacks); a model
// whose operators are all in the table is run, and one that does not parse
// fails.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "conformance.h"
#include "support/file_util.h"
#include "testlib/onnx_builder.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace mlipc::conformance {
namespace {

class FakeTestdata : public ::testing::Test {
 protected:
  void SetUp() override { setenv("MLIPC_ONNX_TESTDATA", root.path().c_str(), 1); }
  void TearDown() override { unsetenv("MLIPC_ONNX_TESTDATA"); }
  void add_case(const std::string& name, const std::string& model_bytes = "") {
    fs::create_directories(root.path() / "node" / name);
    write_file(root.path() / "node" / name / "model.onnx", model_bytes);
  }
  int summary(std::string* out) {
    ::testing::internal::CaptureStdout();
    const int failed = summarize(results.path(), "selftest");
    *out = ::testing::internal::GetCapturedStdout();
    return failed;
  }
  TempDir root{"mlipc-fake-testdata"};
  TempDir results{"mlipc-fake-results"};
};

TEST_F(FakeTestdata, SummaryFailsWhenThereAreNoCases) {
  std::string out;
  EXPECT_NE(summary(&out), 0);
  EXPECT_THAT(out, HasSubstr("no ONNX node tests found"));
}

TEST_F(FakeTestdata, SummaryCountsThisRunsCasesOnly) {
  add_case("test_a");
  add_case("test_b");
  add_case("test_c");
  write_file(results.path() / "node_test_a", "pass\n");
  write_file(results.path() / "node_test_c", "skip: control flow: Loop\n");
  write_file(results.path() / "node_test_gone", "fail: a case of an earlier run\n");  // stale
  std::string out;
  EXPECT_EQ(summary(&out), 1);  // node_test_b has no result
  EXPECT_THAT(out, HasSubstr("1 passed, 1 failed, 1 skipped (of 3 ONNX node tests)"));
  EXPECT_THAT(out, HasSubstr("FAILED node_test_b: no result from this run"));
  EXPECT_THAT(out, HasSubstr("skipped    1  control flow: Loop 1"));
  EXPECT_THAT(out, ::testing::Not(HasSubstr("node_test_gone")));
}

std::string skip_reason_of(const test::OnnxBuilder& b) {
  static TempDir dir("mlipc-skip");
  static int k = 0;
  return static_skip_reason(b.save(dir.path(), "m" + std::to_string(k++) + ".onnx"));
}

TEST(SkipClasses, OutOfScopeOperatorsAndTensors) {
  test::OnnxBuilder loop;
  loop.input("x", DType::Float32, {2}).node("Relu", {"x"}, {"r"}).node("Loop", {"r"}, {"y"}).output("y");
  EXPECT_EQ(skip_reason_of(loop), "control flow: Loop");
  test::OnnxBuilder nz;
  nz.input("x", DType::Float32, {2}).node("NonZero", {"x"}, {"y"}).output("y");
  EXPECT_EQ(skip_reason_of(nz), "data-dependent output shape: NonZero");
  test::OnnxBuilder rnd;
  rnd.input("x", DType::Float32, {2}).node("RandomUniformLike", {"x"}, {"y"}).output("y");
  EXPECT_EQ(skip_reason_of(rnd), "random generators: RandomUniformLike");
  test::OnnxBuilder loss;
  loss.input("x", DType::Float32, {2, 3}).input("t", DType::Int64, {2});
  loss.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}).output("y");
  EXPECT_EQ(skip_reason_of(loss), "training operators: NegativeLogLikelihoodLoss");
  test::OnnxBuilder outside;
  // (QLinearMatMul was the example until the int8 operators landed.)
  outside.input("x", DType::Float32, {2}).node("Col2Im", {"x"}, {"y"}).output("y");
  EXPECT_EQ(skip_reason_of(outside), "operator outside issue 8's list: Col2Im");
}

TEST(SkipClasses, SupportedOperatorsAreNeverSkipped) {
  test::OnnxBuilder ok;
  ok.input("x", DType::Float32, {2}).node("Relu", {"x"}, {"r"}).node("Exp", {"r"}, {"y"}).output("y");
  EXPECT_EQ(skip_reason_of(ok), "");
}

TEST_F(FakeTestdata, ModelThatDoesNotParseFails) {
  add_case("test_garbage", "this is not a protobuf \xff\xff\xff");
  const Case c{"node_test_garbage", root.path() / "node" / "test_garbage"};
  EXPECT_EQ(static_skip_reason(c.dir / "model.onnx"), "");
  const Result r = run_case(c, Config{});
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_THAT(r.detail, HasSubstr("does not parse"));
}

}  // namespace
}  // namespace mlipc::conformance
