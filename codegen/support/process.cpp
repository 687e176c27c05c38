#include "support/process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <string_view>
#include <sstream>
#include <thread>

#include "support/file_util.h"

namespace fs = std::filesystem;

namespace mlipc {

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// The running child's process group (0: none) and the signal received while
// it ran. Written with the signals blocked, read by the handler.
volatile sig_atomic_t g_child = 0;
volatile sig_atomic_t g_signal = 0;

extern "C" void on_interrupt(int sig) {
  const pid_t child = static_cast<pid_t>(g_child);
  if (child <= 0) {
    // Nothing to clean up: end as the signal would have.
    ::signal(sig, SIG_DFL);
    ::raise(sig);
    return;
  }
  g_signal = sig;
  // SIGTERM first: a compiler removes its temporary files; run_process
  // follows with SIGKILL after a grace period.
  ::kill(-child, SIGTERM);
  ::kill(child, SIGTERM);
}

// Set in a guard process (run_process) when mlipc, its parent, died.
volatile sig_atomic_t g_orphaned = 0;

extern "C" void on_parent_death(int) { g_orphaned = 1; }

sigset_t interrupt_set() {
  sigset_t s;
  sigemptyset(&s);
  for (int sig : kSignals) sigaddset(&s, sig);
  return s;
}

// Blocks the interrupt signals for its lifetime.
class BlockSignals {
 public:
  BlockSignals() {
    sigset_t s = interrupt_set();
    pthread_sigmask(SIG_BLOCK, &s, &old_);
  }
  ~BlockSignals() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

 private:
  sigset_t old_;
};

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
  }
}

}  // namespace

Interrupted::Interrupted(int sig) : Error(fmt::format("interrupted by {}", signal_name(sig))), sig_(sig) {}

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  for (int sig : kSignals) {
    struct sigaction old {};
    // A signal the caller ignores (nohup) stays ignored.
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sig, &sa, nullptr);
  }
}

