// The C compiler a host build runs: which one, its flags, and running it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace mlipc::host::steps {

// The C compiler and its flags: the host's (host_flags()) or a cross build's.
struct Toolchain {
  std::string cc;
  std::vector<std::string> flags;
};

// $CC, or "cc".
std::string compiler();
// tc.cc, its flags, and the tarball's include folders (relative).
std::vector<std::string> cc_command(const Toolchain& tc);
// Runs the compiler in `dir`; a failure is one line naming its first error.
void compile_or_fail(std::vector<std::string> argv, const std::filesystem::path& dir, const std::string& cc,
                     int timeout);

}  // namespace mlipc::host::steps
