#include "host/runtime_object.h"

#include "host/object_cache.h"
#include "support/file_util.h"

namespace fs = std::filesystem;

namespace mlipc::host::steps {

const std::vector<std::string>& runtime_parts() {
  static const std::vector<std::string> parts = {"runtime/src/core", "runtime/src/sim"};
  return parts;
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
  write_file(dir / "runtime_all.c", unity);
  return cached_object(dir, "runtime_all.c", headers_key(dir, header_dirs, tc) + sources, cache / "objects", tc,
                       timeout);
}

}  // namespace mlipc::host::steps