ProcessResult run_process(const std::vector<std::string>& argv, const fs::path& cwd, int timeout_seconds,
                          const std::vector<std::string>& env) {
  if (argv.empty()) fail("internal: run_process without a program");
  // The child's environment, built here: after fork only async-signal-safe calls.
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& change : env)
      replaced = replaced || std::string_view(change).substr(0, change.find('=')) == name;
    if (!replaced) env_text.emplace_back(entry);
  }
  for (const std::string& change : env)
    if (change.find('=') != std::string::npos) env_text.push_back(change);
  std::vector<char*> envp;
  for (std::string& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  TempDir io("mlipc-proc");
  const std::string out_path = (io.path() / "out").string();
  const std::string err_path = (io.path() / "err").string();
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  pid_t pid = -1;
  {
    // No interrupt between fork and recording the child: the handler must
    // know whom to kill.
    BlockSignals blocked;
    const pid_t parent = getpid();
    pid = fork();
    if (pid < 0) fail("cannot start {}: {}", argv[0], std::strerror(errno));
    if (pid == 0) {
      // Child: only async-signal-safe calls until exec. It is the guard of
      // a process group of its own (a timeout or an interrupt kills the
      // group: the program and its children); it runs the program in a
      // child of its own and waits for it.
      setpgid(0, 0);
#ifdef __linux__
      // mlipc killed, even by SIGKILL: the kernel tells the guard, which
      // kills the whole group. PR_SET_PDEATHSIG on the program itself would
      // reach only the program: a compiler driver's cc1 would live on.
      struct sigaction orphaned {};
      orphaned.sa_handler = on_parent_death;
      sigemptyset(&orphaned.sa_mask);
      sigaction(SIGUSR1, &orphaned, nullptr);
      prctl(PR_SET_PDEATHSIG, SIGUSR1);
      if (getppid() != parent) kill(0, SIGKILL);
#endif
      (void)parent;
      // No file the child writes (object files, model outputs, captured
      // output) grows past 4 GiB: a runaway writer gets SIGXFSZ.
      struct rlimit fsize {};
      fsize.rlim_cur = fsize.rlim_max = rlim_t{1} << 32;
      setrlimit(RLIMIT_FSIZE, &fsize);
      // The guard outlives a SIGTERM or SIGINT that mlipc sends the group
      // (the program gets it too and ends, or gets SIGKILL after the grace).
      for (int sig : kSignals) signal(sig, SIG_IGN);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      const pid_t program = fork();
      if (program < 0) _exit(126);
      if (program == 0) {
        for (int sig : kSignals) signal(sig, SIG_DFL);
        signal(SIGUSR1, SIG_DFL);
        int o = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        int e = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 || chdir(cwd.c_str()) != 0) _exit(126);
        execvpe(args[0], args.data(), envp.data());
        const char msg[] = "exec failed\n";
        ssize_t ignored = write(2, msg, sizeof msg - 1);
        (void)ignored;
        _exit(127);
      }
      int st = 0;
      while (waitpid(program, &st, 0) < 0) {
        if (errno != EINTR) _exit(126);
        if (g_orphaned) kill(0, SIGKILL);  // mlipc is gone: the group goes with it
      }
      if (WIFSIGNALED(st)) {
        // End as the program did, so that mlipc reads its signal.
        const int sig = WTERMSIG(st);
        signal(sig, SIG_DFL);
        sigset_t only;
        sigemptyset(&only);
        sigaddset(&only, sig);
        sigprocmask(SIG_UNBLOCK, &only, nullptr);
        kill(getpid(), sig);
        _exit(128 + sig);
      }
      _exit(WEXITSTATUS(st));
    }
    setpgid(pid, pid);  // also from here: no race with a kill(-pid) below
    g_child = pid;
    g_signal = 0;
  }
  ProcessResult r;
  int status = 0;
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(timeout_seconds);
  // Ending the child: SIGTERM to its group, SIGKILL after the grace period.
  constexpr auto kGrace = std::chrono::seconds(2);
  std::optional<Clock::time_point> terminated;
  for (;;) {
    // Wait without reaping: the pid (and its group) must stay ours while
    // the handler may still kill it.
    siginfo_t info{};
    int w = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if (w == 0 && info.si_pid == pid) break;
    if (w < 0 && errno != EINTR) {
      g_child = 0;
      fail("waiting for {}: {}", argv[0], std::strerror(errno));
    }
    const auto now = Clock::now();
    if (!terminated && g_signal != 0) terminated = now;  // the handler sent SIGTERM
    if (!terminated && now > deadline) {
      kill(-pid, SIGTERM);
      kill(pid, SIGTERM);
      r.timed_out = true;
      terminated = now;
    }
    if (terminated && now > *terminated + kGrace) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  int sig = 0;
  {
    BlockSignals blocked;
    // The leader is gone; kill what is left of its group (a compiler's
    // subprocesses) before the pid can be reused.
    kill(-pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    g_child = 0;
    sig = g_signal;
    g_signal = 0;
  }
  if (sig != 0) throw Interrupted(sig);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (r.timed_out) r.exit_code = -1;
  // Captured output is read bounded: a model printing without end is cut.
  constexpr uint64_t kMaxCapture = uint64_t{64} << 20;
  auto capture = [&](const std::string& p) {
    std::error_code ec;
    if (!fs::exists(p, ec)) return std::string();
    const uint64_t size = fs::file_size(p, ec);
    if (!ec && size > kMaxCapture) return read_file_range(p, 0, kMaxCapture);
    return read_file(p);
  };
  r.out = capture(out_path);
  r.err = capture(err_path);
  if (r.exit_code == 127 && r.err.find("exec failed") != std::string::npos)
    fail("cannot run '{}': not found or not executable", argv[0]);
  return r;
}

std::string first_error_line(const std::string& text) {
  std::istringstream lines(text);
  std::string line, first;
  while (std::getline(lines, line)) {
    if (first.empty() && line.find_first_not_of(" \t\r") != std::string::npos) first = line;
    if (line.find("error") != std::string::npos || line.find("undefined reference") != std::string::npos ||
        line.find("fatal") != std::string::npos || line.find("Error") != std::string::npos)
      return line;
  }
  return first;
}

}  // namespace mlipc
