#include "io/npz.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "support/error.h"
#include "support/file_util.h"

namespace mlipc::io::unit_io_npz {
namespace {

namespace fs = std::filesystem;

const fs::path kData = fs::path(MLIPC_TEST_DATA) / "npz";

// Runs `f`, expects an Error whose message contains every string in `parts`.
template <class F>
void expect_error(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no error thrown";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    for (const std::string& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  }
}

std::map<std::string, TensorData> by_key(const NamedTensors& v) {
  std::map<std::string, TensorData> m;
  for (const auto& [k, t] : v) m[k] = t;
  return m;
}

// The arrays make_fixtures.py writes, in its order.
void check_fixture_arrays(const NamedTensors& got) {
  const std::vector<std::string> order = {"f32", "f64", "f16", "i8",  "i16",    "i32",   "i64",  "u8",
                                          "u16", "u32", "u64", "b1", "scalar", "one_d", "empty"};
  ASSERT_EQ(got.size(), order.size());
  for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(got[i].first, order[i]);
  auto m = by_key(got);
  EXPECT_EQ(m["f32"], TensorData::from<float>({1, 3}, {1.5f, -2.0f, 3.25f}));
  EXPECT_EQ(m["f64"], TensorData::from<double>({2, 2}, {1.0, 2.5, -3.0, 1e300}));
  EXPECT_EQ(m["f16"].dtype(), DType::Float16);
  EXPECT_EQ(m["f16"].shape(), (Shape{3}));
  EXPECT_EQ(m["f16"].as_double(), (std::vector<double>{0.5, -1.0, 65504.0}));
  EXPECT_EQ(m["i8"], TensorData::from<int8_t>({4}, {-128, -1, 0, 127}));
  EXPECT_EQ(m["i16"], TensorData::from<int16_t>({2}, {-32768, 32767}));
  EXPECT_EQ(m["i32"], TensorData::from<int32_t>({2}, {INT32_MIN, 7}));
  EXPECT_EQ(m["i64"], TensorData::from<int64_t>({2}, {INT64_MIN, int64_t{1} << 62}));
  EXPECT_EQ(m["u8"], TensorData::from<uint8_t>({3}, {0, 255, 7}));
  EXPECT_EQ(m["u16"], TensorData::from<uint16_t>({1}, {65535}));
  EXPECT_EQ(m["u32"], TensorData::from<uint32_t>({2}, {4294967295u, 1}));
  EXPECT_EQ(m["u64"], TensorData::from<uint64_t>({1}, {UINT64_MAX}));
  EXPECT_EQ(m["b1"], TensorData(DType::Bool, {2, 2}, {1, 0, 0, 1}));
  EXPECT_EQ(m["scalar"], TensorData::scalar<float>(7.5f));
  EXPECT_EQ(m["scalar"].rank(), 0);
  EXPECT_EQ(m["one_d"], TensorData::from<int32_t>({3}, {0, 1, 2}));
  EXPECT_EQ(m["empty"], TensorData(DType::Float32, {0, 3}));
}

TEST(Npz, ReadsNumpySavez) { check_fixture_arrays(read_npz(kData / "stored.npz")); }

TEST(Npz, ReadsNumpySavezCompressed) { check_fixture_arrays(read_npz(kData / "compressed.npz")); }

TEST(Npz, ReadsNpyVersions2And3) {
  auto m = by_key(read_npz(kData / "versions.npz"));
  EXPECT_EQ(m["v2"], TensorData::from<int16_t>({2, 2}, {0, 1, 2, 3}));
  EXPECT_EQ(m["v3"], TensorData::from<double>({3}, {0, 1, 2}));
}

TEST(Npz, WriteNpyMatchesNumpyBytes) {
  for (const char* name : {"f32_1x3.npy", "i64_scalar.npy", "u8_3.npy", "b1_2x2.npy", "f16_0x3.npy"}) {
    std::string bytes = read_file(kData / name);
    TensorData t = read_npy(bytes, name);
    EXPECT_EQ(write_npy(t), bytes) << name;
  }
  EXPECT_EQ(read_npy(read_file(kData / "i64_scalar.npy"), "s"), TensorData::scalar<int64_t>(-5));
}

TEST(Npz, NpyHeaderLayout) {
  std::string b = write_npy(TensorData::from<float>({1, 3}, {1, 2, 3}));
  size_t hlen = static_cast<uint8_t>(b[8]) | (static_cast<uint8_t>(b[9]) << 8);
  EXPECT_EQ((10 + hlen) % 64, 0u);
  std::string header = b.substr(10, hlen);
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }", 0), 0u) << header;
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(b.size(), 10 + hlen + 12);
  EXPECT_NE(write_npy(TensorData::scalar<float>(1)).find("'shape': (), }"), std::string::npos);
  EXPECT_NE(write_npy(TensorData::from<int8_t>({3}, {1, 2, 3})).find("'descr': '|i1'"), std::string::npos);
  EXPECT_NE(write_npy(TensorData::from<int8_t>({3}, {1, 2, 3})).find("'shape': (3,), }"), std::string::npos);
  EXPECT_THROW(write_npy(TensorData(DType::BFloat16, {1})), Error);
}

TEST(Npz, RoundTripKeepsOrderAndValues) {
  TempDir dir("npz-test");
  NamedTensors in = {
      {"zeta", TensorData::from<float>({2, 2}, {1, 2, 3, 4})},
      {"alpha", TensorData::scalar<int64_t>(-9)},
      {"mid", TensorData(DType::Bool, {3}, {1, 0, 1})},
      {"half", TensorData(DType::Float16, {2}, {0x00, 0x3c, 0x00, 0xc0})},
      {"nothing", TensorData(DType::UInt16, {0})},
      {"big", TensorData(DType::UInt8, {100, 100})},
  };
  for (bool compressed : {false, true}) {
    fs::path p = dir.path() / (compressed ? "c.npz" : "s.npz");
    write_npz(p, in, compressed);
    NamedTensors out = read_npz(p);
    ASSERT_EQ(out.size(), in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      EXPECT_EQ(out[i].first, in[i].first);
      EXPECT_EQ(out[i].second, in[i].second) << in[i].first;
    }
  }
  // Deflate makes the 10000 zero bytes small; stored keeps them.
  EXPECT_LT(fs::file_size(dir.path() / "c.npz"), fs::file_size(dir.path() / "s.npz") - 5000);
  // No temp files left beside the output.
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) files += e.is_regular_file();
  EXPECT_EQ(files, 2u);
}

