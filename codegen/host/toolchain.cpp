#include "host/toolchain.h"

#include <cstdlib>

#include <fmt/format.h>

#include "host/host_model.h"
#include "support/error.h"
#include "support/process.h"

namespace fs = std::filesystem;

namespace mlipc::host {

namespace {

// Flags for host emulation: the runtime's numerics flags, optimized, with the
// profiling hooks compiled in (the driver times each layer). -O3 vectorizes the
// kernels' element-wise inner loops; no sum is reassociated (that would take
// -ffast-math), so results are the same bits as at -O0. An mlipc built with
// MLIPC_ASAN=ON builds the generated code and the runtime under the same
// sanitizers, so the sanitizer suite covers them too, at -O1 (what the
// sanitizers' documentation advises): -O3 with them takes about 2.5 times as
// long to compile the runtime, and speed is not what that build is for.
const std::vector<std::string> kCFlags = {"-std=c99",
#ifdef MLIPC_HOST_SANITIZE
                                          "-O1",
#else
                                          "-O3",
#endif
                                          "-march=native", "-ffp-contract=off", "-DMLIP_PROFILE", "-w",
#ifdef MLIPC_HOST_SANITIZE
                                          "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                                          "-fno-omit-frame-pointer",
#endif
};

}  // namespace

const std::vector<std::string>& host_flags() { return kCFlags; }

namespace steps {

std::string compiler() {
  const char* cc = std::getenv("CC");
  return cc && *cc ? cc : "cc";
}

std::vector<std::string> cc_command(const Toolchain& tc) {
  std::vector<std::string> argv = {tc.cc};
  argv.insert(argv.end(), tc.flags.begin(), tc.flags.end());
  argv.push_back("-Icodegen/host/include");
  argv.push_back("-Iruntime/include");
  return argv;
}

void compile_or_fail(std::vector<std::string> argv, const fs::path& dir, const std::string& cc, int timeout) {
  // The compiler's temporary files go into the private build folder (and
  // go with it, even when the compiler is killed).
  const fs::path tmp = dir / ".tmp";
  fs::create_directories(tmp);
  ProcessResult r = run_process(argv, dir, timeout, {"TMPDIR=" + tmp.string()});
  if (r.timed_out)
    fail("building the model with '{}' did not finish within {} s (raise it with --build-timeout)", cc, timeout);
  if (r.exit_code != 0) {
    std::string first = first_error_line(r.err);
    if (first.empty()) first = r.signal ? fmt::format("killed by signal {}", r.signal) : fmt::format("exit code {}", r.exit_code);
    fail("building the model with '{}' failed: {}", cc, first);
  }
}

}  // namespace steps
}  // namespace mlipc::host
