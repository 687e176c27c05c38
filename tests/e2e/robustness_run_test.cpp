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

fs::path model_file(const std::string& folder) { return fs::path(MLIPC_TEST_DATA) / "models" / folder / "model.onnx"; }

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
      {{"compile", model, "-o", out, "--weight-bits", "3"}, "--weight-bits '3' (allowed: 4, 8)"},
      {{"compile", model, "-o", out, "--weight-block-size", "0"},
       "--weight-block-size 0 is out of range (allowed: 1 to 65,536)"},
      {{"compile", model, "-o", out, "--weight-bits", "4"}, "--weight-bits 4 needs int8 quantization (--quantize int8)"},
      {{"compile", model_file("quant_qdq_mlperf_tiny_kws_dscnn").string(), "-o", out, "--quantize", "int8",
        "--weight-bits", "4"},
       "--weight-bits 4: the model is quantized already (QDQ or QOperator); its weights keep their width"},
      {{"compile", model, "-o", out, "--weight-rounding", "stochastic"}, "--weight-rounding 'stochastic' (allowed: nearest, gptq)"},
      {{"compile", model, "-o", out, "--weight-rounding", "gptq"}, "--weight-rounding gptq needs int8 quantization (--quantize int8)"},
      {{"compile", model_file("quant_qdq_mlperf_tiny_kws_dscnn").string(), "-o", out, "--quantize", "int8",
        "--weight-rounding", "gptq"},
       "--weight-rounding gptq: the model is quantized already (QDQ or QOperator); its weights are given"},
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

// ------------------------------------------------- item 10: pipeline.json

// A mesh tarball of kws_dscnn at 2 PEs with its pipeline.json edited.
struct Tamper {
  std::string name;
  std::function<void(json&)> edit;
  std::string message;  // after "pipeline.json: "
};

