#include "host/runtime_object.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "host/build_cache.h"
#include "host/cache_trim.h"
#include "host/object_cache.h"
#include "support/error.h"
#include "support/file_util.h"

namespace fs = std::filesystem;

namespace mlipc::host::steps {

const std::vector<std::string>& runtime_parts() {
  static const std::vector<std::string> parts = {"runtime/src/core", "runtime/src/sim"};
  return parts;
}

fs::path runtime_tree(const mlf::FileMap& files, const fs::path& cache, const fs::path& tarball) {
  std::string key_text;
  for (const auto& [name, data] : files)
    if (name.rfind("runtime/", 0) == 0) key_text += name + "\n" + std::to_string(data.size()) + "\n" + data;
  const std::string key = "runtime-" + sha256_hex(key_text).substr(0, 32);
  const fs::path tree = cache / key;
  if (fs::exists(tree)) {
    mark_used(tree);
    return tree;
  }
  std::string templ = (cache / staging_name(key, "XXXXXX")).string();
  if (::mkdtemp(templ.data()) == nullptr)
    fail("{}: cannot build into the build cache {}: {}; make it writable (chmod 700) or set MLIPC_CACHE_DIR",
         tarball.string(), cache.string(), std::strerror(errno));
  const fs::path staging = templ;
  std::error_code ec;
  try {
    for (const auto& [name, data] : files) {
      if (name.rfind("runtime/", 0) != 0) continue;
      fs::create_directories((staging / name).parent_path());
      write_file(staging / name, data);
    }
  } catch (...) {
    fs::remove_all(staging, ec);
    throw;
  }
  fs::rename(staging, tree, ec);  // losing a race to another process is fine
  if (ec) {
    fs::remove_all(staging, ec);
    if (!fs::exists(tree)) fail("{}: cannot store the runtime in the build cache {}", tarball.string(), cache.string());
  }
  return tree;
}

fs::path runtime_object(const fs::path& dir, const std::vector<std::string>& parts, const Toolchain& tc,
                        const fs::path& cache, int timeout) {
  // One compiler run instead of one per file: the parts share no static name.
  std::string unity = "/* The runtime's sources, one translation unit (mlipc run). */\n";
  std::vector<fs::path> header_dirs = {"runtime/include"};
  std::string sources;
  for (const std::string& part : parts) {
    header_dirs.push_back(part);
    for (const fs::path& s : c_sources(dir, part)) {
      unity += "#include \"" + s.generic_string() + "\"\n";
      sources += "\n" + s.generic_string() + "\n" + read_file(dir / s);
    }
  }
  const fs::path unity_c = dir / "runtime_all.c";
  if (!fs::exists(unity_c) || read_file(unity_c) != unity) {
    const fs::path tmp = dir / fmt::format(".runtime_all.c.{}", static_cast<long>(getpid()));
    write_file(tmp, unity);
    fs::rename(tmp, unity_c);
  }
  return cached_object(dir, "runtime_all.c", headers_key(dir, header_dirs, tc) + sources, cache / "objects", tc,
                       timeout);
}

}  // namespace mlipc::host::steps
