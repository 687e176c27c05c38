/* Float vectors for the CPU kernels (templates/kernels/conv_tiled.c, ...).
 *
 * A kernel keeps a block of independent outputs (output channels, columns)
 * in the lanes of a vector and sums every output's terms one after another
 * in the order its documented algorithm gives, so the lanes never meet:
 * lane l of v * w + a is the float product and sum of lane l, rounded as
 * C rounds a scalar. The bits are therefore the same for every vector
 * width, including 1 (plain C floats), and on every machine; only the speed
 * differs (docs/runtime.md, "Same bits on every target").
 *
 * GCC and Clang get their generic vectors (__attribute__((vector_size))),
 * as wide as the instruction set the file is compiled for: 16 floats with
 * AVX-512, 8 with AVX, 4 with SSE2, NEON, AltiVec or Helium's floating
 * point (Cortex-M55, M85: __ARM_FEATURE_MVE & 2; VMUL and VADD lane by lane,
 * which round as the scalar FPU does, never the fused VFMA). Other
 * compilers, and any build with -DMLIP_KVEC_SCALAR, get width 1: the same
 * code on floats.
 *
 * For a block of n floats (n = 4, 8 or 16), MLIP_VT_<n> is the widest vector
 * type whose width MLIP_VW_<n> divides n, and MLIP_VREGS the number of
 * vector registers the kernel may plan for (at width 1 on a Cortex-M with
 * an FPU, its 32 single-precision registers). Loads and stores go through
 * MLIP_VLOAD_<n>/MLIP_VSTORE_<n> (unaligned, may alias floats).
 *
 * MLIP_VFMA_<n>(a, b, c) is a * b + c lane by lane with one rounding
 * (mlip_fmaf, mlip/kfma.h), MLIP_VFMAS_<n>(s, b, c) the same with the
 * float s in every lane of a: the multiply-add of the convolution, Gemm and MatMul
 * kernels. GCC 12's generic vectors have no fused multiply-add, so it takes
 * the instruction set's own where it has one (x86 FMA and AVX-512F, NEON
 * with FMA, Helium), else mlip_fmaf lane by lane (x86-64 without -mfma:
 * correct, slow). With -DMLIP_FMA_UNFUSED (a test hook, mlip/kfma.h) every
 * one is a plain a * b + c, which the compiler must not fuse: how the tests
 * prove that no fused instruction comes from contraction.
 *
 * MLIP_VUNROLL before a loop over a tile's vectors or positions (constant
 * trip count) asks the compiler to unroll it whole, so that the
 * accumulators live in registers: GCC at -O2 and -Os keeps a loop of 4 to
 * 16 vectors rolled on Arm, and the accumulators then go through the stack
 * on every tap (about 3 times the instructions per multiply-accumulate on
 * the Cortex-M55 and M4). MLIP_VNOINLINE before a kernel's function keeps
 * it out of the model's main function: inlined there at -O2, a Cortex-M's
 * few registers spill (ResNet8 on the M55: 24.4M instructions against
 * 18.9M). The generated code writes both only for the CPUs that need them
 * (c/cpu.h, --target-c-mcpu); they change no result. */
#ifndef MLIP_KVEC_H_
#define MLIP_KVEC_H_

#include "mlip/strict_fp.h" /* before any definition: no contraction (C) */

#include <stdint.h>
#include <string.h>

#include "mlip/kfma.h"

#if defined(__GNUC__) && !defined(MLIP_KVEC_SCALAR)
#if defined(__AVX512F__)
#define MLIP_VL 16
#define MLIP_VREGS 32
#elif defined(__AVX__)
#define MLIP_VL 8
#define MLIP_VREGS 16
#elif defined(__aarch64__) && defined(__ARM_NEON)
#define MLIP_VL 4
#define MLIP_VREGS 32
#elif defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#define MLIP_VL 4
#define MLIP_VREGS 8 /* Q0-Q7 */
#elif defined(__SSE2__) || defined(__ARM_NEON) || defined(__ALTIVEC__) || defined(__wasm_simd128__)
#define MLIP_VL 4
#define MLIP_VREGS 16
#endif
#endif

#ifndef MLIP_VL
#define MLIP_VL 1
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M' && defined(__ARM_FP) && (__ARM_FP & 4)
#define MLIP_VREGS 32 /* a Cortex-M FPU's S0-S31 */
#else
#define MLIP_VREGS 16
#endif
#endif

