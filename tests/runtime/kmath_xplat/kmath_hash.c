/* Hashes the bits of every function of mlip/kmath.h and mlip/kmath_f.h
 * (the float-precision ones also through their array forms, which a
 * compiler vectorizes: "_n" lines) over a fixed set of
 * inputs (made from bit patterns only, so the driver itself does no floating
 * point arithmetic that a compiler could contract). Built for every target,
 * compiler, optimization level and C mode that run_xplat.sh covers: the lines
 * it prints must be the same everywhere. The "d:" lines hash the double
 * results inside the header (before the one rounding to float), where a
 * contracted multiply-add would show at once; a float result hides most such
 * differences in its rounding. The "arith" line hashes the platform's own
 * double +, -, *, / and sqrt, which everything rests on. "all" covers the
 * float results only. "fmaf" hashes mlip/kfma.h's mlip_fmaf (the FMA
 * instruction or the portable version, whichever the target gets) and
 * "fmaf_int" its integer form, on random patterns, cancellations and exact
 * float midpoints; "d:fmaf_dbl" its double form (exact only where double
 * arithmetic is IEEE). */
#include <stdint.h>
#include <string.h>

#include "mlip/kfma.h"
#include "mlip/kmath.h"
#include "mlip/kmath_f.h"

#ifndef KMATH_HASH_N
#define KMATH_HASH_N 2048
#endif

void kmath_hash_put(const char* s);  /* hosted: stdout; Cortex-M: semihosting */

static uint64_t g_state;

static uint32_t next(void) {
  g_state = g_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(g_state >> 32);
}

static float from_bits(uint32_t u) {
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}

/* Even i: any bit pattern (NaNs, infinities, subnormals, huge); odd i: a
 * value of random sign with biased exponent in [elo, ehi]. */
static float input(int i, uint32_t elo, uint32_t ehi) {
  uint32_t r = next();
  if (!(i & 1)) return from_bits(r);
  return from_bits((r & 0x807fffffu) | (elo + next() % (ehi - elo + 1)) << 23);
}

static uint64_t mix(uint64_t h, float y) {
  uint32_t u;
  int k;
  memcpy(&u, &y, sizeof u);
  for (k = 0; k < 4; ++k) {
    h ^= (u >> (8 * k)) & 0xffu;
    h *= 0x100000001b3ull;  /* FNV-1a */
  }
  return h;
}

static uint64_t mixd(uint64_t h, double d) {
  uint64_t u;
  int k;
  memcpy(&u, &d, sizeof u);
  for (k = 0; k < 8; ++k) {
    h ^= (u >> (8 * k)) & 0xffu;
    h *= 0x100000001b3ull;
  }
  return h;
}

static void put_line(const char* name, uint64_t h) {
  char buf[64];
  size_t n = strlen(name), i;
  memcpy(buf, name, n);
  buf[n++] = ' ';
  for (i = 0; i < 16; ++i) buf[n++] = "0123456789abcdef"[(h >> (60 - 4 * i)) & 15];
  buf[n++] = '\n';
  buf[n] = 0;
  kmath_hash_put(buf);
}

typedef struct {
  const char* name;
  float (*fn)(float);
  uint32_t elo, ehi;
} Fn;

static const Fn kFns[] = {
    {"expf", mlip_expf, 100, 134},     {"expm1f", mlip_expm1f, 100, 134},
    {"logf", mlip_logf, 1, 254},       {"log1pf", mlip_log1pf, 100, 140},
    {"tanhf", mlip_tanhf, 100, 131},   {"sigmoidf", mlip_sigmoidf, 100, 134},
    {"erff", mlip_erff, 100, 129},     {"sinf", mlip_sinf, 100, 254},
    {"cosf", mlip_cosf, 100, 254},     {"tanf", mlip_tanf, 100, 254},
    {"asinf", mlip_asinf, 100, 127},   {"acosf", mlip_acosf, 100, 127},
    {"atanf", mlip_atanf, 100, 160},   {"sinhf", mlip_sinhf, 100, 134},
    {"coshf", mlip_coshf, 100, 134},   {"asinhf", mlip_asinhf, 100, 200},
    {"acoshf", mlip_acoshf, 127, 200}, {"atanhf", mlip_atanhf, 100, 127},
    {"exp_f", mlip_exp_f, 100, 134},   {"erf_f", mlip_erf_f, 100, 129},
    {"gelu_f", mlip_gelu_f, 100, 131}, {"sigmoid_f", mlip_sigmoid_f, 100, 134},
    {"silu_f", mlip_silu_f, 100, 134}, {"tanh_f", mlip_tanh_f, 100, 131},
    {"gelu_tanh_f", mlip_gelu_tanh_f, 100, 131},
};

