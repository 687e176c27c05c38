// The steps of a host build (host_model.cpp), shared with the build of a
// mesh tarball's pipeline runner (mesh_model.cpp): the same compiler
// flags, object cache, member check and cache folder rules.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "mlf/archive.h"
#include "support/process.h"

namespace mlipc::host::steps {

// The C compiler and its flags: the host's (host_flags()) or a cross build's.
struct Toolchain {
  std::string cc;
  std::vector<std::string> flags;
};

std::string sha256_hex(const std::string& bytes);
// $CC, or "cc".
std::string compiler();
// Compiles `src` (relative to `dir`, compiled there) into the object cache
// under `objects`, keyed by the compiler, its flags, `headers_key` and the source.
std::filesystem::path cached_object(const std::filesystem::path& dir, const std::filesystem::path& src,
                                    const std::string& headers_key, const std::filesystem::path& objects,
                                    const Toolchain& tc, int timeout);
// The compiler, its flags and the contents of the headers under dir/sub.
std::string headers_key(const std::filesystem::path& dir, const std::filesystem::path& sub, const Toolchain& tc);
// Runs the compiler in `dir`; a failure is one line naming its first error.
void compile_or_fail(std::vector<std::string> argv, const std::filesystem::path& dir, const std::string& cc,
                     int timeout);
// tc.cc, its flags, and the tarball's include folders (relative).
std::vector<std::string> cc_command(const Toolchain& tc);
// The .c files under dir/sub, relative to dir, sorted.
std::vector<std::filesystem::path> c_sources(const std::filesystem::path& dir, const std::filesystem::path& sub);
// The runtime's sources under dir as one translation unit; *contents gets them all (the cache key).
std::string runtime_unity_source(const std::filesystem::path& dir, std::string* contents);
// Refuses a member that mlipc compile does not write for `module`.
void check_members(const mlf::FileMap& files, const std::string& module, const std::filesystem::path& tarball);
// Links `objects` (then `libs`) into a program in the cache's programs/
// folder, once per objects and flags; returns it. The linker runs in `dir`.
std::filesystem::path cached_program(const std::vector<std::string>& objects, const std::vector<std::string>& libs,
                                     const std::filesystem::path& dir, const std::filesystem::path& cache,
                                     const Toolchain& cc, int timeout);
// Runs `build` in a staging folder beside cache/key and renames it to
// cache/key (a concurrent build of the same key may win: `exe` then
// exists); errors name `tarball`, and leave no staging folder.
void build_staged(const std::filesystem::path& cache, const std::string& key, const std::filesystem::path& exe,
                  const std::filesystem::path& tarball, const std::function<void(const std::filesystem::path&)>& build);
// Runs a built program; a timeout, a crash or a non-zero exit is one line
// naming the tarball and `what` ran ("model", "pipeline") with the
// program's first error line.
ProcessResult run_program(const std::vector<std::string>& argv, const std::filesystem::path& cwd, int timeout_seconds,
                          const std::filesystem::path& tarball, const char* what);
// The build cache must be the user's own folder (created 0700).
void check_cache_dir(const std::filesystem::path& dir, bool strict);

}  // namespace mlipc::host::steps