#if defined(__clang__)
#define MLIP_VUNROLL _Pragma("unroll")
#elif defined(__GNUC__) && (__GNUC__ >= 8)
#define MLIP_VUNROLL _Pragma("GCC unroll 16")
#else
#define MLIP_VUNROLL
#endif
/* A loop kept a loop on 16 vector registers (x86 without AVX-512): in
 * conv_tiled.c's tap loops of many taps GCC, unrolling a window's columns,
 * kept the broadcasts that overlapping windows share live and spilled the
 * accumulators (docs/benchmarks.md, stop 48). */
/* MLIP_VKEEP(v) after a vector load that several multiply-adds read: the
 * value is held in a register. On x86 GCC otherwise folds the load into
 * each multiply-add that reads it (a memory operand each), so a tile of PM
 * rows loads every vector of B PM times and the load ports, not the
 * multiply-adds, bound the loop (docs/benchmarks.md, stop 49). An empty asm
 * whose operand is the register: no instruction, no change to any value;
 * nothing elsewhere (Arm has no load-and-multiply-add to fold into). */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__SSE2__) && (MLIP_VL > 1)
#if MLIP_VL >= 16
#define MLIP_VKEEP(v) __asm__("" : "+v"(v))
#else
#define MLIP_VKEEP(v) __asm__("" : "+x"(v))
#endif
#else
#define MLIP_VKEEP(v) ((void)0)
#endif
/* The tile of the packed MatMul and Gemm kernels (matmul_packed.c,
 * gemm_packed.c), one rule for both: MLIP_VTILE_ROWS rows (4 on 32
 * registers, 3 on 16: on AVX2 3 rows x 2 blocks, 12 accumulators and 7
 * loads per 12 FMAs); for PM rows of blocks of NV vectors,
 * MLIP_VTILE_BLOCKS(PM, NV) blocks, what the registers hold beside PM
 * broadcasts and the one vector of B (MLIP_VKEEP), 1 to 8; and
 * MLIP_VTILE_EVEN(NJ1, NBLK) a tile's blocks when the NBLK blocks go in even
 * groups of at most NJ1 (N = 64 on AVX2: 2 + 2, not 3 and a group of 3
 * repeating its last block; docs/benchmarks.md, stop 49). Constant
 * expressions, for the kernels' enums. */
#define MLIP_VTILE_ROWS (MLIP_VREGS >= 32 ? 4 : MLIP_VREGS >= 16 ? 3 : 2)
#define MLIP__VTILE_NJ0(PM, NV) ((MLIP_VREGS - (PM) - 1) / ((PM) * (NV)))
#define MLIP_VTILE_BLOCKS(PM, NV) \
  (MLIP__VTILE_NJ0(PM, NV) < 1 ? 1 : MLIP__VTILE_NJ0(PM, NV) > 8 ? 8 : MLIP__VTILE_NJ0(PM, NV))
#define MLIP__VTILE_GROUPS(NJ1, NBLK) (((NBLK) + (NJ1) - 1) / (NJ1))
#define MLIP_VTILE_EVEN(NJ1, NBLK) \
  ((NBLK) < 1 ? 1 : ((NBLK) + MLIP__VTILE_GROUPS(NJ1, NBLK) - 1) / MLIP__VTILE_GROUPS(NJ1, NBLK))
/* MLIP_VNOSHARE16(i) on a tap's offset i (an int32_t lvalue) in a loop
 * over a window's taps (conv_tiled.c's where MLIP_VNOUNROLL16 is asked,
 * codegen's many_taps): on x86 with 16 vector registers (AVX2, SSE) an
 * empty asm that makes i a value GCC cannot see through, so the loads of
 * one tap are never the same expression as another tap's. Where a tile's
 * windows overlap (stride smaller than the kernel), GCC otherwise loaded
 * the broadcasts that several taps share once and kept them live across the
 * taps between, and with a tile's accumulators that spilled them through
 * the stack even where MLIP_VNOUNROLL16 was asked (GCC 12 unrolled the
 * three taps of a 3x3 window whole anyway): ResNet-18's 3x3/2 layer 1694 ->
 * 1278 us, its 7x7/2 stem 3450 -> 2671 (docs/benchmarks.md, stop 49). No
 * instruction, no value changed; nothing elsewhere. */
