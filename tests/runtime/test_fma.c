/* mlip/kfma.h: mlip_fmaf and both portable versions (double with TwoSum,
 * integers only) against the C library's fmaf (correctly rounded; on this
 * host the FMA instruction) on random bit patterns of every class (NaN,
 * infinities, subnormals, signed zeros), products in every exponent range,
 * sums that cancel, results that overflow or underflow, and constructed
 * cases where the exact result lies at, just above or just below the
 * midpoint of two floats (where a double sum rounded again to float, as
 * newlib's fmaf does, is off by one ulp). Equal bits required; NaN only as
 * NaN (the payload is not specified). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mlip/kfma.h"

static float f_of(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
static uint32_t bits_of(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }

static uint64_t g_state = 1;
static uint32_t next(void) {
  g_state = g_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(g_state >> 32);
}

typedef float (*Fma)(float, float, float);
static const struct { const char* name; Fma fn; } kImpl[] = {
    {"mlip_fmaf", mlip_fmaf}, {"mlip__fmaf_dbl", mlip__fmaf_dbl}, {"mlip__fmaf_int", mlip__fmaf_int}};

static long g_checked, g_failed;

static void check(float a, float b, float c) {
  const float want = fmaf(a, b, c);
  size_t i;
  for (i = 0; i < sizeof kImpl / sizeof *kImpl; ++i) {
    const float got = kImpl[i].fn(a, b, c);
    const int ok = isnan(want) ? isnan(got) : bits_of(got) == bits_of(want);
    ++g_checked;
    if (!ok && ++g_failed <= 20)
      printf("%s(%a, %a, %a) = %a (0x%08x), fmaf %a (0x%08x)\n", kImpl[i].name, a, b, c, got, bits_of(got), want,
             bits_of(want));
  }
}

/* a value of random sign and significand with biased exponent in [lo, hi] */
static float rnd(uint32_t lo, uint32_t hi) { return f_of((next() & 0x807fffffu) | (lo + next() % (hi - lo + 1)) << 23); }

static void test_special_values(void** state) {
  static const uint32_t kSpecial[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x00800000u,
                                      0x3f800000u, 0xbf800000u, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u,
                                      0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x34000000u, 0x33800000u, 0x5f800000u};
  const size_t n = sizeof kSpecial / sizeof *kSpecial;
  size_t i, j, k;
  (void)state;
  g_failed = 0;
  for (i = 0; i < n; ++i)
    for (j = 0; j < n; ++j)
      for (k = 0; k < n; ++k) check(f_of(kSpecial[i]), f_of(kSpecial[j]), f_of(kSpecial[k]));
  assert_int_equal(g_failed, 0);
}

static void test_random(void** state) {
  long i;
  (void)state;
  g_failed = 0;
  g_state = 12345;
  for (i = 0; i < 1500000; ++i) {
    float a, b, c;
    switch (i % 6) {
      case 0: /* any bit patterns */
        a = f_of(next()), b = f_of(next()), c = f_of(next());
        break;
      case 1: /* products and sums of comparable size, every exponent */
      {
        const uint32_t e = 1 + next() % 254;
        a = rnd(e / 2 + 1, e / 2 + 64 < 254 ? e / 2 + 64 : 254);
        b = rnd(1, 254);
        c = rnd(e, e);
        break;
      }
      case 2: /* cancellation: c near -a * b */
        a = rnd(64, 190), b = rnd(64, 190);
        c = -(a * b);
        c = f_of(bits_of(c) + (next() % 5) - 2);
        break;
      case 3: /* subnormal and underflowing results */
        a = rnd(0, 70), b = rnd(20, 90), c = next() & 1 ? rnd(0, 3) : f_of(next() & 0x807fffffu);
        break;
      case 4: /* overflow and near it */
        a = rnd(190, 254), b = rnd(120, 140), c = next() & 1 ? rnd(250, 254) : -rnd(250, 254);
        break;
      default: /* exponent gaps of every size */
        a = rnd(100, 154), b = rnd(100, 154), c = rnd(1, 254);
        break;
    }
    check(a, b, c);
  }
  printf("checked %ld results\n", g_checked);
  assert_int_equal(g_failed, 0);
}

/* c a float, a * b = (2^30 + d) * 2^(e - 54) with e c's exponent (or -126
 * for a subnormal c): half an ulp of c plus or minus d units of 2^-30 of it,
 * so a * b + c is at, above or below the midpoint above |c| (or below, with
 * the opposite sign), where the double sum is exactly the midpoint. 2^30 + 1
 * = 1025 * 1047553 and 2^30 - 1 = 32767 * 32769 are products of floats. */
static void test_halfway(void** state) {
  static const struct { float m, n; } kSplit[] = {{1025.0f, 1047553.0f}, {32767.0f, 32769.0f}, {32768.0f, 32768.0f}};
  long i;
  (void)state;
  g_failed = 0;
  g_state = 777;
  for (i = 0; i < 400000; ++i) {
    const uint32_t cb = i % 7 == 0 ? next() % 0x00800000u : (next() % 0x7f7fffffu); /* |c|, subnormal too */
    const int e = (int)(cb >> 23 ? (cb >> 23) : 1) - 127;
    const int k = (int)(i % 3), ex = e - 54;
    const float sc = (next() & 1) ? -1.0f : 1.0f;
    float a = ldexpf(kSplit[k].m, ex / 2), b = ldexpf(kSplit[k].n, ex - ex / 2);
    float c = f_of(cb | (next() & 0x80000000u));
    if (ex / 2 < -149 + 11 || ex - ex / 2 < -149 + 21) { /* keep a and b exact: move the power of two */
      a = ldexpf(kSplit[k].m, -126);
      b = ldexpf(kSplit[k].n, ex + 126);
    }
    if (next() & 1) a = -a; /* the product on either side of c */
    check(a * sc, b, c * sc);
    check(b, a, c);
  }
  /* the exact cases named in kfma.h: a subnormal and a normal double rounding, and the one before infinity */
  check(1025.0f * 0x1p-90f, 1047553.0f * 0x1p-90f, 0x1p-127f);
  check(1025.0f * 0x1p-27f, 1047553.0f * 0x1p-27f, 1.0f);
  check(1025.0f * 0x1p37f, 1047553.0f * 0x1p36f, 0x1.fffffep127f);
  check(32767.0f * 0x1p37f, 32769.0f * 0x1p36f, 0x1.fffffep127f);
  check(0x1p52f, 0x1p51f, 0x1.fffffep127f);
  assert_int_equal(g_failed, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_special_values),
      cmocka_unit_test(test_random),
      cmocka_unit_test(test_halfway),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
