// The build cache's size limit (docs/user-guide.md, "The build cache's
// size"): the cache holds what `run` built (one folder per tarball, objects/
// and programs/); without a limit it grows with every tarball ever run.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

namespace mlipc::host::steps {

// 4 GiB unless $MLIPC_CACHE_MAX_SIZE says otherwise.
constexpr uint64_t kDefaultCacheMaxBytes = uint64_t{4} << 30;
// An entry used this recently is never removed: a concurrent run may be
// about to link or execute it.
constexpr std::chrono::seconds kCacheKeep{15 * 60};

// "0" (no limit), a number of bytes, or one with a K, M or G suffix (powers
// of 1024); anything else is one line naming `what`.
uint64_t parse_cache_size(const std::string& text, const std::string& what);
// $MLIPC_CACHE_MAX_SIZE parsed, or kDefaultCacheMaxBytes when unset or empty.
uint64_t cache_max_bytes();

// Marks a cache entry (a build folder, an object, a program) used now.
void mark_used(const std::filesystem::path& entry);

struct TrimResult {
  uint64_t bytes_before = 0;  // the entries' sizes, summed
  uint64_t bytes_after = 0;
  int removed = 0;
};
// When the cache's entries hold more than `max_bytes` (0: no limit), removes
// the least recently used (by mark_used) until they hold at most 3/4 of it,
// so that the next builds do not trim again at once. Entries are what mlipc
// makes: build folders named by 32 hex digits (or "mesh-" and 32), objects/
// *.o, programs/<32 hex>; never a staging folder, a link, or anything else
// found there, never one used within `keep` of `now`. A build folder
// disappears at once (renamed, then removed).
TrimResult trim_cache(const std::filesystem::path& cache, uint64_t max_bytes, std::chrono::seconds keep,
                      std::filesystem::file_time_type now);
// After a build: trim_cache to `max_bytes` (cache_max_bytes(), read before
// the build so that a wrong value fails first), at most once a minute per
// cache (the stamp .trimmed: the scan reads every entry). A failure to trim
// never fails the run.
void trim_after_build(const std::filesystem::path& cache, uint64_t max_bytes);

}  // namespace mlipc::host::steps
