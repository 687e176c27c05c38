#include "mlf/archive.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <system_error>
#include <vector>

#include "support/error.h"
#include "support/file_util.h"
#include "support/text.h"

namespace fs = std::filesystem;

namespace mlipc::mlf {

namespace {

struct ReadFree {
  void operator()(archive* a) const { archive_read_free(a); }
};
struct WriteFree {
  void operator()(archive* a) const { archive_write_free(a); }
};
struct EntryFree {
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};
using ReadPtr = std::unique_ptr<archive, ReadFree>;
using WritePtr = std::unique_ptr<archive, WriteFree>;
using EntryPtr = std::unique_ptr<archive_entry, EntryFree>;

std::string la_error(archive* a) {
  const char* s = archive_error_string(a);
  return s ? s : "unknown libarchive error";
}

std::vector<std::string_view> split_path(std::string_view name) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= name.size()) {
    size_t slash = name.find('/', start);
    if (slash == std::string_view::npos) slash = name.size();
    parts.push_back(name.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

// ---------------------------------------------------------------- writing

// Folder tree of the archive; std::map keeps children in byte order, the
// order Python's tarfile visits a folder in (sorted(os.listdir)).
struct Node {
  const std::string* data = nullptr;  // set for files
  std::map<std::string, Node, std::less<>> children;
};

Node build_tree(const FileMap& files) {
  Node root;
  for (const auto& [name, data] : files) {
    if (name.empty()) fail("empty entry name");
    if (name.find('\0') != std::string::npos) fail("entry name '{}' contains a NUL byte", name);
    if (name.front() == '/') fail("entry name '{}' is absolute", name);
    std::vector<std::string_view> parts = split_path(name);
    for (std::string_view p : parts)
      if (p.empty() || p == "." || p == "..")
        fail("entry name '{}' has an empty, '.' or '..' component", name);
    Node* node = &root;
    std::string prefix;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i) prefix += '/';
      prefix += parts[i];
      Node& child = node->children[std::string(parts[i])];
      bool last = i + 1 == parts.size();
      if (last ? !child.children.empty() : child.data != nullptr)
        fail("'{}' would be both a file and a folder", prefix);
      if (last) child.data = &data;
      node = &child;
    }
  }
  return root;
}

la_ssize_t append_cb(archive*, void* client, const void* buf, size_t n) {
  try {
    static_cast<std::string*>(client)->append(static_cast<const char*>(buf), n);
    return static_cast<la_ssize_t>(n);
  } catch (...) {  // never unwind through C code
    return -1;
  }
}

class TarWriter {
 public:
  // `reserve`: the bytes expected, so that a large archive is not copied as it grows.
  TarWriter(int64_t mtime, size_t reserve) : a_(archive_write_new()), e_(archive_entry_new()), mtime_(mtime) {
    if (!a_ || !e_) fail("out of memory");
    out_.reserve(reserve);
    // pax_restricted = plain ustar headers unless an entry needs more (long names).
    if (archive_write_set_format_pax_restricted(a_.get()) != ARCHIVE_OK ||
        archive_write_set_bytes_per_block(a_.get(), 10240) != ARCHIVE_OK ||
        archive_write_open2(a_.get(), &out_, nullptr, append_cb, nullptr, nullptr) != ARCHIVE_OK)
      fail("cannot start the archive: {}", la_error(a_.get()));
  }

  void add(const std::string& name, const std::string* data) {
    archive_entry* e = e_.get();
    archive_entry_clear(e);
    archive_entry_copy_pathname(e, name.c_str());
    archive_entry_set_filetype(e, data ? AE_IFREG : AE_IFDIR);
    archive_entry_set_perm(e, data ? 0644 : 0755);
    archive_entry_set_uid(e, 0);
    archive_entry_set_gid(e, 0);
    archive_entry_copy_uname(e, "root");
    archive_entry_copy_gname(e, "root");
    archive_entry_set_mtime(e, static_cast<time_t>(mtime_), 0);
    archive_entry_set_size(e, data ? static_cast<la_int64_t>(data->size()) : 0);
    if (archive_write_header(a_.get(), e) != ARCHIVE_OK)
      fail("cannot write entry '{}': {}", name, la_error(a_.get()));
    if (data && !data->empty()) {
      la_ssize_t n = archive_write_data(a_.get(), data->data(), data->size());
      if (n < 0 || static_cast<size_t>(n) != data->size())
        fail("cannot write entry '{}': {}", name, la_error(a_.get()));
    }
  }

