#include "testlib/tensors.h"

#include <cmath>
#include <random>
#include <vector>

#include <fmt/format.h>

namespace mlipc::test {

TensorData random_tensor(DType dtype, const Shape& shape, uint32_t seed, double lo, double hi) {
  std::mt19937 rng(seed);
  TensorData t(DType::Float64, shape);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (dtype_is_float(dtype)) t.data<double>()[i] = std::uniform_real_distribution<double>(lo, hi)(rng);
    else t.data<double>()[i] = std::floor(std::uniform_real_distribution<double>(lo, hi + 1.0)(rng));
  }
  return t.cast(dtype);
}

std::string compare(const TensorData& got, const TensorData& want, double rtol, double atol) {
  if (got.dtype() != want.dtype())
    return fmt::format("dtype {} != expected {}", dtype_name(got.dtype()), dtype_name(want.dtype()));
  if (got.shape() != want.shape())
    return fmt::format("shape {} != expected {}", shape_str(got.shape()), shape_str(want.shape()));
  std::vector<double> g = got.as_double(), w = want.as_double();
  int64_t bad = 0, first = -1;
  for (size_t i = 0; i < g.size(); ++i) {
    bool ok = (std::isnan(g[i]) && std::isnan(w[i])) || (g[i] == w[i]) ||
              std::fabs(g[i] - w[i]) <= atol + rtol * std::fabs(w[i]);
    if (!ok && bad++ == 0) first = static_cast<int64_t>(i);
  }
  if (bad == 0) return "";
  return fmt::format("{} of {} elements differ; first at flat index {}: got {:.9g}, expected {:.9g}", bad, g.size(),
                     first, g[first], w[first]);
}

}  // namespace mlipc::test
