// Real targets (issue 10): an mlipc tarball in TVM's bare-metal firmware flow
// (its runtime/ as the standalone CRT), the tarball's own firmware template
// on QEMU's Cortex-M55 and Cortex-M4F boards, and the shared models on
// Cortex-M55, Cortex-M4F (qemu-system-arm) and AArch64 (qemu-aarch64), each giving the
// bytes `mlipc run` gives on the host. The sweep over the models has a short
// mode for the suite and a full one: MLIPC_QEMU_SWEEP=full (docs/user-guide.md,
// "Firmware").
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "c/cpu.h"
#include "cross_targets.h"
#include "driver/compile.h"
#include "frontend/tensor_proto.h"
#include "mlf/archive.h"
#include "models.h"
#include "support/error.h"
#include "support/file_util.h"
#include "support/process.h"
#include "testlib/model_runner.h"
#include "testlib/onnx_builder.h"

namespace fs = std::filesystem;

namespace mlipc::test::e2e_firmware {
namespace {

std::string bytes_of(const TensorData& t) { return std::string(reinterpret_cast<const char*>(t.raw()), t.nbytes()); }

// The host bits the firmware and cross builds are held to: `mlipc run`'s own
// build (-O3), not the level of the tests that compare our builds.
io::NamedTensors host_bits(const fs::path& onnx, const io::NamedTensors& inputs, const driver::CompileOptions& opt) {
  return compile_and_run(onnx, inputs, opt, nullptr, host::host_flags());
}

bool missing_tools(std::initializer_list<const char*> tools, std::string* which) {
  for (const char* t : tools)
    if (!have_tool(t)) {
      *which = t;
      return true;
    }
  return false;
}
#define SKIP_WITHOUT(...)                                                        \
  do {                                                                           \
    std::string missing_;                                                        \
    if (missing_tools({__VA_ARGS__}, &missing_))                                 \
      GTEST_SKIP() << missing_ << " missing (scripts/setup.sh installs it)";     \
  } while (0)

bool quantized(const ModelCase& m) { return m.name.rfind("quant_", 0) == 0; }

// "c", or "mrvl, c" on 4 tiles with pinned weights (the guide's options),
// int8 for the quantized models.
driver::CompileOptions options_for(const ModelCase& m, const std::string& target, const std::string& mode = "sim") {
  driver::CompileOptions opt;
  opt.target = target;
  opt.mlip = mlip::parse_options("cn10ka", "4",
                                 mode + (quantized(m) ? " -quantize=int8" : " -quantize=fp16") + " -wb_pin_ocm=1");
  return opt;
}

// The model's stored input when it has one, else random values.
io::NamedTensors inputs_for(const ModelCase& m, const driver::CompileResult& r) {
  io::NamedTensors in;
  for (size_t i = 0; i < r.module.inputs.size(); ++i) {
    const fs::path pb = m.dir / fmt::format("test_data_set_0/input_{}.pb", i);
    in.emplace_back(r.module.inputs[i].name,
                    fs::exists(pb) ? frontend::load_tensor_pb(pb)
                                   : random_tensor(r.module.inputs[i].dtype, r.module.inputs[i].shape,
                                                   7 + static_cast<uint32_t>(i)));
  }
  return in;
}

// What templates/firmware/main.c fills without INPUTS (its comment gives the rule).
io::NamedTensors pattern_inputs(const driver::CompileResult& r) {
  io::NamedTensors in;
  for (size_t k = 0; k < r.module.inputs.size(); ++k) {
    const c::IoInfo& io = r.module.inputs[k];
    TensorData t(io.dtype, io.shape);
    const size_t size = dtype_size(io.dtype);
    for (int64_t i = 0; i < t.numel(); ++i) {
      const uint32_t h = static_cast<uint32_t>(i + 1) * 2654435761u + static_cast<uint32_t>(k) * 40503u;
      uint8_t* at = t.raw() + static_cast<size_t>(i) * size;
      const double f = static_cast<double>(static_cast<int32_t>(h >> 24) - 128) / 128;
      if (io.dtype == DType::Float32) {
        const float v = static_cast<float>(f);
        std::memcpy(at, &v, size);
      } else if (io.dtype == DType::Float64) {
        std::memcpy(at, &f, size);
      } else if (io.dtype == DType::Bool) {
        *at = static_cast<uint8_t>(h >> 31);
      } else if (dtype_is_integer(io.dtype)) {
        const uint64_t v = h >> 25;  // 0..127, the same bytes in every integer type (little-endian)
        std::memcpy(at, &v, size);
      }
    }
    in.emplace_back(io.name, std::move(t));
  }
  return in;
}

// "" when every output has the host's bytes, else where the first differs.
std::string differs(const io::NamedTensors& host, const std::vector<std::string>& got) {
  if (got.size() != host.size()) return fmt::format("{} outputs, the host has {}", got.size(), host.size());
  for (size_t k = 0; k < host.size(); ++k) {
    const std::string want = bytes_of(host[k].second);
    if (got[k] == want) continue;
    if (got[k].size() != want.size()) return fmt::format("output {}: {} bytes, the host's {}", k, got[k].size(), want.size());
    size_t at = 0;
    while (got[k][at] == want[at]) ++at;
    return fmt::format("output {} ({}): byte {} of {} is {:#04x}, the host's {:#04x}", k, host[k].first, at,
                       want.size(), static_cast<unsigned char>(got[k][at]), static_cast<unsigned char>(want[at]));
  }
  return "";
}

struct Tarball {
  TempDir dir{"mlipc-fw"};
  fs::path x;
  driver::CompileResult r;
};

// Compiles the model into a tarball and extracts it to `x`.
void make_tarball(const ModelCase& m, const driver::CompileOptions& opt, Tarball& t) {
  t.r = driver::compile_model(m.dir / "model.onnx", opt);
  driver::write_tarball(t.r, t.dir.path() / "model.tar");
  t.x = t.dir.path() / "x";
  mlf::extract_tar(t.dir.path() / "model.tar", t.x);
}

std::string target_name(const std::string& target) { return target == "c" ? "c" : "mrvl"; }

// ---- templates/platform.c.template -------------------------------------------

// Its Cortex-M branch on every M profile (v6-M, v7-M, v7E-M, v8-M Baseline
// and Mainline, v8.1-M): the file builds as strict C99 and calls nothing of
// POSIX; on the host it takes the POSIX branch.
TEST(FirmwarePlatformTemplate, CortexMBranchOnEveryMProfile) {
  SKIP_WITHOUT("arm-none-eabi-gcc", "arm-none-eabi-nm");
  Tarball t;
  make_tarball(model_cases()[0], options_for(model_cases()[0], "c"), t);
  const std::vector<std::string> strict = {"-x", "c", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
                                           "-Iruntime/include", "-c", "templates/platform.c.template"};
  const std::vector<std::vector<std::string>> cores = {
      {"-mcpu=cortex-m0plus"}, {"-mcpu=cortex-m3"}, {"-mcpu=cortex-m4", "-mfloat-abi=hard"},
      {"-mcpu=cortex-m7", "-mfloat-abi=hard"}, {"-mcpu=cortex-m23"}, {"-mcpu=cortex-m33", "-mfloat-abi=hard"},
      {"-mcpu=cortex-m55", "-mfloat-abi=hard"}};
  for (const auto& core : cores) {
    std::vector<std::string> argv = {"arm-none-eabi-gcc", "-mthumb", "-Os"};
    argv.insert(argv.end(), core.begin(), core.end());
    argv.insert(argv.end(), strict.begin(), strict.end());
    argv.insert(argv.end(), {"-o", "platform_m.o"});
    ProcessResult b = run_process(argv, t.x, 600);
    ASSERT_EQ(b.exit_code, 0) << core[0] << ": " << b.err;
    ProcessResult nm = run_process({"arm-none-eabi-nm", "-u", "platform_m.o"}, t.x, 60);
    for (const char* posix : {"clock_gettime", "fprintf", "abort"})
      EXPECT_EQ(nm.out.find(posix), std::string::npos) << core[0] << " took the POSIX branch: " << nm.out;
    ProcessResult dis = run_process({"arm-none-eabi-objdump", "-d", "platform_m.o"}, t.x, 60);
    EXPECT_NE(dis.out.find("bkpt"), std::string::npos) << core[0] << ": no breakpoint in mlip_platform_abort";
  }
  std::vector<std::string> host = {"cc"};
  host.insert(host.end(), strict.begin(), strict.end());
  host.insert(host.end(), {"-o", "platform_host.o"});
  ProcessResult b = run_process(host, t.x, 600);
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_NE(run_process({"nm", "-u", "platform_host.o"}, t.x, 60).out.find("clock_gettime"), std::string::npos);
}

// ---- TVM's bare-metal demo flow -------------------------------------------------

// tests/e2e/tvm_demo (its Makefile, main, hooks, the SSE-300's memory map),
// copied beside an extracted tarball of the digits CNN in build/, with
// build/crt_config/crt_config.h from the tarball's template and the arrays
// the demo's main reads, as TVM's run_demo.sh prepares it.
struct Demo {
  TempDir dir{"mlipc-tvm-demo"};
  driver::CompileResult r;
  io::NamedTensors inputs;
  fs::path p(const std::string& s) const { return dir.path() / s; }
};

void prepare_demo(const std::string& target, const std::string& mode, Demo& d) {
  const ModelCase& m = model_cases()[0];
  fs::copy(fs::path(MLIPC_E2E_DIR) / "tvm_demo", d.dir.path(), fs::copy_options::recursive);
  d.r = driver::compile_model(m.dir / "model.onnx", options_for(m, target, mode));
  driver::write_tarball(d.r, d.p("model.tar"));
  mlf::extract_tar(d.p("model.tar"), d.p("build"));
  fs::create_directories(d.p("build/crt_config"));
  fs::copy_file(d.p("build/templates/crt_config.h.template"), d.p("build/crt_config/crt_config.h"));
  d.inputs = inputs_for(m, d.r);
  // The input as the demo's convert_image.py writes it: a float array in
  // .data.tvm, here with each value exact (C99 hexadecimal literals).
  const TensorData& in = d.inputs[0].second;
  std::string h = "static float input[784] __attribute__((section(\".data.tvm\"), aligned(16))) = {";
  for (int64_t i = 0; i < in.numel(); ++i)
    h += fmt::format("{}{:a}f,", i % 8 == 0 ? "\n  " : " ", in.raw_as<float>()[i]);
  write_file(d.p("include/inputs.h"), h + "};\n");
  write_file(d.p("include/outputs.h"),
             "static float output[10] __attribute__((section(\".data.tvm\"), aligned(16)));\n");
}

// make in the demo's folder as a shell would start it (the demo's Makefile
// reads ${PWD}).
ProcessResult make_demo(const Demo& d, const std::vector<std::string>& vars = {}) {
  std::vector<std::string> argv = {"make", "-s"};
  argv.insert(argv.end(), vars.begin(), vars.end());
  return run_process(argv, d.dir.path(), 1200, {"PWD=" + d.dir.path().string()});
}

ProcessResult run_demo(const Demo& d) {
  return run_process({"qemu-system-arm", "-M", "mps3-an547", "-nographic", "-monitor", "none", "-serial", "none",
                      "-semihosting-config", "enable=on,target=native", "-kernel", "build/demo"},
                     d.dir.path(), 600);
}

struct DemoCase {
  std::string target;
  std::string opt;
};

class TvmDemo : public ::testing::TestWithParam<DemoCase> {};

// The demo's Makefile and main, unchanged for `c` and for "mrvl, c": builds,
// links (--whole-archive, as the demo), runs on the SSE-300 under QEMU and
// gives the host's bytes. Nothing the runtime or the generated code compiles
// refers to the heap or printf; a CPU-only tarball has no simulator.
TEST_P(TvmDemo, BuildsUnchangedAndGivesHostBits) {
  SKIP_WITHOUT("arm-none-eabi-gcc", "arm-none-eabi-nm", "qemu-system-arm", "make");
  const DemoCase& c = GetParam();
  Demo d;
  prepare_demo(c.target, "sim", d);
  ProcessResult b = make_demo(d, {"OPT=" + c.opt});
  ASSERT_EQ(b.exit_code, 0) << b.out << b.err;
  ProcessResult q = run_demo(d);
  ASSERT_EQ(q.exit_code, 0) << q.out << q.err;
  const std::string text = q.out + q.err;
  const size_t at = text.find("output ");
  ASSERT_NE(at, std::string::npos) << text;
  std::string got;
  std::istringstream hex(text.substr(at + 7, text.find('\n', at) - at - 7));
  for (std::string byte; hex >> byte;) got += static_cast<char>(std::stoul(byte, nullptr, 16));
  io::NamedTensors host = host_bits(model_cases()[0].dir / "model.onnx", d.inputs, options_for(model_cases()[0], c.target));
  EXPECT_EQ(differs(host, {got}), "");
  EXPECT_NE(text.find("EXITTHESIM"), std::string::npos);

  for (const char* obj : {"build/crt_backend_api.o", "build/stack_allocator.o", "build/libcodegen.a"})
    EXPECT_TRUE(heap_or_printf_symbols(d.p(obj), true).empty())
        << obj << " calls " << fmt::format("{}", fmt::join(heap_or_printf_symbols(d.p(obj), true), "; "));
  ProcessResult nm = run_process({"arm-none-eabi-nm", "build/demo"}, d.dir.path(), 60);
  const bool sim = nm.out.find(" mlip_region_run\n") != std::string::npos;
  EXPECT_EQ(sim, c.target != "c") << "simulator in the image: " << sim;
}

INSTANTIATE_TEST_SUITE_P(Digits, TvmDemo,
                         ::testing::Values(DemoCase{"c", "-O2"}, DemoCase{"mrvl, c", "-O2"}, DemoCase{"c", "-Os"},
                                           DemoCase{"mrvl, c", "-Os"}),
                         [](const auto& info) {
                           return target_name(info.param.target) + (info.param.opt == "-O2" ? "_O2" : "_Os");
                         });

// A run that fails (a tarball for the MLIP hardware, no driver registered)
// reaches the firmware's TVMLogf and TVMPlatformAbort, not only the status
// the demo ignores; with MLIP_TVM_ABORT_ON_ERROR 0 in crt_config.h, only
// TVMLogf, and the demo goes on.
TEST(TvmDemoErrors, FailedRunReachesTvmLogfAndAbort) {
  SKIP_WITHOUT("arm-none-eabi-gcc", "qemu-system-arm", "make");
  Demo d;
  prepare_demo("mrvl, c", "hw", d);
  ProcessResult b = make_demo(d);
  ASSERT_EQ(b.exit_code, 0) << b.out << b.err;
  ProcessResult q = run_demo(d);
  const std::string text = q.out + q.err;
  EXPECT_NE(q.exit_code, 0) << text;
  EXPECT_NE(text.find("mlip: tvmgen_default_run failed: no device (status 18)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("TVMPlatformAbort: 1280\n"), std::string::npos) << text;  // kTvmErrorPlatformCheckFailure
  EXPECT_EQ(text.find("EXITTHESIM"), std::string::npos) << text;

  std::string config = read_file(d.p("build/crt_config/crt_config.h"));
  const std::string on = "#define MLIP_TVM_ABORT_ON_ERROR 1";
  ASSERT_NE(config.find(on), std::string::npos);
  config.replace(config.find(on), on.size(), "#define MLIP_TVM_ABORT_ON_ERROR 0");
  write_file(d.p("build/crt_config/crt_config.h"), config);
  fs::remove(d.p("build/crt_backend_api.o"));
  b = make_demo(d);
  ASSERT_EQ(b.exit_code, 0) << b.out << b.err;
  q = run_demo(d);
  const std::string again = q.out + q.err;
  EXPECT_EQ(q.exit_code, 0) << again;
  EXPECT_NE(again.find("mlip: tvmgen_default_run failed: no device (status 18)\n"), std::string::npos) << again;
  EXPECT_EQ(again.find("TVMPlatformAbort"), std::string::npos) << again;
  EXPECT_NE(again.find("EXITTHESIM"), std::string::npos) << again;
}

// ---- templates/firmware ----------------------------------------------------------

struct TemplateCase {
  std::string board;
  std::string target;
};

class FirmwareTemplate : public ::testing::TestWithParam<TemplateCase> {};

// The tarball's firmware template as a user runs it (make; make run): the
// pattern main.c fills gives the host's bytes and top class, on the
// Cortex-M55 and the Cortex-M4F board, and the image holds no heap or
// printf-family function at all.
TEST_P(FirmwareTemplate, PatternInputsGiveHostBits) {
  SKIP_WITHOUT("arm-none-eabi-gcc", "arm-none-eabi-nm", "qemu-system-arm", "make");
  const TemplateCase& c = GetParam();
  const ModelCase& m = model_cases()[0];
  Tarball t;
  make_tarball(m, options_for(m, c.target), t);
  fs::path elf;
  TargetRun run = run_firmware(t.x, c.board, {}, {}, &elf);
  ASSERT_EQ(run.error, "") << run.log;
  io::NamedTensors host = host_bits(m.dir / "model.onnx", pattern_inputs(t.r), options_for(m, c.target));
  EXPECT_EQ(differs(host, run.outputs), "") << run.log;
  const float* scores = host[0].second.raw_as<float>();
  const int64_t top = std::max_element(scores, scores + host[0].second.numel()) - scores;
  EXPECT_NE(run.log.find(fmt::format("top class {}\n", top)), std::string::npos) << run.log;
  EXPECT_NE(run.log.find("status 0\n"), std::string::npos) << run.log;
  const std::vector<std::string> bad = heap_or_printf_symbols(elf, false);
  EXPECT_TRUE(bad.empty()) << fmt::format("{}", fmt::join(bad, "; "));
}

INSTANTIATE_TEST_SUITE_P(Digits, FirmwareTemplate,
                         ::testing::Values(TemplateCase{"mps3-an547", "c"}, TemplateCase{"mps3-an547", "mrvl, c"},
                                           TemplateCase{"mps2-an386", "c"}, TemplateCase{"mps2-an386", "mrvl, c"}),
                         [](const auto& info) {
                           std::string b = info.param.board;
                           std::replace(b.begin(), b.end(), '-', '_');
                           return b + "_" + target_name(info.param.target);
                         });

// An image whose .bss is not zeroed and whose uninitialized sections hold
// garbage (startup.c's FW_DIRTY_RAM): the region state lives in .data and
// the OCM needs no zeroing, so the digits CNN with pinned weights gives the
// host's bytes. Before the state had its own values, this image skipped the
// validation and the INIT section and printed top class 0 (every output
// -0.0) with status 0.
TEST(FirmwareTemplateMemory, BssNotZeroedGivesHostBits) {
  SKIP_WITHOUT("arm-none-eabi-gcc", "qemu-system-arm", "make");
  const ModelCase& m = model_cases()[0];
  Tarball t;
  make_tarball(m, options_for(m, "mrvl, c"), t);
  const io::NamedTensors inputs = inputs_for(m, t.r);
  TargetRun run = run_firmware(t.x, "mps3-an547", {"EXTRA_CFLAGS=-DFW_DIRTY_RAM"}, inputs);
  ASSERT_EQ(run.error, "") << run.log;
  EXPECT_EQ(differs(host_bits(m.dir / "model.onnx", inputs, options_for(m, "mrvl, c")), run.outputs), "")
      << run.log;
}

// ---- every model on Cortex-M55 and AArch64 -------------------------------------

// The models of the sweep: in the suite, four (the digits CNN, an fp16 MLIP
// network of every layer kind, an int8 MLIP model, the float KWS DS-CNN:
// convolution, depthwise and fully-connected float kernels); with
// MLIPC_QEMU_SWEEP=full, the digits CNN and every model of tests/data/models.
std::vector<ModelCase> sweep_models(bool full) {
  std::vector<ModelCase> out = {model_cases()[0]};
  const fs::path root = fs::path(MLIPC_TEST_DATA) / "models";
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_directory() && fs::exists(e.path() / "model.onnx")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  for (const std::string& n : names)
    if (full || n == "small_mlip" || n == "quant_qdq_mlip_dense" || n == "mlperf_tiny_kws_dscnn")
      out.push_back({n, root / n});
  return out;
}

struct Variant {
  std::string opt, std;
};

struct SweepCase {
  std::string arch;  // "cortex_m55", "cortex_m4" or "aarch64"
  std::string target;
};

bool cortex_m(const std::string& arch) { return arch.rfind("cortex_m", 0) == 0; }

class QemuSweep : public ::testing::TestWithParam<SweepCase> {};

// Each model's image for the Cortex-M55 or the Cortex-M4F (templates/firmware,
// mps3-an547 or mps2-an386, qemu-system-arm; compiled with --target-c-mcpu
// for the core, so with the Cortex-M tuning of the float kernels; no heap or
// printf-family symbol in it) or its AArch64
// Linux program (qemu-aarch64) gives the bytes of `mlipc run` on the host, built at -O2 and -Os and in GNU C mode
// (the full sweep: -O2 and -Os in GNU C and -O2 in ISO C; the suite: GNU C
// at -Os on the Cortex-M cores, at -O2 on AArch64). Prints one line per build.
TEST_P(QemuSweep, OutputsAreTheHostBits) {
  const SweepCase& c = GetParam();
  if (c.arch == "aarch64") SKIP_WITHOUT("aarch64-linux-gnu-gcc", "qemu-aarch64");
  else SKIP_WITHOUT("arm-none-eabi-gcc", "qemu-system-arm", "make");
  const char* mode = std::getenv("MLIPC_QEMU_SWEEP");
  const bool full = mode != nullptr && std::string(mode) == "full";
  std::vector<Variant> variants;
  if (full) variants = {{"-O2", "gnu99"}, {"-Os", "gnu99"}, {"-O2", "c99"}};
  else variants = {{c.arch == "aarch64" ? "-O2" : "-Os", "gnu99"}};
  int same = 0, builds = 0;
  double build_s = 0, run_s = 0;
  for (const ModelCase& m : sweep_models(full)) {
    Tarball t;
    driver::CompileOptions opt = options_for(m, c.target);
    if (cortex_m(c.arch)) opt.codegen.cpu = mlipc::c::cpu_target(c.arch == "cortex_m4" ? "cortex-m4" : "cortex-m55");
    try {
      make_tarball(m, opt, t);
    } catch (const Error& e) {
      ADD_FAILURE() << m.name << ": " << e.what();
      continue;
    }
    const io::NamedTensors inputs = inputs_for(m, t.r);
    const io::NamedTensors host = host_bits(m.dir / "model.onnx", inputs, opt);
    for (const Variant& v : variants) {
      fs::path elf;
      TargetRun run = c.arch == "aarch64"
                          ? run_aarch64(t.x, {"-std=" + v.std, v.opt, "-Wall", "-Wextra", "-Werror"}, inputs,
                                        host.size())
                          : run_firmware(t.x, c.arch == "cortex_m4" ? "mps2-an386" : "mps3-an547",
                                         {"OPT=" + v.opt, "STD=" + v.std}, inputs, &elf);
      ++builds;
      build_s += run.build_seconds;
      run_s += run.run_seconds;
      std::string diff = run.error.empty() ? differs(host, run.outputs) : run.error;
      if (diff.empty() && !elf.empty() && !heap_or_printf_symbols(elf, false).empty())
        diff = "the image has " + fmt::format("{}", fmt::join(heap_or_printf_symbols(elf, false), "; "));
      same += diff.empty();
      std::printf("%-45s %-4s %-10s %-3s %-5s build %6.1f s run %6.1f s  %s\n", m.name.c_str(),
                  target_name(c.target).c_str(), c.arch.c_str(), v.opt.c_str(), v.std.c_str(), run.build_seconds,
                  run.run_seconds, diff.empty() ? "same bytes" : diff.c_str());
      EXPECT_EQ(diff, "") << m.name << " " << v.opt << " " << v.std;
    }
  }
  std::printf("%s on %s: %d of %d builds give the host's bytes; build %.0f s, run %.0f s in all\n", c.arch.c_str(),
              target_name(c.target).c_str(), same, builds, build_s, run_s);
}

INSTANTIATE_TEST_SUITE_P(Models, QemuSweep,
                         ::testing::Values(SweepCase{"cortex_m55", "c"}, SweepCase{"cortex_m55", "mrvl, c"},
                                           SweepCase{"cortex_m4", "c"}, SweepCase{"aarch64", "c"},
                                           SweepCase{"aarch64", "mrvl, c"}),
                         [](const auto& info) { return info.param.arch + "_" + target_name(info.param.target); });

// ---- the float kernels' Cortex-M code on odd sizes ----------------------------------

// Float convolutions (dense with strides, asymmetric pads and a dilation;
// depthwise; pointwise; grouped; with a ReLU and a fused MaxPool), a Gemm of 2 rows and a MatMul, at channel
// and column counts that are not multiples of 4 or 16, batch 2, a fused
// SiLU, a Tanh, an LSTM (mlip/kmath_f.h's sigmoid and tanh) and two
// ConvTransposes, compiled
// with --target-c-mcpu for the Cortex-M55 (Helium float vectors of 4 lanes,
// the loops unrolled: mlip/kvec.h) and the Cortex-M4 (its scalar FPU) and
// run on their boards at -O2: each gives the host's bytes, which are the
// reference's (unit.TiledKernels; the activations within their bounds).
TEST(FloatKernelsOnCortexM, OddSizesGiveTheHostBits) {
  SKIP_WITHOUT("arm-none-eabi-gcc", "qemu-system-arm", "make");
  using test::ints;
  TempDir dir("mlipc-fw-float");
  test::OnnxBuilder b;
  b.input("x", DType::Float32, {2, 3, 11, 9});
  b.initializer("w0", random_tensor(DType::Float32, {13, 3, 3, 3}, 1));
  b.initializer("b0", random_tensor(DType::Float32, {13}, 2));
  b.node("Conv", {"x", "w0", "b0"}, {"c0"},
         {{"kernel_shape", ints{3, 3}}, {"strides", ints{2, 1}}, {"pads", ints{1, 2, 1, 0}}, {"dilations", ints{1, 2}}});
  b.node("Relu", {"c0"}, {"r0"});  // [2, 13, 6, 7]
  b.initializer("w1", random_tensor(DType::Float32, {13, 1, 3, 3}, 3));
  b.node("Conv", {"r0", "w1"}, {"c1"}, {{"kernel_shape", ints{3, 3}}, {"pads", ints{1, 1, 1, 1}}, {"group", int64_t{13}}});
  b.initializer("w2", random_tensor(DType::Float32, {21, 13, 1, 1}, 4));
  b.initializer("b2", random_tensor(DType::Float32, {21}, 5));
  b.node("Conv", {"c1", "w2", "b2"}, {"c2"}, {{"kernel_shape", ints{1, 1}}});
  b.initializer("w3", random_tensor(DType::Float32, {6, 7, 3, 1}, 6));
  b.node("Conv", {"c2", "w3"}, {"c3"}, {{"kernel_shape", ints{3, 1}}, {"group", int64_t{3}}});  // [2, 6, 4, 7]
  b.node("Flatten", {"c3"}, {"f"});
  b.initializer("gw", random_tensor(DType::Float32, {168, 37}, 7));
  b.initializer("gb", random_tensor(DType::Float32, {37}, 8));
  b.node("Gemm", {"f", "gw", "gb"}, {"g"});
  b.input("ma", DType::Float32, {3, 5, 19});
  b.initializer("mw", random_tensor(DType::Float32, {19, 33}, 9));
  b.node("MatMul", {"ma", "mw"}, {"mm"});
  // Conv, ReLU and a MaxPool fused into it (conv_tiled.c's pool): GCC 12.2
  // miscompiles the pool's vector compare-and-blend on Helium
  // (tests/variants/gcc_mve_float_mask.c), so the M55 must keep its
  // lane-by-lane form.
  b.input("px", DType::Float32, {2, 3, 10, 9});
  b.initializer("pw", random_tensor(DType::Float32, {19, 3, 3, 3}, 10));
  b.initializer("pb", random_tensor(DType::Float32, {19}, 11));
  b.node("Conv", {"px", "pw", "pb"}, {"pc"}, {{"kernel_shape", ints{3, 3}}, {"pads", ints{1, 1, 1, 1}}});
  b.node("Relu", {"pc"}, {"pr"});
  b.node("MaxPool", {"pr"}, {"mp"},
         {{"kernel_shape", ints{3, 3}}, {"strides", ints{2, 2}}, {"pads", ints{1, 1, 1, 1}}});  // [2, 19, 5, 5]
  // kmath_f.h's float-precision functions: a SiLU fused into a Conv, a Tanh
  // after the Gemm, and a bidirectional LSTM's gates (recurrent_packed.c).
  b.initializer("w4", random_tensor(DType::Float32, {9, 13, 1, 1}, 10));
  b.node("Conv", {"r0", "w4"}, {"c4"}, {{"kernel_shape", ints{1, 1}}});
  b.node("Sigmoid", {"c4"}, {"s4"});
  b.node("Mul", {"c4", "s4"}, {"silu"});
  b.node("Tanh", {"g"}, {"gt"});
  b.initializer("lw", random_tensor(DType::Float32, {2, 28, 19}, 11, -0.4, 0.4));
  b.initializer("lr", random_tensor(DType::Float32, {2, 28, 7}, 12, -0.4, 0.4));
  b.node("LSTM", {"ma", "lw", "lr"}, {"ly"}, {{"hidden_size", int64_t{7}}, {"direction", std::string("bidirectional")}});
  // ConvTranspose by stride phases (19 channels: conv_transpose_phases.c,
  // one block a pass and bands of one row pair on Cortex-M) and to 3
  // channels (conv_transpose_packed.c, the weights held).
  b.initializer("tw", random_tensor(DType::Float32, {13, 19, 4, 4}, 13));
  b.initializer("tb", random_tensor(DType::Float32, {19}, 14));
  b.node("ConvTranspose", {"r0", "tw", "tb"}, {"ct"},
         {{"strides", ints{2, 2}}, {"pads", ints{1, 1, 1, 1}}, {"output_padding", ints{1, 0}}});  // [2, 19, 13, 14]
  b.initializer("uw", random_tensor(DType::Float32, {13, 3, 3, 3}, 15));
  b.node("ConvTranspose", {"r0", "uw"}, {"cu"}, {{"strides", ints{2, 2}}, {"pads", ints{1, 1, 1, 1}}});
  b.output("c2").output("g").output("mm").output("mp").output("silu").output("gt").output("ly").output("ct").output(
      "cu");
  const ModelCase m{"float_kernels", dir.path()};
  b.save(m.dir);
  for (const char* board : {"mps3-an547", "mps2-an386"}) {
    SCOPED_TRACE(board);
    driver::CompileOptions opt;
    opt.codegen.cpu = mlipc::c::cpu_target(std::string(board) == "mps3-an547" ? "cortex-m55" : "cortex-m4");
    Tarball t;
    make_tarball(m, opt, t);
    const io::NamedTensors inputs = inputs_for(m, t.r);
    TargetRun run = run_firmware(t.x, board, {"OPT=-O2"}, inputs);
    ASSERT_EQ(run.error, "") << run.log;
    EXPECT_EQ(differs(host_bits(m.dir / "model.onnx", inputs, opt), run.outputs), "") << run.log;
  }
}

}  // namespace
}  // namespace mlipc::test::e2e_firmware
