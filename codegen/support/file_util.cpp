#include "support/file_util.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <system_error>

#include <unistd.h>

#include "support/error.h"

namespace fs = std::filesystem;

namespace mlipc {

std::string read_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) fail("{}: no such file", path.string());
  if (fs::is_directory(path, ec)) fail("{}: is a directory, not a file", path.string());
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}: cannot open: {}", path.string(), std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) fail("{}: read error", path.string());
  return ss.str();
}

void write_file(const fs::path& path, std::string_view bytes) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail("{}: cannot create: {}", path.string(), std::strerror(errno));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) fail("{}: write error", path.string());
}

void write_file_atomic(const fs::path& path, std::string_view bytes) {
  fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) fail("{}: folder {} does not exist", path.string(), dir.string());
  fs::path tmp = dir / fmt::format(".{}.tmp{}", path.filename().string(), static_cast<long>(getpid()));
  try {
    write_file(tmp, bytes);
    fs::rename(tmp, path);
  } catch (const std::exception& e) {
    fs::remove(tmp, ec);
    fail("{}: cannot write: {}", path.string(), e.what());
  }
}

TempDir::TempDir(std::string_view prefix) {
  std::string templ = (fs::temp_directory_path() / fmt::format("{}-XXXXXX", prefix)).string();
  if (mkdtemp(templ.data()) == nullptr) fail("cannot create a temporary folder: {}", std::strerror(errno));
  path_ = templ;
}

TempDir::~TempDir() {
  if (keep_) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace mlipc
