// Hostile input, round two (issue 26, items 6 and 9 to 12, and NaN): the
// numeric options of every command, a tampered pipeline.json (inspect and
// run), the build cache (read-only, relative, a link behind a trailing
// slash, staging folders of processes that are gone), the messages of run
// about its inputs, a 10,000-layer model's build time, and NaN through the
// rectifiers and pools on both targets. Every refusal is one line starting
// "mlipc: error: ", exit status 1, nothing on stdout, no output file.
// docs/security.md lists each case with its message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "io/npz.h"
#include "mlf/archive.h"
#include "models.h"
#include "support/file_util.h"
#include "support/process.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using nlohmann::json;

namespace mlipc::test::e2e_robustness_run {
namespace {

struct RobustRun : public ::testing::Test {
  TempDir dir{"mlipc-robust-run"};
  fs::path p(const std::string& name) const { return dir.path() / name; }
  fs::path cache() const { return dir.path() / "cache"; }

  ProcessResult mlipc(std::vector<std::string> args, std::vector<std::string> env = {}) const {
    args.insert(args.begin(), MLIPC_BINARY);
    bool has_cache = false;
    for (const std::string& e : env) has_cache = has_cache || e.rfind("MLIPC_CACHE_DIR", 0) == 0;
    if (!has_cache) env.push_back("MLIPC_CACHE_DIR=" + cache().string());
    return run_process(args, dir.path(), 900, env);
  }
  // The one-line error contract: exit 1, one line on stderr, nothing on stdout.
  std::string expect_error(const ProcessResult& r) const {
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(r.signal, 0);
    EXPECT_THAT(r.err, StartsWith("mlipc: error: "));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "");
    return r.err;
  }
  void expect_ok(const ProcessResult& r) const {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.signal, 0);
  }
  fs::path digits() const { return model_cases()[0].dir / "model.onnx"; }
  fs::path digit_npz() const { return model_cases()[0].dir / "digit.npz"; }
  fs::path compile(const fs::path& model, std::vector<std::string> extra, const std::string& out) const {
    std::vector<std::string> args = {"compile", model.string(), "-o", p(out).string()};
    args.insert(args.end(), extra.begin(), extra.end());
    ProcessResult r = mlipc(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return p(out);
  }
  // Files of `dir` whose names start with a dot (staging folders).
  std::vector<std::string> hidden(const fs::path& folder) const {
    std::vector<std::string> v;
    for (const auto& e : fs::directory_iterator(folder))
      if (e.path().filename().string().rfind(".", 0) == 0) v.push_back(e.path().filename().string());
    std::sort(v.begin(), v.end());
    return v;
  }
};

// ------------------------------------------------- item 9: numeric options

TEST_F(RobustRun, EveryNumericOptionNamesItselfAndItsRange) {
  const std::string model = digits().string();
  const std::string out = p("o.tar").string();
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      // --pes: -1 built a single-device tarball; 2147483648 was CLI11's text, exit 104.
      {{"compile", model, "-o", out, "--pes", "-1"}, "--pes -1 is out of range (allowed: 1 to 4,096)"},
      {{"compile", model, "-o", out, "--pes", "-5"}, "--pes -5 is out of range (allowed: 1 to 4,096)"},
      {{"compile", model, "-o", out, "--pes", "0"}, "--pes 0 is out of range (allowed: 1 to 4,096)"},
      {{"compile", model, "-o", out, "--pes", "2147483648"}, "--pes 2147483648 is out of range (allowed: 1 to 4,096)"},
      {{"compile", model, "-o", out, "--pes", "99999999999999999999999"}, "--pes 99999999999999999999999 is out of range"},
      {{"compile", model, "-o", out, "--pes", "abc"}, "--pes 'abc' is not a whole number (allowed: 1 to 4,096)"},
      {{"compile", model, "-o", out, "--pes", "2.5"}, "--pes '2.5' is not a whole number"},
      {{"compile", model, "-o", out, "--pes", ""}, "--pes '' is not a whole number"},
      {{"compile", model, "-o", out, "--pes", " 2"}, "--pes ' 2' is not a whole number"},
      // --pe-memory: 17179869185G wrapped to 1 GiB; '' meant no limit.
      {{"compile", model, "-o", out, "--pes", "2", "--pe-memory", "17179869185G"},
       "--pe-memory '17179869185G' is more than 1 TiB (allowed: 1 byte to 1 TiB"},
      {{"compile", model, "-o", out, "--pes", "2", "--pe-memory", "99999999999999999999999999"},
       "--pe-memory '99999999999999999999999999' is more than 1 TiB"},
      {{"compile", model, "-o", out, "--pes", "2", "--pe-memory", ""}, "--pe-memory '' is not a size (allowed: 1 byte"},
      {{"compile", model, "-o", out, "--pes", "2", "--pe-memory", "0KiB"}, "--pe-memory '0KiB' is out of range"},
      {{"compile", model, "-o", out, "--pes", "2", "--pe-memory", "-1"}, "--pe-memory '-1' is not a size"},
      {{"compile", model, "-o", out, "--pe-memory", ""}, "--pe-memory needs --pes"},
      {{"compile", model, "-o", out, "--workspace-byte-alignment", "abc"},
       "--workspace-byte-alignment 'abc' is not a whole number (allowed: a power of two from 1 to 4096)"},
      {{"compile", model, "-o", out, "--workspace-byte-alignment", "-16"},
       "--workspace-byte-alignment -16 must be a power of two from 1 to 4096"},
      {{"compile", model, "-o", out, "--workspace-byte-alignment", "18446744073709551632"},
       "--workspace-byte-alignment 18446744073709551632 must be a power of two from 1 to 4096"},
      {{"compile", model, "-o", out, "--calibration-percentile", "abc"},
       "--calibration-percentile 'abc' is not a finite number (allowed: above 0 and at most 100"},
      {{"compile", model, "-o", out, "--calibration-percentile", "nan"}, "--calibration-percentile 'nan' is not a finite number"},
      {{"compile", model, "-o", out, "--quantize-min-sqnr-db", "inf"},
       "--quantize-min-sqnr-db 'inf' is not a finite number (allowed: a finite number of dB"},
      {{"compile", model, "-o", out, "--quantize-min-sqnr-db", "1e999"}, "--quantize-min-sqnr-db '1e999' is not a finite number"},
      {{"compile", model, "-o", out, "--target", "mrvl, c", "--target-mrvl-num_tiles", "3"},
       "--target-mrvl-num_tiles 3 is not supported (allowed: 1, 2, 4, 8)"},
      {{"compile", model, "-o", out, "--target", "mrvl, c", "--target-mrvl-num_tiles", "99999999999"},
       "--target-mrvl-num_tiles '99999999999' is not supported (allowed: 1, 2, 4, 8)"},
      // run: --timeout abc and --print-top 99999999999 were CLI11's text, exit 104.
      {{"run", "t.tar", "--timeout", "abc"}, "--timeout 'abc' is not a whole number (allowed: 1 to 1,000,000 seconds)"},
      {{"run", "t.tar", "--timeout", "0"}, "--timeout 0 is out of range (allowed: 1 to 1,000,000 seconds)"},
      {{"run", "t.tar", "--timeout", "2147483648"}, "--timeout 2147483648 is out of range"},
      {{"run", "t.tar", "--build-timeout", "-3"}, "--build-timeout -3 is out of range (allowed: 1 to 1,000,000 seconds)"},
      {{"run", "t.tar", "--build-timeout", "1s"}, "--build-timeout '1s' is not a whole number"},
      {{"run", "t.tar", "--print-top", "99999999999"}, "--print-top 99999999999 is out of range (allowed: 0 to 1,000,000 values)"},
      {{"run", "t.tar", "--print-top", "-1"}, "--print-top -1 is out of range"},
      {{"run", "t.tar", "--print-top", "five"}, "--print-top 'five' is not a whole number"},
      {{"run", "t.tar", "--number", "-1"}, "--number -1 is out of range (allowed: 0 to 1,000,000)"},
      {{"run", "t.tar", "--number", "1e3"}, "--number '1e3' is not a whole number"},
      {{"run", "t.tar", "--repeat", "0"}, "--repeat 0 is out of range (allowed: 1 to 1,000,000)"},
      {{"run", "t.tar", "--number", "1000", "--repeat", "1001"}, "--number 1000 x --repeat 1001 is more than 1000000 runs"},
      // What the parser itself refuses: one line and exit 1 too.
      {{"run", "t.tar", "--timeout"}, "--timeout"},
      {{"compile", model, "-o", out, "--pes", "2", "--pes", "3"}, "--pes"},
      {{}, "subcommand"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt::format("{}", fmt::join(c.args, " ")));
    const std::string e = expect_error(mlipc(c.args));
    EXPECT_THAT(e, HasSubstr(c.message));
    EXPECT_FALSE(fs::exists(out));
  }
  EXPECT_FALSE(fs::exists(cache()));  // nothing was built
  // --help and --version still succeed.
  expect_ok(mlipc({"--version"}));
  expect_ok(mlipc({"run", "--help"}));
}

}  // namespace
}  // namespace mlipc::test::e2e_robustness_run
