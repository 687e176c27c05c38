// mlip/kmath_f.h: the float-precision exp, erf, GELU, sigmoid, SiLU, tanh
// and tanh GELU keep the error
// bounds the header documents, measured over every 127th float bit pattern
// (every 1021st in the default suite) and every float near the places where
// a clamp or a select decides
// (against the C library's double exp and erf, and for the GELU against the
// decomposition ONNX exporters write, in both forms passes/fuse_gelu.cpp
// matches, with kmath.h's mlip_erff; for the tanh GELU against its own
// operations with kmath.h's mlip_tanhf); the map forms (x into y, and in
// place) give the array forms' bits, and so does mlip/kvec_gelu.h's vector
// GELU; and the array forms
// give the same bits with gcc and clang, vectorized (-march=native, AVX2),
// without vectors (-O0), and on AArch64 under qemu-aarch64 when the cross
// tools are there (a hash of every 4099th float's seven results).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "support/file_util.h"
#include "support/process.h"
#include "testlib/c_runner.h"
#include "testlib/suite_mode.h"

namespace mlipc::unit_c_kmath_f {
namespace {

namespace fs = std::filesystem;

const char* kProgram = R"(#include "mlip/kmath_f.h"
#include "mlip/kvec_gelu.h"
#include <stdio.h>
static float x[4096], a[4096];
static uint64_t hash = 1469598103934665603ull;
static double exp_ulp, erf_ulp, gelu_ratio, sig_abs, tanh_ulp, silu_ratio, gelu_tanh_ratio;
/* The distance of y from the exact value v in units in the last place of
 * the float nearest v (a normal float: no subnormal result is measured). */
static double ulps(float y, double v) {
  int e;
  frexp(v, &e);
  return fabs((double)y - v) / ldexp(1.0, e - 24);
}
static float b[4096];
static int map_differs, vn_differs;
/* The map form of an array form: y = f(x) out of place and in place, each
 * the array form's bits (a, just mapped from x in place). */
static void check_map(void (*map)(const float*, float*, int32_t), const float* a, int n) {
  map(x, b, n);
  if (memcmp(a, b, sizeof(float) * (size_t)n) != 0) map_differs = 1;
  memcpy(b, x, sizeof(float) * (size_t)n);
  map(b, b, n);
  if (memcmp(a, b, sizeof(float) * (size_t)n) != 0) map_differs = 1;
}
static void mix(const float* p, int n) {
  int i;
  for (i = 0; i < n; ++i) {
    uint32_t u;
    memcpy(&u, &p[i], 4);
    hash = (hash ^ u) * 1099511628211ull;
  }
}
static void run(int n, int measure) {
  int i;
  memcpy(a, x, sizeof(float) * (size_t)n);
  mlip_exp_f_n(a, n);
  check_map(mlip_exp_f_map, a, n);
  if (!measure) mix(a, n);
  for (i = 0; measure && i < n; ++i) {
    double v = exp((double)x[i]);
    if (x[i] != x[i]) { if (a[i] == a[i]) exp_ulp = 1e9; continue; }
    if (x[i] < -87.0f) { if (a[i] != 0.0f) exp_ulp = 1e9; continue; }
    if (v > 3.4028234663852886e38) { if (a[i] != INFINITY) exp_ulp = 1e9; continue; }
    if (ulps(a[i], v) > exp_ulp) exp_ulp = ulps(a[i], v);
  }
  memcpy(a, x, sizeof(float) * (size_t)n);
  for (i = 0; i < n; ++i) a[i] = mlip_erf_f(a[i]);
  if (!measure) mix(a, n);
  for (i = 0; measure && i < n; ++i) {
    if (x[i] != x[i]) { if (a[i] == a[i]) erf_ulp = 1e9; continue; }
    if (x[i] == 0.0f || fabsf(x[i]) < 1e-37f) continue; /* subnormal results */
    if (ulps(a[i], erf((double)x[i])) > erf_ulp) erf_ulp = ulps(a[i], erf((double)x[i]));
  }
  memcpy(a, x, sizeof(float) * (size_t)n);
  mlip_gelu_f_n(a, n);
  check_map(mlip_gelu_f_map, a, n);
  /* the vector form of the kernels' fused GELU (mlip/kvec_gelu.h), from
   * an odd offset too (a short first stretch, unaligned vectors) */
  memcpy(b, x, sizeof(float) * (size_t)n);
  mlip_gelu_f_vn(b, n);
  if (memcmp(a, b, sizeof(float) * (size_t)n) != 0) vn_differs = 1;
  if (n > 3) {
    memcpy(b, x, sizeof(float) * (size_t)n);
    mlip_gelu_f_vn(b + 3, n - 3);
    mlip_gelu_f_vn(b, 3);
    if (memcmp(a, b, sizeof(float) * (size_t)n) != 0) vn_differs = 1;
  }
  if (!measure) mix(a, n);
  for (i = 0; measure && i < n; ++i) {
    /* ONNX's decomposition: Div, Erf, Add, Mul, Mul, each rounded. */
    const float d = x[i] / 1.41421354f, e = mlip_erff(d), s = e + 1.0f, m = x[i] * s, w = m * 0.5f;
    /* the other form passes/fuse_gelu.cpp matches: Mul by 1/sqrt 2, x / 2 first */
    const float d2 = x[i] * 0.707106769f, s2 = mlip_erff(d2) + 1.0f, w2 = (x[i] * 0.5f) * s2;
    double diff, ulp_w, bound;
    int ex;
    if (x[i] != x[i]) { if (a[i] == a[i]) gelu_ratio = 1e9; continue; }
    if (x[i] == -INFINITY) { if (a[i] != 0.0f || !signbit(a[i])) gelu_ratio = 1e9; continue; } /* -0 */
    if (fabsf(x[i]) > 1e30f) { if (a[i] != w) gelu_ratio = 1e9; continue; } /* x (1 + e) overflows */
    diff = fabs((double)a[i] - (double)w);
    if (fabs((double)a[i] - (double)w2) > diff) diff = fabs((double)a[i] - (double)w2);
    frexp(fabsf(w) > FLT_MIN ? (double)w : (double)FLT_MIN, &ex);
    ulp_w = ldexp(1.0, ex - 24);
    /* the documented bound: 5 2^-24 |x| + 1 ulp of the result */
    bound = 5.0 * fabs((double)x[i]) * ldexp(1.0, -24) + ulp_w;
    if (diff / bound > gelu_ratio) gelu_ratio = diff / bound;
  }
  memcpy(a, x, sizeof(float) * (size_t)n);
  mlip_sigmoid_f_n(a, n);
  check_map(mlip_sigmoid_f_map, a, n);
  if (!measure) mix(a, n);
  for (i = 0; measure && i < n; ++i) {
    /* the absolute error in units of 2^-24 (an ulp of [0.5, 1): x >= 0) */
    const double v = 1.0 / (1.0 + exp(-(double)x[i])), d = fabs((double)a[i] - v) * 16777216.0;
    if (x[i] != x[i]) { if (a[i] == a[i]) sig_abs = 1e9; continue; }
    if (!(a[i] >= 0.0f && a[i] <= 1.0f)) { sig_abs = 1e9; continue; }
    if (x[i] <= -17.5f && mlip__fbits(a[i]) != 0u) { sig_abs = 1e9; continue; } /* +0: exact below 2.6e-8 */
    if (x[i] >= 17.5f && a[i] != 1.0f) { sig_abs = 1e9; continue; }
    if (d > sig_abs) sig_abs = d;
  }
  memcpy(a, x, sizeof(float) * (size_t)n);
  mlip_silu_f_n(a, n);
  if (!measure) mix(a, n);
  for (i = 0; measure && i < n; ++i) {
    const double v = (double)x[i] / (1.0 + exp(-(double)x[i]));
    double bound;
    int ex;
    if (x[i] != x[i]) { if (a[i] == a[i]) silu_ratio = 1e9; continue; }
    if (x[i] <= -17.5f) { if (a[i] != 0.0f || !signbit(a[i])) silu_ratio = 1e9; continue; } /* -0: above -4.6e-7 */
    if (x[i] == INFINITY) { if (a[i] != INFINITY) silu_ratio = 1e9; continue; }
    if (x[i] > 1e38f) { if (a[i] != x[i]) silu_ratio = 1e9; continue; } /* x * 1 (v overflows no float) */
    /* the documented bound: 4 2^-24 |x| (the sigmoid's) + 1 ulp of the result */
    frexp(fabs(v) > FLT_MIN ? v : (double)FLT_MIN, &ex);
    bound = 4.0 * fabs((double)x[i]) * ldexp(1.0, -24) + ldexp(1.0, ex - 24);
    if (fabs((double)a[i] - v) / bound > silu_ratio) silu_ratio = fabs((double)a[i] - v) / bound;
  }
  memcpy(a, x, sizeof(float) * (size_t)n);
  mlip_tanh_f_n(a, n);
  check_map(mlip_tanh_f_map, a, n);
  if (!measure) mix(a, n);
  for (i = 0; measure && i < n; ++i) {
    if (x[i] != x[i]) { if (a[i] == a[i]) tanh_ulp = 1e9; continue; }
    if (fabsf(x[i]) < FLT_MIN) { if (memcmp(&a[i], &x[i], 4) != 0) tanh_ulp = 1e9; continue; } /* x itself */
    if (fabsf(x[i]) >= 9.010914f) { if (a[i] != copysignf(1.0f, x[i])) tanh_ulp = 1e9; continue; }
    if (ulps(a[i], tanh((double)x[i])) > tanh_ulp) tanh_ulp = ulps(a[i], tanh((double)x[i]));
  }
  memcpy(a, x, sizeof(float) * (size_t)n);
  mlip_gelu_tanh_f_n(a, n);
  check_map(mlip_gelu_tanh_f_map, a, n);
  if (!measure) mix(a, n);
  for (i = 0; measure && i < n; ++i) {
    /* The same operations with kmath.h's tanh (what the function was). */
    const float u = (x[i] + 0.044715f * ((x[i] * x[i]) * x[i])) * 0.797884583f;
    const float w = (x[i] * (mlip_tanhf(u) + 1.0f)) * 0.5f;
    double diff, bound;
    int ex;
    if (x[i] != x[i]) { if (a[i] == a[i]) gelu_tanh_ratio = 1e9; continue; }
    if (x[i] == -INFINITY) { if (a[i] != 0.0f || !signbit(a[i])) gelu_tanh_ratio = 1e9; continue; } /* -0 */
    if (fabsf(x[i]) > 1e30f) { if (a[i] != w) gelu_tanh_ratio = 1e9; continue; } /* x (1 + t) overflows */
    diff = fabs((double)a[i] - (double)w);
    frexp(fabsf(w) > FLT_MIN ? (double)w : (double)FLT_MIN, &ex);
    /* the documented bound: 5 2^-24 |x| + 1 ulp of the result */
    bound = 5.0 * fabs((double)x[i]) * ldexp(1.0, -24) + ldexp(1.0, ex - 24);
    if (diff / bound > gelu_tanh_ratio) gelu_tanh_ratio = diff / bound;
  }
}
int main(void) {
  static const uint32_t edges[] = {0x00000000u, 0x80000000u, 0xc2ae0000u, 0x42b17218u, 0x42b20000u,
                                   0x40800000u, 0xc0800000u, 0x40b504f3u, 0xc0b504f3u, 0x3f800000u,
                                   0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u,
                                   0x3f200000u, 0xbf200000u, 0x410e0000u, 0x418aa000u, 0x00800000u,
                                   0x418c0000u, 0xc18c0000u, 0x41102cb4u, 0xc1102cb4u};
  uint64_t k;
  size_t e;
  int i, n = 0;
#ifdef MEASURE
  const int measure = 1;
  const uint64_t stride = MEASURE;
#else
  const int measure = 0;
  const uint64_t stride = 4099;
#endif
  for (k = 0; k < 0x100000000ull; k += stride) {
    uint32_t u = (uint32_t)k;
    memcpy(&x[n++], &u, 4);
    if (n == 4096) { run(n, measure); n = 0; }
  }
  for (e = 0; e < sizeof edges / sizeof *edges; ++e)
    for (i = -2000; i < 2000; ++i) {
      uint32_t u = edges[e] + (uint32_t)i;
      memcpy(&x[n++], &u, 4);
      if (n == 4096) { run(n, measure); n = 0; }
    }
  run(n, measure);
  if (map_differs) {
    printf("a map form differs from its array form\n");
    return 1;
  }
  if (vn_differs) {
    printf("mlip_gelu_f_vn differs from mlip_gelu_f_n\n");
    return 1;
  }
  if (measure)
    printf("exp %.3f ulp, erf %.3f ulp, gelu %.3f of its bound, sigmoid %.3f 2^-24, silu %.3f of its bound, "
           "tanh %.3f ulp, "
           "gelu_tanh %.3f of its bound\n", exp_ulp, erf_ulp, gelu_ratio, sig_abs, silu_ratio, tanh_ulp, gelu_tanh_ratio);
  else printf("hash %016llx\n", (unsigned long long)hash);
  return 0;
}
)";

bool have(const std::string& tool) {
  return run_process({"sh", "-c", "command -v \"$0\" >/dev/null", tool}, fs::current_path(), 60).exit_code == 0;
}

// Builds the program with `cc` and `flags`, runs it (through `runner`) and
// returns its output.
std::string build_and_run(const fs::path& dir, const std::string& cc, const std::vector<std::string>& flags,
                          const std::vector<std::string>& runner = {}) {
  std::vector<std::string> argv = {cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
                                   "-I" + (fs::path(MLIPC_TEST_DATA).parent_path().parent_path() / "include").string()};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"kmath_f.c", "-o", "kmath_f", "-lm"});
  ProcessResult b = run_process(argv, dir, 300);
  EXPECT_EQ(b.exit_code, 0) << b.err;
  std::vector<std::string> run = runner;
  run.push_back((dir / "kmath_f").string());
  ProcessResult r = run_process(run, dir, 600);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return r.out;
}

