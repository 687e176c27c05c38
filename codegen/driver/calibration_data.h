// --calibration FILE.npz: the samples post-training quantization runs
// (ptq::quantize), read and checked against the model's inputs.
#pragma once

#include <filesystem>
#include <vector>

#include "io/npz.h"
#include "ir/graph.h"

namespace mlipc::driver {

struct CalibrationSet {
  std::vector<std::vector<TensorData>> samples;  // each the inputs, in graph-input order
  int64_t in_file = 0;  // samples the file holds (more than `samples` past the cap)
};

// One array per graph input, named as the input, of its dtype, with a
// leading sample axis: [N, *shape], or [N, *shape[1:]] when the input's
// first dimension is 1 (the batch axis taken as the sample axis). Returns
// the first min(N, limits::kMaxCalibrationSamples) samples. Every mismatch (a
// missing or extra array, a dtype, a shape, no sample, a different N) and a
// value that is not finite (NaN, an infinity) in a sample taken is a
// one-line error naming the file and the array (and the sample).
CalibrationSet read_calibration(const std::filesystem::path& path, const Graph& g);

// The same on arrays already read (`file` names them in messages): the
// calibration fuzz target's entry.
CalibrationSet calibration_set(io::NamedTensors arrays, const std::string& file, const Graph& g);

}  // namespace mlipc::driver