/* kmath_f.h's array forms, in kFns' order from exp_f on. */
typedef struct {
  const char* name;
  void (*fn)(float*, int32_t);
  size_t scalar;  /* the index in kFns of the scalar function */
} FnN;

static const FnN kFnsN[] = {
    {"exp_f_n", mlip_exp_f_n, 18},         {"gelu_f_n", mlip_gelu_f_n, 20},   {"sigmoid_f_n", mlip_sigmoid_f_n, 21},
    {"silu_f_n", mlip_silu_f_n, 22},       {"tanh_f_n", mlip_tanh_f_n, 23},   {"gelu_tanh_f_n", mlip_gelu_tanh_f_n, 24},
};

/* kmath_f.h's map forms (run in place here), with the array forms' inputs. */
typedef struct {
  const char* name;
  void (*fn)(const float*, float*, int32_t);
  size_t scalar;
} FnMap;

static const FnMap kFnsMap[] = {
    {"exp_f_map", mlip_exp_f_map, 18},   {"gelu_f_map", mlip_gelu_f_map, 20}, {"sigmoid_f_map", mlip_sigmoid_f_map, 21},
    {"tanh_f_map", mlip_tanh_f_map, 23}, {"gelu_tanh_f_map", mlip_gelu_tanh_f_map, 24},
};

static float g_buf[KMATH_HASH_N];

/* m * 2^e as a float (0 < m < 2^24, the result a normal float), from bits */
static float pow2_float(uint32_t m, int e) {
  int t = 23;
  while (!(m >> t)) --t;
  return from_bits((uint32_t)(e + t + 127) << 23 | ((m << (23 - t)) & 0x7fffffu));
}

/* The i-th fma argument triple: any pattern, a cancellation (c the negated
 * bits of a float near a * b), or (2^30 + 1 or - 1) * 2^(ec - 54) + c with
 * ec c's exponent: half an ulp of c off, the double-rounding case. */
static void fma_args(int i, float* a, float* b, float* c) {
  uint32_t uc;
  int ec;
  switch (i % 3) {
    case 0:
      *a = from_bits(next()), *b = from_bits(next()), *c = from_bits(next());
      return;
    case 1:
      *a = input(1, 64, 190), *b = input(1, 64, 190);
      uc = ((mlip__fma_bits(*a) & 0x7f800000u) >> 23) + ((mlip__fma_bits(*b) & 0x7f800000u) >> 23) - 127;
      *c = from_bits((next() & 0x807fffffu) | (uc < 1 ? 1 : uc > 254 ? 254 : uc) << 23);
      return;
    default:
      uc = next() % 0x7f7fffffu;
      ec = (int)(uc >> 23 ? uc >> 23 : 1) - 127 - 54;
      *a = pow2_float(i & 4 ? 1025 : 32767, ec / 2);
      *b = pow2_float(i & 4 ? 1047553 : 32769, ec - ec / 2);
      *c = from_bits(uc | (next() & 0x80000000u));
      if (i & 8) *a = from_bits(mlip__fma_bits(*a) ^ 0x80000000u);
      return;
  }
}

