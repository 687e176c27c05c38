// The object cache of host builds: every object is compiled once per what
// the compiler reads (compiler, flags, headers, source), every program
// linked once per its objects, in the build cache's objects/ and programs/.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "host/toolchain.h"

namespace mlipc::host::steps {

std::string sha256_hex(const std::string& bytes);
// The digest of the parts one after another (the same as of their
// concatenation), without building it: a tarball's key hashes its bytes
// with the compiler's name and flags.
std::string sha256_hex(std::initializer_list<std::string_view> parts);
// The .c files under dir/sub, relative to dir, sorted (none when it is absent).
std::vector<std::filesystem::path> c_sources(const std::filesystem::path& dir, const std::filesystem::path& sub);
// The compiler, its flags and the names and contents of the headers under
// each of dir/subs: the part of an object's cache key the source does not say.
std::string headers_key(const std::filesystem::path& dir, const std::vector<std::filesystem::path>& subs,
                        const Toolchain& tc);
// Compiles `src` (relative to `dir`, compiled there) into the object cache
// under `objects`, keyed by `headers_key` and the source.
std::filesystem::path cached_object(const std::filesystem::path& dir, const std::filesystem::path& src,
                                    const std::string& headers_key, const std::filesystem::path& objects,
                                    const Toolchain& tc, int timeout);
// Links `objects` (then `libs`) into a program in the cache's programs/
// folder, once per objects and flags; returns it. The linker runs in `dir`.
std::filesystem::path cached_program(const std::vector<std::string>& objects, const std::vector<std::string>& libs,
                                     const std::filesystem::path& dir, const std::filesystem::path& cache,
                                     const Toolchain& tc, int timeout);

}  // namespace mlipc::host::steps
