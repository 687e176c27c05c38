#include "host/run_program.h"

#include <fmt/format.h>

#include "support/error.h"

namespace fs = std::filesystem;

namespace mlipc::host::steps {

ProcessResult run_program(const std::vector<std::string>& argv, const fs::path& cwd, int timeout_seconds,
                          const fs::path& tarball, const char* what) {
  ProcessResult r = run_process(argv, cwd, timeout_seconds);
  const std::string t = tarball.string();
  if (r.timed_out) fail("{}: the {} did not finish within {} s (raise it with --timeout)", t, what, timeout_seconds);
  if (r.signal) fail("{}: the {} crashed (signal {})", t, what, r.signal);
  if (r.exit_code != 0) {
    std::string msg = first_error_line(r.err);
    fail("{}: the {} failed: {}", t, what, msg.empty() ? fmt::format("exit code {}", r.exit_code) : msg);
  }
  return r;
}

}  // namespace mlipc::host::steps
