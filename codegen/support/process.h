// Running a child process (the C compiler, a built model) without a shell:
// arguments are passed as they are, output goes to files.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace mlipc {

struct ProcessResult {
  int exit_code = -1;   // -1 when killed by a signal or the timeout
  int signal = 0;       // the signal that ended it, if any
  bool timed_out = false;
  std::string out;      // captured stdout
  std::string err;      // captured stderr
};

// Runs argv[0] (looked up in PATH) with the given arguments in `cwd` and
// waits at most `timeout_seconds`. Throws Error when it cannot be started.
ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          int timeout_seconds);

}  // namespace mlipc
