#include "c/constants.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "support/file_util.h"
#include "support/process.h"
#include "testlib/c_runner.h"

namespace mlipc::c::unit_c_constants {
namespace {

namespace fs = std::filesystem;

TensorData bytes_tensor(size_t n, uint32_t seed) {
  TensorData t(DType::UInt8, {static_cast<int64_t>(n)});
  for (size_t i = 0; i < n; ++i) t.raw()[i] = static_cast<uint8_t>((i * 131u + seed * 7u + (i >> 8)) & 0xFF);
  return t;
}

TEST(CConstants, RowsAndTailFollowTheSize) {
  EXPECT_EQ(c_constant_declarator("k", bytes_tensor(3, 0)), "const union { struct { uint8_t t[3]; } b; uint8_t v[3]; } k");
  EXPECT_EQ(c_constant_declarator("k", bytes_tensor(1024, 0)),
            "const union { struct { uint8_t r[2][512]; } b; uint8_t v[1024]; } k");
  EXPECT_EQ(c_constant_declarator("k", TensorData::from<float>({2, 129}, std::vector<float>(258, 1.5f))),
            "const union { struct { uint8_t r[2][512]; uint8_t t[8]; } b; float v[258]; } k");
  EXPECT_EQ(c_constant_values("k"), "k.v");
  // Three octal digits per escape: "\0" followed by a digit byte stays two
  // bytes; printable bytes stand for themselves, but no quote, backslash or
  // '?' (a trigraph).
  const std::string def = c_constant_definition("k", TensorData::from<uint8_t>({7}, {0, '7', 'a', '"', '\\', '?', 0x7f}));
  EXPECT_NE(def.find("\"\\0007a\\042\\134\\077\\177\""), std::string::npos) << def;
  EXPECT_NE(def.find("MLIP_SECTION(\".rodata.tvm\") MLIP_ALIGNED(16)"), std::string::npos);
}

// Every byte of every size around the row length, and the values of
// multi-byte types, read back through `.v` from strict C99.
TEST(CConstants, StrictC99ReadsBackEveryByteAndValue) {
  std::vector<std::pair<std::string, TensorData>> consts;
  for (size_t n : {1u, 2u, 511u, 512u, 513u, 1024u, 1536u + 37u})
    consts.emplace_back(fmt::format("u{}", n), bytes_tensor(n, static_cast<uint32_t>(n)));
  consts.emplace_back("f", TensorData::from<float>({5}, {1.5f, -0.0f, 3.0e-39f, -INFINITY, 65504.0f}));
  consts.emplace_back("i", TensorData::from<int64_t>({3}, {-1, INT64_MIN, 0x0102030405060708LL}));
  consts.emplace_back("s", TensorData::from<int8_t>({3}, {-128, -1, 127}));
  std::string src = "#include <stdint.h>\n#include <stdio.h>\n#define MLIP_SECTION(s)\n#define MLIP_ALIGNED(n)\n";
  std::string check = "int main(void) {\n";
  for (const auto& [sym, t] : consts) {
    src += c_constant_definition(sym, t);
    const std::string ctype = sym == "f" ? "float" : sym == "i" ? "int64_t" : sym == "s" ? "int8_t" : "uint8_t";
    // The values, compared as bytes with what mlipc holds.
    check += fmt::format("  {{ const {}* p = {}; const unsigned char* b = (const unsigned char*)p; size_t k;\n", ctype,
                         c_constant_values(sym));
    check += fmt::format("    static const unsigned char want[] = {{");
    for (size_t i = 0; i < t.nbytes(); ++i) check += fmt::format("{}{}", i ? "," : "", t.raw()[i]);
    check += fmt::format("}};\n    if (sizeof {} < {}u) return 1;\n", sym, t.nbytes());
    check += fmt::format("    for (k = 0; k < {}u; ++k) if (b[k] != want[k]) {{ printf(\"{} %u\\n\", (unsigned)k); return 2; }} }}\n",
                         t.nbytes(), sym);
  }
  src += check + "  return 0;\n}\n";
  const fs::path dir = test::scratch_dir() / "constants";
  fs::create_directories(dir);
  write_file(dir / "c.c", src);
  ProcessResult cc = run_process({"cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "c.c", "-o", "c"}, dir, 120);
  ASSERT_EQ(cc.exit_code, 0) << cc.err;
  ProcessResult r = run_process({(dir / "c").string()}, dir, 60);
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

}  // namespace
}  // namespace mlipc::c::unit_c_constants