#if MLIP_VREGS == 16 && MLIP_VL > 1 && (defined(__GNUC__) || defined(__clang__)) && defined(__SSE2__)
#define MLIP_VNOSHARE16(i) __asm__("" : "+r"(i))
#else
#define MLIP_VNOSHARE16(i) ((void)0)
#endif
#if MLIP_VREGS == 16 && defined(__clang__)
#define MLIP_VNOUNROLL16 _Pragma("nounroll")
#elif MLIP_VREGS == 16 && defined(__GNUC__) && (__GNUC__ >= 8)
#define MLIP_VNOUNROLL16 _Pragma("GCC unroll 1")
#else
#define MLIP_VNOUNROLL16
#endif
/* a where the mask m is set, else b, lane by lane: the selects of the
 * activations' vector forms (codegen's c_activation_vector), inside a
 * kernel that names its float vector type vt and the int32 vector of the
 * same size vm. */
#define MLIP__VSEL(m, a, b) ((vt)(((vm)(a) & (m)) | ((vm)(b) & ~(m))))
#if defined(__GNUC__) || defined(__clang__)
#define MLIP_VNOINLINE __attribute__((noinline))
#else
#define MLIP_VNOINLINE
#endif

#if MLIP_VL >= 4
typedef float mlip_v4f __attribute__((vector_size(16)));
typedef float mlip_v4fu __attribute__((vector_size(16), aligned(4), may_alias));
#endif
#if MLIP_VL >= 8
typedef float mlip_v8f __attribute__((vector_size(32)));
typedef float mlip_v8fu __attribute__((vector_size(32), aligned(4), may_alias));
#endif
#if MLIP_VL >= 16
typedef float mlip_v16f __attribute__((vector_size(64)));
typedef float mlip_v16fu __attribute__((vector_size(64), aligned(4), may_alias));
#endif

#if MLIP_VL >= 16
#define MLIP_VT_16 mlip_v16f
#define MLIP_VW_16 16
#define MLIP_VLOAD_16(p) (*(const mlip_v16fu*)(p))
#define MLIP_VSTORE_16(p, v) (*(mlip_v16fu*)(p) = (v))
#elif MLIP_VL >= 8
#define MLIP_VT_16 mlip_v8f
#define MLIP_VW_16 8
#define MLIP_VLOAD_16(p) (*(const mlip_v8fu*)(p))
#define MLIP_VSTORE_16(p, v) (*(mlip_v8fu*)(p) = (v))
#endif
#if MLIP_VL >= 8
#define MLIP_VT_8 mlip_v8f
#define MLIP_VW_8 8
#define MLIP_VLOAD_8(p) (*(const mlip_v8fu*)(p))
#define MLIP_VSTORE_8(p, v) (*(mlip_v8fu*)(p) = (v))
#endif
#if MLIP_VL >= 4
#ifndef MLIP_VT_16
#define MLIP_VT_16 mlip_v4f
#define MLIP_VW_16 4
#define MLIP_VLOAD_16(p) (*(const mlip_v4fu*)(p))
#define MLIP_VSTORE_16(p, v) (*(mlip_v4fu*)(p) = (v))
#endif
#ifndef MLIP_VT_8
#define MLIP_VT_8 mlip_v4f
#define MLIP_VW_8 4
#define MLIP_VLOAD_8(p) (*(const mlip_v4fu*)(p))
#define MLIP_VSTORE_8(p, v) (*(mlip_v4fu*)(p) = (v))
#endif
#define MLIP_VT_4 mlip_v4f
#define MLIP_VW_4 4
#define MLIP_VLOAD_4(p) (*(const mlip_v4fu*)(p))
#define MLIP_VSTORE_4(p, v) (*(mlip_v4fu*)(p) = (v))
#else
#define MLIP_VT_16 float
#define MLIP_VW_16 1
#define MLIP_VLOAD_16(p) (*(p))
#define MLIP_VSTORE_16(p, v) (*(p) = (v))
#define MLIP_VT_8 float
#define MLIP_VW_8 1
#define MLIP_VLOAD_8(p) (*(p))
#define MLIP_VSTORE_8(p, v) (*(p) = (v))
#define MLIP_VT_4 float
#define MLIP_VW_4 1
#define MLIP_VLOAD_4(p) (*(p))
#define MLIP_VSTORE_4(p, v) (*(p) = (v))
#endif

/* Fused multiply-add, vector by vector (see above). */
/* x86: the compilers' own built-ins behind _mm*_fmadd_ps (GCC's and
 * Clang's alike), not <immintrin.h>, whose parsing took 0.17 CPU-s of every
 * file built with -march=native (each model's kernels). */
