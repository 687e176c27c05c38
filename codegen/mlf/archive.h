// Tar archives in the shape TVM's Model Library Format export writes them
// (python/tvm/micro/model_library_format.py `_make_tar`): POSIX ustar, names
// prefixed "./", a "./" root entry and an entry for every folder, uid/gid 0,
// owner "root". Unlike TVM the bytes are reproducible: fixed mtime and order.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

namespace mlipc::mlf {

// Path inside the archive (relative, '/'-separated, no "./" prefix) -> bytes.
using FileMap = std::map<std::string, std::string>;

// The modification time written into archives: $SOURCE_DATE_EPOCH when set
// (reproducible-builds.org convention; a malformed value is an Error), else
// kDefaultArchiveTime.
inline constexpr int64_t kDefaultArchiveTime = 1704067200;  // 2024-01-01 00:00:00 UTC
int64_t archive_time();

// Writes `files` as a ustar archive at `path`: entries in depth-first order
// with the children of each folder sorted by name (what Python's tarfile.add
// of a folder produces), folders 0755, files 0644, uid/gid 0, uname/gname
// "root", mtime archive_time(). Names longer than ustar allows get a pax
// header (libarchive's pax_restricted format); short ones stay plain ustar.
// The archive is built in memory and renamed into place, so a failure leaves
// nothing at `path`. Errors (bad names, a name that is both a file and a
// folder, I/O) name `path`.
void write_tar(const std::filesystem::path& path, const FileMap& files);

// Reads every regular file of a tar archive ("./" prefixes stripped; folder
// entries skipped). Throws Error "<path>: not a tar archive",
// "<path>: truncated or corrupt archive (...)", and rejects absolute names,
// ".." components, links and device files.
// Reads a regular file of at most limits::kMaxFileBytes (support/limits.h).
FileMap read_tar(const std::filesystem::path& path);
// The same on bytes already read; `name` is what messages call the archive.
// Sparse entries and entries larger than the archive are refused.
FileMap read_tar_bytes(const std::string& bytes, const std::filesystem::path& name);

// Extracts the folders and regular files of a tar archive into `dir`
// (created if needed) with the same checks as read_tar. The whole archive is
// read and checked before anything is written, and nothing is written through
// a symbolic link found inside `dir`.
void extract_tar(const std::filesystem::path& path, const std::filesystem::path& dir);
void extract_tar_bytes(const std::string& bytes, const std::filesystem::path& name, const std::filesystem::path& dir);

}  // namespace mlipc::mlf