const fs::path& program_dir() {
  static const fs::path dir = [] {
    const fs::path d = test::scratch_dir() / "kmath_f";
    fs::create_directories(d);
    write_file(d / "kmath_f.c", kProgram);
    return d;
  }();
  return dir;
}

// Every 127th float with MLIPC_TEST_FULL=1 (what the header's figures were
// measured on), every 1021st by default; the floats near each edge always.
TEST(KmathF, ErrorBoundsHold) {
  const std::string out =
      build_and_run(program_dir(), "cc", {"-O2", fmt::format("-DMEASURE={}u", test::full_suite() ? 127 : 1021)});
  double exp_ulp = 0, erf_ulp = 0, gelu = 0, sig = 0, silu = 0, tanh_ulp = 0, gelu_tanh = 0;
  ASSERT_EQ(std::sscanf(out.c_str(),
                        "exp %lf ulp, erf %lf ulp, gelu %lf of its bound, sigmoid %lf 2^-24, silu %lf of its bound, "
                        "tanh %lf ulp, "
                        "gelu_tanh %lf",
                        &exp_ulp, &erf_ulp, &gelu, &sig, &silu, &tanh_ulp, &gelu_tanh),
            7)
      << out;
  RecordProperty("measured", out);
  std::printf("%s", out.c_str());
  EXPECT_LE(exp_ulp, 2.0) << out;
  EXPECT_LE(erf_ulp, 7.0) << out;
  EXPECT_LE(gelu, 1.0) << out;
  EXPECT_LE(sig, 4.0) << out;
  EXPECT_LE(silu, 1.0) << out;
  EXPECT_LE(tanh_ulp, 8.0) << out;
  EXPECT_LE(gelu_tanh, 1.0) << out;
}

