// Calibration and test data for the PTQ tests: standard-normal samples, one
// array per graph input with a leading sample axis (the layout of
// --calibration's .npz).
#pragma once

#include <random>

#include "io/npz.h"
#include "ir/graph.h"

namespace mlipc::test::samples {

inline io::NamedTensors normal_samples(const Graph& g, int64_t samples, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d;
  io::NamedTensors set;
  for (const GraphIO& in : g.inputs) {
    Shape s = {samples};
    for (int64_t x : g.value(in.value).shape) s.push_back(x);
    TensorData t(DType::Float32, s);
    for (int64_t k = 0; k < t.numel(); ++k) t.data<float>()[k] = d(rng);
    set.emplace_back(in.name, std::move(t));
  }
  return set;
}

}  // namespace mlipc::test::samples