std::vector<Tamper> tamperings() {
  const std::string relu = "/body/body.11/Relu_output_0";
  return {
      {"drop_stage", [](json& p) { p["stages"].erase(1); }, "tensors[1].consumers[0] is 1, not a stage or -1 (the host)"},
      {"dup_stage", [](json& p) { p["stages"].push_back(p["stages"][1]); }, "stages has 3 entries, more than pes_requested (2)"},
      {"cycle",
       [](json& p) {
         p["stages"][0]["inputs"].push_back("output");
         p["tensors"][2]["consumers"].push_back(0);
       },
       "tensors[2].consumers[1] is stage 0, not after the tensor's producer (stage 1): data flows to later stages only"},
      {"cycle2",
       [=](json& p) {
         p["tensors"][1]["producer"] = 1;
         p["tensors"][1]["consumers"] = {0};
         p["stages"][0]["inputs"] = {"input", relu};
         p["stages"][1]["outputs"] = {"output", relu};
       },
       "tensors[1].consumers[0] is stage 0, not after the tensor's producer (stage 1)"},
      {"swap_stages", [](json& p) { std::swap(p["stages"][0], p["stages"][1]); },
       "stages[0].index is 1, not its place in \"stages\" (0)"},
      {"missing_module", [](json& p) { p["stages"][1]["module"] = "default_stage9"; p["stages"][1]["path"] = "default_stage9/"; },
       "stages[1].module 'default_stage9' is not the stage's module 'default_stage1'"},
      {"module_other", [](json& p) { p["stages"][1]["module"] = "default_stage0"; p["stages"][1]["path"] = "default_stage0/"; },
       "stages[1].module 'default_stage0' is not the stage's module 'default_stage1'"},
      {"path_dotdot", [](json& p) { p["stages"][1]["path"] = "../../etc/"; },
       "stages[1].path '../../etc/' is not the stage's folder 'default_stage1/'"},
      {"path_abs", [](json& p) { p["stages"][1]["path"] = "/etc/"; }, "stages[1].path '/etc/' is not the stage's folder"},
      {"huge_bytes", [](json& p) { p["tensors"][1]["bytes"] = 1000000000000000000ull; },
       "tensors[1].bytes is 1000000000000000000, not from 0 to 4503599627370496"},
      {"huge_shape", [](json& p) { p["tensors"][1]["shape"] = {1000000, 1000000, 1000000, 1000000}; p["tensors"][1]["bytes"] = 32000; },
       "tensors[1].shape[1] makes the tensor larger than mlipc's limit for one tensor (1073741824 bytes)"},
      {"huge_shape_consistent",
       [](json& p) { p["tensors"][1]["shape"] = {1, 64, 25, 500000}; p["tensors"][1]["bytes"] = 3200000000ull; },
       "tensors[1].shape[3] makes the tensor larger than mlipc's limit for one tensor"},
      {"shape_permuted", [](json& p) { p["tensors"][0]["shape"] = {1, 1, 10, 49}; },
       "stages[0].inputs[0] is 'input' float32 [1,1,10,49], but module default_stage0's input 0 is 'input' float32 [1,1,49,10]"},
      {"neg_shape", [](json& p) { p["tensors"][0]["shape"] = {1, -1, 49, -10}; },
       "tensors[0].shape[1] holds the number -1, not a dimension"},
      {"version2", [](json& p) { p["version"] = 2; }, "version 2 (this mlipc reads version 1)"},
      {"version_text", [](json& p) { p["version"] = "1"; }, "version \"1\" (this mlipc reads version 1)"},
      {"pe_huge", [](json& p) { p["stages"][1]["pe"] = 1000000000; }, "stages[1].pe is 1000000000, not from 0 to 4095"},
      {"pe_neg", [](json& p) { p["stages"][1]["pe"] = -7; }, "stages[1].pe is -7, not from 0 to 4095"},
      {"pe_other", [](json& p) { p["stages"][1]["pe"] = 0; }, "stages[1].pe is 0: mlipc runs stage 1 on PE 1"},
      {"clock0", [](json& p) { p["clock_mhz"] = 0; }, "clock_mhz is 0, not from 1 to 1000000"},
      {"clock_neg", [](json& p) { p["clock_mhz"] = -5.5; }, "clock_mhz is -5.5, not a finite number of 0 or more"},
      {"cycles0", [](json& p) { for (json& s : p["stages"]) s["est_cycles"] = 0; }, "stages[0].est_cycles is 0: every stage takes time"},
      {"cycles_neg", [](json& p) { p["stages"][0]["est_cycles"] = -100; }, "stages[0].est_cycles is -100, not from 0 to 4503599627370496"},
      {"slowest0", [](json& p) { p["estimates"]["slowest_stage_cycles"] = 0; },
       "estimates.slowest_stage_cycles is 0, not the slowest stage's est_cycles"},
      {"latency_lie", [](json& p) { p["estimates"]["latency_us"] = 1.0; }, "estimates.latency_us is 1.0, not"},
      {"dtype_c128", [](json& p) { p["tensors"][0]["dtype"] = "complex128"; }, "tensors[0].dtype 'complex128' is not a known dtype"},
      {"dtype_f64", [](json& p) { p["tensors"][0]["dtype"] = "float64"; p["tensors"][0]["bytes"] = 3920; },
       "stages[0].inputs[0] is 'input' float64 [1,1,49,10], but module default_stage0's input 0 is 'input' float32"},
      {"input_unknown", [](json& p) { p["stages"][0]["inputs"][0] = "nope"; }, "stages[0].inputs names 'nope', which is not in \"tensors\""},
      {"producer_oob", [](json& p) { p["tensors"][1]["producer"] = 5; }, "tensors[1].producer is 5, not from -1 to 1"},
      {"consumer_oob", [](json& p) { p["tensors"][1]["consumers"] = {99}; }, "tensors[1].consumers[0] is 99, not a stage or -1"},
      {"consumers_dup", [](json& p) { p["tensors"][1]["consumers"] = {1, 1}; }, "tensors[1].consumers[1] names stage 1 twice"},
      {"consumers_huge", [](json& p) { p["tensors"][1]["consumers"] = std::vector<int>(100000, 1); },
       "tensors[1].consumers has 100000 entries, more than 3"},
      {"tensor_inject",
       [=](json& p) {
         const std::string evil = "x\"); int pwn = system(\"touch /tmp/pwned_tensor\"); //";
         p["tensors"][1]["name"] = evil;
         p["stages"][0]["outputs"] = {evil};
         p["stages"][1]["inputs"] = {evil};
       },
       "stages[0].outputs[0] is 'x\"); int pwn = system(\"touch /tmp/pwned_tensor\"); //' float32 [1,64,25,5], but module "
       "default_stage0's output 0 is '/body/body.11/Relu_output_0'"},
      {"module_inject", [](json& p) { p["module_name"] = "x(); system(\"touch /tmp/pwned_mod\"); //"; },
       "module_name 'x(); system(\"touch /tmp/pwned_mod\"); //' is not a C identifier"},
      {"stage_module_inject", [](json& p) { p["stages"][1]["module"] = "default_stage1(); system(\"x\")"; },
       "stages[1].module 'default_stage1(); system(\"x\")' is not the stage's module 'default_stage1'"},
      {"no_stages", [](json& p) { p["stages"] = json::array(); }, "\"stages\" is empty"},
      {"stages_null", [](json& p) { p["stages"] = nullptr; }, "stages holds a null, where mlipc writes a list"},
      {"tensors_empty", [](json& p) { p["tensors"] = json::array(); }, "\"tensors\" is empty"},
      {"index_wrong", [](json& p) { p["stages"][1]["index"] = 7; }, "stages[1].index is 7, not its place in \"stages\" (1)"},
      {"float_index", [](json& p) { p["stages"][1]["index"] = 1.5; }, "stages[1].index holds the number 1.5, where mlipc writes a whole number"},
      {"outputs_empty", [](json& p) { p["outputs"] = json::array(); }, "\"outputs\" is empty: the model has at least one output"},
      {"inputs_dup", [](json& p) { p["inputs"] = {"input", "input"}; }, "inputs names 'input' twice"},
      {"many_stages", [](json& p) { p["stages"] = std::vector<json>(5000, p["stages"][0]); }, "stages has 5000 entries, more than 4096"},
      {"output_from_stage0", [=](json& p) { p["outputs"] = {relu}; },
       "outputs names '/body/body.11/Relu_output_0', whose \"consumers\" do not include -1 (the host)"},
      {"extra_key", [](json& p) { p["stages"][0]["command"] = "rm -rf /"; }, "stages[0] has the key 'command', which mlipc does not write"},
      {"memory_total_lie", [](json& p) { p["stages"][0]["memory"]["total_bytes"] = 1; },
       "stages[0].memory.total_bytes is 1, not the sum of the others"},
      {"name_not_utf8", [](json& p) { p["model_name"] = 5; }, "model_name holds the number 5, where mlipc writes a string"},
  };
}

