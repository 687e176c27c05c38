// Small file helpers: whole-file reads with clear errors, atomic writes (a
// failed command never leaves a half-written output), and temporary folders.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace mlipc {

// Reads a whole file; throws Error naming the path when it is missing or unreadable.
std::string read_file(const std::filesystem::path& path);

// Writes to a temporary file beside `path`, then renames it over `path`.
void write_file_atomic(const std::filesystem::path& path, std::string_view bytes);

// Writes `bytes` to `path` (creating parent folders); not atomic.
void write_file(const std::filesystem::path& path, std::string_view bytes);

// A fresh folder under the system temp dir, removed with everything in it
// when the object dies (unless keep() was called).
class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "mlipc");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  void keep() { keep_ = true; }

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

}  // namespace mlipc
