// The client of `mlipc serve` (serve/protocol.h; docs/user-guide.md,
// "Remote run"): sends a cross-built runner and its input files to the
// server, gets the runner's status, output files and timings back. One
// entry point for `mlipc run --remote` (through HostModel::run_on) and the
// Python module. Every failure is an Error of one line naming host:port and
// what failed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace mlipc::host {

struct RemoteEndpoint {
  std::string host;  // a name or a numeric address
  int port = 0;
  std::string token;  // empty: none sent
  int io_timeout = 30;  // seconds one connect, read or write may wait

  std::string shown() const;  // host:port, [v6]:port
};

// "host:port" or "[v6addr]:port"; Error naming `text` otherwise.
RemoteEndpoint parse_endpoint(const std::string& text);

// The token file's content (serve/protocol.h's rule: a regular file of at
// most 4 KiB, 1 to 256 bytes without trailing whitespace); Error naming it.
std::string read_token_file(const std::filesystem::path& path);

struct RemoteFile {
  std::string name;   // a plain file name (serve/protocol.h: mlrx_check_name)
  std::string bytes;
};

struct RemoteJob {
  std::filesystem::path runner;     // sent as the program; the server runs nothing else
  std::vector<RemoteFile> inputs;   // in the runner's argument order
  std::vector<std::string> outputs; // the files the runner writes, in order
  uint32_t runs = 1;                // the runner's -r
};

struct RemoteResult {
  int status = 0;          // the runner's exit code, or -signal
  bool timed_out = false;  // killed at the server's --job-timeout
  uint64_t wall_ns = 0, user_ns = 0, sys_ns = 0;  // measured on the server, around the runner
  std::string out;         // its stdout (bounded)
  std::string err;         // its stderr's first lines
  std::vector<RemoteFile> outputs;  // those the runner wrote, in the job's order
};

// Runs `job` on the server, which kills the runner after `timeout_seconds`
// (or its own --job-timeout, if smaller). A busy server, a wrong token, a
// limit, a lost connection: Error.
RemoteResult run_remote(const RemoteEndpoint& at, const RemoteJob& job, int timeout_seconds);

}  // namespace mlipc::host
