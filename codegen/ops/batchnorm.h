// BatchNormalization (inference) as a per-channel affine map: the reference
// kernel and the C kernel (which bakes the factors when the parameters are
// constants) compute the factors with this one function.
#pragma once

#include <cstdint>
#include <vector>

namespace mlipc::ops {

struct BatchNormFactors {
  std::vector<float> scale, shift;  // y = x * scale[c] + shift[c]
};

// scale[c] = gamma[c] / sqrt(var[c] + eps); shift[c] = beta[c] - mean[c] * scale[c],
// in float, as the C kernel computes them at run time.
BatchNormFactors batchnorm_factors(const float* gamma, const float* beta, const float* mean, const float* var,
                                   int64_t channels, float epsilon);

}  // namespace mlipc::ops
