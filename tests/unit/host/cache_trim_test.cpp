// The build cache's size limit (host/cache_trim.h): least recently used
// entries go first, recent ones and anything mlipc did not write stay.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "host/build_cache.h"
#include "host/cache_trim.h"
#include "support/error.h"
#include "support/file_util.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace mlipc::host::unit_host_cache_trim {
namespace {

const std::string kA(32, 'a'), kB(32, 'b'), kC(32, 'c'), kD(32, 'd');

class CacheTrim : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mlipc-trim-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "objects");
    fs::create_directories(dir_ / "programs");
    now_ = fs::file_time_type::clock::now();
  }
  void TearDown() override { fs::remove_all(dir_); }
  // A file of `bytes` bytes last used `age` ago.
  void file(const fs::path& rel, size_t bytes, std::chrono::seconds age) {
    fs::create_directories((dir_ / rel).parent_path());
    write_file(dir_ / rel, std::string(bytes, 'x'));
    fs::last_write_time(dir_ / rel, now_ - age);
  }
  // A build folder holding one program of `bytes`, used `age` ago.
  void build(const std::string& key, size_t bytes, std::chrono::seconds age) {
    file(fs::path(key) / "model_host", bytes, age);
    fs::last_write_time(dir_ / key, now_ - age);
  }
  bool has(const fs::path& rel) const { return fs::exists(fs::symlink_status(dir_ / rel)); }
  steps::TrimResult trim(uint64_t max) { return steps::trim_cache(dir_, max, steps::kCacheKeep, now_); }

  fs::path dir_;
  fs::file_time_type now_;
};

TEST_F(CacheTrim, UnderTheLimitNothingGoes) {
  build(kA, 1000, 10h);
  file("objects/" + kB + ".o", 500, 10h);
  const steps::TrimResult r = trim(1500);
  EXPECT_EQ(r.bytes_before, 1500u);
  EXPECT_EQ(r.removed, 0);
  EXPECT_TRUE(has(kA));
  EXPECT_TRUE(has("objects/" + kB + ".o"));
}

TEST_F(CacheTrim, OldestGoFirstDownToThreeQuartersOfTheLimit) {
  build(kA, 1000, 5h);                       // oldest
  file("objects/" + kB + ".o", 1000, 4h);
  file("programs/" + kC, 1000, 3h);
  build(kD, 1000, 2h);                       // newest
  // 4000 bytes against a limit of 3000: down to 2250, so two entries go.
  const steps::TrimResult r = trim(3000);
  EXPECT_EQ(r.bytes_before, 4000u);
  EXPECT_EQ(r.bytes_after, 2000u);
  EXPECT_EQ(r.removed, 2);
  EXPECT_FALSE(has(kA));
  EXPECT_FALSE(has("objects/" + kB + ".o"));
  EXPECT_TRUE(has("programs/" + kC));
  EXPECT_TRUE(has(kD));
  // No trash folder is left behind.
  for (const auto& e : fs::directory_iterator(dir_)) EXPECT_NE(e.path().filename().string()[0], '.');
}

TEST_F(CacheTrim, EntriesUsedWithinTheKeepWindowStayEvenOverTheLimit) {
  build(kA, 1000, 20min);
  build(kB, 1000, 10min);  // within 15 minutes: a run may be about to execute it
  file("objects/" + kC + ".o", 1000, 1min);
  const steps::TrimResult r = trim(1000);
  EXPECT_EQ(r.removed, 1);
  EXPECT_FALSE(has(kA));
  EXPECT_TRUE(has(kB));
  EXPECT_TRUE(has("objects/" + kC + ".o"));
  EXPECT_EQ(r.bytes_after, 2000u);
}

TEST_F(CacheTrim, MarkUsedMakesAnOldEntryRecent) {
  build(kA, 1000, 5h);
  build(kB, 1000, 4h);
  steps::mark_used(dir_ / kA);
  now_ = fs::file_time_type::clock::now() + 16min;  // both out of the keep window
  trim(1500);
  EXPECT_TRUE(has(kA));
  EXPECT_FALSE(has(kB));
}

