// Test tensors and their comparison: deterministic random data and a
// tolerance check that says where two tensors differ. Nothing of the
// compiler: every test may include it.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "ir/tensor_data.h"

namespace mlipc::test {

// Deterministic random tensors: floats uniform in [lo, hi), integers in [lo, hi].
TensorData random_tensor(DType dtype, const Shape& shape, uint32_t seed, double lo = -1.0, double hi = 1.0);

// A uniform integer in [lo, hi] drawn from `rng`: the randomized tests'
// shapes and options.
inline int64_t pick(std::mt19937& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// An empty string when `got` matches `want` (same dtype and shape, every
// element |got - want| <= atol + rtol * |want|, NaN matching NaN); otherwise
// a description of the first mismatch and the count.
std::string compare(const TensorData& got, const TensorData& want, double rtol, double atol);

}  // namespace mlipc::test
