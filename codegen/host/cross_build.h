// --cross-compiler: the model built for the target, beside the tarball
// (docs/user-guide.md, "Cross builds"). The tarball stays a plain MLF; the
// target's files go into the folder <tarball without .tar>.<triple>/:
//   lib<module>.a     the generated C and the runtime, one object per source
//   <module>_runner   (Linux triples) mlipc run's driver linked with them:
//                     what `mlipc run` starts under qemu-user on another
//                     architecture, or what a user runs on the device
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace mlipc::host {

struct CrossBuild {
  std::string compiler;             // the cross compiler
  std::vector<std::string> flags;   // its target flags (--target, -mcpu, the user's options)
  std::string triple;
  bool runner = false;              // build the runner too (Linux triples)
  int build_timeout = 600;          // per compiler run
};

// The folder beside `tarball` that holds its build for `triple`.
std::filesystem::path cross_dir(const std::filesystem::path& tarball, const std::string& triple);
// The runner's file name in it.
std::string runner_name(const std::string& module);

// The flags every cross-built file gets before the target's: C99, -O2, no
// contraction (the sources enforce it too: mlip/strict_fp.h).
const std::vector<std::string>& cross_base_flags();

// The runner's flags: mlipc run's driver flags at -O2, then the target's.
std::vector<std::string> runner_flags(const std::vector<std::string>& target_flags);

// Refuses (Error naming it) an existing `out` that is not a folder a cross
// build wrote: one holding anything but lib<module>.a and <module>_runner.
// A folder of the user's that happens to have the name is never deleted.
void check_build_folder(const std::filesystem::path& out, const std::string& module);

// Builds `tarball` (module `module`) with `b` into `out` (created; a
// previous build there is replaced only when everything built, and only if
// check_build_folder accepts it). Throws Error with
// one line naming the compiler and its first error.
void build_cross(const std::filesystem::path& tarball, const std::string& module, const CrossBuild& b,
                 const std::filesystem::path& out);

// The archiver for `compiler`: <prefix>ar (aarch64-linux-gnu-gcc ->
// aarch64-linux-gnu-ar), <prefix>gcc-ar, llvm-ar, ar, the first found on PATH.
std::string archiver_for(const std::string& compiler);

// `tool` found on PATH (or as given, if it has a '/').
bool on_path(const std::string& tool);

}  // namespace mlipc::host
