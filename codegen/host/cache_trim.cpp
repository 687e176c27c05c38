#include "host/cache_trim.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <vector>

#include "host/build_cache.h"
#include "support/error.h"

namespace fs = std::filesystem;

namespace mlipc::host::steps {

namespace {

bool hex32(const std::string& s) {
  return s.size() == 32 && std::all_of(s.begin(), s.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
         });
}

// What mlipc writes into the cache, by name (host_model.cpp, mesh_model.cpp,
// runtime_object.cpp, object_cache.cpp): nothing else is ever removed.
bool build_folder_name(const std::string& n) {
  return hex32(n) || (n.rfind("mesh-", 0) == 0 && hex32(n.substr(5))) ||
         (n.rfind("runtime-", 0) == 0 && hex32(n.substr(8)));
}
bool object_name(const std::string& n) { return n.size() == 34 && n.compare(32, 2, ".o") == 0 && hex32(n.substr(0, 32)); }

struct Entry {
  fs::path path;
  fs::file_time_type used;
  uint64_t bytes = 0;
  bool folder = false;
};

// The regular files under a build folder, never through a link.
uint64_t folder_bytes(const fs::path& dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e;
    if (it->symlink_status(e).type() == fs::file_type::regular) total += it->file_size(e);
  }
  return total;
}

void add_files(const fs::path& dir, bool (*named)(const std::string&), std::vector<Entry>& out) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e;
    if (it->symlink_status(e).type() != fs::file_type::regular || !named(it->path().filename().string())) continue;
    const fs::file_time_type t = fs::last_write_time(it->path(), e);
    if (!e) out.push_back({it->path(), t, it->file_size(e), false});
  }
}

// A build folder leaves the cache at once: renamed to a staging name of this
// process (so that, killed before removing it, the next build's sweep of
// orphaned staging folders does), then removed.
bool remove_build_folder(const fs::path& cache, const fs::path& dir) {
  const fs::path trash = cache / staging_name(dir.filename().string(), "trash");
  std::error_code ec;
  fs::rename(dir, trash, ec);
  if (ec) return false;
  fs::remove_all(trash, ec);
  return true;
}

}  // namespace

uint64_t parse_cache_size(const std::string& text, const std::string& what) {
  const auto bad = [&] {
    fail("{} '{}': give a size in bytes, optionally with K, M or G (as 4G or 512M), or 0 for no limit", what, text);
  };
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 15 || text.size() > digits + 1) bad();
  uint64_t value = std::stoull(text.substr(0, digits));
  if (text.size() == digits + 1) {
    const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
    const int shift = unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : -1;
    if (shift < 0) bad();
    if (value > (std::numeric_limits<uint64_t>::max() >> shift)) bad();
    value <<= shift;
  }
  return value;
}

uint64_t cache_max_bytes() {
  const char* v = std::getenv("MLIPC_CACHE_MAX_SIZE");
  if (v == nullptr || *v == '\0') return kDefaultCacheMaxBytes;
  return parse_cache_size(v, "MLIPC_CACHE_MAX_SIZE");
}

void mark_used(const fs::path& entry) {
  std::error_code ec;
  fs::last_write_time(entry, fs::file_time_type::clock::now(), ec);
}

TrimResult trim_cache(const fs::path& cache, uint64_t max_bytes, std::chrono::seconds keep, fs::file_time_type now) {
  TrimResult r;
  std::vector<Entry> entries;
  std::error_code ec;
  for (fs::directory_iterator it(cache, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e;
    const std::string name = it->path().filename().string();
    if (it->symlink_status(e).type() != fs::file_type::directory || !build_folder_name(name)) continue;
    const fs::file_time_type t = fs::last_write_time(it->path(), e);
    if (!e) entries.push_back({it->path(), t, folder_bytes(it->path()), true});
  }
  // objects/ and programs/ themselves must be real folders: never follow a link.
  const auto real_dir = [&](const fs::path& p) {
    std::error_code e;
    return fs::symlink_status(p, e).type() == fs::file_type::directory;
  };
  if (real_dir(cache / "objects")) add_files(cache / "objects", object_name, entries);
  if (real_dir(cache / "programs")) add_files(cache / "programs", hex32, entries);
  for (const Entry& e : entries) r.bytes_before += e.bytes;
  r.bytes_after = r.bytes_before;
  if (max_bytes == 0 || r.bytes_before <= max_bytes) return r;
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.used != b.used ? a.used < b.used : a.path < b.path;
  });
  const uint64_t target = max_bytes / 4 * 3;
  for (const Entry& e : entries) {
    if (r.bytes_after <= target) break;
    if (e.used > now - keep) break;  // sorted: every later one is recent too
    std::error_code rm;
    const bool gone = e.folder ? remove_build_folder(cache, e.path) : fs::remove(e.path, rm);
    if (!gone) continue;
    r.bytes_after -= e.bytes;
    ++r.removed;
  }
  return r;
}

void trim_after_build(const fs::path& cache, uint64_t max_bytes) {
  if (max_bytes == 0) return;
  const fs::path stamp = cache / ".trimmed";
  const fs::file_time_type now = fs::file_time_type::clock::now();
  std::error_code ec;
  const fs::file_time_type last = fs::last_write_time(stamp, ec);
  if (!ec && last > now - std::chrono::minutes(1) && last <= now) return;
  if (ec) {
    const int fd = ::open(stamp.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return;
    ::close(fd);
  }
  mark_used(stamp);
  try {
    trim_cache(cache, max_bytes, kCacheKeep, now);
  } catch (const std::exception&) {
    // A cache that cannot be trimmed now is trimmed by a later build.
  }
}

}  // namespace mlipc::host::steps
