// Bad input through the real command line: each gives one line on stderr
// starting "mlipc: error:", a non-zero exit, and no output file.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <fmt/format.h>

#include "io/npz.h"
#include "models.h"
#include "support/file_util.h"
#include "support/process.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace mlipc::test::e2e_cli_errors {
namespace {

struct Cli : public ::testing::Test {
  TempDir dir{"mlipc-cli"};
  fs::path p(const std::string& name) const { return dir.path() / name; }

  ProcessResult mlipc(std::vector<std::string> args) const {
    args.insert(args.begin(), MLIPC_BINARY);
    return run_process(args, dir.path(), 600);
  }
  // Checks the one-line error contract and returns the message.
  std::string expect_error(const ProcessResult& r) const {
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(r.signal, 0);
    EXPECT_THAT(r.err, StartsWith("mlipc: error: "));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    return r.err;
  }
  fs::path digits() const { return model_cases()[0].dir / "model.onnx"; }
  fs::path compiled_digits() const {
    ProcessResult r = mlipc({"compile", digits().string(), "--target", "c", "-o", p("digits.tar").string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return p("digits.tar");
  }
};

TEST_F(Cli, MissingModelFile) {
  std::string e = expect_error(mlipc({"compile", p("nope.onnx").string(), "-o", p("out.tar").string()}));
  EXPECT_THAT(e, HasSubstr("nope.onnx: no such file"));
  EXPECT_FALSE(fs::exists(p("out.tar")));
}

TEST_F(Cli, FileThatIsNotOnnx) {
  write_file(p("notes.onnx"), "these are my notes, not a model\n");
  std::string e = expect_error(mlipc({"compile", p("notes.onnx").string(), "-o", p("out.tar").string()}));
  EXPECT_THAT(e, HasSubstr("not an ONNX model"));
  EXPECT_FALSE(fs::exists(p("out.tar")));
}

TEST_F(Cli, TruncatedOnnxFile) {
  std::string bytes = read_file(digits());
  for (size_t cut : {bytes.size() / 2, bytes.size() - 7, size_t{100}}) {
    write_file(p("cut.onnx"), bytes.substr(0, cut));
    std::string e = expect_error(mlipc({"compile", p("cut.onnx").string(), "-o", p("out.tar").string()}));
    EXPECT_THAT(e, HasSubstr("cut.onnx"));
    EXPECT_FALSE(fs::exists(p("out.tar")));
  }
}

TEST_F(Cli, UnsupportedOperatorNamesNodeAndOp) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 4});
  b.node("Relu", {"x"}, {"r"}, {}, "first_relu");
  b.node("Bernoulli", {"r"}, {"y"}, {}, "my_bernoulli");  // random generators are out of scope
  b.output("y");
  fs::path model = b.save(dir.path());
  std::string e = expect_error(mlipc({"compile", model.string(), "-o", p("out.tar").string()}));
  EXPECT_THAT(e, HasSubstr("node 'my_bernoulli' (Bernoulli)"));
  EXPECT_THAT(e, HasSubstr("not supported"));
  EXPECT_FALSE(fs::exists(p("out.tar")));
}

TEST_F(Cli, UnknownTarget) {
  std::string e = expect_error(mlipc({"compile", digits().string(), "--target", "cuda", "-o", p("out.tar").string()}));
  EXPECT_THAT(e, HasSubstr("unknown --target 'cuda'"));
  EXPECT_THAT(e, HasSubstr("\"mrvl, c\""));
  EXPECT_FALSE(fs::exists(p("out.tar")));
}

