#include "mlf/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>

#include "support/error.h"
#include "support/file_util.h"

namespace mlipc::mlf::unit_mlf_archive {
namespace {

namespace fs = std::filesystem;

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

struct HeaderInfo {
  std::string name;
  bool is_dir;
  int64_t uid, gid;
  std::string uname, gname;
  int perm;
  int64_t mtime;
};

// Reads back the entry headers with libarchive, independent of read_tar.
std::vector<HeaderInfo> headers(const fs::path& p) {
  std::unique_ptr<archive, int (*)(archive*)> a(archive_read_new(), archive_read_free);
  archive_read_support_format_tar(a.get());
  EXPECT_EQ(archive_read_open_filename(a.get(), p.c_str(), 10240), ARCHIVE_OK);
  std::vector<HeaderInfo> out;
  archive_entry* e = nullptr;
  while (archive_read_next_header(a.get(), &e) == ARCHIVE_OK) {
    out.push_back({archive_entry_pathname(e), archive_entry_filetype(e) == AE_IFDIR, archive_entry_uid(e),
                   archive_entry_gid(e), archive_entry_uname(e) ? archive_entry_uname(e) : "",
                   archive_entry_gname(e) ? archive_entry_gname(e) : "", static_cast<int>(archive_entry_perm(e)),
                   static_cast<int64_t>(archive_entry_mtime(e))});
    archive_read_data_skip(a.get());
  }
  return out;
}

FileMap sample() {
  std::string binary;
  for (int i = 0; i < 3000; ++i) binary.push_back(static_cast<char>(i * 7));
  binary[10] = '\0';
  return {
      {"metadata.json", "{\"version\": 7}\n"},
      {"codegen/host/src/default_lib0.c", "int x;\n"},
      {"codegen/host/include/tvmgen_default.h", "#pragma once\n"},
      {"parameters/default.params", binary},
      {"a.txt", ""},  // empty file
      {"a/b/c/deep.bin", std::string(513, 'z')},
  };
}

// Saves and restores SOURCE_DATE_EPOCH around a test.
class EpochGuard {
 public:
  EpochGuard() {
    if (const char* v = std::getenv("SOURCE_DATE_EPOCH")) old_ = v, had_ = true;
  }
  ~EpochGuard() {
    if (had_) setenv("SOURCE_DATE_EPOCH", old_.c_str(), 1);
    else unsetenv("SOURCE_DATE_EPOCH");
  }

