// The support layer and the IR under hostile values (issue 9): overflow-
// checked shapes and windows, bounded reads of regular files only, outputs
// that never replace a device or an input, escaped names, the first error
// line of a compiler, and the archive/npz/metadata readers' refusals.
#include <archive.h>
#include <archive_entry.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <cstdint>
#include <limits>
#include <memory>

#include "io/npz.h"
#include "ops/spatial.h"
#include "ir/tensor_data.h"
#include "mlf/archive.h"
#include "mlf/metadata.h"
#include "support/error.h"
#include "support/file_util.h"
#include "support/process.h"
#include "support/text.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace mlipc::unit_support_robustness {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(CheckedShapes, NumelOverflowNamesTheShape) {
  EXPECT_THAT(error_of([] { numel({4294967296, 4294967296, 1, 1}); }),
              HasSubstr("shape [4294967296,4294967296,1,1] has more elements than fit in 64 bits"));
  EXPECT_THAT(error_of([] { numel({1, 3, kMax, 1}); }), HasSubstr("[1,3,9223372036854775807,1]"));
  EXPECT_EQ(numel({kMax, kMax, 0}), 0);  // empty, however large the other axes
  EXPECT_EQ(numel({kMax}), kMax);
  EXPECT_THAT(error_of([] { tensor_bytes(DType::Float32, {kMax}); }), HasSubstr("more bytes than fit in 64 bits"));
  EXPECT_THAT(error_of([] { check_tensor_size(DType::Float32, {1, (int64_t{1} << 28) + 1}); }),
              HasSubstr("float32 [1,268435457] is 1073741828 bytes, more than mlipc's limit for one tensor (1 GiB)"));
  check_tensor_size(DType::Float32, {1, int64_t{1} << 28});  // exactly 1 GiB is fine
  EXPECT_THAT(error_of([] { TensorData(DType::Float32, {int64_t{1} << 40}); }), HasSubstr("limit for one tensor"));
}

TEST(CheckedShapes, WindowArithmeticNeverWraps) {
  using ops::window_output_size;
  EXPECT_THAT(error_of([] { window_output_size(8, 3, 1, 1, kMax, 0, false); }),
              HasSubstr("the padded input (8 + 9223372036854775807 + 0 cells) has more cells than fit in 64 bits"));
  EXPECT_THAT(error_of([] { window_output_size(kMax, 3, 1, 1, 1, 1, false); }),
              HasSubstr("(9223372036854775807 + 1 + 1 cells)"));
  EXPECT_THAT(error_of([] { window_output_size(8, kMax, 1, 2, 0, 0, false); }),
              HasSubstr("the window (kernel 9223372036854775807, dilation 2) spans more cells than fit in 64 bits"));
  // Near the limit but representable: exact results.
  EXPECT_EQ(window_output_size(kMax - 2, 3, 1, 1, 1, 1, false), kMax - 2);
  EXPECT_EQ(window_output_size(kMax, 1, kMax, 1, 0, 0, true), 1);
  EXPECT_EQ(window_output_size(kMax - 1, 2, 2, 1, 0, 1, true), kMax / 2);
  auto same = ops::same_pads(kMax, 3, 1, 1, true);
  EXPECT_EQ(same[0] + same[1], 2);
}

TEST(CheckedShapes, PoolPadsMustBeSmallerThanTheWindow) {
  ops::GeometryRules pool{true, true, true};
  Attrs a;
  a.set("kernel_shape", std::vector<int64_t>{2, 2});
  a.set("pads", std::vector<int64_t>{2, 0, 0, 0});
  EXPECT_THAT(error_of([&] { ops::resolve_geometry(a, {8, 8}, {}, pool); }),
              HasSubstr("attribute pads [2,0,0,0] must be smaller than the window (2 cells on axis 0: kernel_shape [2,2])"));
  a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  EXPECT_EQ(ops::resolve_geometry(a, {8, 8}, {}, pool).out, (std::vector<int64_t>{9, 9}));
  // With dilation the window is wider: pad 2 < 3 cells (kernel 2, dilation 2).
  a.set("pads", std::vector<int64_t>{2, 2, 0, 0});
  a.set("dilations", std::vector<int64_t>{2, 2});
  EXPECT_NO_THROW(ops::resolve_geometry(a, {8, 8}, {}, pool));
  // Conv keeps accepting any pad (as onnxruntime).
  a.set("pads", std::vector<int64_t>{5, 5, 5, 5});
  EXPECT_NO_THROW(ops::resolve_geometry(a, {8, 8}, {}, ops::GeometryRules{true, false}));
}