TEST(KmathF, SameBitsAtEveryWidthAndOnAArch64) {
  const std::string want = build_and_run(program_dir(), "cc", {"-O0"});
  ASSERT_NE(want.find("hash "), std::string::npos) << want;
  for (const std::string cc : {"gcc", "clang"}) {
    if (!have(cc)) continue;
    EXPECT_EQ(build_and_run(program_dir(), cc, {"-O3", "-march=native"}), want) << cc;
    EXPECT_EQ(build_and_run(program_dir(), cc, {"-O2", "-mavx2"}), want) << cc;
  }
  if (have("aarch64-linux-gnu-gcc") && have("qemu-aarch64")) {
    EXPECT_EQ(build_and_run(program_dir(), "aarch64-linux-gnu-gcc", {"-O3", "-static"}, {"qemu-aarch64"}), want);
  }
}

// The sigmoid, SiLU and tanh at their edges, exact bits: +-0, subnormals,
// +-inf, NaN (quieted, sign kept), the saturation points and either side.
TEST(KmathF, SigmoidSiluTanhEdges) {
  const fs::path d = test::scratch_dir() / "kmath_f_edges";
  fs::create_directories(d);
  write_file(d / "kmath_f.c", R"(#include "mlip/kmath_f.h"
#include <stdio.h>
static int bad;
static void want(const char* f, uint32_t x, float y, uint32_t w) {
  if (mlip__fbits(y) != w && bad++ < 8) printf("%s(0x%08x) = 0x%08x, not 0x%08x\n", f, x, mlip__fbits(y), w);
}
int main(void) {
  static const uint32_t half = 0x3f000000u, one = 0x3f800000u;
  static const struct { uint32_t x, sig, silu, tanh; } c[] = {
      {0x00000000u, half, 0x00000000u, 0x00000000u},       /* +0 */
      {0x80000000u, half, 0x80000000u, 0x80000000u},       /* -0 */
      {0x00000001u, half, 0x00000000u, 0x00000001u},       /* subnormals: tanh x itself */
      {0x807fffffu, half, 0x80400000u, 0x807fffffu},       /* x / 2, rounded to even */
      {0x7f800000u, one, 0x7f800000u, one},                /* +inf */
      {0xff800000u, 0x00000000u, 0x80000000u, 0xbf800000u}, /* -inf */
      {0x7fc00000u, 0x7fc00000u, 0x7fc00000u, 0x7fc00000u}, /* NaN */
      {0xffa00001u, 0xffe00001u, 0xffe00001u, 0xffe00001u}, /* signalling, quieted */
      {0x418c0000u, one, 0x418c0000u, one},                /* 17.5 */
      {0xc18c0000u, 0x00000000u, 0x80000000u, 0xbf800000u}, /* -17.5 */
      {0x7f7fffffu, one, 0x7f7fffffu, one},                /* FLT_MAX */
      {0xff7fffffu, 0x00000000u, 0x80000000u, 0xbf800000u}, /* -FLT_MAX */
  };
  size_t i;
  for (i = 0; i < sizeof c / sizeof *c; ++i) {
    const float x = mlip__ffrom(c[i].x);
    want("sigmoid", c[i].x, mlip_sigmoid_f(x), c[i].sig);
    want("silu", c[i].x, mlip_silu_f(x), c[i].silu);
    want("tanh", c[i].x, mlip_tanh_f(x), c[i].tanh);
  }
  /* tanh is +-1 from 9.010914 on */
  if (mlip__fbits(mlip_tanh_f(mlip__ffrom(0x41102cb4u))) != one || mlip__fbits(mlip_tanh_f(mlip__ffrom(0xc1102cb4u))) != 0xbf800000u) {
    ++bad;
    printf("tanh(+-9.010914)\n");
  }
  /* never past 1 (the rationals' roundings could pass it just below the
     saturation points), never below 0 (sigmoid near -17.5 is small and
     positive, then 0) */
  for (i = 0; i < 4096; ++i) {
    const float up = mlip__ffrom(0x418c0000u - (uint32_t)i), ut = mlip__ffrom(0x41102cb4u - (uint32_t)i);
    if (!(mlip_sigmoid_f(up) <= 1.0f && mlip_sigmoid_f(-up) >= 0.0f && mlip_sigmoid_f(-up) < 2.7e-7f) && bad++ < 8)
      printf("sigmoid(+-%a)\n", (double)up);
    if (!(mlip_tanh_f(ut) <= 1.0f && mlip_tanh_f(-ut) >= -1.0f) && bad++ < 8) printf("tanh(+-%a)\n", (double)ut);
  }
  printf("%d bad\n", bad);
  return 0;
}
)");
  EXPECT_EQ(build_and_run(d, "cc", {"-O3", "-march=native"}), "0 bad\n");
  EXPECT_EQ(build_and_run(d, "cc", {"-O0"}), "0 bad\n");
}