TEST(Npz, WriteIsReproducible) {
  TempDir dir("npz-test");
  NamedTensors in = {{"x", TensorData::from<float>({3}, {1, 2, 3})}};
  write_npz(dir.path() / "a.npz", in);
  write_npz(dir.path() / "b.npz", in);
  EXPECT_EQ(read_file(dir.path() / "a.npz"), read_file(dir.path() / "b.npz"));
}

TEST(Npz, WriteErrors) {
  TempDir dir("npz-test");
  NamedTensors dup = {{"x", TensorData::scalar<float>(1)}, {"x", TensorData::scalar<float>(2)}};
  expect_error([&] { write_npz(dir.path() / "d.npz", dup); }, {"d.npz", "'x'", "twice"});
  NamedTensors bf = {{"w", TensorData(DType::BFloat16, {1})}};
  expect_error([&] { write_npz(dir.path() / "b.npz", bf); }, {"b.npz", "'w'", "bfloat16"});
  NamedTensors ok = {{"x", TensorData::scalar<float>(1)}};
  expect_error([&] { write_npz(dir.path() / "missing" / "o.npz", ok); }, {"o.npz"});
  EXPECT_FALSE(fs::exists(dir.path() / "d.npz"));
  EXPECT_FALSE(fs::exists(dir.path() / "b.npz"));
}

