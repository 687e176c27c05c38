/* A GCC 12.2 (arm-none-eabi 12.2.rel1) wrong-code case on Helium, reduced
 * from templates/kernels/conv_tiled.c's fused MaxPool: why that kernel keeps
 * its lane-by-lane compare-and-blend forms on the Cortex-M55 and M85.
 *
 * Without -ffast-math GCC 12 does not compare float vectors with MVE's
 * VCMP.F32 (its LT and LE are true on unordered operands); it lowers each
 * comparison to 4 scalar VCMPs. Where the comparison's result is then
 * needed as a lane mask of its own (a mask combined with another: `|`, `&`,
 * or two blends of the same operands, which GCC folds into one blend of
 * `gt | nan`), GCC builds an MVE predicate (VPR.P0) from the 4 scalar
 * results, but writes only lane 0's four bits: lanes 1 to 3 read "false".
 * max_v below compiles, at -O2 and -Os, -mcpu=cortex-m55
 * -mfloat-abi=hard, to
 *     vcmpe.f32 s4, s12        @ lane 0 of a > b only
 *     vcmp.f32  s12, s12       @ lane 0 of a != a only
 *     ... bfi r3, ip, #0, #4   @ lane 0's predicate bits; the others stay 0
 *     vmsr P0, r3
 *     vpsel q3, q3, q1
 * so lanes 1 to 3 keep b whatever a is. A single comparison feeding a
 * blend (relu_v: conv_tiled.c's activations) is scalarized whole, compare
 * and select per lane, and comes out right, but no faster than the scalar
 * loop. Our code is not at fault: the GNU C vector extension defines a
 * comparison lane by lane (-1 or 0 in each), and the scalar forms (relu_s,
 * max_s) say what every lane must hold, which GCC 12.2 gives on x86-64,
 * AArch64 and the Cortex-M4, and at -O0 on the Cortex-M55.
 *
 * tests/variants/run_variants.sh cortex-m55 builds and runs this file on
 * every run (so that it stays a working reproducer) and prints whether the
 * compiler still miscompiles it; the outcome does not fail the test. The
 * test that keeps conv_tiled.c's workaround in place is
 * e2e.FloatKernelsOnCortexM.OddSizesGiveTheHostBits (a Conv, ReLU and
 * fused MaxPool on the Cortex-M55 at -O2 against the host's bytes). Built
 * with tests/variants' bare-metal start (cortexm_start.c, cortexm.ld). */
#include <stdint.h>
#include <string.h>

void variants_put(const char* s);
int variants_main(uint32_t cases, uint32_t seed);

typedef float vt __attribute__((vector_size(16)));
typedef float vtu __attribute__((vector_size(16), aligned(4), may_alias));
typedef int32_t vm __attribute__((vector_size(16)));
#define VSEL(m, a, b) ((vt)(((vm)(a) & (m)) | ((vm)(b) & ~(m)))) /* conv_tiled.c's MLIP__VSEL */

/* The fused pool's step: a where a > b or a is a NaN, else b. */
__attribute__((noinline)) static void max_v(float* best, const float* x, int n) {
  int j;
  for (j = 0; j < n; j += 4) {
    const vt a = *(const vtu*)(x + j), b = *(const vtu*)(best + j);
    const vm m = (a > b) | (a != a);
    vm ai, bi;
    memcpy(&ai, &a, sizeof ai);
    memcpy(&bi, &b, sizeof bi);
    ai = (ai & m) | (bi & ~m);
    memcpy(best + j, &ai, sizeof ai);
  }
}

__attribute__((noinline)) static void max_s(float* best, const float* x, int n) {
  int q;
  for (q = 0; q < n; ++q) best[q] = x[q] > best[q] || x[q] != x[q] ? x[q] : best[q];
}

/* An activation's form: one comparison, one blend (ReLU). */
__attribute__((noinline)) static void relu_v(float* y, const float* x, int n) {
  int i;
  for (i = 0; i < n; i += 4) {
    vt v = *(const vtu*)(x + i);
    v = VSEL(v <= 0.0f, (vt){0}, v);
    *(vtu*)(y + i) = v;
  }
}

__attribute__((noinline)) static void relu_s(float* y, const float* x, int n) {
  int i;
  for (i = 0; i < n; ++i) y[i] = x[i] <= 0.0f ? 0.0f : x[i];
}

static void lane(const char* what, int i) {
  char s[4] = {(char)('0' + i / 10), (char)('0' + i % 10), '\n', 0};
  variants_put(what);
  variants_put(s);
}

int variants_main(uint32_t cases, uint32_t seed) {
  static float x[16], b1[16], b2[16];
  static const float vals[16] = {1.5f, -2.0f, 0.0f, -0.0f, 0.25f, -0.25f, 3e-39f, -3e-39f,
                                 7.0f, -7.0f, 1e30f, -1e30f, 2.0f, 0.5f, -1.0f, 4.0f};
  int i, bad = 0;
  (void)cases;
  (void)seed;
  memcpy(x, vals, sizeof x);
  for (i = 0; i < 16; ++i) b1[i] = b2[i] = vals[(i * 5 + 3) % 16];
  max_v(b1, x, 16);
  max_s(b2, x, 16);
  for (i = 0; i < 16; ++i)
    if (memcmp(&b1[i], &b2[i], sizeof(float)) != 0) lane("gcc_mve_float_mask: max_v differs in lane ", i), ++bad;
  relu_v(b1, x, 16);
  relu_s(b2, x, 16);
  for (i = 0; i < 16; ++i)
    if (memcmp(&b1[i], &b2[i], sizeof(float)) != 0) lane("gcc_mve_float_mask: relu_v differs in lane ", i), ++bad;
  variants_put(bad ? "gcc_mve_float_mask: miscompiled (the GCC bug is present)\n"
                   : "gcc_mve_float_mask: compiled correctly (the GCC bug is absent)\n");
  return 0;
}
