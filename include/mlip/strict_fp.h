/* Same bits everywhere: the float rules of the generated C and the runtime,
 * enforced by the sources rather than by the user's flags (docs/runtime.md,
 * "Same bits on every target").
 *
 * Every C file of the runtime and of the generated code includes this header
 * first, and so does every header that defines inline arithmetic (kmath.h,
 * kconvert.h, requant.h), so no function of theirs is defined before it. A
 * header that firmware includes (tvmgen_<m>.h, model.h, platform.h,
 * region.h, status.h) must not include it: the pragma holds to the end of the
 * file that includes it.
 *
 * - No contraction of a*b + c into a fused multiply-add (one rounding where
 *   the code rounds twice). A kernel that wants one writes it out
 *   (mlip/kfma.h's mlip_fmaf, correctly rounded on every target). ISO C99's "#pragma STDC FP_CONTRACT OFF" says so
 *   and clang honours it; GCC ignores it (with a warning) and contracts in the
 *   GNU modes (-std=gnu99, its default) wherever the target has an FMA
 *   (AArch64, Cortex-M4F/M7/M55, x86-64 with -mfma), even across statements,
 *   so GCC gets its own pragma, which also overrides an explicit
 *   -ffp-contract=fast. Checked by tests/e2e/xplat_test.cpp and
 *   runtime.kmath_xplat (aarch64 gcc -std=gnu99 -O2 under qemu-aarch64).
 * - Configurations that change the arithmetic and cannot be switched off from
 *   here stop the build: -ffast-math, -fassociative-math, -freciprocal-math,
 *   -ffinite-math-only, and float evaluated with excess precision
 *   (FLT_EVAL_METHOD other than 0 or 16; 16 is GCC's GNU mode on Arm with
 *   half precision, where only _Float16 is widened).
 * - Not detectable, so not supported: clang given -ffp-contract=fast
 *   explicitly (it overrides the ISO pragma and defines no macro), and
 *   clang's -fassociative-math or -freciprocal-math without -ffast-math.
 *
 * C only: the compiler's C++ reference evaluator gets -ffp-contract=off from
 * the project's own flags. */
#ifndef MLIP_STRICT_FP_H_
#define MLIP_STRICT_FP_H_

#ifndef __cplusplus

#include <float.h>

#if defined(__FAST_MATH__) || defined(__ASSOCIATIVE_MATH__) || defined(__RECIPROCAL_MATH__)
#error "mlip/strict_fp.h: -ffast-math, -fassociative-math and -freciprocal-math change the bits of the model's results; build without them"
#endif
#if defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__
#error "mlip/strict_fp.h: -ffinite-math-only changes how NaN and infinity propagate; build without it"
#endif
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0 && FLT_EVAL_METHOD != 16
#error "mlip/strict_fp.h: float must be evaluated as float (FLT_EVAL_METHOD 0 or 16: SSE2, NEON, VFP or soft-float, not x87)"
#endif

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#else
#pragma STDC FP_CONTRACT OFF
#endif

#endif /* __cplusplus */

#endif /* MLIP_STRICT_FP_H_ */