 private:
  std::string old_;
  bool had_ = false;
};

TEST(Tar, RoundTripBinaryAndNestedFolders) {
  TempDir dir("tar-test");
  fs::path p = dir.path() / "model.tar";
  write_tar(p, sample());
  EXPECT_EQ(read_tar(p), sample());
  EXPECT_EQ(fs::file_size(p) % 10240, 0u);  // full tar records, as Python's tarfile writes
}

TEST(Tar, TvmStyleHeaders) {
  EpochGuard guard;
  unsetenv("SOURCE_DATE_EPOCH");
  TempDir dir("tar-test");
  fs::path p = dir.path() / "model.tar";
  write_tar(p, sample());
  std::vector<HeaderInfo> h = headers(p);
  std::vector<std::string> names;
  for (const auto& e : h) {
    names.push_back(e.name);
    EXPECT_EQ(e.uid, 0) << e.name;
    EXPECT_EQ(e.gid, 0) << e.name;
    EXPECT_EQ(e.uname, "root") << e.name;
    EXPECT_EQ(e.gname, "root") << e.name;
    EXPECT_EQ(e.perm, e.is_dir ? 0755 : 0644) << e.name;
    EXPECT_EQ(e.mtime, kDefaultArchiveTime) << e.name;
  }
  // Depth-first, children sorted, a folder entry before its contents.
  std::vector<std::string> want = {"./",
                                   "./a/",
                                   "./a/b/",
                                   "./a/b/c/",
                                   "./a/b/c/deep.bin",
                                   "./a.txt",
                                   "./codegen/",
                                   "./codegen/host/",
                                   "./codegen/host/include/",
                                   "./codegen/host/include/tvmgen_default.h",
                                   "./codegen/host/src/",
                                   "./codegen/host/src/default_lib0.c",
                                   "./metadata.json",
                                   "./parameters/",
                                   "./parameters/default.params"};
  EXPECT_EQ(names, want);
  // Plain POSIX ustar headers (magic "ustar\0", version "00").
  std::string bytes = read_file(p);
  EXPECT_EQ(bytes.substr(257, 8), std::string("ustar\0" "00", 8));
  EXPECT_EQ(bytes.substr(0, 3), std::string("./\0", 3));
}

TEST(Tar, LongNamesSurvive) {
  TempDir dir("tar-test");
  std::string longname = "runtime/src/" + std::string(120, 'd') + "/" + std::string(150, 'f') + ".c";
  FileMap files = {{longname, "long"}};
  write_tar(dir.path() / "l.tar", files);
  EXPECT_EQ(read_tar(dir.path() / "l.tar"), files);
}

TEST(Tar, ReproducibleBytes) {
  EpochGuard guard;
  TempDir dir("tar-test");
  unsetenv("SOURCE_DATE_EPOCH");
  write_tar(dir.path() / "a.tar", sample());
  write_tar(dir.path() / "b.tar", sample());
  EXPECT_EQ(read_file(dir.path() / "a.tar"), read_file(dir.path() / "b.tar"));

  setenv("SOURCE_DATE_EPOCH", "1234567890", 1);
  write_tar(dir.path() / "c.tar", sample());
  EXPECT_NE(read_file(dir.path() / "a.tar"), read_file(dir.path() / "c.tar"));
  for (const auto& e : headers(dir.path() / "c.tar")) EXPECT_EQ(e.mtime, 1234567890);

  setenv("SOURCE_DATE_EPOCH", "yesterday", 1);
  std::string msg = error_of([&] { write_tar(dir.path() / "d.tar", sample()); });
  EXPECT_NE(msg.find("SOURCE_DATE_EPOCH"), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(dir.path() / "d.tar"));
}

TEST(Tar, AtomicFailureLeavesNothing) {
  TempDir dir("tar-test");
  auto only = [](const fs::path& d) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(d)) names.push_back(e.path().filename().string());
    return names;
  };
  // The final rename fails (a folder is in the way): the temp file is removed.
  fs::path in_the_way = dir.path() / "model.tar";
  fs::create_directories(in_the_way / "x");
  std::string msg = error_of([&] { write_tar(in_the_way, sample()); });
  EXPECT_NE(msg.find(in_the_way.string()), std::string::npos) << msg;
  EXPECT_EQ(only(dir.path()), std::vector<std::string>{"model.tar"});
  EXPECT_TRUE(fs::is_directory(in_the_way));

  // The output folder does not exist.
  msg = error_of([&] { write_tar(dir.path() / "missing" / "m.tar", sample()); });
  EXPECT_NE(msg.find("m.tar"), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(dir.path() / "missing"));

  // An unwritable folder (not testable as root, who may write anywhere).
  fs::path ro = dir.path() / "ro";
  fs::create_directories(ro);
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  if (access(ro.c_str(), W_OK) != 0) {
    msg = error_of([&] { write_tar(ro / "m.tar", sample()); });
    EXPECT_NE(msg.find((ro / "m.tar").string()), std::string::npos) << msg;
    EXPECT_TRUE(fs::is_empty(ro));
  }
  fs::permissions(ro, fs::perms::owner_all);
}

TEST(Tar, BadNamesRejectedOnWrite) {
  TempDir dir("tar-test");
  fs::path p = dir.path() / "bad.tar";
  for (const char* bad : {"", "/etc/passwd", "a/../b", "./x", "a//b", "dir/"}) {
    std::string msg = error_of([&] { write_tar(p, {{bad, "x"}}); });
    EXPECT_NE(msg.find(p.string()), std::string::npos) << "'" << bad << "': " << msg;
  }
  std::string msg = error_of([&] { write_tar(p, {{"a", "file"}, {"a/b", "nested"}}); });
  EXPECT_NE(msg.find("both a file and a folder"), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(p));
}

TEST(Tar, CorruptInputsAreErrors) {
  TempDir dir("tar-test");
  fs::path good = dir.path() / "good.tar";
  write_tar(good, sample());
  const std::string bytes = read_file(good);

  auto check = [&](const std::string& name, const std::string& content, const std::string& expect) {
    fs::path p = dir.path() / name;
    write_file(p, content);
    std::string msg = error_of([&] { read_tar(p); });
    EXPECT_NE(msg.find(p.string() + ": " + expect), std::string::npos) << name << ": " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  };
  check("empty.tar", "", "not a tar archive");
  check("text.tar", "just some text, no tar header here\n", "not a tar archive");
  check("noise.tar", std::string(4096, '\x5a'), "not a tar archive");
  // Cut inside a header, inside file data, and exactly between two entries.
  check("cut_header.tar", bytes.substr(0, 700), "truncated or corrupt archive");
  // ./ ./a/ ./a/b/ ./a/b/c/ are one block each; deep.bin's 513 bytes follow its header at 2560.
  check("cut_data.tar", bytes.substr(0, 512 * 5 + 200), "truncated or corrupt archive");
  check("cut_between.tar", bytes.substr(0, 512 * 7), "truncated or corrupt archive");
  // A damaged header checksum in the middle.
  std::string damaged = bytes;
  damaged[512 * 3 + 150] ^= 0x55;
  check("damaged.tar", damaged, "truncated or corrupt archive");
  std::string msg = error_of([&] { read_tar(dir.path() / "nope.tar"); });
  EXPECT_NE(msg.find("nope.tar"), std::string::npos) << msg;
}