TEST(Npz, ReadErrorsNameFileAndKey) {
  expect_error([] { read_npz(kData / "no_such.npz"); }, {"no_such.npz", "no such file"});
  expect_error([] { read_npz(kData / "not_a_zip.npz"); }, {"not_a_zip.npz", "not a zip"});
  expect_error([] { read_npz(kData / "truncated.npz"); }, {"truncated.npz", "truncated or corrupt zip"});
  expect_error([] { read_npz(kData / "bad_magic.npz"); }, {"bad_magic.npz", "'x'", "bad magic"});
  expect_error([] { read_npz(kData / "big_endian.npz"); }, {"big_endian.npz", "'x'", "'>f4'", "big-endian"});
  expect_error([] { read_npz(kData / "complex.npz"); }, {"complex.npz", "'x'", "unsupported dtype '<c8'"});
  expect_error([] { read_npz(kData / "object.npz"); }, {"object.npz", "'x'", "'|O'", "object arrays"});
  expect_error([] { read_npz(kData / "fortran.npz"); }, {"fortran.npz", "'x'", "Fortran", "not supported"});
  expect_error([] { read_npz(kData / "short_data.npz"); }, {"short_data.npz", "'x'", "shorter than the shape"});
  expect_error([] { read_npz(kData / "not_npy_member.npz"); }, {"not_npy_member.npz", "readme.txt"});
  expect_error([] { read_npz(kData / "duplicate_member.npz"); },
               {"duplicate_member.npz", "two members have the same name"});
}

TEST(Npz, CrcMismatchIsAnError) {
  TempDir dir("npz-test");
  std::string bytes = read_file(kData / "stored.npz");
  size_t at = bytes.find("\x93NUMPY");  // the first member's data (stored, so visible)
  ASSERT_NE(at, std::string::npos);
  bytes[at + 130] ^= 0x01;  // inside f32.npy: 128-byte header, 12 data bytes
  write_file(dir.path() / "crc.npz", bytes);
  expect_error([&] { read_npz(dir.path() / "crc.npz"); }, {"crc.npz", "'f32'", "corrupt"});
}

TEST(Npz, EmptyFileIsNotAZip) {
  TempDir dir("npz-test");
  write_file(dir.path() / "empty.npz", "");
  expect_error([&] { read_npz(dir.path() / "empty.npz"); }, {"empty.npz", "not a zip"});
}

// numpy.savez() with no arrays writes a 22-byte archive; so do we, and it reads back empty.
TEST(Npz, EmptyArchiveRoundTrip) {
  TempDir dir("mlipc-npz-empty");
  fs::path p = dir.path() / "empty.npz";
  write_npz(p, {});
  EXPECT_EQ(read_file(p).size(), 22u);
  EXPECT_TRUE(read_npz(p).empty());
}

TEST(Npz, NpyHeaderErrors) {
  auto npy = [](std::string header, std::string data = "", char major = 1) {
    std::string b = "\x93NUMPY";
    b.push_back(major);
    b.push_back(0);
    b.push_back(static_cast<char>(header.size() & 0xff));
    b.push_back(static_cast<char>(header.size() >> 8));
    if (major != 1) b += std::string(2, '\0');
    return b + header + data;
  };
  EXPECT_EQ(read_npy(npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }\n", std::string(8, '\1')), "a"),
            TensorData::from<int32_t>({2}, {0x01010101, 0x01010101}));
  // Key order and quotes do not matter; Python 2 longs are accepted.
  EXPECT_EQ(read_npy(npy("{\"shape\": (1L,), \"fortran_order\": False, \"descr\": \"|u1\"}", "\7"), "a"),
            TensorData::from<uint8_t>({1}, {7}));
  // One-axis Fortran arrays have C-order bytes.
  EXPECT_EQ(read_npy(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 1), }", std::string(4, '\0')), "a"),
            TensorData(DType::Float32, {1, 1}));
  expect_error([&] { read_npy("", "arr"); }, {"arr", "bad magic"});
  expect_error([&] { read_npy(npy("{}", "", 4), "arr"); }, {"arr", "version 4.0"});
  expect_error([&] { read_npy(npy("{'descr': '<f4', 'shape': (1,)}"), "arr"); }, {"arr", "bad .npy header"});
  expect_error([&] { read_npy(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}"), "arr"); },
               {"arr", "bad .npy header"});
  expect_error([&] { read_npy(npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}"), "arr"); },
               {"arr", "structured"});
  expect_error([&] { read_npy(npy("{'descr': '<U3', 'fortran_order': False, 'shape': (1,)}"), "arr"); },
               {"arr", "unsupported dtype '<U3'"});
  expect_error([&] { read_npy(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}", "1234"), "arr"); },
               {"arr", "shorter than the shape needs", "24 bytes"});
  std::string cut = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}");
  expect_error([&] { read_npy(cut.substr(0, cut.size() - 5), "arr"); }, {"arr", "truncated .npy header"});
}

}  // namespace
}  // namespace mlipc::io::unit_io_npz
