/*
 * mlip/compiler.h - portable attribute macros for the runtime and for the C
 * that mlipc generates. Only GCC and Clang (and compilers that define
 * __GNUC__, such as armclang) get the attributes; elsewhere they expand to
 * nothing, so the code still compiles but without placement/weak linkage.
 */
#ifndef MLIP_COMPILER_H_
#define MLIP_COMPILER_H_

#if defined(__GNUC__) || defined(__clang__)
#define MLIP_HAVE_GNU_ATTRIBUTES 1
#else
#define MLIP_HAVE_GNU_ATTRIBUTES 0
#endif

#if MLIP_HAVE_GNU_ATTRIBUTES
#define MLIP_ALIGNED(n) __attribute__((aligned(n)))
#define MLIP_WEAK __attribute__((weak))
#define MLIP_UNUSED __attribute__((unused))
/* Mach-O wants "segment,section" names; ELF names such as ".bss.noinit.mlip"
   would be rejected there, so sections are left to the default on Apple. */
#if defined(__APPLE__)
#define MLIP_SECTION(s)
#else
#define MLIP_SECTION(s) __attribute__((section(s)))
#endif
#else
#define MLIP_ALIGNED(n)
#define MLIP_SECTION(s)
#define MLIP_WEAK
#define MLIP_UNUSED
#endif

#endif /* MLIP_COMPILER_H_ */