TEST_F(CacheTrim, OnlyWhatMlipcWritesIsEverRemoved) {
  file("notes.txt", 5000, 100h);
  file("objects/readme.o", 5000, 100h);  // not 32 hex digits
  file("objects/" + kA + ".c", 5000, 100h);
  file("programs/" + kA + ".sh", 5000, 100h);
  file("abc/model_host", 5000, 100h);
  file("." + kA + ".stage.h.1.XXXXXX/x", 5000, 100h);
  // A link named like an entry, to a folder outside the cache.
  const fs::path outside = dir_.string() + "-outside";
  fs::create_directories(outside);
  write_file(outside / "precious", std::string(5000, 'p'));
  fs::create_directory_symlink(outside, dir_ / kB);
  fs::create_symlink(outside / "precious", dir_ / "programs" / kC);
  build(kD, 100, 100h);
  const steps::TrimResult r = trim(10);
  EXPECT_EQ(r.bytes_before, 100u);
  EXPECT_EQ(r.removed, 1);
  EXPECT_FALSE(has(kD));
  for (const char* kept : {"notes.txt", "objects/readme.o", "abc/model_host"}) EXPECT_TRUE(has(kept)) << kept;
  EXPECT_TRUE(has("objects/" + kA + ".c"));
  EXPECT_TRUE(has("programs/" + kA + ".sh"));
  EXPECT_TRUE(has("." + kA + ".stage.h.1.XXXXXX/x"));
  EXPECT_TRUE(has(kB));
  EXPECT_TRUE(has("programs/" + kC));
  EXPECT_EQ(read_file(outside / "precious"), std::string(5000, 'p'));
  fs::remove_all(outside);
}

// The runtime's shared tree (host/runtime_object.h) is an entry like a
// build folder: an old one goes, a recent one stays; a folder named like it
// without 32 hex digits is not mlipc's.
TEST_F(CacheTrim, RuntimeTreesAreEntriesToo) {
  file("runtime-" + kA + "/runtime/include/mlip/model.h", 600, 100h);
  fs::last_write_time(dir_ / ("runtime-" + kA), now_ - 100h);
  file("runtime-" + kB + "/runtime/include/mlip/model.h", 600, 1s);
  file("runtime-abc/runtime/include/mlip/model.h", 600, 100h);
  const steps::TrimResult r = trim(1000);
  EXPECT_EQ(r.bytes_before, 1200u);
  EXPECT_EQ(r.removed, 1);
  EXPECT_FALSE(has("runtime-" + kA));
  EXPECT_TRUE(has("runtime-" + kB));
  EXPECT_TRUE(has("runtime-abc/runtime/include/mlip/model.h"));
}

TEST_F(CacheTrim, ZeroMeansNoLimit) {
  build(kA, 1000, 100h);
  EXPECT_EQ(trim(0).removed, 0);
  EXPECT_TRUE(has(kA));
}

TEST(CacheTrimSize, SizesParseWithUnitsAndBadOnesNameTheVariable) {
  EXPECT_EQ(steps::parse_cache_size("0", "X"), 0u);
  EXPECT_EQ(steps::parse_cache_size("1234", "X"), 1234u);
  EXPECT_EQ(steps::parse_cache_size("2K", "X"), 2048u);
  EXPECT_EQ(steps::parse_cache_size("512m", "X"), 512u << 20);
  EXPECT_EQ(steps::parse_cache_size("4G", "X"), uint64_t{4} << 30);
  for (const char* bad : {"", "G", "4GB", "-1", "1.5G", "4T", " 4G", "9999999999999999"}) {
    try {
      steps::parse_cache_size(bad, "MLIPC_CACHE_MAX_SIZE");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()),
                "MLIPC_CACHE_MAX_SIZE '" + std::string(bad) +
                    "': give a size in bytes, optionally with K, M or G (as 4G or 512M), or 0 for no limit");
    }
  }
}

}  // namespace
}  // namespace mlipc::host::unit_host_cache_trim
