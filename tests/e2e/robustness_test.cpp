// Hostile input through the real command line (issue 9): the reproducers of
// tests/data/robustness, hostile paths (devices, FIFOs, outputs equal to
// inputs), tarballs and .npz files built to hurt, and interrupting `run`.
// Every refusal is one line on stderr starting "mlipc: error: ", an exit
// status between 1 and 127, no output file, bounded time and memory.
// docs/security.md lists each case with its message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <thread>

#include <fmt/format.h>

#include <onnx/onnx_pb.h>

#include "io/npz.h"
#include "mlf/archive.h"
#include "models.h"
#include "support/file_util.h"
#include "support/process.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

namespace mlipc::test::e2e_robustness {
namespace {

const fs::path kData = fs::path(MLIPC_TEST_DATA) / "robustness";

// A child started directly (not through run_process), for tests that signal
// it or read its resource use.
struct Child {
  pid_t pid = -1;
  fs::path err;
};

Child spawn(const std::vector<std::string>& args, const fs::path& dir, const std::vector<std::string>& env) {
  Child c;
  c.err = dir / fmt::format("stderr{}", static_cast<long>(std::chrono::steady_clock::now().time_since_epoch().count()));
  // The given variables, then the rest of ours.
  std::vector<std::string> ordered(env.begin(), env.end());
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    bool overridden = false;
    for (const std::string& o : env) overridden = overridden || o.substr(0, o.find('=')) == entry.substr(0, entry.find('='));
    if (!overridden) ordered.emplace_back(entry);
  }
  std::vector<char*> argv, envp;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (std::string& e : ordered) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string err = c.err.string();
  c.pid = fork();
  if (c.pid == 0) {
    int fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int devnull = open("/dev/null", O_WRONLY);
    if (fd < 0 || devnull < 0 || dup2(fd, 2) < 0 || dup2(devnull, 1) < 0 || chdir(dir.c_str()) != 0) _exit(126);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  return c;
}

// Waits up to `seconds` for the child; returns its status (or kills it and fails).
int wait_child(pid_t pid, int seconds, struct rusage* usage = nullptr) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  struct rusage ru {};
  for (;;) {
    pid_t w = wait4(pid, &status, WNOHANG, &ru);
    if (w == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      wait4(pid, &status, 0, &ru);
      ADD_FAILURE() << "child " << pid << " did not end within " << seconds << " s";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (usage) *usage = ru;
  return status;
}

// Processes whose command line contains every one of `needles`; with
// `argv0_prefix`, only those whose program path starts with it.
std::vector<pid_t> processes_with(const std::vector<std::string>& needles, const std::string& argv0_prefix = "") {
  std::vector<pid_t> found;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    // /proc files report size 0: read them as streams.
    std::string cmdline;
    std::FILE* f = std::fopen((e.path() / "cmdline").c_str(), "rb");
    if (!f) continue;
    char buf[4096];
    size_t n = std::fread(buf, 1, sizeof buf, f);
    std::fclose(f);
    cmdline.assign(buf, n);
    bool all = !cmdline.empty() && cmdline.rfind(argv0_prefix, 0) == 0;
    for (const std::string& s : needles) all = all && cmdline.find(s) != std::string::npos;
    if (all) found.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return found;
}

struct Robust : public ::testing::Test {
  TempDir dir{"mlipc-robust"};
  fs::path p(const std::string& name) const { return dir.path() / name; }
  fs::path cache() const { return dir.path() / "cache"; }

  ProcessResult mlipc(std::vector<std::string> args, std::vector<std::string> env = {}) const {
    args.insert(args.begin(), MLIPC_BINARY);
    env.push_back("MLIPC_CACHE_DIR=" + cache().string());
    return run_process(args, dir.path(), 600, env);
  }
  // The one-line error contract; returns the message.
  std::string expect_error(const ProcessResult& r) const {
    EXPECT_GE(r.exit_code, 1);
    EXPECT_LE(r.exit_code, 127);
    EXPECT_EQ(r.signal, 0);
    EXPECT_FALSE(r.timed_out);
    EXPECT_THAT(r.err, StartsWith("mlipc: error: "));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    return r.err;
  }
  void expect_ok(const ProcessResult& r) const {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.signal, 0);
  }
  fs::path digits() const { return model_cases()[0].dir / "model.onnx"; }
  fs::path digit_npz() const { return model_cases()[0].dir / "digit.npz"; }
  fs::path compile(const fs::path& model, const std::string& target, const std::string& out) const {
    ProcessResult r = mlipc({"compile", model.string(), "--target", target, "-o", p(out).string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return p(out);
  }
  // A copy of `tar` with `edit` applied to its files.
  fs::path edited(const fs::path& tar, const std::string& out, const std::function<void(mlf::FileMap&)>& edit) const {
    mlf::FileMap files = mlf::read_tar(tar);
    edit(files);
    mlf::write_tar(p(out), files);
    return p(out);
  }
};

// ---------------------------------------------------------------- hostile shapes

TEST_F(Robust, HostileShapesAreRefusedWithTheRealNumbers) {
  struct Case {
    const char* file;
    const char* message;
  };
  const Case cases[] = {
      {"in_int64max.onnx", "[1,3,9223372036854775807,1] has more elements than fit in 64 bits"},
      {"pads_int64max.onnx", "the padded input (8 + 9223372036854775807 + 0 cells) has more cells than fit in 64 bits"},
      {"reshape_huge.onnx", "shape [4611686018427387904,4] asks for more elements than fit in 64 bits"},
      {"w_dims_overflow.onnx", "initializer 'W': shape [4294967296,4294967296,1,1] has more elements than fit"},
      {"w_dims_overflow2.onnx", "initializer 'W': shape [4611686018427387904,8,3,3] has more elements than fit"},
  };
  for (const Case& c : cases)
    for (const char* target : {"c", "mrvl, c"}) {
      SCOPED_TRACE(fmt::format("{} on {}", c.file, target));
      std::string e = expect_error(mlipc({"compile", (kData / c.file).string(), "--target", target, "-o", p("o.tar")}));
      EXPECT_THAT(e, HasSubstr(c.message));
      EXPECT_FALSE(fs::exists(p("o.tar")));
    }
}

TEST_F(Robust, TensorAndNodeCountLimits) {
  OnnxBuilder big;
  big.input("x", DType::Float32, {1, (int64_t{1} << 28) + 1});
  big.node("Relu", {"x"}, {"y"});
  big.output("y");
  std::string e = expect_error(mlipc({"compile", big.save(dir.path(), "big.onnx").string(), "-o", p("o.tar")}));
  EXPECT_THAT(e, HasSubstr("input 'x': float32 [1,268435457] is 1073741828 bytes, more than mlipc's limit for one "
                           "tensor (1 GiB)"));
  // A graph within the limit on the input, whose intermediate exceeds it.
  OnnxBuilder grow;
  grow.input("x", DType::Float32, {1, 1 << 27});
  grow.node("Concat", {"x", "x", "x"}, {"z"}, {{"axis", int64_t{1}}}, "cat");
  grow.output("z");
  e = expect_error(mlipc({"compile", grow.save(dir.path(), "grow.onnx").string(), "-o", p("o.tar")}));
  EXPECT_THAT(e, HasSubstr("node 'cat' (Concat): float32 [1,402653184] is 1610612736 bytes, more than mlipc's limit"));
  OnnxBuilder many;
  many.input("x", DType::Float32, {1});
  std::string prev = "x";
  for (int i = 0; i < 65537; ++i) {
    std::string next = "t" + std::to_string(i);
    many.node("Identity", {prev}, {next});
    prev = next;
  }
  many.output(prev);
  e = expect_error(mlipc({"compile", many.save(dir.path(), "many.onnx").string(), "-o", p("o.tar")}));
  EXPECT_THAT(e, HasSubstr("the graph has 65537 nodes, more than mlipc compiles (65536)"));
  EXPECT_FALSE(fs::exists(p("o.tar")));
}

// Issue 26, item 7: constants that folding makes are bounded in all, not
// only one by one (limits::kMaxFoldedBytes, 128 MiB), and refused before
// they are computed: quickly, with no output.
TEST_F(Robust, FoldedConstantsAreBoundedInAll) {
  std::string e = expect_error(mlipc({"compile", (kData / "const256m.onnx").string(), "-o", p("o.tar")}));
  EXPECT_THAT(e, HasSubstr("node 'cos0' (ConstantOfShape): folding it at compile time would make 268435456 bytes of "
                           "constants, 268435456 in all with the nodes folded before it, more than mlipc folds "
                           "(134217728 bytes)"));
  e = expect_error(mlipc({"compile", (kData / "fold64m_x8.onnx").string(), "-o", p("o.tar")}));
  EXPECT_THAT(e, HasSubstr("node 'fold1' (Add): folding it at compile time would make 67108864 bytes of constants, "
                           "201326592 in all"));
  EXPECT_FALSE(fs::exists(p("o.tar")));
  // Within the total a constant folds as before.
  OnnxBuilder ok;
  ok.input("x", DType::Float32, {4});
  ok.initializer("s", TensorData::from<int64_t>({1}, {4}));
  ok.node("ConstantOfShape", {"s"}, {"k"}, {{"value", TensorData::from<float>({1}, {2.0f})}});
  ok.node("Add", {"k", "x"}, {"y"});
  ok.output("y");
  ASSERT_EQ(mlipc({"compile", ok.save(dir.path(), "ok.onnx").string(), "-o", p("o.tar")}).exit_code, 0);
}

TEST_F(Robust, PoolPadsNotSmallerThanTheKernelAreRefused) {
  for (const char* file : {"pool_pads_ge_kernel.onnx", "avgpool_pads_big.onnx"})
    for (const char* target : {"c", "mrvl, c"}) {
      SCOPED_TRACE(fmt::format("{} on {}", file, target));
      std::string e = expect_error(mlipc({"compile", (kData / file).string(), "--target", target, "-o", p("o.tar")}));
      EXPECT_THAT(e, HasSubstr("must be smaller than the window"));
      EXPECT_FALSE(fs::exists(p("o.tar")));
    }
}

TEST_F(Robust, ZeroSizeTensorsCompileAndRunOnBothTargets) {
  struct Case {
    const char* file;
    io::NamedTensors inputs;
    Shape out_shape;
  };
  const Case cases[] = {
      {"batch0.onnx", {{"X", TensorData(DType::Float32, {0, 3, 8, 8})}}, {0, 4, 4, 4}},
      {"add_zero.onnx", {{"x0", TensorData(DType::Float32, {0, 3})}, {"x1", TensorData(DType::Float32, {0, 3})}}, {0, 3}},
      {"globalavg_zero_hw.onnx", {{"x0", TensorData(DType::Float32, {1, 2, 0, 0})}}, {1, 2, 1, 1}},
  };
  for (const Case& c : cases) {
    io::write_npz(p("in.npz"), c.inputs);
    for (const char* target : {"c", "mrvl, c"}) {
      SCOPED_TRACE(fmt::format("{} on {}", c.file, target));
      fs::path tar = compile(kData / c.file, target, "zero.tar");
      ProcessResult r = mlipc({"run", tar.string(), "--inputs", p("in.npz"), "--outputs", p("out.npz")});
      expect_ok(r);
      io::NamedTensors out = io::read_npz(p("out.npz"));
      ASSERT_EQ(out.size(), 1u);
      EXPECT_EQ(out[0].second.shape(), c.out_shape);
      if (std::string(target) != "c") {
        // On the MLIP target everything stays on the CPU, with the reason.
        ProcessResult i = mlipc({"inspect", tar.string()});
        expect_ok(i);
        EXPECT_THAT(i.out, HasSubstr("on the CPU: zero-size tensor"));
        EXPECT_THAT(i.out, Not(HasSubstr("MLIP region")));
      }
      fs::remove(p("out.npz"));
    }
  }
}

TEST_F(Robust, WorkspaceAlignmentIsBounded) {
  for (const char* bad : {"2147483648", "8192", "12", "0"}) {
    std::string e = expect_error(
        mlipc({"compile", digits().string(), "--workspace-byte-alignment", bad, "-o", p("o.tar").string()}));
    EXPECT_THAT(e, HasSubstr(fmt::format("--workspace-byte-alignment {} must be a power of two from 1 to 4096", bad)));
    EXPECT_FALSE(fs::exists(p("o.tar")));
  }
  expect_ok(mlipc({"compile", digits().string(), "--workspace-byte-alignment", "4096", "-o", p("o.tar").string()}));
}

// ---------------------------------------------------------------- messages

TEST_F(Robust, ExternalDataOffsetThatIsNotANumber) {
  std::string e = expect_error(mlipc({"compile", (kData / "ext_offset_garbage.onnx").string(), "-o", p("o.tar")}));
  EXPECT_THAT(e, HasSubstr("initializer 'W': external data offset 'abc' is not a non-negative whole number"));
  EXPECT_THAT(e, Not(HasSubstr("stoll")));
}

TEST_F(Robust, NamesWithControlCharactersArePrintedEscaped) {
  std::string e = expect_error(mlipc({"compile", (kData / "name_with_newline.onnx").string(), "-o", p("o.tar")}));
  EXPECT_THAT(e, HasSubstr("input '\\x08\\x01\\x12\\x04\\n\\x02\\x08\\x04'"));

  // A legal model whose names hold a newline, a tab, quotes, a backslash, a
  // comment end and a trigraph: it compiles, builds and runs on both
  // targets, and nothing printed holds a raw control byte.
  const std::string in = "in\nput\t\"1\"", out = "out\\*/?\?/\x1b[2J";
  OnnxBuilder b;
  b.input(in, DType::Float32, {1, 4});
  b.node("Relu", {in}, {out}, {}, "node\nwith\rbreaks");
  b.output(out);
  fs::path model = b.save(dir.path(), "names.onnx");
  io::write_npz(p("in.npz"), {{in, random_tensor(DType::Float32, {1, 4}, 3)}});
  for (const char* target : {"c", "mrvl, c"}) {
    SCOPED_TRACE(target);
    fs::path tar = compile(model, target, "names.tar");
    for (const ProcessResult& r : {mlipc({"inspect", tar.string()}),
                                   mlipc({"run", tar.string(), "--inputs", p("in.npz").string(), "--print-top", "2"}),
                                   mlipc({"run", tar.string(), "--inputs", p("in.npz").string()})}) {
      expect_ok(r);
      for (char c : r.out) EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20) << r.out;
    }
    ProcessResult r = mlipc({"run", tar.string(), "--inputs", p("in.npz").string()});
    EXPECT_THAT(r.out, HasSubstr("output 'out\\*/?\?/\\x1b[2J'"));
  }
  // An error quoting a name stays on one line.
  io::write_npz(p("bad.npz"), {{"x\ny", random_tensor(DType::Float32, {1, 4}, 3)}});
  e = expect_error(mlipc({"run", p("names.tar").string(), "--inputs", p("bad.npz").string()}));
  EXPECT_THAT(e, HasSubstr("'x\\ny' is not an input"));
}

// Found by fuzz_onnx: node names with bytes that are not UTF-8 made the
// MLIP nodes-JSON writer throw (nlohmann type_error 316) and abort. Names are
// text (they go into JSON and .npz keys): such a name is refused at import,
// printed escaped; names in UTF-8 beyond ASCII compile, build and run.
TEST_F(Robust, NamesThatAreNotUtf8AreRefused) {
  for (const char* target : {"c", "mrvl, c"}) {
    SCOPED_TRACE(target);
    std::string e = expect_error(
        mlipc({"compile", (kData / "name_invalid_utf8.onnx").string(), "--target", target, "-o", p("u.tar")}));
    EXPECT_THAT(e, HasSubstr("node '/blocks/blocks.0/se/ga\\xff\\xff\\xff}igmoid' is not valid UTF-8"));
    EXPECT_FALSE(fs::exists(p("u.tar")));
  }
  const auto model = [&](const std::string& in, const std::string& out, const std::string& node) {
    OnnxBuilder b;
    b.input(in, DType::Float32, {1, 4, 4, 4});
    b.node("Relu", {in}, {out}, {}, node);
    b.output(out);
    return b.save(dir.path(), "bytes.onnx");
  };
  std::string e = expect_error(mlipc({"compile", model("x", "y", "relu\xff\xc3").string(), "-o", p("u.tar")}));
  EXPECT_THAT(e, HasSubstr("node 'relu\\xff\\xc3' is not valid UTF-8"));
  e = expect_error(mlipc({"compile", model("x\xed\xa0\x80", "y", "r").string(), "-o", p("u.tar")}));
  EXPECT_THAT(e, HasSubstr("tensor 'x\\xed\\xa0\\x80' is not valid UTF-8"));  // a UTF-16 surrogate

  const std::string in = "entr\xc3\xa9" "e", out = "\xe5\x87\xba\xe5\x8a\x9b";
  fs::path m = model(in, out, "\xf0\x9f\x99\x82");
  io::write_npz(p("in.npz"), {{in, random_tensor(DType::Float32, {1, 4, 4, 4}, 5)}});
  for (const char* target : {"c", "mrvl, c"}) {
    SCOPED_TRACE(target);
    fs::path tar = compile(m, target, "utf8.tar");
    expect_ok(mlipc({"inspect", tar.string()}));
    ProcessResult r = mlipc({"run", tar.string(), "--inputs", p("in.npz").string()});
    expect_ok(r);
    EXPECT_THAT(r.out, HasSubstr("output '" + out + "'"));
  }
}

TEST_F(Robust, DamagedMetadataJsonGivesOneLineAndNoPartialOutput) {
  fs::path tar = compile(digits(), "mrvl, c", "good.tar");
  // A string where a number belongs, deep in the mlip section, which only
  // --profile and the report read: refused before the model is built.
  fs::path bad = edited(tar, "bad.tar", [](mlf::FileMap& f) {
    std::string& md = f["metadata.json"];
    const std::string key = "\"macs\": ";
    size_t at = md.rfind(key);
    ASSERT_NE(at, std::string::npos);
    md.insert(at + key.size(), "\"x\", \"was\": ");
  });
  for (const auto& args : {std::vector<std::string>{"inspect", bad.string()},
                           std::vector<std::string>{"run", bad.string(), "--inputs", digit_npz().string(), "--profile",
                                                    "--outputs", p("out.npz").string()}}) {
    ProcessResult r = mlipc(args);
    std::string e = expect_error(r);
    EXPECT_THAT(e, HasSubstr("bad.tar: metadata.json: the \"mlip\" key region 0"));
    EXPECT_THAT(e, HasSubstr("\"macs\" has the wrong type (string)"));
    EXPECT_THAT(e, Not(HasSubstr("json.exception")));
    EXPECT_EQ(r.out, "");  // nothing printed before the error
    EXPECT_FALSE(fs::exists(p("out.npz")));
  }
  // A fraction where mlipc writes whole numbers, nesting beyond reason, a
  // module name that would inject C, a region function that is not an identifier.
  const std::vector<std::pair<std::function<void(std::string&)>, std::string>> damages = {
      {[](std::string& md) { md.insert(md.rfind("\"est_cycles\": ") + 14, "1e300, \"was\": "); },
       "holds the number 1e+300, where mlipc writes whole numbers only"},
      {[](std::string& md) { md.insert(md.rfind("\"est_cycles\": ") + 14, std::string(100, '[') + std::string(100, ']') + ", \"was\": "); },
       "metadata.json: nested deeper than 64 levels"},
      {[](std::string& md) {
         size_t at = md.find("\"default\": {");
         md.replace(at, 9, "\"x(); int y\"");
       },
       "metadata.json: module name 'x(); int y' is not a C identifier"},
      {[](std::string& md) {
         size_t at = md.find("\"function\": \"tvmgen_default_0_mlip_region");
         ASSERT_NE(at, std::string::npos);
         md.insert(at + 13, "x; system(0); ");
       },
       "MLIP region function 'x; system(0); tvmgen_default_0_mlip_region' is not a C identifier"},
  };
  for (const auto& damage : damages) {
    fs::path t = edited(tar, "damaged.tar", [&](mlf::FileMap& f) { damage.first(f["metadata.json"]); });
    std::string e = expect_error(mlipc({"run", t.string(), "--inputs", digit_npz().string()}));
    EXPECT_THAT(e, HasSubstr(damage.second));
    EXPECT_THAT(e, HasSubstr("damaged.tar"));
  }
}

TEST_F(Robust, BuildErrorsNameTheTarballAndTheFirstErrorLine) {
  fs::path tar = compile(digits(), "c", "good.tar");
  fs::path broken = edited(tar, "broken.tar", [](mlf::FileMap& f) {
    f["codegen/host/src/default_lib0.c"] += "\nthis is not C;\n";
  });
  std::string e = expect_error(mlipc({"run", broken.string(), "--inputs", digit_npz().string()}));
  EXPECT_THAT(e, StartsWith("mlipc: error: " + broken.string() + ": building the model with 'cc' failed: "));
  EXPECT_THAT(e, HasSubstr("error:"));
  EXPECT_THAT(e, HasSubstr("codegen/host/src/default_lib0.c"));
  EXPECT_THAT(e, Not(HasSubstr("mlipc-build")));
  EXPECT_THAT(e, Not(HasSubstr(cache().string())));
  // A compiler whose stderr starts with a linker warning: the error line is shown.
  write_file(p("fake-cc"), "#!/bin/sh\necho '/usr/bin/ld: warning: libfoo.so.1, needed by bar, not found' >&2\n"
                           "echo 'model.c:3:1: error: the real problem' >&2\nexit 1\n");
  fs::permissions(p("fake-cc"), fs::perms::owner_all);
  e = expect_error(mlipc({"run", tar.string(), "--inputs", digit_npz().string()}, {"CC=" + p("fake-cc").string()}));
  EXPECT_THAT(e, HasSubstr("failed: model.c:3:1: error: the real problem"));
  EXPECT_THAT(e, Not(HasSubstr("warning")));
  // A corrupt tarball is named as the user gave it.
  std::string bytes = read_file(tar);
  write_file(p("cut.tar"), bytes.substr(0, bytes.size() / 2));
  e = expect_error(mlipc({"run", p("cut.tar").string(), "--inputs", digit_npz().string()}));
  EXPECT_THAT(e, StartsWith("mlipc: error: " + p("cut.tar").string() + ": "));
}

// ---------------------------------------------------------------- hostile paths

TEST_F(Robust, OutputsOntoDevicesAndFifosAreRefused) {
  ASSERT_EQ(mkfifo(p("fifo").c_str(), 0600), 0);
  fs::path tar = compile(digits(), "c", "d.tar");
  for (const std::string& target : {std::string("/dev/null"), p("fifo").string()}) {
    SCOPED_TRACE(target);
    std::string e = expect_error(mlipc({"compile", digits().string(), "-o", target}));
    EXPECT_THAT(e, HasSubstr(fmt::format("-o {}: is a {}", target, target == "/dev/null" ? "character device" : "FIFO")));
    EXPECT_THAT(e, HasSubstr("mlipc writes its outputs to regular files only"));
    e = expect_error(mlipc({"run", tar.string(), "--inputs", digit_npz().string(), "--outputs", target}));
    EXPECT_THAT(e, HasSubstr(fmt::format("--outputs {}: is a", target)));
  }
  struct stat st {};
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  ASSERT_EQ(stat(p("fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  // A folder is refused too.
  fs::create_directory(p("folder"));
  EXPECT_THAT(expect_error(mlipc({"compile", digits().string(), "-o", p("folder").string()})), HasSubstr("is a directory"));
}

TEST_F(Robust, OutputEqualToAnInputIsRefused) {
  fs::copy_file(digits(), p("model.onnx"));
  const std::string before = read_file(p("model.onnx"));
  std::string e = expect_error(mlipc({"compile", p("model.onnx").string(), "-o", p("model.onnx").string()}));
  EXPECT_THAT(e, HasSubstr("is the input " + p("model.onnx").string()));
  // The same file under another name, and the default output name of a model called *.tar.
  fs::create_hard_link(p("model.onnx"), p("alias.tar"));
  expect_error(mlipc({"compile", p("model.onnx").string(), "-o", p("alias.tar").string()}));
  fs::copy_file(digits(), p("m.tar"));
  expect_error(mlipc({"compile", "m.tar"}));
  EXPECT_EQ(read_file(p("model.onnx")), before);
  EXPECT_EQ(read_file(p("m.tar")), before);

  fs::path tar = compile(digits(), "c", "t.tar");
  const std::string tar_bytes = read_file(tar);
  fs::copy_file(digit_npz(), p("in.npz"));
  e = expect_error(mlipc({"run", tar.string(), "--inputs", p("in.npz").string(), "--outputs", tar.string()}));
  EXPECT_THAT(e, HasSubstr("--outputs " + tar.string() + ": is the input"));
  e = expect_error(mlipc({"run", tar.string(), "--inputs", p("in.npz").string(), "--outputs", p("in.npz").string()}));
  EXPECT_THAT(e, HasSubstr("is the input"));
  EXPECT_EQ(read_file(tar), tar_bytes);
  EXPECT_EQ(read_file(p("in.npz")), read_file(digit_npz()));
}

TEST_F(Robust, DevicesFifosAndHugeFilesAsInputsAreRefusedAtOnce) {
  ASSERT_EQ(mkfifo(p("fifo").c_str(), 0600), 0);
  fs::path tar = compile(digits(), "c", "d.tar");
  for (const std::string& bad : {std::string("/dev/zero"), p("fifo").string()}) {
    SCOPED_TRACE(bad);
    const char* kind = bad == "/dev/zero" ? "is a character device" : "is a FIFO";
    EXPECT_THAT(expect_error(mlipc({"compile", bad, "-o", p("o.tar").string()})), HasSubstr(bad + ": " + kind));
    EXPECT_THAT(expect_error(mlipc({"run", bad})), HasSubstr(kind));
    EXPECT_THAT(expect_error(mlipc({"inspect", bad})), HasSubstr(kind));
    EXPECT_THAT(expect_error(mlipc({"run", tar.string(), "--inputs", bad})), HasSubstr(kind));
  }
  // Sparse files larger than the 2 GiB limit: refused from their size, not read.
  for (const char* name : {"huge.onnx", "huge.tar", "huge.npz"}) {
    { std::ofstream touch(p(name)); }
    fs::resize_file(p(name), uint64_t{3} << 30);
  }
  const std::string too_big = "is 3221225472 bytes, more than mlipc reads (2 GiB)";
  EXPECT_THAT(expect_error(mlipc({"compile", p("huge.onnx").string(), "-o", p("o.tar").string()})), HasSubstr(too_big));
  EXPECT_THAT(expect_error(mlipc({"inspect", p("huge.tar").string()})), HasSubstr(too_big));
  EXPECT_THAT(expect_error(mlipc({"run", tar.string(), "--inputs", p("huge.npz").string()})), HasSubstr(too_big));
  EXPECT_FALSE(fs::exists(p("o.tar")));
}

// `model` with initializer `name` moved to external data (the given keys;
// an empty value leaves the key out).
std::string externalize(const std::string& model, const std::string& name, const std::string& location,
                        const std::string& offset, const std::string& length) {
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(model));
  for (onnx::TensorProto& t : *m.mutable_graph()->mutable_initializer()) {
    if (t.name() != name) continue;
    t.clear_raw_data();
    t.clear_float_data();
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    for (const auto& [key, value] : {std::pair{"location", location}, {"offset", offset}, {"length", length}}) {
      if (value.empty()) continue;
      onnx::StringStringEntryProto* e = t.add_external_data();
      e->set_key(key);
      e->set_value(value);
    }
  }
  return m.SerializeAsString();
}

TEST_F(Robust, ExternalDataIsReadOnlyWhereItIsAndOnlyFromRegularFiles) {
  const TensorData w = random_tensor(DType::Float32, {1, 1, 3, 3}, 5);
  OnnxBuilder b;
  b.input("x", DType::Float32, {1, 1, 4, 4});
  b.initializer("w", w);
  b.node("Conv", {"x", "w"}, {"y"});
  b.output("y");
  const std::string model = b.bytes();
  // weights.bin: 64 bytes of padding, then the 36 bytes of w.
  write_file(p("weights.bin"), std::string(64, 'p') + std::string(reinterpret_cast<const char*>(w.raw()), w.nbytes()));
  auto compile_with = [&](const std::string& location, const std::string& offset, const std::string& length) {
    write_file(p("ext.onnx"), externalize(model, "w", location, offset, length));
    return mlipc({"compile", p("ext.onnx").string(), "-o", p("o.tar").string()});
  };
  expect_ok(compile_with("weights.bin", "64", "36"));
  expect_ok(compile_with("weights.bin", "64", ""));
  fs::remove(p("o.tar"));
  EXPECT_THAT(expect_error(compile_with("weights.bin", "1000", "")), HasSubstr("weights.bin: is 100 bytes; it has no 36 bytes at offset 1000"));
  EXPECT_THAT(expect_error(compile_with("weights.bin", "64", "8")),
              HasSubstr("initializer 'w': external data length 8 but the tensor needs 36 bytes"));
  EXPECT_THAT(expect_error(compile_with("weights.bin", "-4", "")), HasSubstr("external data offset '-4' is not a non-negative whole number"));
  EXPECT_THAT(expect_error(compile_with("weights.bin", "99999999999999999999999", "")), HasSubstr("is not a non-negative whole number"));
  EXPECT_THAT(expect_error(compile_with("/dev/zero", "", "")), HasSubstr("external data location '/dev/zero' must be relative"));
  ASSERT_EQ(mkfifo(p("fifo.bin").c_str(), 0600), 0);
  EXPECT_THAT(expect_error(compile_with("fifo.bin", "", "")), HasSubstr("fifo.bin: is a FIFO; mlipc reads regular files only"));
  fs::create_symlink("/dev/zero", p("zero.bin"));
  EXPECT_THAT(expect_error(compile_with("zero.bin", "", "")), HasSubstr("zero.bin: is a character device"));
  EXPECT_FALSE(fs::exists(p("o.tar")));
}

// ---------------------------------------------------------------- tarballs

TEST_F(Robust, TarballWithFilesMlipcDoesNotWriteIsNotBuilt) {
  fs::path tar = compile(digits(), "c", "d.tar");
  const std::vector<std::string> extras = {"codegen/host/src/extra.c", "codegen/host/src/default_lib0.c.orig",
                                           "runtime/src/core/evil.c", "Makefile", "codegen/host/include/x.h",
                                           "mlip/../x.bin"};
  for (const std::string& extra : extras) {
    SCOPED_TRACE(extra);
    if (extra.find("..") != std::string::npos) continue;  // the writer refuses it; see archive tests
    fs::path t = edited(tar, "extra.tar", [&](mlf::FileMap& f) { f[extra] = "int main(void) { for (;;) {} }\n"; });
    std::string e = expect_error(mlipc({"run", t.string(), "--inputs", digit_npz().string()}));
    EXPECT_THAT(e, HasSubstr(fmt::format("extra.tar: member '{}' is not a file mlipc compile writes", extra)));
  }
  // Nothing was built for any of them.
  bool built = false;
  if (fs::exists(cache()))
    for (const auto& e : fs::recursive_directory_iterator(cache())) built = built || e.path().filename() == "model_host";
  EXPECT_FALSE(built);
}

// The digits tarball with a model that never ends: a constructor that spins
// before main() (the file names stay those mlipc writes).
fs::path spinning_tarball(const Robust& t) {
  fs::path tar = t.compile(t.digits(), "c", "d.tar");
  return t.edited(tar, "spin.tar", [](mlf::FileMap& f) {
    f["codegen/host/src/default_lib0.c"] +=
        "\n__attribute__((constructor)) static void mlipc_test_spin(void) {\n"
        "  volatile int forever = 1;\n  while (forever) {\n  }\n}\n";
  });
}

TEST_F(Robust, RunTimeoutKillsTheModel) {
  fs::path tar = spinning_tarball(*this);
  std::string e = expect_error(mlipc({"run", tar.string(), "--inputs", digit_npz().string(), "--timeout", "1"}));
  EXPECT_THAT(e, HasSubstr("the model did not finish within 1 s (raise it with --timeout)"));
  EXPECT_TRUE(processes_with({"model_host"}, cache().string() + "/").empty());
  EXPECT_THAT(expect_error(mlipc({"run", tar.string(), "--timeout", "0"})), HasSubstr("--timeout 0 is out of range (allowed: 1 to 1,000,000 seconds)"));
}

TEST_F(Robust, BuildTimeoutKillsTheCompilerAndItsChildren) {
  // A duration of this process's own, so that another suite running the
  // same test at the same time (another worktree) is not mistaken for ours.
  const std::string naptime = fmt::format("300.{}", static_cast<long>(getpid()));
  write_file(p("slow-cc"), fmt::format("#!/bin/sh\nsleep {0} &\nsleep {0}\n", naptime));
  fs::permissions(p("slow-cc"), fs::perms::owner_all);
  fs::path tar = compile(digits(), "c", "d.tar");
  const auto t0 = std::chrono::steady_clock::now();
  std::string e = expect_error(mlipc({"run", tar.string(), "--inputs", digit_npz().string(), "--build-timeout", "1"},
                                     {"CC=" + p("slow-cc").string()}));
  EXPECT_THAT(e, HasSubstr("did not finish within 1 s (raise it with --build-timeout)"));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(120));
  // The compiler's whole process group is gone, the background sleep included.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  for (pid_t pid : processes_with({"sleep", naptime})) {
    std::string ppid_line;
    std::FILE* f = std::fopen(fmt::format("/proc/{}/status", pid).c_str(), "r");
    char buf[256];
    while (f && std::fgets(buf, sizeof buf, f))
      if (std::strncmp(buf, "PPid:", 5) == 0) ppid_line = buf;
    if (f) std::fclose(f);
    ADD_FAILURE() << "a 'sleep " << naptime << "' survived: pid " << pid << " " << ppid_line;
  }
}

class Interrupt : public Robust, public ::testing::WithParamInterface<int> {};

TEST_P(Interrupt, KillingRunLeavesNoChildProcess) {
  const int sig = GetParam();
  fs::path tar = spinning_tarball(*this);
  fs::create_directories(p("tmp"));
  Child c = spawn({MLIPC_BINARY, "run", tar.string(), "--inputs", digit_npz().string()}, dir.path(),
                  {"MLIPC_CACHE_DIR=" + cache().string(), "TMPDIR=" + p("tmp").string()});
  ASSERT_GT(c.pid, 0);
  // Wait for the built model to be running (its program is in the cache;
  // the compiler's command line also names model_host, but not as argv[0]).
  auto model = [&] { return processes_with({"model_host"}, cache().string() + "/"); };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  while (model().empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_FALSE(model().empty()) << read_file(c.err);
  ASSERT_EQ(kill(c.pid, sig), 0);
  int status = wait_child(c.pid, 60);
  ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status << ": " << read_file(c.err);
  EXPECT_EQ(WTERMSIG(status), sig);
  EXPECT_THAT(read_file(c.err), HasSubstr(fmt::format("mlipc: error: interrupted by {}", sig == SIGINT ? "SIGINT" : "SIGTERM")));
  EXPECT_TRUE(model().empty());
  // Its temporary folders went with it.
  for (const auto& e : fs::directory_iterator(p("tmp"))) ADD_FAILURE() << "left behind: " << e.path();
}

TEST_F(Robust, InterruptingTheBuildLeavesNoCompilerAndNoStagingFolder) {
  write_file(p("slow-cc"), "#!/bin/sh\nsleep 302 &\nsleep 302\n");
  fs::permissions(p("slow-cc"), fs::perms::owner_all);
  fs::path tar = compile(digits(), "c", "d.tar");
  fs::create_directories(p("tmp"));
  Child c = spawn({MLIPC_BINARY, "run", tar.string(), "--inputs", digit_npz().string()}, dir.path(),
                  {"MLIPC_CACHE_DIR=" + cache().string(), "TMPDIR=" + p("tmp").string(), "CC=" + p("slow-cc").string()});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (processes_with({"sleep", "302"}).size() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(processes_with({"sleep", "302"}).size(), 2u) << read_file(c.err);
  ASSERT_EQ(kill(c.pid, SIGINT), 0);
  int status = wait_child(c.pid, 60);
  ASSERT_TRUE(WIFSIGNALED(status)) << read_file(c.err);
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  EXPECT_TRUE(processes_with({"sleep", "302"}).empty());
  for (const auto& e : fs::directory_iterator(p("tmp"))) ADD_FAILURE() << "left behind: " << e.path();
  for (const auto& e : fs::directory_iterator(cache()))
    if (e.path().filename().string().rfind(".", 0) == 0) ADD_FAILURE() << "staging folder left: " << e.path();
}

// Issue 26, item 6: SIGKILL of mlipc during the build. PR_SET_PDEATHSIG
// reached the compiler driver only and its children lived on (cc1 here is
// the script's background sleep); the guard of the process group kills them
// all. The staging folder the build left is removed by the next build.
TEST_F(Robust, SigkillDuringTheBuildLeavesNoCompiler) {
  const std::string naptime = fmt::format("303.{}", static_cast<long>(getpid()));
  write_file(p("slow-cc"), fmt::format("#!/bin/sh\nsleep {0} &\nsleep {0}\n", naptime));
  fs::permissions(p("slow-cc"), fs::perms::owner_all);
  fs::path tar = compile(digits(), "c", "d.tar");
  Child c = spawn({MLIPC_BINARY, "run", tar.string(), "--inputs", digit_npz().string()}, dir.path(),
                  {"MLIPC_CACHE_DIR=" + cache().string(), "CC=" + p("slow-cc").string()});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (processes_with({"sleep", naptime}).size() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(processes_with({"sleep", naptime}).size(), 2u) << read_file(c.err);
  ASSERT_EQ(kill(c.pid, SIGKILL), 0);
  int status = wait_child(c.pid, 60);
  ASSERT_TRUE(WIFSIGNALED(status));
  const auto gone = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!processes_with({"sleep", naptime}).empty() && std::chrono::steady_clock::now() < gone)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(processes_with({"sleep", naptime}).empty());
}

INSTANTIATE_TEST_SUITE_P(Signals, Interrupt, ::testing::Values(SIGINT, SIGTERM),
                         [](const ::testing::TestParamInfo<int>& i) { return i.param == SIGINT ? "SIGINT" : "SIGTERM"; });

// ---------------------------------------------------------------- .npz

// A zip with one deflated member "<name>.npy": the .npy header of a float32
// array of `declared` shape, then `inflated` bytes of zeros after it. The
// central directory states `directory_size` as the member's size (the truth
// or a lie). Streamed through zlib: the bomb never exists in memory here.
void write_bomb(const fs::path& path, const std::string& name, const Shape& declared, uint64_t inflated,
                bool directory_tells_truth) {
  const std::string npy = io::write_npy(TensorData(DType::Float32, declared));
  const std::string header = npy.substr(0, npy.size() - static_cast<size_t>(tensor_bytes(DType::Float32, declared)));
  z_stream z{};
  ASSERT_EQ(deflateInit2(&z, 1, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string deflated;
  uLong crc = crc32(0, nullptr, 0);
  std::vector<unsigned char> zeros(1 << 20, 0), out(1 << 20);
  auto feed = [&](const unsigned char* data, size_t n, int flush) {
    z.next_in = const_cast<unsigned char*>(data);
    z.avail_in = static_cast<uInt>(n);
    do {
      z.next_out = out.data();
      z.avail_out = static_cast<uInt>(out.size());
      deflate(&z, flush);
      deflated.append(reinterpret_cast<char*>(out.data()), out.size() - z.avail_out);
    } while (z.avail_out == 0);
  };
  crc = crc32(crc, reinterpret_cast<const Bytef*>(header.data()), static_cast<uInt>(header.size()));
  feed(reinterpret_cast<const unsigned char*>(header.data()), header.size(), Z_NO_FLUSH);
  for (uint64_t left = inflated; left > 0;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(left, zeros.size()));
    crc = crc32(crc, zeros.data(), static_cast<uInt>(n));
    feed(zeros.data(), n, Z_NO_FLUSH);
    left -= n;
  }
  feed(nullptr, 0, Z_FINISH);
  deflateEnd(&z);
  const uint64_t usize = directory_tells_truth ? header.size() + inflated : npy.size();
  const std::string file = name + ".npy";
  auto u16 = [](std::string& s, uint32_t v) { s.push_back(char(v & 0xff)), s.push_back(char(v >> 8)); };
  auto u32 = [&](std::string& s, uint32_t v) { u16(s, v & 0xffff), u16(s, v >> 16); };
  std::string zip;
  u32(zip, 0x04034b50);
  u16(zip, 20), u16(zip, 0), u16(zip, 8), u16(zip, 0), u16(zip, 0x21);
  u32(zip, static_cast<uint32_t>(crc)), u32(zip, static_cast<uint32_t>(deflated.size())), u32(zip, static_cast<uint32_t>(usize));
  u16(zip, static_cast<uint32_t>(file.size())), u16(zip, 0);
  zip += file + deflated;
  const size_t cd = zip.size();
  u32(zip, 0x02014b50);
  u16(zip, 20), u16(zip, 20), u16(zip, 0), u16(zip, 8), u16(zip, 0), u16(zip, 0x21);
  u32(zip, static_cast<uint32_t>(crc)), u32(zip, static_cast<uint32_t>(deflated.size())), u32(zip, static_cast<uint32_t>(usize));
  u16(zip, static_cast<uint32_t>(file.size())), u16(zip, 0), u16(zip, 0), u16(zip, 0), u16(zip, 0);
  u32(zip, 0), u32(zip, 0);
  zip += file;
  const size_t cd_size = zip.size() - cd;
  u32(zip, 0x06054b50);
  u16(zip, 0), u16(zip, 0), u16(zip, 1), u16(zip, 1);
  u32(zip, static_cast<uint32_t>(cd_size)), u32(zip, static_cast<uint32_t>(cd)), u16(zip, 0);
  write_file(path, zip);
}

TEST_F(Robust, NpzMemberInflatingBeyondItsHeaderIsRefusedInBoundedMemory) {
  fs::path tar = compile(digits(), "c", "d.tar");
  const uint64_t inflated = uint64_t{768} << 20;
  for (bool truth : {true, false}) {
    SCOPED_TRACE(truth ? "directory states the inflated size" : "directory states the declared size");
    write_bomb(p("bomb.npz"), "Input3", {1, 1, 28, 28}, inflated, truth);
    Child c = spawn({MLIPC_BINARY, "run", tar.string(), "--inputs", p("bomb.npz").string(), "--outputs",
                     p("out.npz").string()},
                    dir.path(), {"MLIPC_CACHE_DIR=" + cache().string()});
    struct rusage ru {};
    int status = wait_child(c.pid, 300, &ru);
    const std::string err = read_file(c.err);
    ASSERT_TRUE(WIFEXITED(status)) << err;
    EXPECT_EQ(WEXITSTATUS(status), 1) << err;
    EXPECT_THAT(err, HasSubstr("bomb.npz: array 'Input3': "));
    EXPECT_THAT(err, HasSubstr(truth ? "the archive says it inflates to" : "inflates beyond the"));
    EXPECT_THAT(err, HasSubstr("<f4 [1,1,28,28]"));
    // ru_maxrss is in KiB: far below the 768 MiB the member inflates to.
    EXPECT_LT(static_cast<uint64_t>(ru.ru_maxrss), uint64_t{384} << 10) << "peak RSS " << ru.ru_maxrss << " KiB";
    EXPECT_FALSE(fs::exists(p("out.npz")));
  }
}

// ---------------------------------------------------------------- the build cache

// The cache keeps each object per what the compiler reads: a model with
// nothing on the MLIP writes the same C for "c" and for "mrvl, c", so the
// second build compiles and links nothing new and gives the same outputs;
// a changed source (another weight) compiles again.
TEST_F(Robust, BuildCacheCompilesEqualSourcesOnce) {
  auto count = [&](const char* sub) {
    size_t n = 0;
    if (fs::exists(cache() / sub))
      for (const auto& e : fs::directory_iterator(cache() / sub)) n += e.path().filename().string()[0] != '.';
    return n;
  };
  auto model = [&](float w, const std::string& file) {
    OnnxBuilder b;
    b.input("x", DType::Float32, {1, 4});
    b.initializer("w", TensorData::from<float>({1, 4}, {w, 2, 3, 4}));
    b.node("Sin", {"x"}, {"s"}).node("Pow", {"s", "w"}, {"y"}).output("y");  // neither runs on the MLIP
    return b.save(dir.path(), file);
  };
  io::write_npz(p("in.npz"), {{"x", random_tensor(DType::Float32, {1, 4}, 5)}});
  auto run = [&](const fs::path& tar, const std::string& out) {
    expect_ok(mlipc({"run", tar.string(), "--inputs", p("in.npz").string(), "--outputs", p(out).string()}));
    return io::read_npz(p(out));
  };
  // The runtime's files, in one shared folder (host/runtime_object.h); a
  // build folder keeps its program only.
  auto runtime_trees = [&] {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(cache())) n += e.path().filename().string().rfind("runtime-", 0) == 0;
    return n;
  };
  const fs::path onnx = model(1, "a.onnx");
  io::NamedTensors c_out = run(compile(onnx, "c", "c.tar"), "c.npz");
  const size_t objects = count("objects"), programs = count("programs");
  EXPECT_EQ(runtime_trees(), 1u);
  for (const auto& e : fs::directory_iterator(cache()))
    if (fs::is_directory(e) && e.path().filename().string().size() == 32) {
      std::vector<std::string> kept;
      for (const auto& f : fs::directory_iterator(e.path())) kept.push_back(f.path().filename().string());
      EXPECT_EQ(kept, std::vector<std::string>{"model_host"}) << e.path();
    }
  EXPECT_GT(objects, 2u);
  EXPECT_EQ(programs, 1u);
  fs::path mrvl = compile(onnx, "mrvl, c", "m.tar");
  EXPECT_NE(read_file(mrvl), read_file(p("c.tar")));  // another tarball (its metadata names the target)
  io::NamedTensors m_out = run(mrvl, "m.npz");
  EXPECT_EQ(count("objects"), objects);
  EXPECT_EQ(count("programs"), programs);
  ASSERT_EQ(m_out.size(), 1u);
  EXPECT_EQ(compare(m_out[0].second, c_out[0].second, 0, 0), "");
  // Another weight: the model's source changes, the runtime's objects do not.
  run(compile(model(5, "b.onnx"), "c", "b.tar"), "b.npz");
  EXPECT_GT(count("objects"), objects);
  EXPECT_LE(count("objects"), objects + 2);
  EXPECT_EQ(count("programs"), programs + 1);
  EXPECT_EQ(runtime_trees(), 1u);  // every tarball here ships the same runtime: extracted once
}

TEST_F(Robust, BuildCacheMustBePrivateToTheUser) {
  fs::path tar = compile(digits(), "c", "d.tar");
  // Writable by others: refused before anything is built or run from it.
  fs::create_directory(p("shared"));
  fs::permissions(p("shared"), fs::perms::all);
  std::string e = expect_error(mlipc({"run", tar.string(), "--inputs", digit_npz().string()},
                                     {"MLIPC_CACHE_DIR=" + p("shared").string()}));
  EXPECT_THAT(e, HasSubstr("the build cache " + p("shared").string() + " is writable by others (mode 777)"));
  // A symbolic link to a folder of ours is refused too (it could be swapped).
  fs::create_directory(p("real"));
  fs::create_directory_symlink(p("real"), p("link"));
  e = expect_error(mlipc({"run", tar.string(), "--inputs", digit_npz().string()},
                         {"MLIPC_CACHE_DIR=" + p("link").string()}));
  EXPECT_THAT(e, HasSubstr("is a symbolic link, not a folder"));
  // Without HOME, XDG_CACHE_HOME or MLIPC_CACHE_DIR: a private folder per
  // user under TMPDIR, created 0700 (never a shared /tmp/mlipc-cache).
  fs::create_directory(p("tmp"));
  const std::vector<std::string> no_home = {"HOME", "XDG_CACHE_HOME", "MLIPC_CACHE_DIR", "TMPDIR=" + p("tmp").string()};
  ProcessResult ok = run_process({MLIPC_BINARY, "run", tar.string(), "--inputs", digit_npz().string()}, dir.path(), 600,
                                 no_home);
  expect_ok(ok);
  const fs::path own = p("tmp") / fmt::format("mlipc-cache-{}", static_cast<unsigned long>(geteuid()));
  struct stat st {};
  ASSERT_EQ(lstat(own.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_EQ(st.st_uid, geteuid());
  // The same folder made readable by others (as if planted beforehand): refused.
  fs::permissions(own, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                           fs::perms::others_read | fs::perms::others_exec);
  ProcessResult r = run_process({MLIPC_BINARY, "run", tar.string(), "--inputs", digit_npz().string()}, dir.path(), 600,
                                no_home);
  EXPECT_THAT(expect_error(r), HasSubstr("is accessible by others (mode 755)"));
  // Owned by someone else (possible to arrange only as root).
  if (geteuid() == 0) {
    fs::permissions(own, fs::perms::owner_all);
    ASSERT_EQ(chown(own.c_str(), 65534, 65534), 0);
    r = run_process({MLIPC_BINARY, "run", tar.string(), "--inputs", digit_npz().string()}, dir.path(), 600, no_home);
    EXPECT_THAT(expect_error(r), HasSubstr("belongs to another user (uid 65534)"));
  }
}

}  // namespace
}  // namespace mlipc::test::e2e_robustness