  void emit(const std::string& name, const Node& node) {
    add(name, node.data);
    for (const auto& [child_name, child] : node.children)
      emit(name + child_name + (child.data ? "" : "/"), child);
  }

  std::string finish() {
    if (archive_write_close(a_.get()) != ARCHIVE_OK) fail("cannot finish the archive: {}", la_error(a_.get()));
    return std::move(out_);
  }

 private:
  std::string out_;  // declared before a_ so the callback target outlives the archive
  WritePtr a_;
  EntryPtr e_;
  int64_t mtime_;
};

// ---------------------------------------------------------------- reading

struct Member {
  std::string name;  // normalized, no "./"
  bool is_dir = false;
  std::string data;
};

// "./a/./b" -> "a/b"; "./" -> "" (the root). Rejects what could escape the
// extraction folder.
std::string normalize_member(std::string_view name, const fs::path& path) {
  if (!name.empty() && name.front() == '/')
    fail("{}: entry '{}' has an absolute path", path.string(), name);
  std::string out;
  for (std::string_view p : split_path(name)) {
    if (p.empty() || p == ".") continue;
    if (p == "..") fail("{}: entry '{}' has a '..' component", path.string(), name);
    if (!out.empty()) out += '/';
    out += p;
  }
  return out;
}

// `path` only names the archive in messages (the user's tarball, never a
// temporary copy).
std::vector<Member> read_members(const std::string& bytes, const fs::path& path) {
  const std::string where = path.string();
  if (bytes.empty()) fail("{}: not a tar archive (empty file)", where);

  ReadPtr a(archive_read_new());
  if (!a) fail("{}: out of memory", where);
  // Plain tar only (ustar, pax, GNU, v7): MLF archives are not compressed.
  archive_read_support_format_tar(a.get());
  auto corrupt = [&] { fail("{}: truncated or corrupt archive ({})", where, la_error(a.get())); };
  // Opening runs libarchive's format detection: failing here means no tar header was recognized.
  int r = archive_read_open_memory(a.get(), bytes.data(), bytes.size());
  if (r != ARCHIVE_OK) fail("{}: not a tar archive", where);

  std::vector<Member> members;
  std::vector<char> buf(1 << 16);
  for (;;) {
    archive_entry* e = nullptr;
    r = archive_read_next_header(a.get(), &e);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN) corrupt();
    const char* raw = archive_entry_pathname(e);
    if (!raw) raw = archive_entry_pathname_utf8(e);
    if (!raw) fail("{}: truncated or corrupt archive (an entry has no name)", where);
    Member m;
    m.name = normalize_member(raw, path);
    if (archive_entry_hardlink(e) != nullptr)
      fail("{}: entry '{}' is a hard link; only regular files and folders are supported", where, raw);
    const auto type = archive_entry_filetype(e);
    if (type == AE_IFDIR) {
      m.is_dir = true;
      if (!m.name.empty()) members.push_back(std::move(m));
      continue;
    }
    if (type != AE_IFREG)
      fail("{}: entry '{}' is a {}; only regular files and folders are supported", where, raw,
           type == AE_IFLNK ? "symbolic link" : "device, FIFO or socket");
    if (m.name.empty()) fail("{}: entry '{}' is a file without a name", where, raw);
    // A sparse entry would inflate its holes: a small archive could claim
    // terabytes. mlipc never writes one; every byte of a member is in the archive.
    if (archive_entry_sparse_count(e) > 0)
      fail("{}: entry '{}' is a sparse file; only plain regular files are supported", where, printable(raw));
    if (archive_entry_size_is_set(e) && static_cast<uint64_t>(archive_entry_size(e)) > bytes.size())
      fail("{}: truncated or corrupt archive (entry '{}' claims {} bytes)", where, printable(raw),
           archive_entry_size(e));
    // The member's bytes in one allocation (at most the archive's size, just
    // checked): appended 64 KiB at a time, a 45 MB member was copied again at
    // every doubling, most of `mlipc run`'s time on ResNet-18's tarball.
    if (archive_entry_size_is_set(e) && archive_entry_size(e) > 0)
      m.data.reserve(static_cast<size_t>(archive_entry_size(e)));
    for (;;) {
      la_ssize_t n = archive_read_data(a.get(), buf.data(), buf.size());
      if (n < 0) corrupt();
      if (n == 0) break;
      m.data.append(buf.data(), static_cast<size_t>(n));
      if (m.data.size() > bytes.size()) fail("{}: entry '{}' holds more bytes than the archive", where, printable(raw));
    }
    members.push_back(std::move(m));
  }
  // libarchive accepts input that stops exactly between two entries; an
  // archive cut there would silently lose files. Every tar writer ends with
  // two zero blocks (then zero padding), so the last 1024 bytes are zero.
  if (bytes.size() < 1024 ||
      std::any_of(bytes.end() - 1024, bytes.end(), [](char c) { return c != 0; }))
    fail("{}: truncated or corrupt archive (no end-of-archive marker)", where);
  return members;
}

}  // namespace

