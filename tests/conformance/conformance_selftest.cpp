// The conformance runner's own rules, on fake test folders: the summary
// fails without cases, counts only the cases it finds (a stale result file
// does not count, a missing result is a failure), and skips only for the
// classes issue 8 leaves out (or an operator the op table lacks); a model
// whose operators are all in the table is run, and one that does not parse
// fails.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

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
  test::OnnxBuilder train;
  train.input("x", DType::Float32, {2, 3}).input("g", DType::Float32, {2, 3});
  train.node("Gradient", {"x", "g"}, {"y"}).output("y");
  EXPECT_EQ(skip_reason_of(train), "training operators: Gradient");
  test::OnnxBuilder outside;
  // (QLinearMatMul was the example until the int8 operators landed.)
  outside.input("x", DType::Float32, {2}).node("Col2Im", {"x"}, {"y"}).output("y");
  EXPECT_EQ(skip_reason_of(outside), "operator outside issue 8's list: Col2Im");
}

TEST(SkipClasses, SupportedOperatorsAreNeverSkipped) {
  test::OnnxBuilder ok;
  ok.input("x", DType::Float32, {2}).node("Relu", {"x"}, {"r"}).node("Exp", {"r"}, {"y"}).output("y");
  EXPECT_EQ(skip_reason_of(ok), "");
  test::OnnxBuilder loss;  // an inference operator, no longer a "training operator"
  loss.input("x", DType::Float32, {2, 3}).input("t", DType::Int64, {2});
  loss.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}).output("y");
  EXPECT_EQ(skip_reason_of(loss), "");
}

// Writes `t` as the TensorProto file `path` (input_K.pb / output_K.pb).
void write_pb(const fs::path& path, const TensorData& t, int onnx_type) {
  onnx::TensorProto p;
  p.set_data_type(onnx_type);
  for (int64_t d : t.shape()) p.add_dims(d);
  p.set_raw_data(std::string(reinterpret_cast<const char*>(t.raw()), t.nbytes()));
  std::string bytes;
  p.SerializeToString(&bytes);
  write_file(path, bytes);
}

// ONNX 1.12 stores CastLike's 'like' as [1] where the model declares
// [3, 4]: an input read only for its type is fed at its declared shape, and
// only such an input.
TEST_F(FakeTestdata, OnlyAnInputReadForItsTypeIsFedAtItsDeclaredShape) {
  const std::vector<float> x = {1.5f, -2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  for (const std::string op : {"CastLike", "Add"}) {
    test::OnnxBuilder b;
    b.input("x", DType::Float32, {3, 4}).input("like", DType::Float32, {3, 4});
    b.node(op, {"x", "like"}, {"y"}).output("y");
    const fs::path dir = root.path() / "node" / ("test_" + op);
    fs::create_directories(dir / "test_data_set_0");
    b.save(dir);
    write_pb(dir / "test_data_set_0" / "input_0.pb", TensorData::from<float>({3, 4}, x), onnx::TensorProto::FLOAT);
    write_pb(dir / "test_data_set_0" / "input_1.pb", TensorData::from<float>({1}, {0.5f}), onnx::TensorProto::FLOAT);
    write_pb(dir / "test_data_set_0" / "output_0.pb", TensorData::from<float>({3, 4}, x), onnx::TensorProto::FLOAT);
    const Result r = run_case(Case{"node_test_" + op, dir}, Config{});
    if (op == "CastLike") {
      EXPECT_EQ(r.outcome, Outcome::Pass) << r.detail;
      EXPECT_TRUE(r.type_only);
    } else {
      EXPECT_EQ(r.outcome, Outcome::Fail);
      EXPECT_FALSE(r.type_only);
    }
  }
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
