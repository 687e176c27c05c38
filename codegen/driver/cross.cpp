#include "driver/cross.h"

#include <sys/utsname.h>

#include <sstream>

#include "support/error.h"
#include "support/file_util.h"
#include "support/process.h"
#include "support/text.h"

namespace fs = std::filesystem;

namespace mlipc::driver {

namespace {

constexpr int kProbeSeconds = 60;

std::vector<std::string> split_words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

bool is_clang(const std::string& compiler) {
  return fs::path(compiler).filename().string().find("clang") != std::string::npos;
}

// Runs the cross compiler; a compiler that cannot be started is named.
ProcessResult ask(const std::vector<std::string>& argv, const fs::path& cwd) {
  try {
    return run_process(argv, cwd, kProbeSeconds);
  } catch (const Interrupted&) {
    throw;
  } catch (const Error& e) {
    fail("--cross-compiler '{}' cannot be run: {}", printable(argv.front()), e.what());
  }
}

std::string why(const ProcessResult& r) {
  if (r.timed_out) return fmt::format("no answer within {} s", kProbeSeconds);
  std::string line = first_error_line(r.err);
  return line.empty() ? fmt::format("exit code {}", r.exit_code) : line;
}

}  // namespace

std::string triple_arch(const std::string& triple) {
  std::string arch = triple.substr(0, triple.find('-'));
  if (arch == "arm64") return "aarch64";
  if (arch == "amd64") return "x86_64";
  return arch;
}

std::string host_arch() {
  struct utsname u {};
  if (::uname(&u) != 0) return "";
  return triple_arch(u.machine);
}

std::vector<std::string> cpu_flags_for(const std::string& arch, const std::string& mcpu) {
  if (mcpu.empty()) return {};
  const bool x86 = arch == "x86_64" || arch == "i386" || arch == "i486" || arch == "i586" || arch == "i686";
  return {(x86 ? "-march=" : "-mcpu=") + mcpu};
}

std::string CrossTarget::arch() const { return triple_arch(triple); }

bool CrossTarget::linux_triple() const { return triple.find("-linux") != std::string::npos; }

std::vector<std::string> CrossTarget::compiler_flags() const {
  std::vector<std::string> f;
  if (is_clang(compiler) && !triple.empty()) f.push_back("--target=" + triple);
  f.insert(f.end(), cpu_flags.begin(), cpu_flags.end());
  f.insert(f.end(), options.begin(), options.end());
  return f;
}

nlohmann::json CrossTarget::to_json() const {
  return {{"triple", triple}, {"mcpu", mcpu}, {"compiler", compiler}, {"options", options}, {"cpu_flags", cpu_flags}};
}

CrossTarget CrossTarget::from_json(const nlohmann::json& j) {
  CrossTarget t;
  t.triple = j.value("triple", "");
  // What metadata.json says is checked as the command line is.
  if (!t.triple.empty() && !is_triple_name(t.triple))
    throw nlohmann::json::other_error::create(501, "mlipc.cross.triple is not a target triple", &j);
  t.mcpu = j.value("mcpu", "");
  t.compiler = j.value("compiler", "");
  t.options = j.value("options", std::vector<std::string>{});
  t.cpu_flags = j.value("cpu_flags", std::vector<std::string>{});
  return t;
}

CrossTarget resolve_cross(const std::string& triple, const std::string& mcpu, const std::string& compiler,
                          const std::string& options) {
  CrossTarget t;
  t.triple = triple;
  t.mcpu = mcpu;
  t.compiler = compiler;
  t.options = split_words(options);
  if (!triple.empty() && !is_triple_name(triple))
    fail("--target-llvm-mtriple '{}' is not a target triple (letters, digits, '_', '.', '+' and '-', no '..')",
         printable(triple));
  if (mcpu.find_first_of(" \t\n") != std::string::npos || (!mcpu.empty() && mcpu.front() == '-'))
    fail("--target-llvm-mcpu '{}' is not a single name", printable(mcpu));
  if (!options.empty() && compiler.empty()) fail("--cross-compiler-options needs --cross-compiler");
  if (compiler.empty()) {
    t.cpu_flags = cpu_flags_for(t.arch(), mcpu);
    return t;
  }
  TempDir probe("mlipc-cross");
  ProcessResult dm = ask({compiler, "-dumpmachine"}, probe.path());
  std::string machine = dm.out.substr(0, dm.out.find('\n'));
  if (dm.exit_code != 0 || machine.empty() || !is_triple_name(machine))
    fail("--cross-compiler '{}' does not say what it builds for (-dumpmachine: {})", printable(compiler), why(dm));
  if (is_clang(compiler) && !triple.empty()) machine = triple;  // clang builds for whatever --target says
  if (t.triple.empty()) t.triple = machine;
  if (triple_arch(machine) != t.arch())
    fail("--target-llvm-mtriple '{}': the cross compiler '{}' builds for {}", printable(triple), printable(compiler),
         printable(machine));
  t.cpu_flags = cpu_flags_for(t.arch(), mcpu);

  // The flags on an empty file: an unknown CPU or option is refused here,
  // in the compiler's own words, not halfway through the build.
  write_file(probe.path() / "probe.c", "typedef int mlipc_probe;\n");
  std::vector<std::string> argv = {compiler};
  for (const std::string& f : t.compiler_flags()) argv.push_back(f);
  argv.insert(argv.end(), {"-c", "probe.c", "-o", "probe.o"});
  ProcessResult r = ask(argv, probe.path());
  if (r.exit_code != 0) {
    if (!t.cpu_flags.empty()) {
      std::vector<std::string> cpu = {compiler};
      if (is_clang(compiler)) cpu.push_back("--target=" + t.triple);
      cpu.insert(cpu.end(), t.cpu_flags.begin(), t.cpu_flags.end());
      cpu.insert(cpu.end(), {"-c", "probe.c", "-o", "probe.o"});
      ProcessResult cpu_only = ask(cpu, probe.path());
      if (cpu_only.exit_code != 0)
        fail("--target-llvm-mcpu '{}': {} does not know {} ({})", printable(mcpu), printable(compiler),
             printable(t.cpu_flags.front()), why(cpu_only));
    }
    fail("--cross-compiler-options '{}': {} refuses them ({})", printable(options), printable(compiler), why(r));
  }
  return t;
}

}  // namespace mlipc::driver