int64_t archive_time() {
  const char* env = std::getenv("SOURCE_DATE_EPOCH");
  if (env == nullptr || *env == '\0') return kDefaultArchiveTime;
  std::string_view s(env);
  int64_t t = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), t);
  if (ec != std::errc() || end != s.data() + s.size() || t < 0 || s.front() == '-' || s.front() == '+')
    fail("SOURCE_DATE_EPOCH='{}' is not a whole number of seconds since 1970-01-01", s);
  return t;
}

void write_tar(const fs::path& path, const FileMap& files) {
  std::string bytes;
  try {
    Node root = build_tree(files);
    size_t total = 10240;
    for (const auto& f : files) total += f.second.size() + 2048;  // data, header, padding
    TarWriter w(archive_time(), total);
    w.emit("./", root);
    bytes = w.finish();
  } catch (const Error& e) {
    fail("{}: {}", path.string(), e.what());
  }
  write_file_atomic(path, bytes);
}

FileMap read_tar(const fs::path& path) { return read_tar_bytes(read_file(path), path); }

FileMap read_tar_bytes(const std::string& bytes, const fs::path& name) {
  FileMap files;
  for (Member& m : read_members(bytes, name))
    if (!m.is_dir) files[m.name] = std::move(m.data);  // a later duplicate wins, as in tar
  return files;
}

void extract_tar(const fs::path& path, const fs::path& dir) { extract_tar_bytes(read_file(path), path, dir); }

void extract_tar_bytes(const std::string& bytes, const fs::path& path, const fs::path& dir) {
  std::vector<Member> members = read_members(bytes, path);
  try {
    fs::create_directories(dir);
    for (const Member& m : members) {
      // Refuse to follow a symbolic link that already exists under `dir`.
      fs::path target = dir;
      for (std::string_view part : split_path(m.name)) {
        target /= std::string(part);
        if (fs::is_symlink(target))
          fail("{}: entry '{}' would be written through the symbolic link {}", path.string(), m.name,
               target.string());
      }
      if (m.is_dir) {
        fs::create_directories(target);
      } else {
        fs::create_directories(target.parent_path());
        write_file(target, m.data);
      }
    }
  } catch (const fs::filesystem_error& e) {
    fail("{}: cannot extract into {}: {}", path.string(), dir.string(), e.code().message());
  }
}

}  // namespace mlipc::mlf