TEST_F(RobustRun, TamperedPipelineJsonIsRefusedNamingTheField) {
  const fs::path mesh = compile(model_file("mlperf_tiny_kws_dscnn"), {"--target", "mrvl, c", "--pes", "2"}, "mesh.tar");
  const mlf::FileMap files = mlf::read_tar(mesh);
  const json base = json::parse(files.at("pipeline.json"));
  ASSERT_EQ(base["stages"].size(), 2u);
  // A stream of 2 samples for run.
  TensorData x = random_tensor(DType::Float32, {2, 1, 1, 49, 10}, 3);
  io::write_npz(p("in.npz"), {{"input", x}});
  // The untouched tarball runs.
  expect_ok(mlipc({"run", mesh.string(), "--inputs", p("in.npz").string(), "--outputs", p("ok.npz").string()}));
  for (const Tamper& t : tamperings()) {
    SCOPED_TRACE(t.name);
    json m = base;
    t.edit(m);
    mlf::FileMap edited = files;
    edited["pipeline.json"] = m.dump(2) + "\n";
    const fs::path tar = p(t.name + ".tar");
    mlf::write_tar(tar, edited);
    const std::string want = fmt::format("{}: pipeline.json: {}", tar.string(), t.message);
    EXPECT_THAT(expect_error(mlipc({"inspect", tar.string()})), HasSubstr(want));
    EXPECT_THAT(expect_error(mlipc({"run", tar.string(), "--inputs", p("in.npz").string(), "--outputs",
                                    p("out.npz").string()})),
                HasSubstr(want));
    EXPECT_FALSE(fs::exists(p("out.npz")));
  }
  // No pipeline.json at all; a stage folder missing; JSON too deep, not JSON.
  mlf::FileMap none = files;
  none.erase("pipeline.json");
  mlf::write_tar(p("none.tar"), none);
  EXPECT_THAT(expect_error(mlipc({"inspect", p("none.tar").string()})),
              HasSubstr("not an mlipc model library (no metadata.json, no pipeline.json)"));
  mlf::FileMap folder = files;
  for (auto it = folder.begin(); it != folder.end();) it = it->first.rfind("default_stage1/", 0) == 0 ? folder.erase(it) : std::next(it);
  mlf::write_tar(p("folder.tar"), folder);
  EXPECT_THAT(expect_error(mlipc({"inspect", p("folder.tar").string()})),
              HasSubstr("pipeline.json: stages[1].path 'default_stage1/': the tarball has no default_stage1/metadata.json"));
  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"deep", std::string(10000, '[') + std::string(10000, ']')}, {"garbage", "{\"version\": 1, "}}) {
    mlf::FileMap bad = files;
    bad["pipeline.json"] = text;
    mlf::write_tar(p(name + ".tar"), bad);
    EXPECT_THAT(expect_error(mlipc({"inspect", p(name + ".tar").string()})), HasSubstr("pipeline.json: "));
  }
  EXPECT_FALSE(fs::exists("/tmp/pwned_tensor"));
  EXPECT_FALSE(fs::exists("/tmp/pwned_mod"));
}