TEST_F(Cli, DynamicInputWithoutShapesSaysHowToFix) {
  OnnxBuilder b;
  b.input("x", DType::Float32, {-1, 4});
  b.node("Relu", {"x"}, {"y"});
  b.output("y");
  fs::path model = b.save(dir.path());
  std::string e = expect_error(mlipc({"compile", model.string(), "-o", p("out.tar").string()}));
  EXPECT_THAT(e, HasSubstr("input 'x' has a dynamic dimension 'N' at axis 0"));
  EXPECT_THAT(e, HasSubstr("--input-shapes x:[1,4]"));
  ProcessResult ok = mlipc({"compile", model.string(), "--input-shapes", "x:[3,4]", "-o", p("out.tar").string()});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST_F(Cli, BadOptionValues) {
  expect_error(mlipc({"compile", digits().string(), "--memory-planner", "best", "-o", p("o.tar").string()}));
  expect_error(mlipc({"compile", digits().string(), "--workspace-byte-alignment", "12", "-o", p("o.tar").string()}));
  expect_error(mlipc({"compile", digits().string(), "--module-name", "9lives", "-o", p("o.tar").string()}));
  expect_error(mlipc({"compile", digits().string(), "--no-such-option"}));
  EXPECT_FALSE(fs::exists(p("o.tar")));
}

TEST_F(Cli, NpzMissingInput) {
  fs::path tar = compiled_digits();
  io::write_npz(p("in.npz"), {{"something_else", random_tensor(DType::Float32, {1, 1, 28, 28}, 1)}});
  std::string e = expect_error(mlipc({"run", tar.string(), "--inputs", p("in.npz").string(), "--outputs",
                                      p("out.npz").string()}));
  EXPECT_THAT(e, HasSubstr("'something_else' is not an input"));
  EXPECT_FALSE(fs::exists(p("out.npz")));
  io::write_npz(p("empty.npz"), {});
  e = expect_error(mlipc({"run", tar.string(), "--inputs", p("empty.npz").string(), "--outputs", p("out.npz").string()}));
  EXPECT_THAT(e, HasSubstr("empty.npz: no array 'Input3' for the input 'Input3' of "));
  EXPECT_FALSE(fs::exists(p("out.npz")));
}

TEST_F(Cli, NpzWrongShapeOrDtype) {
  fs::path tar = compiled_digits();
  io::write_npz(p("in.npz"), {{"Input3", random_tensor(DType::Float32, {1, 1, 28, 27}, 1)}});
  std::string e = expect_error(mlipc({"run", tar.string(), "--inputs", p("in.npz").string(), "--outputs",
                                      p("out.npz").string()}));
  EXPECT_THAT(e, HasSubstr("in.npz: array 'Input3' has shape [1,1,28,27], but the input 'Input3' of " + tar.string() + " has shape [1,1,28,28]"));
  io::write_npz(p("in64.npz"), {{"Input3", random_tensor(DType::Float64, {1, 1, 28, 28}, 1)}});
  e = expect_error(mlipc({"run", tar.string(), "--inputs", p("in64.npz").string(), "--outputs", p("out.npz").string()}));
  EXPECT_THAT(e, HasSubstr("in64.npz: array 'Input3' is float64, but the input 'Input3' of " + tar.string() + " is float32"));
  EXPECT_FALSE(fs::exists(p("out.npz")));
}

TEST_F(Cli, RunOfCorruptTarball) {
  write_file(p("bad.tar"), "not a tarball at all");
  std::string e = expect_error(mlipc({"run", p("bad.tar").string(), "--outputs", p("out.npz").string()}));
  EXPECT_THAT(e, HasSubstr("bad.tar"));
  EXPECT_FALSE(fs::exists(p("out.npz")));
}

TEST_F(Cli, CompileAndRunTheExample) {
  fs::path tar = compiled_digits();
  ProcessResult r = mlipc({"run", tar.string(), "--inputs", (model_cases()[0].dir / "digit.npz").string(), "--outputs",
                           p("out.npz").string(), "--print-top", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("index     7"));  // the image is a 7
  io::NamedTensors out = io::read_npz(p("out.npz"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].first, "Plus214_Output_0");
  EXPECT_EQ(out[0].second.shape(), (Shape{1, 10}));
}

}  // namespace
}  // namespace mlipc::test::e2e_cli_errors