int kmath_hash_main(void) {
  uint64_t all = 0xcbf29ce484222325ull;
  size_t f;
  int i;
  for (f = 0; f < sizeof kFns / sizeof *kFns; ++f) {
    uint64_t h = 0xcbf29ce484222325ull;
    g_state = 1 + f;
    for (i = 0; i < KMATH_HASH_N; ++i) {
      float y = kFns[f].fn(input(i, kFns[f].elo, kFns[f].ehi));
      h = mix(h, y);
      all = mix(all, y);
    }
    put_line(kFns[f].name, h);
  }
  {
    uint64_t h = 0xcbf29ce484222325ull;
    g_state = 99;
    for (i = 0; i < KMATH_HASH_N; ++i) {
      float x = input(i, 110, 140), y = input(i >> 1, 110, 134), r;
      if (i % 3 == 0) x = from_bits(0x3f800000u + (next() & 0xffffu) - 0x8000u);
      r = mlip_powf(x, y);
      h = mix(h, r);
      all = mix(all, r);
    }
    put_line("powf", h);
  }
  {  /* the double internals, on finite arguments in their ranges */
    uint64_t he = 0xcbf29ce484222325ull, hl = he, ht = he, hs = he, hp = he;
    g_state = 7;
    for (i = 0; i < KMATH_HASH_N; ++i) {
      uint32_t a = next() & 0x7fffffffu, b = next();
      double x = mlip__f2d((a % (0x42c80000u - 0x30000000u)) + 0x30000000u); /* 2^-31 .. 100 */
      double r;
      int range, n;
      he = mixd(he, mlip__exp_d(b & 1 ? -x : x));
      he = mixd(he, mlip__expm1_d(b & 2 && x <= 17.5 ? -x : x));  /* expm1f's range */
      hl = mixd(hl, mlip__log_d(x));
      hl = mixd(hl, mlip__log1p_d(x));
      ht = mixd(ht, mlip__atan_d(b & 1 ? -x : x));
      n = mlip__reduce(next() & 0x7f7fffffu, &r);
      hs = mixd(hs, r);
      hs = mixd(hs, (n & 1) ? mlip__sin_r(r) : mlip__cos_r(r));
      hp = mixd(hp, mlip__pow_d((a & 0x3fffffffu) + 0x20000000u, b & 0xbf7fffffu, &range));
    }
    put_line("d:exp", he);
    put_line("d:log", hl);
    put_line("d:atan", ht);
    put_line("d:sincos", hs);
    put_line("d:pow", hp);
  }
  {  /* the platform's own double arithmetic (+ - * / sqrt), which all of the
      * above rests on; exponent gaps of 0..63 between the operands */
    uint64_t h = 0xcbf29ce484222325ull;
    g_state = 11;
    for (i = 0; i < 64 * 64; ++i) {
      uint64_t ua = (uint64_t)1023 << 52 | ((uint64_t)next() << 32 | next()) >> 12;
      uint64_t ub = (uint64_t)(1023 - (i & 63)) << 52 | ((uint64_t)next() << 32 | next()) >> 12;
      double a, b;
      if ((i >> 6) % 3 == 1) ua &= ~0xffffffffull;  /* short mantissas */
      if ((i >> 6) % 3 == 2) ua = (uint64_t)1023 << 52;  /* 1.0 */
      memcpy(&a, &ua, sizeof a);
      memcpy(&b, &ub, sizeof b);
      h = mixd(h, a - b);
      h = mixd(h, b - a);
      h = mixd(h, a + b);
      h = mixd(h, a * b);
      h = mixd(h, a / b);
      h = mixd(h, sqrt(b));
    }
    put_line("arith", h);
  }
  for (f = 0; f < sizeof kFnsN / sizeof *kFnsN; ++f) {  /* the scalar function's inputs */
    const Fn* s = &kFns[kFnsN[f].scalar];
    uint64_t h = 0xcbf29ce484222325ull;
    g_state = 1 + kFnsN[f].scalar;
    for (i = 0; i < KMATH_HASH_N; ++i) g_buf[i] = input(i, s->elo, s->ehi);
    kFnsN[f].fn(g_buf, KMATH_HASH_N);
    for (i = 0; i < KMATH_HASH_N; ++i) {
      h = mix(h, g_buf[i]);
      all = mix(all, g_buf[i]);
    }
    put_line(kFnsN[f].name, h);
  }
  for (f = 0; f < sizeof kFnsMap / sizeof *kFnsMap; ++f) {
    const Fn* s = &kFns[kFnsMap[f].scalar];
    uint64_t h = 0xcbf29ce484222325ull;
    g_state = 1 + kFnsMap[f].scalar;
    for (i = 0; i < KMATH_HASH_N; ++i) g_buf[i] = input(i, s->elo, s->ehi);
    kFnsMap[f].fn(g_buf, g_buf, KMATH_HASH_N);
    for (i = 0; i < KMATH_HASH_N; ++i) {
      h = mix(h, g_buf[i]);
      all = mix(all, g_buf[i]);
    }
    put_line(kFnsMap[f].name, h);
  }
  {
    uint64_t h = 0xcbf29ce484222325ull, hi = h, hd = h;
    g_state = 13;
    for (i = 0; i < 4 * KMATH_HASH_N; ++i) {
      float a, b, c, r;
      fma_args(i, &a, &b, &c);
      r = mlip_fmaf(a, b, c);
      h = mix(h, r != r ? 0.0f : r); /* NaN payloads differ between targets */
      all = mix(all, r != r ? 0.0f : r);
      r = mlip__fmaf_int(a, b, c);
      hi = mix(hi, r != r ? 0.0f : r);
      r = mlip__fmaf_dbl(a, b, c);
      hd = mix(hd, r != r ? 0.0f : r);
    }
    put_line("fmaf", h);
    put_line("fmaf_int", hi);
    put_line("d:fmaf_dbl", hd);
  }
  put_line("all", all);
  return 0;
}
