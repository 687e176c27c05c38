#include "host/build_cache.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

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
  // The XDG base directory spec: a relative XDG_CACHE_HOME is invalid and ignored.
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d == '/') return fs::path(d) / "mlipc";
  if (const char* d = std::getenv("HOME"); d && *d) return fs::path(d) / ".cache" / "mlipc";
  // No home: a per-user folder under the shared temp folder, which build()
  // requires to be the user's and inaccessible to others.
  return fallback_cache_dir();
}

namespace steps {

namespace {

// The name of this machine in staging folders' names: a cache shared by
// several machines (a home folder on NFS) holds other machines' builds,
// whose processes this one cannot see. Letters, digits and '-' only.
std::string host_tag() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "host";
  std::string tag;
  for (const char* c = name; *c && tag.size() < 64; ++c)
    tag += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '-';
  return tag;
}

constexpr const char* kStage = ".stage.";
constexpr const char* kOwner = ".owner";

bool process_alive(long pid) {
  if (pid <= 0 || pid > 0x3fffffff) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

// The process that made a staging folder holds a lock on its .owner file
// while it builds; the kernel drops the lock when the process ends, however
// it ends. A folder whose lock can be taken has no live owner, even in
// another PID namespace (a container sharing the cache) where its pid
// means nothing.
bool owner_lock_held(const fs::path& staging) {
  const int fd = ::open((staging / kOwner).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return held;
}

}  // namespace

std::string staging_name(const std::string& key, const std::string& last) {
  return fmt::format(".{}{}{}.{}.{}", key, kStage, host_tag(), static_cast<long>(::getpid()), last);
}

StagingName parse_staging_name(const std::string& name) {
  // ".<key>.stage.<host>.<pid>.<XXXXXX>"
  StagingName s;
  const size_t at = name.rfind(kStage);
  if (name.empty() || name[0] != '.' || at == std::string::npos || at == 0) return s;
  const std::string rest = name.substr(at + std::strlen(kStage));
  const size_t last = rest.rfind('.');
  if (last == std::string::npos || last == 0) return s;
  const size_t dot = rest.rfind('.', last - 1);
  if (dot == std::string::npos || dot == 0) return s;
  const std::string pid = rest.substr(dot + 1, last - dot - 1);
  if (pid.empty() || pid.size() > 10 || pid.find_first_not_of("0123456789") != std::string::npos) return s;
  s.valid = true;
  s.key = name.substr(1, at - 1);
  s.host = rest.substr(0, dot);
  s.pid = std::stol(pid);
  return s;
}

fs::path cache_path(const fs::path& dir) {
  // What is checked is what is used: absolute (the compiler runs in the
  // build folder, where a relative path would name another place), "." and
  // ".." resolved, and no trailing '/', which would make lstat follow a
  // symbolic link ("/path/link/").
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec);
  if (ec) fail("cannot use the build cache {}: {}", dir.string(), ec.message());
  p = p.lexically_normal();
  std::string s = p.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

fs::path check_cache_dir(const fs::path& given, bool strict) {
  const fs::path dir = cache_path(given);
  std::error_code ec;
  if (dir.has_parent_path()) fs::create_directories(dir.parent_path(), ec);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    fail("cannot create the build cache {}: {}; set MLIPC_CACHE_DIR to a folder of yours", dir.string(),
         std::strerror(errno));
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) fail("cannot use the build cache {}: {}", dir.string(), std::strerror(errno));
  if (S_ISLNK(st.st_mode))
    fail("the build cache {} is a symbolic link, not a folder; remove it or set MLIPC_CACHE_DIR", dir.string());
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
  return dir;
}

fs::path resolve_cache_dir(const fs::path& option) {
  const fs::path given = option.empty() ? default_cache_dir() : option;
  return check_cache_dir(given, option.empty() && given == fallback_cache_dir());
}

void check_cache_writable(const fs::path& cache) {
  if (::access(cache.c_str(), W_OK | X_OK) != 0)
    fail("cannot build into the build cache {}: {}; make it writable (chmod 700) or set MLIPC_CACHE_DIR to "
         "another folder",
         cache.string(), errno == EROFS ? "it is on a read-only file system" : std::strerror(errno));
}

int remove_orphaned_staging(const fs::path& cache) {
  const std::string host = host_tag();
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(cache, ec), end; !ec && it != end; it.increment(ec)) {
    const StagingName s = parse_staging_name(it->path().filename().string());
    if (!s.valid || s.host != host || process_alive(s.pid)) continue;
    // Only real folders (never through a link), and only when no process
    // holds the folder's lock.
    std::error_code kind;
    if (it->symlink_status(kind).type() != fs::file_type::directory) continue;
    if (owner_lock_held(it->path())) continue;
    std::error_code rm;
    fs::remove_all(it->path(), rm);
    if (!rm) ++removed;
  }
  return removed;
}

void build_staged(const fs::path& cache, const std::string& key, const fs::path& exe, const fs::path& tarball,
                  const std::function<void(const fs::path&)>& build) {
  check_cache_writable(cache);
  // What a process killed outright (SIGKILL, a power cut) left behind.
  remove_orphaned_staging(cache);
  // Build beside the final folder, then rename: concurrent runs of the same
  // tarball never see a half-built cache entry. The name says whose it is.
  std::string templ = (cache / staging_name(key, "XXXXXX")).string();
  if (::mkdtemp(templ.data()) == nullptr)
    fail("{}: cannot build into the build cache {}: {}; make it writable (chmod 700) or set MLIPC_CACHE_DIR",
         tarball.string(), cache.string(), std::strerror(errno));
  const fs::path staging = templ;
  const int owner = ::open((staging / kOwner).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (owner >= 0) ::flock(owner, LOCK_EX);
  struct Release {
    int fd;
    ~Release() {
      if (fd >= 0) ::close(fd);
    }
  } release{owner};
  auto discard = [&] {
    std::error_code ec;
    fs::remove_all(staging, ec);
  };
  try {
    build(staging);
    std::error_code ec;
    // The entry keeps its program only: the extracted tarball and the
    // objects (in objects/ already) were most of a cache's bytes.
    std::vector<fs::path> drop;
    for (fs::directory_iterator it(staging, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name != exe.filename().string() && name != kOwner) drop.push_back(it->path());
    }
    for (const fs::path& p : drop) fs::remove_all(p, ec);
    fs::remove(staging / kOwner, ec);
    fs::rename(staging, cache / key, ec);
    if (ec && !fs::exists(exe)) fail("cannot store the build in {}: {}", (cache / key).string(), ec.message());
  } catch (const Interrupted&) {
    discard();
    throw;
  } catch (const Error& e) {
    discard();
    // Every build error names the user's tarball (never the staging folder).
    const std::string prefix = tarball.string() + ": ";
    if (std::string_view(e.what()).rfind(prefix, 0) == 0) throw;
    fail("{}{}", prefix, e.what());
  } catch (const fs::filesystem_error& e) {
    discard();
    // A cache that became read-only or full while building.
    fail("{}: cannot write the build cache {}: {}; make room or set MLIPC_CACHE_DIR to another folder",
         tarball.string(), cache.string(), e.code().message());
  } catch (...) {
    discard();
    throw;
  }
  discard();  // left over when another process won the rename
}

}  // namespace steps
}  // namespace mlipc::host