TEST(Text, PrintableEscapesControlBytesOnly) {
  EXPECT_EQ(printable("a\nb\tc\rd\x01\x7f"), "a\\nb\\tc\\rd\\x01\\x7f");
  EXPECT_EQ(printable("caf\xc3\xa9 \\ \"q\""), "caf\xc3\xa9 \\ \"q\"");
  EXPECT_EQ(printable(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_TRUE(is_c_identifier("tvmgen_default_0"));
  EXPECT_TRUE(is_c_identifier("_x"));
  for (const char* bad : {"", "9lives", "a b", "x;y", "a-b", "x()"}) EXPECT_FALSE(is_c_identifier(bad)) << bad;
  for (const char* ok : {"aarch64-linux-gnu", "x86_64-pc-linux-gnu", "thumbv8.1m.main-none-eabi", "arm64", "riscv64gc+x"})
    EXPECT_TRUE(is_triple_name(ok)) << ok;
  for (const char* bad : {"", "aarch64-linux-gnu/../../victim", "../x", "a..b", ".hidden", "-x", "a b", "a/b", "a\\b",
                          "a\nb"})
    EXPECT_FALSE(is_triple_name(bad)) << bad;
  EXPECT_FALSE(is_triple_name(std::string(129, 'a')));
}

TEST(Text, Utf8ValidityAndEscapingOfWhatIsNot) {
  for (const char* good : {"", "ascii", "caf\xc3\xa9", "\xe5\x87\xba", "\xf0\x9f\x99\x82", "\xf4\x8f\xbf\xbf"})
    EXPECT_TRUE(is_utf8(good)) << printable(good);
  // Stray continuation, truncated sequence, overlong forms, a surrogate,
  // above U+10FFFF, bytes never in UTF-8.
  for (const char* bad : {"\x80", "a\xc3", "\xe5\x87", "\xc0\xaf", "\xe0\x80\xaf", "\xf0\x80\x80\xaf",
                          "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xff", "\xfe"})
    EXPECT_FALSE(is_utf8(bad)) << printable(bad);
  EXPECT_EQ(printable("ga\xff\xff}x\xc3"), "ga\\xff\\xff}x\\xc3");
  EXPECT_EQ(printable("\xe5\x87\xba\xed\xa0\x80"), "\xe5\x87\xba\\xed\\xa0\\x80");
}

TEST(Process, FirstErrorLineSkipsWarnings) {
  EXPECT_EQ(first_error_line("/usr/bin/ld: warning: foo\nx.c:1:2: error: bad\nmore\n"), "x.c:1:2: error: bad");
  EXPECT_EQ(first_error_line("\n\nIn file included from a.h:1,\nb.c:3: fatal error: no.h\n"), "b.c:3: fatal error: no.h");
  EXPECT_EQ(first_error_line("ld: x.o: undefined reference to `f'\n"), "ld: x.o: undefined reference to `f'");
  EXPECT_EQ(first_error_line("\nsomething odd\nelse\n"), "something odd");
  EXPECT_EQ(first_error_line(""), "");
}

struct Files : public ::testing::Test {
  TempDir dir{"mlipc-files"};
  fs::path p(const std::string& n) const { return dir.path() / n; }
};

TEST_F(Files, ReadsRegularFilesOnlyAndBounded) {
  write_file(p("a"), "hello");
  EXPECT_EQ(read_file(p("a")), "hello");
  EXPECT_THAT(error_of([&] { read_file(p("a"), 4); }), HasSubstr("is 5 bytes, more than mlipc reads (4 bytes)"));
  EXPECT_EQ(read_file_range(p("a"), 1, 3), "ell");
  EXPECT_EQ(read_file_range(p("a"), 5, 0), "");
  EXPECT_THAT(error_of([&] { read_file_range(p("a"), 4, 2); }), HasSubstr("is 5 bytes; it has no 2 bytes at offset 4"));
  EXPECT_THAT(error_of([&] { read_file_range(p("a"), UINT64_MAX, 2); }), HasSubstr("it has no 2 bytes"));
  ASSERT_EQ(mkfifo(p("fifo").c_str(), 0600), 0);
  EXPECT_THAT(error_of([&] { read_file(p("fifo")); }), HasSubstr("fifo: is a FIFO; mlipc reads regular files only"));
  EXPECT_THAT(error_of([&] { read_file("/dev/zero"); }), HasSubstr("/dev/zero: is a character device"));
  EXPECT_THAT(error_of([&] { read_file(dir.path()); }), HasSubstr("is a directory"));
  EXPECT_THAT(error_of([&] { read_file(p("missing")); }), HasSubstr("missing: no such file"));
}

TEST_F(Files, OutputsNeverReplaceADeviceAFifoOrAnInput) {
  ASSERT_EQ(mkfifo(p("fifo").c_str(), 0600), 0);
  EXPECT_THAT(error_of([&] { write_file_atomic(p("fifo"), "x"); }), HasSubstr("is a FIFO"));
  EXPECT_THAT(error_of([&] { write_file_atomic("/dev/null", "x"); }), HasSubstr("is a character device"));
  struct stat st {};
  ASSERT_EQ(stat(p("fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  write_file(p("in"), "input");
  fs::create_hard_link(p("in"), p("alias"));
  EXPECT_THAT(error_of([&] { check_output_path(p("alias"), {p("in")}, "-o"); }), HasSubstr("is the input"));
  EXPECT_EQ(error_of([&] { check_output_path(p("new"), {p("in")}, "-o"); }), "");
  // A written output: the content, permissions 0666 & ~umask, no temporary left.
  write_file_atomic(p("out"), "data");
  EXPECT_EQ(read_file(p("out")), "data");
  const mode_t mask = umask(0);
  umask(mask);
  ASSERT_EQ(stat(p("out").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666u & ~mask);
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) entries += e.path().filename().string().rfind(".out.", 0) == 0;
  EXPECT_EQ(entries, 0);
}

TEST(Archive, SparseEntriesAreRefused) {
  // A pax archive with one sparse entry claiming 1 TiB, nearly all hole.
  std::string out;
  std::unique_ptr<archive, decltype(&archive_write_free)> a(archive_write_new(), archive_write_free);
  ASSERT_EQ(archive_write_set_format_pax(a.get()), ARCHIVE_OK);
  ASSERT_EQ(archive_write_open2(
                a.get(), &out, nullptr,
                [](archive*, void* c, const void* b, size_t n) -> la_ssize_t {
                  static_cast<std::string*>(c)->append(static_cast<const char*>(b), n);
                  return static_cast<la_ssize_t>(n);
                },
                nullptr, nullptr),
            ARCHIVE_OK);
  std::unique_ptr<archive_entry, decltype(&archive_entry_free)> e(archive_entry_new(), archive_entry_free);
  archive_entry_set_pathname(e.get(), "metadata.json");
  archive_entry_set_filetype(e.get(), AE_IFREG);
  archive_entry_set_perm(e.get(), 0644);
  archive_entry_set_size(e.get(), int64_t{1} << 40);
  archive_entry_sparse_add_entry(e.get(), 0, 512);
  ASSERT_EQ(archive_write_header(a.get(), e.get()), ARCHIVE_OK);
  std::string block(512, 'x');
  archive_write_data(a.get(), block.data(), block.size());
  archive_write_close(a.get());
  EXPECT_THAT(error_of([&] { mlf::read_tar_bytes(out, "sparse.tar"); }), HasSubstr("sparse.tar: entry"));
}

TEST(Npz, MemberBiggerThanItsHeaderIsRefused) {
  TempDir dir("mlipc-npz");
  // A stored member whose .npy holds 4 bytes more than its header declares.
  const std::string npy = io::write_npy(TensorData::from<float>({2}, {1.f, 2.f})) + "XXXX";
  int err = 0;
  const std::string path = (dir.path() / "extra.npz").string();
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  ASSERT_NE(z, nullptr);
  zip_source_t* src = zip_source_buffer(z, npy.data(), npy.size(), 0);
  ASSERT_GE(zip_file_add(z, "a.npy", src, 0), 0);
  ASSERT_EQ(zip_close(z), 0);
  EXPECT_THAT(error_of([&] { io::read_npz(path); }),
              HasSubstr("extra.npz: array 'a': the archive says it inflates to 140 bytes, but its header declares "
                        "<f4 [2] (136 bytes); refused"));
  // Headers are bounded too.
  std::string long_header = std::string("\x93NUMPY\x02\x00", 8) + std::string("\x00\x00\x10\x00", 4);
  EXPECT_THAT(error_of([&] { io::read_npy(long_header + std::string(16, ' '), "x"); }),
              HasSubstr("x: .npy header of 1048576 bytes is longer than mlipc reads (65536 bytes)"));
  // A header declaring more than the tensor limit is refused before any data is read.
  std::string huge = io::write_npy(TensorData(DType::Float32, {1}));
  huge.replace(huge.find("(1,)"), 4, "(1073741825,)");
  EXPECT_THAT(error_of([&] { io::read_npy(huge, "x"); }), HasSubstr("more than mlipc's limit for one tensor"));
}

TEST(Metadata, DamageThatWouldHurtReadersIsRefused) {
  mlf::Metadata m;
  m.model_name = "m";
  m.targets = {"c"};
  m.extra = {{"mlipc", {{"layers", nlohmann::json::array()}}}};
  const std::string good = mlf::metadata_to_json(m);
  EXPECT_NO_THROW(mlf::metadata_from_json(good));
  std::string bad = good;
  bad.replace(bad.find("\"default\""), 9, "\"a b\"");
  EXPECT_THAT(error_of([&] { mlf::metadata_from_json(bad); }), HasSubstr("module name 'a b' is not a C identifier"));
  bad = good;
  bad.replace(bad.find("\"layers\": []"), 12, "\"layers\": [1.5]");
  EXPECT_THAT(error_of([&] { mlf::metadata_from_json(bad); }), HasSubstr("holds the number 1.5"));
  bad = good;
  bad.replace(bad.find("\"layers\": []"), 12, "\"layers\": " + std::string(70, '[') + std::string(70, ']'));
  EXPECT_THAT(error_of([&] { mlf::metadata_from_json(bad); }), HasSubstr("nested deeper than 64 levels"));
  // Brackets inside strings do not count.
  bad = good;
  bad.replace(bad.find("\"layers\": []"), 12, "\"layers\": [\"" + std::string(100, '[') + "\\\"\"]");
  EXPECT_NO_THROW(mlf::metadata_from_json(bad));
}

}  // namespace
}  // namespace mlipc::unit_support_robustness
