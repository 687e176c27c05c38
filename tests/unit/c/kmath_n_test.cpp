// mlip/kmath_n.h: the array forms of exp and erf give the bits of
// mlip_expf and mlip_erff element by element, at every vector width the host's C
// compilers give them (AVX-512 or whatever -march=native has, AVX2, SSE2,
// width 1), with gcc and clang, with the flush-to-zero bits of the
// floating-point environment set as well, and on AArch64 (NEON) under
// qemu-aarch64 when the cross tools are there. Inputs: every 4093rd float
// bit pattern, and 20,000 consecutive floats around each place where the
// vector code hands a lane to the scalar function (0, the subnormal edge,
// -87, -105, 20 and 9.5; exp's -104 and 89; erf's 1, 2, 3, 4 and -2).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "support/file_util.h"
#include "support/process.h"
#include "testlib/c_runner.h"

namespace mlipc::unit_c_kmath_n {
namespace {

namespace fs = std::filesystem;

const char* kProgram = R"(#include "mlip/kmath_n.h"
#include <stdio.h>
#if defined(FTZ) && defined(__SSE2__)
#include <xmmintrin.h>
#endif
static float a[4096], b[4096];
static unsigned long bad, total;
static void check(const float* x, int n) {
  int i;
  memcpy(a, x, sizeof(float) * (size_t)n);
  mlip_expf_n(a, n);
  for (i = 0; i < n; ++i) {
    float w = mlip_expf(x[i]);
    if (memcmp(&w, &a[i], 4) != 0 && bad++ < 5) printf("exp %a: %a, want %a\n", x[i], a[i], w);
  }
  memcpy(a, x, sizeof(float) * (size_t)n);
  mlip_erff_n(a, n);
  for (i = 0; i < n; ++i) {
    float w = mlip_erff(x[i]);
    if (memcmp(&w, &a[i], 4) != 0 && bad++ < 5) printf("erf %a: %a, want %a\n", x[i], a[i], w);
  }
  total += (unsigned long)n;
}
int main(void) {
  static const uint32_t edges[] = {0x00000000u, 0x80000000u, 0x00800000u, 0x80800000u, 0xc2ae0000u,
                                   0xc2d20000u, 0x41a00000u, 0x7f800000u, 0xff800000u, 0x41180000u, 0xc1180000u,
                                   0xc2d00000u, 0x42b20000u, 0x3f800000u, 0x40000000u, 0x40400000u,
                                   0x40800000u, 0xc0000000u};
  uint64_t k;
  size_t e;
  int i, n = 0;
#if defined(FTZ) && defined(__SSE2__)
  _mm_setcsr(_mm_getcsr() | 0x8040); /* flush to zero, denormals are zero */
#endif
  for (k = 0; k < 0x100000000ull; k += 4093) {
    uint32_t u = (uint32_t)k;
    memcpy(&b[n++], &u, 4);
    if (n == 4096) { check(b, n); n = 0; }
  }
  for (e = 0; e < sizeof edges / sizeof *edges; ++e)
    for (i = -10000; i < 10000; ++i) {
      uint32_t u = edges[e] + (uint32_t)i;
      memcpy(&b[n++], &u, 4);
      if (n == 4096) { check(b, n); n = 0; }
    }
  check(b, n);
  printf("width %d: %lu inputs, %lu mismatches\n", MLIP_VL, total, bad);
  return bad != 0;
}
)";

bool have(const std::string& tool) {
  return run_process({"sh", "-c", "command -v \"$0\" >/dev/null", tool}, fs::current_path(), 60).exit_code == 0;
}

// Builds the program with `cc` and `flags` and runs it (through `runner`).
void expect_same_bits(const fs::path& dir, const std::string& cc, const std::vector<std::string>& flags,
                      const std::vector<std::string>& runner = {}) {
  SCOPED_TRACE(cc + " " + fmt::format("{}", fmt::join(flags, " ")));
  std::vector<std::string> argv = {cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
                                   "-I" + (fs::path(MLIPC_TEST_DATA).parent_path().parent_path() / "include").string()};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"kmath_n.c", "-o", "kmath_n", "-lm"});
  ProcessResult b = run_process(argv, dir, 300);
  ASSERT_EQ(b.exit_code, 0) << b.err;
  std::vector<std::string> run = runner;
  run.push_back((dir / "kmath_n").string());
  ProcessResult r = run_process(run, dir, 300);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(" 0 mismatches"), std::string::npos) << r.out;
}

TEST(KmathN, ArrayFormsGiveTheScalarBitsAtEveryWidth) {
  const fs::path dir = test::scratch_dir() / "kmath_n";
  fs::create_directories(dir);
  write_file(dir / "kmath_n.c", kProgram);
  for (const std::string cc : {"gcc", "clang"}) {
    if (!have(cc)) continue;
    expect_same_bits(dir, cc, {"-O3", "-march=native"});
    expect_same_bits(dir, cc, {"-O2"});
  }
  expect_same_bits(dir, "cc", {"-O2", "-mavx2"});
  expect_same_bits(dir, "cc", {"-O2", "-DMLIP_KVEC_SCALAR"});
  expect_same_bits(dir, "cc", {"-O3", "-march=native", "-DFTZ"});
  if (have("aarch64-linux-gnu-gcc") && have("qemu-aarch64"))
    expect_same_bits(dir, "aarch64-linux-gnu-gcc", {"-O2", "-static"}, {"qemu-aarch64"});
}

}  // namespace
}  // namespace mlipc::unit_c_kmath_n
