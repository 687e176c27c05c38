// --calibration FILE.npz: the samples post-training quantization runs
// (ptq::quantize), read and checked against the model's inputs.
#pragma once

#include <filesystem>
#include <vector>

#include "ir/graph.h"

namespace mlipc::driver {

// One array per graph input, named as the input, of its dtype, with a
// leading sample axis: [N, *shape], or [N, *shape[1:]] when the input's
// first dimension is 1 (the batch axis taken as the sample axis). Returns
// the N samples, each the inputs in graph-input order. Every mismatch (a
// missing or extra array, a dtype, a shape, no sample, a different N) is a
// one-line error naming the file and the array.
std::vector<std::vector<TensorData>> read_calibration(const std::filesystem::path& path, const Graph& g);

}  // namespace mlipc::driver