// ------------------------------------------------- item 11: the build cache

TEST_F(RobustRun, BuildCacheReadOnlyRelativeOrALinkWithATrailingSlash) {
  const fs::path tar = compile(digits(), {"--target", "c"}, "d.tar");
  const std::vector<std::string> run = {"run", tar.string(), "--inputs", digit_npz().string()};
  // A relative MLIPC_CACHE_DIR (the compiler runs elsewhere): it is taken
  // from the current folder, and the build works.
  std::vector<std::string> rel = run;
  expect_ok(mlipc(rel, {"MLIPC_CACHE_DIR=rel/cache"}));
  EXPECT_TRUE(fs::is_directory(p("rel/cache")));
  // A symbolic link named with a trailing slash (lstat would follow it).
  fs::create_directory(p("real"));
  fs::permissions(p("real"), fs::perms::owner_all);
  fs::create_directory_symlink(p("real"), p("link"));
  for (const std::string& form : {p("link").string() + "/", p("link").string() + "//", p("link").string() + "/."}) {
    SCOPED_TRACE(form);
    EXPECT_THAT(expect_error(mlipc(run, {"MLIPC_CACHE_DIR=" + form})),
                HasSubstr("the build cache " + p("link").string() + " is a symbolic link, not a folder"));
  }
  EXPECT_TRUE(fs::is_empty(p("real")));
  // A cache the user may not write (as root, only an immutable folder is).
  fs::create_directory(p("ro"));
  fs::permissions(p("ro"), fs::perms::owner_read | fs::perms::owner_exec);
  bool immutable = false;
  if (geteuid() == 0) {
    const int fd = open(p("ro").c_str(), O_RDONLY | O_DIRECTORY);
    int flags = 0;
    if (fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
      flags |= FS_IMMUTABLE_FL;
      immutable = ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
    }
    if (fd >= 0) close(fd);
    if (!immutable) GTEST_SKIP() << "root without an immutable folder: no read-only cache to try";
  }
  const std::string e = expect_error(mlipc(run, {"MLIPC_CACHE_DIR=" + p("ro").string()}));
  EXPECT_THAT(e, HasSubstr("cannot build into the build cache " + p("ro").string() + ": "));
  EXPECT_THAT(e, HasSubstr("make it writable (chmod 700) or set MLIPC_CACHE_DIR to another folder"));
  if (immutable) {
    const int fd = open(p("ro").c_str(), O_RDONLY | O_DIRECTORY);
    int flags = 0;
    ASSERT_GE(fd, 0);
    ioctl(fd, FS_IOC_GETFLAGS, &flags);
    flags &= ~FS_IMMUTABLE_FL;
    ioctl(fd, FS_IOC_SETFLAGS, &flags);
    close(fd);
  }
  fs::permissions(p("ro"), fs::perms::owner_all);
}

// ------------------------------------------------- item 6: staging folders

std::string host_tag() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "host";
  std::string tag;
  for (const char* c = name; *c && tag.size() < 64; ++c) tag += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '-';
  return tag;
}

// A pid that no process has now: a child that has ended and was reaped.
pid_t dead_pid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  int status = 0;
  waitpid(pid, &status, 0);
  return pid;
}

