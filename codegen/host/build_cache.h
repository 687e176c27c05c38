// The build cache of `mlipc run` (docs/security.md, "The build cache"): the
// user's own folder, and builds staged beside their entry so that no run
// ever sees half a build.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

namespace mlipc::host::steps {

// The cache holds binaries that `run` executes: created 0700, it must be a
// folder of the user's, not a symbolic link, not writable by others
// (`strict`: not accessible by them at all).
void check_cache_dir(const std::filesystem::path& dir, bool strict);
// Runs `build` in a staging folder beside cache/key and renames it to
// cache/key (a concurrent build of the same key may win: `exe` then
// exists); errors name `tarball`, and leave no staging folder.
void build_staged(const std::filesystem::path& cache, const std::string& key, const std::filesystem::path& exe,
                  const std::filesystem::path& tarball, const std::function<void(const std::filesystem::path&)>& build);

}  // namespace mlipc::host::steps