// mlip_exp_f scales e^r by 2^k by adding k to the exponent field of its
// bits: exact, so the bits of the product by two powers of two of the
// normal range (the form before stop 46, which a test here keeps), on every
// 127th float (every 2039th at -O0; every float when it was written, and
// every 13th until stop 47: the sum is exact wherever the result is normal,
// so the sample need only reach every exponent and the clamps, which each
// of these steps, prime and odd, does thousands of times); the
// last finite result and the first +inf. Softmax's mlip__exp_nonpos_f
// gives mlip_exp_f's bits wherever x is not positive (NaN included).
TEST(KmathF, ExpScalesByItsExponentFieldExactly) {
  const fs::path d = test::scratch_dir() / "kmath_f_exp_scale";
  fs::create_directories(d);
  write_file(d / "kmath_f.c", R"(#include "mlip/kmath_f.h"
#include <stdio.h>
/* the same k, r and polynomial, times 2^k1 and 2^(k - k1), k1 = k / 2 */
static float exp_two_powers(float x) {
  const float xl = mlip__f_sel(x > -87.0f, x, -87.0f), xc = mlip__f_sel(xl < 88.7228394f, xl, 88.7228394f);
  const float k = (xc * 1.44269502f + 12582912.0f) - 12582912.0f;
  const float r = (xc - k * 0.693359375f) - k * -2.12194440e-4f;
  const int32_t ki = (int32_t)k, k1 = ki / 2;
  float p = 1.98412698e-4f, y;
  p = p * r + 1.38888889e-3f;
  p = p * r + 8.33333377e-3f;
  p = p * r + 4.16666679e-2f;
  p = p * r + 0.166666672f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  y = (p * mlip__ffrom((uint32_t)(k1 + 127) << 23)) * mlip__ffrom((uint32_t)(ki - k1 + 127) << 23);
  y = mlip__f_sel(x > 88.7228394f, INFINITY, y);
  y = mlip__f_sel(x < -87.0f, 0.0f, y);
  return mlip__nan_or(x, y);
}
static float xs[4096], ys[4096], zs[4096];
int main(void) {
  const uint64_t step = STEP;
  uint64_t u = 0, bad = 0;
  int i, n;
  while (u < (1ull << 32)) {
    for (n = 0; n < 4096 && u < (1ull << 32); ++n, u += step) xs[n] = mlip__ffrom((uint32_t)u);
    mlip_exp_f_map(xs, ys, n);
    memcpy(zs, xs, sizeof zs);
    mlip__exp_nonpos_f_n(zs, n);
    for (i = 0; i < n; ++i) {
      if (mlip__fbits(ys[i]) != mlip__fbits(exp_two_powers(xs[i])) && bad++ < 8)
        printf("exp_f(%a) = 0x%08x\n", (double)xs[i], mlip__fbits(ys[i]));
      if (!(xs[i] > 0.0f) && mlip__fbits(zs[i]) != mlip__fbits(ys[i]) && bad++ < 8)
        printf("exp_nonpos_f(%a) = 0x%08x\n", (double)xs[i], mlip__fbits(zs[i]));
    }
  }
  if (mlip__fbits(mlip_exp_f(88.7228317f)) >= 0x7f800000u || mlip_exp_f(88.7228394f) != INFINITY ||
      mlip_exp_f(-87.0f) < 1.17549435e-38f)
    ++bad, printf("edges\n");
  printf("%d bad\n", (int)bad);
  return 0;
}
)");
  EXPECT_EQ(build_and_run(d, "cc", {"-O3", "-march=native", "-DSTEP=127u"}), "0 bad\n");
  EXPECT_EQ(build_and_run(d, "cc", {"-O0", "-DSTEP=2039u"}), "0 bad\n");
}