TEST_F(RobustRun, StagingFoldersOfProcessesThatAreGoneAreRemovedAndNoOthers) {
  const fs::path tar = compile(digits(), {"--target", "c"}, "d.tar");
  fs::create_directories(cache());
  fs::permissions(cache(), fs::perms::owner_all);
  const std::string host = host_tag();
  auto staging = [&](const std::string& h, long pid) {
    const std::string name = fmt::format(".0123abcd.stage.{}.{}.Xy12Zw", h, pid);
    fs::create_directories(cache() / name / ".tmp");
    write_file(cache() / name / ".tmp" / "half.o", std::string(4096, 'x'));
    return name;
  };
  const std::string dead = staging(host, dead_pid());
  const std::string live = staging(host, getpid());
  const std::string other_host = staging(host + "-elsewhere", dead_pid());
  // A process in another PID namespace: its pid means nothing here, but it
  // holds the folder's lock.
  const std::string locked = staging(host, dead_pid());
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  const pid_t holder = fork();
  if (holder == 0) {
    const int fd = open((cache() / locked / ".owner").c_str(), O_WRONLY | O_CREAT, 0600);
    flock(fd, LOCK_EX);
    char ready = 1;
    if (write(pipefd[1], &ready, 1) != 1) _exit(1);
    pause();
    _exit(0);
  }
  char ready = 0;
  ASSERT_EQ(read(pipefd[0], &ready, 1), 1);
  // A link named as a staging folder, to a folder outside the cache.
  fs::create_directory(p("outside"));
  write_file(p("outside/precious.txt"), "precious\n");
  const std::string link = fmt::format(".0123abcd.stage.{}.{}.Link00", host, dead_pid());
  fs::create_directory_symlink(p("outside"), cache() / link);

  expect_ok(mlipc({"run", tar.string(), "--inputs", digit_npz().string()}));
  kill(holder, SIGKILL);
  waitpid(holder, nullptr, 0);
  const std::vector<std::string> left = hidden(cache());
  EXPECT_THAT(left, ::testing::Not(::testing::Contains(dead)));
  EXPECT_THAT(left, ::testing::Contains(live));
  EXPECT_THAT(left, ::testing::Contains(other_host));
  EXPECT_THAT(left, ::testing::Contains(locked));
  EXPECT_THAT(left, ::testing::Contains(link));
  EXPECT_EQ(read_file(p("outside/precious.txt")), "precious\n");
  // The locked folder's owner is gone now: the next build removes it.
  const fs::path other = compile(digits(), {"--target", "c", "--module-name", "again"}, "again.tar");
  expect_ok(mlipc({"run", other.string(), "--fill-mode", "zeros"}));
  EXPECT_THAT(hidden(cache()), ::testing::Not(::testing::Contains(locked)));
}

// The cache keeps each build's program only (the extracted tarball went to
// objects/ or is not needed again); a run marks what it uses; a wrong size
// limit is one line before anything is built.
TEST_F(RobustRun, BuildFoldersKeepTheirProgramOnlyAndTheSizeLimitIsChecked) {
  const fs::path tar = compile(digits(), {"--target", "c"}, "d.tar");
  const std::vector<std::string> run = {"run", tar.string(), "--inputs", digit_npz().string()};
  const std::string e = expect_error(mlipc(run, {"MLIPC_CACHE_MAX_SIZE=4GB"}));
  EXPECT_THAT(e, HasSubstr("MLIPC_CACHE_MAX_SIZE '4GB': give a size in bytes"));
  EXPECT_FALSE(fs::exists(cache()) && !fs::is_empty(cache())) << "nothing built before the check";
  expect_ok(mlipc(run, {"MLIPC_CACHE_MAX_SIZE=64M"}));
  std::vector<fs::path> builds;
  for (const auto& entry : fs::directory_iterator(cache()))
    if (entry.path().filename().string().size() == 32) builds.push_back(entry.path());
  ASSERT_EQ(builds.size(), 1u);
  std::vector<std::string> in_build;
  for (const auto& entry : fs::directory_iterator(builds[0])) in_build.push_back(entry.path().filename().string());
  EXPECT_THAT(in_build, ::testing::ElementsAre("model_host"));
  EXPECT_TRUE(fs::exists(cache() / ".trimmed"));
  // A second run is a cache hit that marks the build used.
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(5);
  fs::last_write_time(builds[0], old);
  expect_ok(mlipc(run));
  EXPECT_GT(fs::last_write_time(builds[0]), old + std::chrono::hours(4));
}

