#include "support/process.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "support/error.h"
#include "support/file_util.h"

namespace fs = std::filesystem;

namespace mlipc {

ProcessResult run_process(const std::vector<std::string>& argv, const fs::path& cwd, int timeout_seconds) {
  if (argv.empty()) fail("internal: run_process without a program");
  TempDir io("mlipc-proc");
  const std::string out_path = (io.path() / "out").string();
  const std::string err_path = (io.path() / "err").string();
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  pid_t pid = fork();
  if (pid < 0) fail("cannot start {}: {}", argv[0], std::strerror(errno));
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    int o = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 || chdir(cwd.c_str()) != 0) _exit(126);
    setpgid(0, 0);  // its own group, so a timeout kills its children too
    execvp(args[0], args.data());
    const char msg[] = "exec failed\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(127);
  }
  ProcessResult r;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) fail("waiting for {}: {}", argv[0], std::strerror(errno));
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (r.timed_out) r.exit_code = -1;
  r.out = fs::exists(out_path) ? read_file(out_path) : "";
  r.err = fs::exists(err_path) ? read_file(err_path) : "";
  if (r.exit_code == 127 && r.err.find("exec failed") != std::string::npos)
    fail("cannot run '{}': not found or not executable", argv[0]);
  return r;
}

}  // namespace mlipc
