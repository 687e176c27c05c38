// The float multiply-add of the Conv, Gemm and MatMul references: x * w + acc with
// one rounding (IEEE fusedMultiplyAdd), in the kernels' order, as the
// generated C's mlip_fmaf and MLIP_VFMA (include/mlip/kfma.h, kvec.h) add
// it. On x86-64 the loops are compiled twice (GCC target_clones): with the
// FMA instruction where the CPU has it, else each multiply-add is the C
// library's fma (correctly rounded too: the same bits, slower), so PTQ's
// calibration does not call libm per multiply-add on a machine with FMA.
#pragma once

#include <cstdint>

namespace mlipc::ops {

// One output position of conv_sums (ops/window.h) for 8 output channels:
// for ic in [0, icg), then each tap t in [t0, t1):
//   acc[j] = fma(x[ic * isize + tx[t]], w[(ic * ksize + tk[t]) * ocp + j], acc[j]).
void fma_conv_taps(const float* x, int64_t isize, const float* w, int64_t ksize, int64_t ocp, int64_t icg,
                   const int64_t* tx, const int64_t* tk, int64_t t0, int64_t t1, float acc[8]);

// acc, then acc = fma(a[p * sa], b[p * sb], acc) for p = 0 .. k - 1.
float fma_dot(float acc, const float* a, int64_t sa, const float* b, int64_t sb, int64_t k);

}  // namespace mlipc::ops