TEST_F(RobustRun, SigkillDuringTheBuildLeavesAStagingFolderTheNextBuildRemoves) {
  const std::string naptime = fmt::format("304.{}", static_cast<long>(getpid()));
  write_file(p("slow-cc"), fmt::format("#!/bin/sh\nsleep {0} &\nsleep {0}\n", naptime));
  fs::permissions(p("slow-cc"), fs::perms::owner_all);
  const fs::path tar = compile(digits(), {"--target", "c"}, "d.tar");
  const std::string bin = MLIPC_BINARY;
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string cache_env = "MLIPC_CACHE_DIR=" + cache().string(), cc_env = "CC=" + p("slow-cc").string();
    setenv("MLIPC_CACHE_DIR", cache().c_str(), 1);
    setenv("CC", p("slow-cc").c_str(), 1);
    const int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execl(bin.c_str(), bin.c_str(), "run", tar.c_str(), "--inputs", digit_npz().c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until the staging folder exists and the compiler runs, then SIGKILL.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  auto staging_exists = [&] {
    std::error_code ec;
    if (!fs::is_directory(cache(), ec)) return false;
    for (const auto& e : fs::directory_iterator(cache(), ec))
      if (e.path().filename().string().find(fmt::format(".stage.{}.{}.", host_tag(), pid)) != std::string::npos) return true;
    return false;
  };
  auto compiler_runs = [&] {
    for (const auto& e : fs::directory_iterator("/proc")) {
      std::FILE* f = std::fopen((e.path() / "cmdline").c_str(), "rb");
      if (!f) continue;
      char buf[512];
      const size_t n = std::fread(buf, 1, sizeof buf, f);
      std::fclose(f);
      if (std::string(buf, n).find(naptime) != std::string::npos) return true;
    }
    return false;
  };
  while (!(staging_exists() && compiler_runs()) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(staging_exists());
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(staging_exists());  // SIGKILL runs no cleanup
  // The next build (the system compiler) removes it and succeeds.
  expect_ok(mlipc({"run", tar.string(), "--inputs", digit_npz().string()}));
  EXPECT_FALSE(staging_exists());
  // Only the size limit's stamp (cache_trim.h) is left of the hidden files.
  EXPECT_THAT(hidden(cache()), ::testing::ElementsAre(".trimmed"));
}

// ------------------------------------------------- item 12: run's messages

TEST_F(RobustRun, InputMessagesNameTheNpzTheArrayAndTheTarball) {
  const fs::path tar = compile(digits(), {"--target", "c"}, "d.tar");
  const TensorData digit = io::read_npz(digit_npz()).front().second;
  io::write_npz(p("f64.npz"), {{"Input3", digit.cast(DType::Float64)}});
  io::write_npz(p("shape.npz"), {{"Input3", TensorData(DType::Float32, {1, 28, 28})}});
  io::write_npz(p("wrongname.npz"), {{"image", digit}});
  io::write_npz(p("empty.npz"), {});
  const std::string t = tar.string();
  struct Case {
    std::string npz, message;
  };
  for (const Case& c : std::vector<Case>{
           {"f64.npz", "{npz}: array 'Input3' is float64, but the input 'Input3' of {tar} is float32"},
           {"shape.npz", "{npz}: array 'Input3' has shape [1,28,28], but the input 'Input3' of {tar} has shape [1,1,28,28]"},
           {"wrongname.npz", "{npz}: array 'image' is not an input of {tar} (its inputs: Input3)"},
           {"empty.npz", "{npz}: no array 'Input3' for the input 'Input3' of {tar} (its inputs: Input3)"},
       }) {
    SCOPED_TRACE(c.npz);
    const std::string want = fmt::format(fmt::runtime(c.message), fmt::arg("npz", p(c.npz).string()), fmt::arg("tar", t));
    EXPECT_THAT(expect_error(mlipc({"run", t, "--inputs", p(c.npz).string(), "--outputs", p("o.npz").string()})),
                HasSubstr(want));
    EXPECT_FALSE(fs::exists(p("o.npz")));
  }
  EXPECT_FALSE(fs::exists(cache()));  // refused before anything was built
  // A mesh tarball: a stream of no sample, other dtypes and counts.
  const fs::path mesh = compile(model_file("mlperf_tiny_kws_dscnn"), {"--target", "c", "--pes", "2"}, "mesh.tar");
  const std::string m = mesh.string();
  io::write_npz(p("none.npz"), {{"input", TensorData(DType::Float32, {0, 1, 1, 49, 10})}});
  io::write_npz(p("i8.npz"), {{"input", TensorData(DType::Int8, {2, 1, 1, 49, 10})}});
  io::write_npz(p("rank.npz"), {{"input", TensorData(DType::Float32, {2, 49, 10})}});
  io::write_npz(p("extra.npz"), {{"input", TensorData(DType::Float32, {1, 1, 49, 10})}, {"x", TensorData(DType::Float32, {1})}});
  for (const Case& c : std::vector<Case>{
           {"none.npz", "{npz}: array 'input' holds no sample (shape [0,1,1,49,10]; the input 'input' of {tar})"},
           {"i8.npz", "{npz}: array 'input' is int8, but the input 'input' of {tar} is float32"},
           {"rank.npz", "{npz}: array 'input' has shape [2,49,10], but the input 'input' of {tar} takes [N,1,1,49,10] (N samples) or [1,1,49,10] (one)"},
           {"extra.npz", "{npz}: array 'x' is not an input of {tar} (its inputs: input)"},
           {"empty.npz", "{npz}: no array 'input' for the input 'input' of {tar} (its inputs: input)"},
       }) {
    SCOPED_TRACE(c.npz);
    const std::string want = fmt::format(fmt::runtime(c.message), fmt::arg("npz", p(c.npz).string()), fmt::arg("tar", m));
    EXPECT_THAT(expect_error(mlipc({"run", m, "--inputs", p(c.npz).string(), "--outputs", p("o.npz").string()})),
                HasSubstr(want));
    EXPECT_FALSE(fs::exists(p("o.npz")));
  }
}

// ------------------------------------------------- item 6: a very long model

// A chain of n Relu nodes on [1, 8].
fs::path relu_chain(const fs::path& dir, int n, const std::string& file) {
  OnnxBuilder b;
  b.input("X", DType::Float32, {1, 8});
  for (int i = 0; i < n; ++i)
    b.node("Relu", {i == 0 ? "X" : fmt::format("t{}", i - 1)}, {i == n - 1 ? "Y" : fmt::format("t{}", i)}, {},
           fmt::format("n{}", i));
  b.output("Y");
  return b.save(dir, file);
}

TEST_F(RobustRun, AModelOfManyLayersCallsThemInPartsTheCompilerCanOptimizeAlone) {
  // Up to 256 layers: one main function, as always (the suite's models).
  const fs::path small = compile(relu_chain(dir.path(), 256, "c256.onnx"), {"--target", "c"}, "c256.tar");
  EXPECT_THAT(mlf::read_tar(small).at("codegen/host/src/default_lib1.c"), ::testing::Not(HasSubstr("___tvm_main___part")));
  // 1,000 layers: parts of 64, each a function the compiler may not inline.
  const fs::path big = compile(relu_chain(dir.path(), 1000, "c1000.onnx"), {"--target", "c"}, "c1000.tar");
  const std::string lib1 = mlf::read_tar(big).at("codegen/host/src/default_lib1.c");
  EXPECT_THAT(lib1, HasSubstr("static MLIP_NOINLINE int32_t tvmgen_default___tvm_main___part0("));
  EXPECT_THAT(lib1, HasSubstr("static MLIP_NOINLINE int32_t tvmgen_default___tvm_main___part15("));
  EXPECT_THAT(lib1, ::testing::Not(HasSubstr("___tvm_main___part16(")));
  TensorData x = random_tensor(DType::Float32, {1, 8}, 7);
  io::write_npz(p("x.npz"), {{"X", x}});
  const auto t0 = std::chrono::steady_clock::now();
  expect_ok(mlipc({"run", big.string(), "--inputs", p("x.npz").string(), "--outputs", p("y.npz").string()}));
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RecordProperty("build_and_run_seconds_1000_layers", std::to_string(secs));
  const TensorData y = io::read_npz(p("y.npz")).front().second;
  const float* xv = x.data<float>();
  const float* yv = y.data<float>();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(yv[i], xv[i] > 0 ? xv[i] : 0.0f) << i;
  // The whole model's build (one part or sixteen) is also strict C99.
  EXPECT_EQ(strict_c99_errors(p("c1000.onnx")), "");
}

// ------------------------------------------------- NaN

// y = op(x) for an all-NaN x on both targets: NaN everywhere (docs/runtime.md,
// "NaN"). MaxPool: a window with a NaN gives NaN.
TEST_F(RobustRun, AllNanInputsGiveNanThroughRectifiersAndPoolsOnBothTargets) {
  struct Model {
    std::string name;
    std::function<void(OnnxBuilder&)> build;
  };
  const std::vector<Model> models = {
      {"relu", [](OnnxBuilder& b) { b.node("Relu", {"x"}, {"y"}); }},
      {"clip", [](OnnxBuilder& b) {
         b.initializer("lo", TensorData::from<float>({}, {0.0f}));
         b.initializer("hi", TensorData::from<float>({}, {6.0f}));
         b.node("Clip", {"x", "lo", "hi"}, {"y"});
       }},
      {"leakyrelu", [](OnnxBuilder& b) { b.node("LeakyRelu", {"x"}, {"y"}); }},
      {"maxpool", [](OnnxBuilder& b) {
         b.node("MaxPool", {"x"}, {"y"}, {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}});
       }},
      {"globalmaxpool", [](OnnxBuilder& b) { b.node("GlobalMaxPool", {"x"}, {"y"}); }},
      {"conv_relu", [](OnnxBuilder& b) {
         b.initializer("w", random_tensor(DType::Float32, {8, 8, 3, 3}, 5));
         b.initializer("bias", random_tensor(DType::Float32, {8}, 6));
         b.node("Conv", {"x", "w", "bias"}, {"c"}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
         b.node("Relu", {"c"}, {"y"});
       }},
      {"conv_clip", [](OnnxBuilder& b) {
         b.initializer("w", random_tensor(DType::Float32, {8, 8, 3, 3}, 5));
         b.initializer("lo", TensorData::from<float>({}, {0.0f}));
         b.initializer("hi", TensorData::from<float>({}, {6.0f}));
         b.node("Conv", {"x", "w"}, {"c"}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
         b.node("Clip", {"c", "lo", "hi"}, {"y"});
       }},
      {"conv_relu_maxpool", [](OnnxBuilder& b) {
         b.initializer("w", random_tensor(DType::Float32, {8, 8, 3, 3}, 5));
         b.node("Conv", {"x", "w"}, {"c"}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
         b.node("Relu", {"c"}, {"r"});
         b.node("MaxPool", {"r"}, {"y"}, {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}});
       }},
  };
  TensorData nan(DType::Float32, {1, 8, 8, 8});
  for (int64_t i = 0; i < nan.numel(); ++i) nan.data<float>()[i] = NAN;
  // One NaN among numbers: the NaN's window (and nothing else) is NaN.
  TensorData one = random_tensor(DType::Float32, {1, 8, 8, 8}, 9);
  one.data<float>()[3 * 64 + 2 * 8 + 5] = NAN;
  for (const Model& m : models) {
    OnnxBuilder b;
    b.input("x", DType::Float32, {1, 8, 8, 8});
    m.build(b);
    b.output("y");
    const fs::path onnx = b.save(dir.path(), m.name + ".onnx");
    for (const std::string target : {"c", "mrvl, c"}) {
      SCOPED_TRACE(m.name + " on " + target);
      driver::CompileOptions o;
      o.target = target;
      driver::CompileResult compiled;
      const TensorData y = compile_and_run(onnx, {{"x", nan}}, o, &compiled).front().second;
      // A lone activation stays on the CPU; every other model runs on the MLIP.
      const bool alone = m.name == "relu" || m.name == "clip" || m.name == "leakyrelu";
      if (target != "c" && !alone) {
        EXPECT_FALSE(compiled.mlip.regions.empty()) << "the MLIP runs nothing";
      }
      size_t finite = 0;
      for (double v : y.as_double()) finite += !std::isnan(v);
      EXPECT_EQ(finite, 0u) << "of " << y.numel();
      if (m.name == "maxpool" || m.name == "relu") {
        const TensorData y1 = compile_and_run(onnx, {{"x", one}}, o).front().second;
        size_t nans = 0;
        for (double v : y1.as_double()) nans += std::isnan(v);
        EXPECT_EQ(nans, 1u);
      }
    }
    // The reference evaluator says the same.
    for (const auto& [name, t] : reference_run(onnx, {{"x", nan}}))
      for (double v : t.as_double()) EXPECT_TRUE(std::isnan(v)) << m.name;
  }
}

}  // namespace
}  // namespace mlipc::test::e2e_robustness_run
