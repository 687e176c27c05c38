#include "host/build_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "host/host_model.h"
#include "support/error.h"
#include "support/file_util.h"
#include "support/process.h"

namespace fs = std::filesystem;

namespace mlipc::host {

fs::path fallback_cache_dir() {
  return fs::temp_directory_path() / fmt::format("mlipc-cache-{}", static_cast<unsigned long>(::geteuid()));
}

fs::path default_cache_dir() {
  if (const char* d = std::getenv("MLIPC_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return fs::path(d) / "mlipc";
  if (const char* d = std::getenv("HOME"); d && *d) return fs::path(d) / ".cache" / "mlipc";
  // No home: a per-user folder under the shared temp folder, which build()
  // requires to be the user's and inaccessible to others.
  return fallback_cache_dir();
}

namespace steps {

void check_cache_dir(const fs::path& dir, bool strict) {
  std::error_code ec;
  if (dir.has_parent_path()) fs::create_directories(dir.parent_path(), ec);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    fail("cannot create the build cache {}: {}", dir.string(), std::strerror(errno));
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) fail("cannot use the build cache {}: {}", dir.string(), std::strerror(errno));
  if (!S_ISDIR(st.st_mode))
    fail("the build cache {} is {}, not a folder; remove it or set MLIPC_CACHE_DIR", dir.string(),
         file_kind(static_cast<unsigned>(st.st_mode)));
  if (st.st_uid != ::geteuid())
    fail("the build cache {} belongs to another user (uid {}); mlipc runs only binaries from its own cache. "
         "Set MLIPC_CACHE_DIR to a folder of yours",
         dir.string(), st.st_uid);
  const mode_t forbidden = strict ? 077 : 022;
  if ((st.st_mode & forbidden) != 0)
    fail("the build cache {} is {} by others (mode {:o}); make it private (chmod 700) or set MLIPC_CACHE_DIR",
         dir.string(), strict ? "accessible" : "writable", st.st_mode & 0777);
}

void build_staged(const fs::path& cache, const std::string& key, const fs::path& exe, const fs::path& tarball,
                  const std::function<void(const fs::path&)>& build) {
  // Build beside the final folder, then rename: concurrent runs of the same
  // tarball never see a half-built cache entry.
  TempDir staging_holder("mlipc-build");
  fs::path staging = cache / fmt::format(".{}.{}", key, fs::path(staging_holder.path()).filename().string());
  try {
    fs::create_directories(staging);
    build(staging);
    std::error_code ec;
    fs::rename(staging, cache / key, ec);
    if (ec && !fs::exists(exe)) fail("cannot store the build in {}: {}", (cache / key).string(), ec.message());
  } catch (const Interrupted&) {
    std::error_code ec;
    fs::remove_all(staging, ec);
    throw;
  } catch (const Error& e) {
    std::error_code ec;
    fs::remove_all(staging, ec);
    // Every build error names the user's tarball (never the staging folder).
    const std::string prefix = tarball.string() + ": ";
    if (std::string_view(e.what()).rfind(prefix, 0) == 0) throw;
    fail("{}{}", prefix, e.what());
  } catch (...) {
    std::error_code ec;
    fs::remove_all(staging, ec);
    throw;
  }
  std::error_code ec;
  fs::remove_all(staging, ec);  // left over when another process won the rename
}

}  // namespace steps
}  // namespace mlipc::host
