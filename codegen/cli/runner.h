// The program that runs a tarball, for `mlipc run` and Python's Module.run:
// the host build (the build cache), a cross build's runner under qemu-user
// (docs/user-guide.md, "Cross builds"), or that runner sent to `mlipc serve`
// at host:port ("Remote run"). A cross-built runner is always the one in
// this user's own build cache, never the file beside the tarball
// (docs/security.md).
#pragma once

#include <string>

#include "host/host_model.h"
#include "mlf/metadata.h"
#include "support/limits.h"

namespace mlipc::cli {

struct RunnerChoice {
  std::string tarball;
  std::string remote;      // host:port of `mlipc serve`, or empty: run here
  std::string token_file;  // the server's shared token, for remote
  int build_timeout = limits::kDefaultBuildSeconds;
};

// The program for tarball c.tarball, whose bytes (read once by the caller)
// host::check_tarball has checked; throws Error with one line (no cross
// build to send, no runner in the cache, no qemu).
host::HostModel runner_for(const RunnerChoice& c, const std::string& bytes, const host::CheckedTarball& checked);

}  // namespace mlipc::cli