#if MLIP_VL > 1 && defined(MLIP_FMA_HW) && (defined(__AVX512F__) || defined(__FMA__))
#define MLIP__VFMA_X86 1
#elif MLIP_VL > 1 && defined(MLIP_FMA_HW) && defined(__ARM_NEON) && defined(__ARM_FEATURE_FMA)
#include <arm_neon.h>
#define MLIP__VFMA_NEON 1
#elif MLIP_VL > 1 && defined(MLIP_FMA_HW) && defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#include <arm_mve.h>
#define MLIP__VFMA_NEON 1 /* Helium spells them as NEON does */
#endif

/* Lane by lane with mlip_fmaf (no fused vector instruction): c = a * b + c
 * in each of the n lanes. */
#define MLIP__VFMA_LANES(n, a, b, c)                                          \
  do {                                                                        \
    float x_[n], y_[n], z_[n];                                                \
    int l_;                                                                   \
    memcpy(x_, &(a), sizeof x_);                                              \
    memcpy(y_, &(b), sizeof y_);                                              \
    memcpy(z_, &(c), sizeof z_);                                              \
    for (l_ = 0; l_ < (n); ++l_) z_[l_] = mlip_fmaf(x_[l_], y_[l_], z_[l_]); \
    memcpy(&(c), z_, sizeof z_);                                              \
  } while (0)

#if MLIP_VL >= 4
static inline mlip_v4f mlip_vfma4(mlip_v4f a, mlip_v4f b, mlip_v4f c) {
#if defined(MLIP__VFMA_X86) && defined(__FMA__)
  return __builtin_ia32_vfmaddps(a, b, c);
#elif defined(MLIP__VFMA_NEON)
  return (mlip_v4f)vfmaq_f32((float32x4_t)c, (float32x4_t)a, (float32x4_t)b);
#else
  MLIP__VFMA_LANES(4, a, b, c);
  return c;
#endif
}
static inline mlip_v4f mlip_vfmas4(float s, mlip_v4f b, mlip_v4f c) {
  const mlip_v4f a = {s, s, s, s};
  return mlip_vfma4(a, b, c);
}
#endif
#if MLIP_VL >= 8
static inline mlip_v8f mlip_vfma8(mlip_v8f a, mlip_v8f b, mlip_v8f c) {
#if defined(MLIP__VFMA_X86) && defined(__FMA__)
  return __builtin_ia32_vfmaddps256(a, b, c);
#else
  MLIP__VFMA_LANES(8, a, b, c);
  return c;
#endif
}
static inline mlip_v8f mlip_vfmas8(float s, mlip_v8f b, mlip_v8f c) {
  const mlip_v8f a = {s, s, s, s, s, s, s, s};
  return mlip_vfma8(a, b, c);
}
#endif
#if MLIP_VL >= 16
static inline mlip_v16f mlip_vfma16(mlip_v16f a, mlip_v16f b, mlip_v16f c) {
#ifdef MLIP__VFMA_X86
  return __builtin_ia32_vfmaddps512_mask(a, b, c, (unsigned short)0xffffu, 4 /* the current rounding */);
#else
  MLIP__VFMA_LANES(16, a, b, c);
  return c;
#endif
}
static inline mlip_v16f mlip_vfmas16(float s, mlip_v16f b, mlip_v16f c) {
  const mlip_v16f a = {s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s};
  return mlip_vfma16(a, b, c);
}
#endif

#define MLIP__VFMA_W(w) MLIP__VFMA_W_(w)
#define MLIP__VFMA_W_(w) mlip_vfma##w
#define MLIP__VFMAS_W(w) MLIP__VFMAS_W_(w)
#define MLIP__VFMAS_W_(w) mlip_vfmas##w
#define mlip_vfma1 mlip_fmaf
#define mlip_vfmas1 mlip_fmaf
#define MLIP_VFMA_16(a, b, c) MLIP__VFMA_W(MLIP_VW_16)(a, b, c)
#define MLIP_VFMA_8(a, b, c) MLIP__VFMA_W(MLIP_VW_8)(a, b, c)
#define MLIP_VFMA_4(a, b, c) MLIP__VFMA_W(MLIP_VW_4)(a, b, c)
#define MLIP_VFMAS_16(s, b, c) MLIP__VFMAS_W(MLIP_VW_16)(s, b, c)
#define MLIP_VFMAS_8(s, b, c) MLIP__VFMAS_W(MLIP_VW_8)(s, b, c)
#define MLIP_VFMAS_4(s, b, c) MLIP__VFMAS_W(MLIP_VW_4)(s, b, c)

