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

#include <string.h>

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

#endif /* MLIP_KVEC_H_ */