// Softmax's exponential since stop 50, mlip__exp_nonpos_fma_f (fused
// multiply-adds: r = x - k ln 2 in one, a degree-6 polynomial, the scaling
// by 2^k a product): within 1 + |x| / 20 ulp of the C library's double exp
// where that is a normal float (every 127th float of [-87, 0], every float
// of [-88, -87]; measured 0.88 + 0.040 |x|, 4.5 at most), within 8.4e-39
// absolute below it, 0 from -87.69 down (the clamped lanes at -88 and past
// it among them) and at -inf, NaN for NaN; its _num form the same bits for
// every number and some NaN for NaN (Softmax's vector rows take it); the
// array form the scalar's bits; and the same bits (a hash of every result)
// vectorized (-O3 -march=native), at -O0 and with the portable fused
// multiply-add of mlip/kfma.h (what a target without the instruction runs).
TEST(KmathF, SoftmaxExpFmaWithinItsBound) {
  const fs::path d = test::scratch_dir() / "kmath_f_exp_fma";
  fs::create_directories(d);
  write_file(d / "kmath_f.c", R"(#include "mlip/kmath_f.h"
#include <stdio.h>
static float xs[4096], ys[4096];
static double ulps(float y, double v) {
  int e;
  frexp(v, &e);
  return fabs((double)y - v) / ldexp(1.0, e - 24);
}
int main(void) {
  const uint32_t dense = 0xc2ae0000u, dense_end = 0xc2b00000u; /* -87, -88 */
  uint64_t hash = 1469598103934665603ull, u = 0x80000000u;
  double worst = 0.0, worst_abs = 0.0;
  int bad = 0, i, n;
  while (u <= 0xc2c00000u) { /* -0 to -96 */
    for (n = 0; n < 4096 && u <= 0xc2c00000u; ++n) {
      xs[n] = mlip__ffrom((uint32_t)u);
      u += u >= dense && u < dense_end ? 1u : 127u;
    }
    memcpy(ys, xs, sizeof ys);
    mlip__exp_nonpos_fma_f_n(ys, n);
    for (i = 0; i < n; ++i) {
      const double v = exp((double)xs[i]);
      uint32_t b = mlip__fbits(ys[i]);
      hash = (hash ^ b) * 1099511628211ull;
      if (b != mlip__fbits(mlip__exp_nonpos_fma_f(xs[i])) || b != mlip__fbits(mlip__exp_nonpos_fma_num_f(xs[i])))
        ++bad;
      if (xs[i] <= -87.69f) bad += ys[i] != 0.0f;
      if (v >= 0x1p-126) {
        if (ulps(ys[i], v) - fabs(xs[i]) / 20.0 > worst) worst = ulps(ys[i], v) - fabs(xs[i]) / 20.0;
      } else if (fabs(ys[i] - v) > worst_abs) {
        worst_abs = fabs(ys[i] - v);
      }
    }
  }
  bad += mlip__exp_nonpos_fma_f(-INFINITY) != 0.0f || mlip__exp_nonpos_fma_f(NAN) == mlip__exp_nonpos_fma_f(NAN);
  bad += mlip__exp_nonpos_fma_num_f(NAN) == mlip__exp_nonpos_fma_num_f(NAN);
  bad += mlip__exp_nonpos_fma_f(0.0f) != 1.0f || mlip__exp_nonpos_fma_f(-0.0f) != 1.0f;
  bad += worst_abs > 8.4e-39;
  printf("%d bad, hash %016llx, worst %s\n", bad, (unsigned long long)hash, worst <= 1.0 ? "within 1 + |x| / 20 ulp" : "over");
  fprintf(stderr, "worst %.3f ulp past |x| / 20, %g below the normal floats\n", worst, worst_abs);
  return 0;
}
)");
  const std::string want = build_and_run(d, "cc", {"-O3", "-march=native"});
  EXPECT_NE(want.find("0 bad,"), std::string::npos) << want;
  EXPECT_NE(want.find("within 1 + |x| / 20 ulp"), std::string::npos) << want;
  EXPECT_EQ(build_and_run(d, "cc", {"-O0"}), want);
  EXPECT_EQ(build_and_run(d, "cc", {"-O2", "-DMLIP_FMA_PORTABLE"}), want);
}

}  // namespace
}  // namespace mlipc::unit_c_kmath_f