/* MLIP_VPANEL_BYTES: how much of a packed operand a kernel may keep in the
 * L1 data cache beside its other streams (matmul_packed.c splits its sum
 * into chunks whose panel of B fits); 0 where there is no cache to keep
 * it in, or no vectors (Cortex-M: the sums run whole, as before). */
#ifndef MLIP_VPANEL_BYTES
#if MLIP_VL > 1 && !(defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M')
#define MLIP_VPANEL_BYTES 24576
#else
#define MLIP_VPANEL_BYTES 0
#endif
#endif

/* Transposes: v[0..n-1], n vectors of n lanes holding an n x n block (row
 * r in v[r]), transposed in place (lane c of v[r] goes to lane r of v[c]):
 * log2(n) rounds, each swapping the off-diagonal h x h blocks of every
 * 2h x 2h block with two-source shuffles (values moved, never computed: the
 * bits unchanged). MLIP_VTRANSPOSE_16(v) takes MLIP_VW_16 vectors of
 * MLIP_VT_16 (at width 1, one float: nothing to do). How a kernel sums
 * several rows side by side, each row's terms in its own order (one row
 * per lane: templates/kernels/softmax.c). */
#if MLIP_VL > 1
#if defined(__clang__)
#define MLIP__VSHUF(it, a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define MLIP__VSHUF(it, a, b, ...) __builtin_shuffle(a, b, (it){__VA_ARGS__})
#endif
#define MLIP__VTR_ROUND(v, n, h, it, lo, hi)  \
  do {                                        \
    int i_;                                   \
    for (i_ = 0; i_ < (n); ++i_)              \
      if (!(i_ & (h))) {                      \
        const __typeof__(v[0]) a_ = v[i_];    \
        const __typeof__(v[0]) b_ = v[i_ + (h)]; \
        v[i_] = MLIP__VSHUF(it, a_, b_, lo);  \
        v[i_ + (h)] = MLIP__VSHUF(it, a_, b_, hi); \
      }                                       \
  } while (0)
#define MLIP__VA(...) __VA_ARGS__
typedef int32_t mlip_v4i __attribute__((vector_size(16)));
static inline void mlip_vtranspose4(mlip_v4f* v) {
  MLIP__VTR_ROUND(v, 4, 2, mlip_v4i, MLIP__VA(0, 1, 4, 5), MLIP__VA(2, 3, 6, 7));
  MLIP__VTR_ROUND(v, 4, 1, mlip_v4i, MLIP__VA(0, 4, 2, 6), MLIP__VA(1, 5, 3, 7));
}
#if MLIP_VL >= 8
typedef int32_t mlip_v8i __attribute__((vector_size(32)));
static inline void mlip_vtranspose8(mlip_v8f* v) {
  MLIP__VTR_ROUND(v, 8, 4, mlip_v8i, MLIP__VA(0, 1, 2, 3, 8, 9, 10, 11), MLIP__VA(4, 5, 6, 7, 12, 13, 14, 15));
  MLIP__VTR_ROUND(v, 8, 2, mlip_v8i, MLIP__VA(0, 1, 8, 9, 4, 5, 12, 13), MLIP__VA(2, 3, 10, 11, 6, 7, 14, 15));
  MLIP__VTR_ROUND(v, 8, 1, mlip_v8i, MLIP__VA(0, 8, 2, 10, 4, 12, 6, 14), MLIP__VA(1, 9, 3, 11, 5, 13, 7, 15));
}
#endif
#if MLIP_VL >= 16
typedef int32_t mlip_v16i __attribute__((vector_size(64)));
static inline void mlip_vtranspose16(mlip_v16f* v) {
  MLIP__VTR_ROUND(v, 16, 8, mlip_v16i, MLIP__VA(0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23),
                  MLIP__VA(8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31));
  MLIP__VTR_ROUND(v, 16, 4, mlip_v16i, MLIP__VA(0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27),
                  MLIP__VA(4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31));
  MLIP__VTR_ROUND(v, 16, 2, mlip_v16i, MLIP__VA(0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29),
                  MLIP__VA(2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31));
  MLIP__VTR_ROUND(v, 16, 1, mlip_v16i, MLIP__VA(0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30),
                  MLIP__VA(1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31));
}
#endif
#endif
#define mlip_vtranspose1(v) ((void)(v))
#define MLIP__VTR_W(w) MLIP__VTR_W_(w)
#define MLIP__VTR_W_(w) mlip_vtranspose##w
#define MLIP_VTRANSPOSE_16(v) MLIP__VTR_W(MLIP_VW_16)(v)

#endif /* MLIP_KVEC_H_ */
