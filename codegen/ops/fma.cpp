#include "ops/fma.h"

#include <cmath>

// GCC on x86-64 without -mfma: one clone with the instruction, one without,
// chosen at load time by the CPU (an ifunc). Elsewhere std::fma is already
// the instruction (AArch64, -mfma) or the C library's.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__FMA__)
#define MLIPC_FMA_CLONES __attribute__((target_clones("fma", "default")))
#else
#define MLIPC_FMA_CLONES
#endif

namespace mlipc::ops {

MLIPC_FMA_CLONES void fma_conv_taps(const float* x, int64_t isize, const float* w, int64_t ksize, int64_t ocp,
                                     int64_t icg, const int64_t* tx, const int64_t* tk, int64_t t0, int64_t t1,
                                     float acc[8]) {
  float s[8];
  for (int j = 0; j < 8; ++j) s[j] = acc[j];
  for (int64_t ic = 0; ic < icg; ++ic) {
    const float* xc = x + ic * isize;
    const float* wc = w + ic * ksize * ocp;
    for (int64_t t = t0; t < t1; ++t) {
      const float xv = xc[tx[t]];
      const float* wk = wc + tk[t] * ocp;
      for (int j = 0; j < 8; ++j) s[j] = std::fma(xv, wk[j], s[j]);
    }
  }
  for (int j = 0; j < 8; ++j) acc[j] = s[j];
}

MLIPC_FMA_CLONES float fma_dot(float acc, const float* a, int64_t sa, const float* b, int64_t sb, int64_t k) {
  for (int64_t p = 0; p < k; ++p) acc = std::fma(a[p * sa], b[p * sb], acc);
  return acc;
}

}  // namespace mlipc::ops
