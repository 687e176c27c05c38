#include "driver/calibration_data.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "io/npz.h"
#include "support/error.h"
#include "support/limits.h"
#include "support/text.h"

namespace mlipc::driver {

namespace {

// Calibration ranges are made of finite values: a NaN or an infinity in the
// data is refused rather than skipped (it would leave a tensor without a
// range, or send its layer back to float, silently).
void check_finite(const TensorData& t, const std::string& file, const std::string& array, int64_t sample) {
  if (t.dtype() != DType::Float32) return;
  const float* x = t.data<float>();
  const int64_t n = t.numel();
  for (int64_t e = 0; e < n; ++e)
    if (!std::isfinite(x[e]))
      fail("{}: array '{}' sample {} holds {} (element {} of the sample): calibration data must be finite", file,
           array, sample, std::isnan(x[e]) ? "NaN" : x[e] > 0 ? "+inf" : "-inf", e);
}

}  // namespace

CalibrationSet read_calibration(const std::filesystem::path& path, const Graph& g) {
  return calibration_set(io::read_npz(path), printable(path.string()), g);
}

CalibrationSet calibration_set(io::NamedTensors arrays, const std::string& file, const Graph& g) {
  std::vector<std::string> inputs;
  for (const GraphIO& in : g.inputs) inputs.push_back(printable(in.name));
  const std::string input_list = fmt::format("{}", fmt::join(inputs, ", "));
  if (arrays.empty()) fail("{}: the calibration set holds no array (it needs one per model input: {})", file, input_list);
  std::map<std::string, const TensorData*> by_name;
  for (const auto& [name, t] : arrays) {
    bool known = false;
    for (const GraphIO& in : g.inputs) known = known || in.name == name;
    if (!known) fail("{}: array '{}' is not an input of the model (its inputs: {})", file, printable(name), input_list);
    by_name[name] = &t;
  }
  int64_t samples = -1;
  std::string first;
  std::vector<const TensorData*> per_input;
  for (const GraphIO& in : g.inputs) {
    auto it = by_name.find(in.name);
    const std::string name = printable(in.name);
    if (it == by_name.end()) fail("{}: no array for the model's input '{}' (its inputs: {})", file, name, input_list);
    const TensorData& t = *it->second;
    const Value& v = g.value(in.value);
    if (t.dtype() != v.dtype)
      fail("{}: array '{}' is {}, the model's input is {}", file, name, dtype_name(t.dtype()), dtype_name(v.dtype));
    // The shape of one sample: the input's, or without its batch axis of 1.
    auto fits = [&](const Shape& sample) {
      return static_cast<size_t>(t.rank()) == sample.size() + 1 &&
             std::equal(sample.begin(), sample.end(), t.shape().begin() + 1);
    };
    const bool batch1 = !v.shape.empty() && v.shape[0] == 1;
    if (!fits(v.shape) && !(batch1 && fits(Shape(v.shape.begin() + 1, v.shape.end())))) {
      std::string want = fmt::format("[N,{}]", fmt::join(v.shape, ","));
      if (v.shape.empty()) want = "[N]";
      if (batch1)
        want += v.shape.size() == 1 ? " or [N]" : fmt::format(" or [N,{}]", fmt::join(v.shape.begin() + 1, v.shape.end(), ","));
      fail("{}: array '{}' is {}; for the input {} it must be {} (N samples)", file, name, shape_str(t.shape()),
           shape_str(v.shape), want);
    }
    const int64_t n = t.shape()[0];
    if (n == 0) fail("{}: array '{}' holds no sample (its leading axis is 0)", file, name);
    if (samples >= 0 && n != samples)
      fail("{}: array '{}' holds {} samples but array '{}' holds {}", file, name, n, first, samples);
    samples = n;
    first = name;
    per_input.push_back(&t);
  }
  CalibrationSet set;
  set.in_file = samples;
  const int64_t used = std::min(samples, limits::kMaxCalibrationSamples);
  set.samples.resize(static_cast<size_t>(used));
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const Value& v = g.value(g.inputs[i].value);
    const TensorData& t = *per_input[i];
    const size_t bytes = v.nbytes();
    for (int64_t s = 0; s < used; ++s) {
      TensorData one(v.dtype, v.shape);
      if (bytes) std::memcpy(one.raw(), t.raw() + static_cast<size_t>(s) * bytes, bytes);
      check_finite(one, file, printable(g.inputs[i].name), s);
      set.samples[static_cast<size_t>(s)].push_back(std::move(one));
    }
  }
  return set;
}

}  // namespace mlipc::driver