// Builds a tar with arbitrary (unsafe) names using libarchive directly.
void raw_tar(const fs::path& p, const std::vector<std::pair<std::string, int>>& entries) {
  std::unique_ptr<archive, int (*)(archive*)> a(archive_write_new(), archive_write_free);
  archive_write_set_format_ustar(a.get());
  ASSERT_EQ(archive_write_open_filename(a.get(), p.c_str()), ARCHIVE_OK);
  for (const auto& [name, type] : entries) {
    std::unique_ptr<archive_entry, void (*)(archive_entry*)> e(archive_entry_new(), archive_entry_free);
    archive_entry_copy_pathname(e.get(), name.c_str());
    archive_entry_set_filetype(e.get(), static_cast<unsigned>(type));
    archive_entry_set_perm(e.get(), 0644);
    if (type == AE_IFLNK) archive_entry_copy_symlink(e.get(), "/etc/passwd");
    archive_entry_set_size(e.get(), type == AE_IFREG ? 4 : 0);
    ASSERT_EQ(archive_write_header(a.get(), e.get()), ARCHIVE_OK) << name;
    if (type == AE_IFREG) archive_write_data(a.get(), "evil", 4);
  }
  archive_write_close(a.get());
}

TEST(Tar, PathTraversalRejected) {
  TempDir dir("tar-test");
  struct Case {
    std::string file;
    std::vector<std::pair<std::string, int>> entries;
    std::string expect;
  };
  std::vector<Case> cases = {
      {"dotdot.tar", {{"../evil.txt", AE_IFREG}}, "'..'"},
      {"inner.tar", {{"./a/../../evil.txt", AE_IFREG}}, "'..'"},
      {"abs.tar", {{"/tmp/evil.txt", AE_IFREG}}, "absolute"},
      {"link.tar", {{"./link", AE_IFLNK}}, "symbolic link"},
  };
  for (const Case& c : cases) {
    fs::path p = dir.path() / c.file;
    raw_tar(p, c.entries);
    std::string msg = error_of([&] { read_tar(p); });
    EXPECT_NE(msg.find(c.expect), std::string::npos) << c.file << ": " << msg;
    fs::path out = dir.path() / ("out_" + c.file);
    msg = error_of([&] { extract_tar(p, out); });
    EXPECT_NE(msg.find(c.expect), std::string::npos) << c.file << ": " << msg;
    EXPECT_FALSE(fs::exists(out));  // checked before anything is written
  }
  EXPECT_FALSE(fs::exists(dir.path().parent_path() / "evil.txt"));
}

TEST(Tar, ExtractWritesFilesAndFolders) {
  TempDir dir("tar-test");
  fs::path p = dir.path() / "m.tar";
  write_tar(p, sample());
  fs::path out = dir.path() / "out" / "nested";
  extract_tar(p, out);
  for (const auto& [name, data] : sample()) EXPECT_EQ(read_file(out / name), data) << name;
  EXPECT_TRUE(fs::is_directory(out / "a" / "b" / "c"));

  // Refuses to write through a symbolic link planted inside the target folder.
  fs::path out2 = dir.path() / "out2";
  fs::create_directories(out2);
  fs::create_directory_symlink(dir.path() / "elsewhere", out2 / "codegen");
  std::string msg = error_of([&] { extract_tar(p, out2); });
  EXPECT_NE(msg.find("symbolic link"), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(dir.path() / "elsewhere"));
}

TEST(Tar, ReadsTarsFromOtherWriters) {
  // Names without "./", folder entries absent: still read, names normalized.
  TempDir dir("tar-test");
  fs::path p = dir.path() / "plain.tar";
  raw_tar(p, {{"x/y.txt", AE_IFREG}, {"./z.txt", AE_IFREG}, {"d", AE_IFDIR}});
  FileMap want = {{"x/y.txt", "evil"}, {"z.txt", "evil"}};
  EXPECT_EQ(read_tar(p), want);
}

}  // namespace
}  // namespace mlipc::mlf::unit_mlf_archive
