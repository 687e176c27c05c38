/* The instruction sets a kernel's variants are written for, and which of
 * them the file being compiled may use (docs/adding-an-operator.md, "Kernel
 * variants").
 *
 * A kernel with variants has a portable reference, always compiled, and
 * optional variants in headers of their own, each for one instruction set.
 * Which one runs is decided here, by the compiler's predefined macros: the
 * flags the file is compiled with (-mcpu=cortex-m55, -march=native, ...)
 * say what the machine has, so one tarball builds for the host (`mlipc
 * run`), for AArch64 and for any Cortex-M, never compiles an instruction the
 * target lacks, and any other compiler gets the reference. Every variant
 * gives the reference's bits (tests/variants proves it), so the choice only
 * changes the speed.
 *
 * MLIP_HAVE_<ISA> is 1 where the variants for <ISA> compile:
 *   MVE   Arm Helium, integer (Cortex-M55, M85): arm_mve.h
 *   DSP   the Arm DSP extension's 32-bit SIMD (Cortex-M4, M7, M33, M35P, and
 *         the M55 and M85, which have it too): arm_acle.h's __smlad, __sxtb16
 *   NEON  AArch64's Advanced SIMD: arm_neon.h
 *   X86   x86-64 with AVX2: GCC's vector extensions and AVX2 built-ins
 *         (immintrin.h's parse time is more than a small model's C)
 * GCC and Clang only (the intrinsics headers and the documented behaviour of
 * >> on negative values that some variants rely on are theirs); C++ sees the
 * reference only (the compiler includes these headers for their helpers).
 * Build with -DMLIP_KERNELS_PORTABLE to take the references everywhere. */
#ifndef MLIP_KISA_H_
#define MLIP_KISA_H_

#if (defined(__GNUC__) || defined(__clang__)) && !defined(__cplusplus) && !defined(MLIP_KERNELS_PORTABLE)
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define MLIP_HAVE_MVE 1
#endif
#if defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32) && !defined(__aarch64__)
#define MLIP_HAVE_DSP 1
#endif
#if defined(__aarch64__) && defined(__ARM_NEON)
#define MLIP_HAVE_NEON 1
#endif
#if defined(__x86_64__) && defined(__AVX2__)
#define MLIP_HAVE_X86 1
#endif
#endif

#ifndef MLIP_HAVE_MVE
#define MLIP_HAVE_MVE 0
#endif
#ifndef MLIP_HAVE_DSP
#define MLIP_HAVE_DSP 0
#endif
#ifndef MLIP_HAVE_NEON
#define MLIP_HAVE_NEON 0
#endif
#ifndef MLIP_HAVE_X86
#define MLIP_HAVE_X86 0
#endif

#endif /* MLIP_KISA_H_ */
