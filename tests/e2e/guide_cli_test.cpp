// The Marvell guide's tvmc command lines, typed as the guide has them (issue
// 10): the LLVM target options, the cross compiler, the model file anywhere
// on the line, and run's --number/--repeat/--print-time/--fill-mode with
// tvmc's meanings. An unknown option is one line that names it.
#include <sstream>

#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include "io/npz.h"
#include "models.h"
#include "support/file_util.h"
#include "support/process.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

namespace mlipc::test::e2e_guide_cli {
namespace {

bool have(const std::string& tool) {
  return run_process({"sh", "-c", "command -v \"$0\" >/dev/null", tool}, fs::current_path(), 60).exit_code == 0;
}

struct GuideCli : public ::testing::Test {
  TempDir dir{"mlipc-guide"};
  void SetUp() override {
    // The guide's file names, in the folder the commands run in.
    fs::copy_file(model_cases()[0].dir / "model.onnx", dir.path() / "model.onnx");
    fs::copy_file(model_cases()[0].dir / "digit.npz", dir.path() / "infer.npz");
  }
  fs::path p(const std::string& name) const { return dir.path() / name; }
  ProcessResult mlipc(std::vector<std::string> args) const {
    args.insert(args.begin(), MLIPC_BINARY);
    return run_process(args, dir.path(), 600, {"SOURCE_DATE_EPOCH=1700000000"});
  }
  bool same_file(const std::string& a, const std::string& b) const { return read_file(p(a)) == read_file(p(b)); }
  std::string expect_error(const ProcessResult& r) const {
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(r.signal, 0);
    EXPECT_THAT(r.err, StartsWith("mlipc: error: "));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    return r.err;
  }
  // The guide's compile line, with its target and -mattr mode.
  std::vector<std::string> guide_compile(const std::string& target, const std::string& mode) const {
    return {"compile", "--target=" + target, "--target-llvm-mtriple=aarch64-linux-gnu",
            "--target-llvm-mcpu=neoverse-n2", "--target-mrvl-num_tiles=4",
            "--target-mrvl-mattr=" + mode + " -quantize=fp16 -wb_pin_ocm=1", "--cross-compiler",
            "aarch64-linux-gnu-gcc", "--output", "model.tar", "model.onnx"};
  }
  const std::vector<std::string> guide_run = {"run", "--inputs", "infer.npz", "--outputs", "predict.npz", "model.tar",
                                              "--number=0"};
};

class GuideLines : public GuideCli, public ::testing::WithParamInterface<std::string> {};

TEST_P(GuideLines, CompileAndRunAsTyped) {
  if (!have("aarch64-linux-gnu-gcc")) GTEST_SKIP() << "aarch64-linux-gnu-gcc missing (scripts/setup.sh installs it)";
  // The guide's lines unchanged ("hw" binds the regions to the device).
  ProcessResult c = mlipc(guide_compile(GetParam(), "hw"));
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_THAT(c.out, HasSubstr("hw mode"));
  ASSERT_TRUE(fs::exists(p("model.tar")));
  // The library for the device; no runner (no device driver to run it with).
  EXPECT_TRUE(fs::exists(p("model.aarch64-linux-gnu/libdefault.a")));
  EXPECT_FALSE(fs::exists(p("model.aarch64-linux-gnu/default_runner")));
  ProcessResult r = mlipc(guide_run);
  // Without the device, the run says so in one line.
  EXPECT_THAT(expect_error(r), HasSubstr("compiled for the MLIP hardware (-mattr=hw)"));
  EXPECT_FALSE(fs::exists(p("predict.npz")));

  // The same lines with the simulator: the run line as typed writes the
  // outputs, the same as a plain run.
  fs::remove(p("model.tar"));
  c = mlipc(guide_compile(GetParam(), "sim"));
  ASSERT_EQ(c.exit_code, 0) << c.err;
  r = mlipc(guide_run);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(p("model.aarch64-linux-gnu/default_runner")));
  ProcessResult plain = mlipc({"run", "model.tar", "--inputs", "infer.npz", "--outputs", "plain.npz"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_TRUE(same_file("predict.npz", "plain.npz"));
}

INSTANTIATE_TEST_SUITE_P(Targets, GuideLines, ::testing::Values("mrvl, llvm", "mrvl, c"),
                         [](const auto& info) { return info.param == "mrvl, c" ? "mrvl_c" : "mrvl_llvm"; });

// --cross-compiler for AArch64: lib<module>.a and the runner beside the
// tarball; `run` starts the runner under qemu-aarch64 and its outputs are the
// host build's bits.
TEST_P(GuideLines, CrossBuildRunsUnderQemuWithTheHostBits) {
  for (const char* tool : {"aarch64-linux-gnu-gcc", "qemu-aarch64"})
    if (!have(tool)) GTEST_SKIP() << tool << " missing (scripts/setup.sh installs it)";
  const std::string target = GetParam() == "mrvl, c" ? "mrvl, c" : "c";
  const std::vector<std::string> common = {"--target", target, "--target-mrvl-num_tiles=4",
                                           "--target-mrvl-mattr=sim -quantize=fp16 -wb_pin_ocm=1"};
  std::vector<std::string> cross = {"compile", "model.onnx", "-o", "cross.tar", "--target-llvm-mtriple=aarch64-linux-gnu",
                                    "--target-llvm-mcpu=neoverse-n2", "--cross-compiler", "aarch64-linux-gnu-gcc"};
  cross.insert(cross.end(), common.begin(), common.end());
  ProcessResult c = mlipc(cross);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_THAT(c.out, HasSubstr("cross      aarch64-linux-gnu -mcpu=neoverse-n2 with aarch64-linux-gnu-gcc"));
  const fs::path out = p("cross.aarch64-linux-gnu");
  ASSERT_TRUE(fs::exists(out / "libdefault.a"));
  ASSERT_TRUE(fs::exists(out / "default_runner"));
  ProcessResult nm = run_process({"aarch64-linux-gnu-nm", "--defined-only", (out / "libdefault.a").string()}, dir.path(), 60);
  ASSERT_EQ(nm.exit_code, 0) << nm.err;
  EXPECT_THAT(nm.out, HasSubstr(" T tvmgen_default_run\n"));
  EXPECT_THAT(nm.out, HasSubstr(" T mlip_model_run_checked\n"));

  std::vector<std::string> host = {"compile", "model.onnx", "-o", "host.tar"};
  host.insert(host.end(), common.begin(), common.end());
  ASSERT_EQ(mlipc(host).exit_code, 0);
  ProcessResult h = mlipc({"run", "host.tar", "-i", "infer.npz", "-o", "host.npz"});
  ASSERT_EQ(h.exit_code, 0) << h.err;
  ProcessResult q = mlipc({"run", "cross.tar", "-i", "infer.npz", "-o", "qemu.npz", "--number", "2", "--print-time"});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  EXPECT_THAT(q.out, HasSubstr("Execution time summary:"));
  EXPECT_TRUE(same_file("host.npz", "qemu.npz")) << "the AArch64 build under qemu-aarch64 differs from the host's bits";

  // Without qemu on PATH, or without the runner, one line says how to run it.
  ProcessResult noq = run_process({MLIPC_BINARY, "run", "cross.tar", "-i", "infer.npz"}, dir.path(), 600,
                                  {"PATH=" + p("empty").string()});
  EXPECT_THAT(expect_error(noq), HasSubstr("cross.tar is built for aarch64-linux-gnu: install qemu-user (qemu-aarch64)"));
  // The runner comes from the user's own build cache, never from beside the
  // tarball: with an empty cache, one line says so.
  ProcessResult nocache = run_process({MLIPC_BINARY, "run", "cross.tar", "-i", "infer.npz"}, dir.path(), 600,
                                      {"MLIPC_CACHE_DIR=" + p("fresh-cache").string()});
  EXPECT_THAT(expect_error(nocache), HasSubstr("build cache has no runner for it"));
}

TEST_F(GuideCli, ModelFileAnywhereOnTheLine) {
  ProcessResult c = mlipc({"compile", "model.onnx", "--target", "c", "-o", "a.tar"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  c = mlipc({"compile", "--target", "c", "model.onnx", "-o", "b.tar"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_TRUE(same_file("a.tar", "b.tar"));
}

TEST_F(GuideCli, TripleWithoutCrossCompilerIsRecordedOnly) {
  ProcessResult c = mlipc({"compile", "model.onnx", "--target-llvm-mtriple=aarch64-linux-gnu",
                           "--target-llvm-mcpu=neoverse-n2", "-o", "rec.tar"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_THAT(c.out, HasSubstr("cross      aarch64-linux-gnu -mcpu=neoverse-n2: recorded, nothing built"));
  EXPECT_FALSE(fs::exists(p("rec.aarch64-linux-gnu")));
  // The tarball's C is portable: run builds it for this machine.
  ProcessResult r = mlipc({"run", "rec.tar", "-i", "infer.npz", "-o", "rec.npz"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(GuideCli, UnknownOptionIsNamedNotTheModel) {
  std::string e = expect_error(mlipc({"compile", "--bogus=1", "model.onnx", "-o", "x.tar"}));
  EXPECT_THAT(e, HasSubstr("unknown option '--bogus'"));
  EXPECT_THAT(e, Not(HasSubstr("model.onnx")));
  e = expect_error(mlipc({"compile", "model.onnx", "--target-llvm-mattr=+neon", "-o", "x.tar"}));
  EXPECT_THAT(e, HasSubstr("unknown option '--target-llvm-mattr'"));
  EXPECT_FALSE(fs::exists(p("x.tar")));
  e = expect_error(mlipc({"run", "model.tar", "--numbr", "0"}));
  EXPECT_THAT(e, HasSubstr("unknown option '--numbr'"));
  e = expect_error(mlipc({"compile", "model.onnx", "other.onnx"}));
  EXPECT_THAT(e, HasSubstr("unexpected argument 'other.onnx'"));
  e = expect_error(mlipc({"compile", "--target", "c"}));
  EXPECT_THAT(e, HasSubstr("needs an ONNX model file"));
}

TEST_F(GuideCli, CrossCompilerIsAskedBeforeAnyWork) {
  if (!have("aarch64-linux-gnu-gcc")) GTEST_SKIP() << "aarch64-linux-gnu-gcc missing (scripts/setup.sh installs it)";
  std::string e = expect_error(mlipc({"compile", "model.onnx", "--target-llvm-mtriple=aarch64-linux-gnu",
                                      "--target-llvm-mcpu=cortex-m55", "--cross-compiler", "aarch64-linux-gnu-gcc",
                                      "-o", "x.tar"}));
  EXPECT_THAT(e, HasSubstr("--target-llvm-mcpu 'cortex-m55': aarch64-linux-gnu-gcc does not know -mcpu=cortex-m55"));
  e = expect_error(mlipc({"compile", "model.onnx", "--target-llvm-mtriple=aarch64-linux-gnu", "--cross-compiler", "gcc",
                          "-o", "x.tar"}));
  EXPECT_THAT(e, HasSubstr("the cross compiler 'gcc' builds for x86_64"));
  e = expect_error(mlipc({"compile", "model.onnx", "--cross-compiler", "no-such-gcc", "-o", "x.tar"}));
  EXPECT_THAT(e, HasSubstr("--cross-compiler 'no-such-gcc' cannot be run"));
  e = expect_error(mlipc({"compile", "model.onnx", "--cross-compiler", "aarch64-linux-gnu-gcc",
                          "--cross-compiler-options=-mno-such-flag", "-o", "x.tar"}));
  EXPECT_THAT(e, HasSubstr("--cross-compiler-options '-mno-such-flag': aarch64-linux-gnu-gcc refuses them"));
  e = expect_error(mlipc({"compile", "model.onnx", "--cross-compiler-options=-O2", "-o", "x.tar"}));
  EXPECT_THAT(e, HasSubstr("needs --cross-compiler"));
  EXPECT_FALSE(fs::exists(p("x.tar")));
}

// Issue 26, item 1: a triple is a name. With a path in it the cross build
// replaced the contents of a folder outside the output (the round-two
// review's first finding), and a folder of the user's named as the build's
// is never deleted.
TEST_F(GuideCli, TripleIsANameNeverAPath) {
  fs::create_directories(p("victim"));
  write_file(p("victim/data.txt"), "precious\n");
  fs::create_directories(p("cross"));
  for (const std::string triple : {"aarch64-linux-gnu/../../victim", "../victim", "aarch64 linux", ".hidden", "a..b"}) {
    ProcessResult r = run_process({MLIPC_BINARY, "compile", "../model.onnx", "--target", "c", "--cross-compiler",
                                   "aarch64-linux-gnu-gcc", "--target-llvm-mtriple", triple, "-o", "o.tar"},
                                  p("cross"), 600);
    std::string e = expect_error(r);
    EXPECT_THAT(e, HasSubstr("--target-llvm-mtriple")) << triple;
    EXPECT_THAT(e, HasSubstr("is not a target triple")) << triple;
  }
  EXPECT_EQ(read_file(p("victim/data.txt")), "precious\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(p("victim")), fs::directory_iterator()), 1);
  EXPECT_TRUE(fs::is_empty(p("cross")));  // no tarball, no o.<triple>/ folder
  if (!have("aarch64-linux-gnu-gcc")) GTEST_SKIP() << "aarch64-linux-gnu-gcc missing (scripts/setup.sh installs it)";
  // A folder of the user's where the build would go: refused before any work, untouched.
  fs::create_directories(p("o.aarch64-linux-gnu"));
  write_file(p("o.aarch64-linux-gnu/notes.txt"), "mine\n");
  std::string e = expect_error(mlipc({"compile", "model.onnx", "--target", "c", "--cross-compiler",
                                      "aarch64-linux-gnu-gcc", "--target-llvm-mtriple", "aarch64-linux-gnu", "-o",
                                      "o.tar"}));
  EXPECT_THAT(e, HasSubstr("holds 'notes.txt', which a cross build does not write"));
  EXPECT_EQ(read_file(p("o.aarch64-linux-gnu/notes.txt")), "mine\n");
  EXPECT_FALSE(fs::exists(p("o.tar")));
  // Its own build folder is replaced as before.
  fs::remove_all(p("o.aarch64-linux-gnu"));
  ProcessResult c = mlipc({"compile", "model.onnx", "--target", "c", "--cross-compiler", "aarch64-linux-gnu-gcc",
                           "--target-llvm-mtriple", "aarch64-linux-gnu", "-o", "o.tar"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  c = mlipc({"compile", "model.onnx", "--target", "c", "--cross-compiler", "aarch64-linux-gnu-gcc",
             "--target-llvm-mtriple", "aarch64-linux-gnu", "-o", "o.tar"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_TRUE(fs::exists(p("o.aarch64-linux-gnu/libdefault.a")));
}

TEST_F(GuideCli, NumberRepeatPrintTimeAsTvmc) {
  ASSERT_EQ(mlipc({"compile", "model.onnx", "-o", "model.tar"}).exit_code, 0);
  ProcessResult r = mlipc({"run", "model.tar", "--inputs", "infer.npz", "--number", "2", "--repeat", "3", "--print-time"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Execution time summary:"));
  EXPECT_THAT(r.out, HasSubstr("mean (ms)"));
  EXPECT_THAT(r.out, HasSubstr("std (ms)"));
  // --profile over several runs: each CPU layer's least time and the least
  // run as the total, so the layers' sum never exceeds it (a sum of minima
  // is at most the least run's sum; 0.1 us of rounding per row).
  ASSERT_EQ(mlipc({"compile", "model.onnx", "--target", "c", "-o", "cpu.tar"}).exit_code, 0);
  ProcessResult one = mlipc({"run", "cpu.tar", "--inputs", "infer.npz", "--profile"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_THAT(one.out, HasSubstr("profile (one run;"));
  ProcessResult many = mlipc({"run", "cpu.tar", "--inputs", "infer.npz", "--profile", "--number", "2", "--repeat", "3"});
  ASSERT_EQ(many.exit_code, 0) << many.err;
  EXPECT_THAT(many.out, HasSubstr("profile (6 runs: each CPU layer's least host time"));
  double sum = 0, total = -1;
  int rows = 0;
  std::istringstream lines(many.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream f(line);
    std::string first;
    f >> first;
    const double us = std::atof(line.substr(line.find_last_of(' ') + 1).c_str());
    if (first == "cpu") sum += us, ++rows;
    if (first == "total") total = us;
  }
  EXPECT_GT(rows, 0) << many.out;
  EXPECT_GT(total, 0) << many.out;
  EXPECT_LE(sum, total + 0.1 * rows) << many.out;
  EXPECT_THAT(expect_error(mlipc({"run", "model.tar", "--inputs", "infer.npz", "--number=0", "--print-time"})),
              HasSubstr("--print-time needs --number 1 or more"));
  EXPECT_THAT(expect_error(mlipc({"run", "model.tar", "--inputs", "infer.npz", "--repeat=0"})),
              HasSubstr("--repeat 0 is out of range (allowed: 1 to 1,000,000)"));
  EXPECT_THAT(expect_error(mlipc({"run", "model.tar", "--inputs", "infer.npz", "--number=-1"})),
              HasSubstr("--number -1 is out of range (allowed: 0 to 1,000,000)"));
}

TEST_F(GuideCli, FillModeWithoutInputs) {
  ASSERT_EQ(mlipc({"compile", "model.onnx", "-o", "model.tar"}).exit_code, 0);
  for (const char* mode : {"zeros", "ones", "random"}) {
    ASSERT_EQ(mlipc({"run", "model.tar", "--fill-mode", mode, "--outputs", std::string(mode) + ".npz"}).exit_code, 0);
    ASSERT_EQ(mlipc({"run", "model.tar", "--fill-mode", mode, "--outputs", std::string(mode) + "2.npz"}).exit_code, 0);
    EXPECT_TRUE(same_file(std::string(mode) + ".npz", std::string(mode) + "2.npz")) << mode;
  }
  EXPECT_FALSE(same_file("zeros.npz", "ones.npz"));
  EXPECT_FALSE(same_file("ones.npz", "random.npz"));
  // tvmc's default is random.
  ASSERT_EQ(mlipc({"run", "model.tar", "--outputs", "default.npz"}).exit_code, 0);
  EXPECT_TRUE(same_file("default.npz", "random.npz"));
  EXPECT_THAT(expect_error(mlipc({"run", "model.tar", "--fill-mode", "twos"})),
              HasSubstr("--fill-mode 'twos' (allowed: zeros, ones, random)"));
}

}  // namespace
}  // namespace mlipc::test::e2e_guide_cli
