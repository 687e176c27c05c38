// The build cache of `mlipc run` (docs/security.md, "The build cache"): the
// user's own folder, and builds staged beside their entry so that no run
// ever sees half a build.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

namespace mlipc::host::steps {

// The path the cache is used by: absolute, "." and ".." resolved, no
// trailing '/' (so that checking it never follows a link the path names).
std::filesystem::path cache_path(const std::filesystem::path& dir);
// The cache holds binaries that `run` executes: created 0700, it must be a
// folder of the user's, not a symbolic link, not writable by others
// (`strict`: not accessible by them at all). Returns cache_path(dir).
std::filesystem::path check_cache_dir(const std::filesystem::path& dir, bool strict);
// The cache of a run whose --cache option (MLIPC_CACHE_DIR) is `option`:
// the default folder when it is empty, checked by check_cache_dir (strict
// for the $TMPDIR fallback).
std::filesystem::path resolve_cache_dir(const std::filesystem::path& option);
// Before a build: the user may write into the cache (a read-only cache or
// file system is one line naming it and what to do).
void check_cache_writable(const std::filesystem::path& cache);

// A staging folder's name: ".<key>.stage.<host>.<pid>.<XXXXXX>", the host
// and process that build in it.
struct StagingName {
  bool valid = false;
  std::string key, host;
  long pid = 0;
};
StagingName parse_staging_name(const std::string& name);
// The name of a staging folder of this process for `key`, ending in `last`.
std::string staging_name(const std::string& key, const std::string& last);
// Removes the staging folders of this host whose process is gone (not
// alive, and not holding the folder's .owner lock: a process in another
// PID namespace keeps its folder); never a live process's folder, never
// anything but a folder. Returns how many it removed.
int remove_orphaned_staging(const std::filesystem::path& cache);

// Removes orphaned staging folders, then runs `build` in a fresh staging
// folder beside cache/key (holding its .owner lock) and renames it to
// cache/key (a concurrent build of the same key may win: `exe` then
// exists); errors name `tarball`, and leave no staging folder.
void build_staged(const std::filesystem::path& cache, const std::string& key, const std::filesystem::path& exe,
                  const std::filesystem::path& tarball, const std::function<void(const std::filesystem::path&)>& build);

}  // namespace mlipc::host::steps
