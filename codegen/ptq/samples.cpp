#include "ptq/samples.h"

#include "ops/evaluator.h"
#include "support/error.h"

namespace mlipc::ptq {

std::vector<TensorData> Samples::run_fp32(const Graph& g, size_t s) const {
  try {
    return evaluate_values(g, inputs[s]);
  } catch (const Error& e) {
    fail("calibration sample {}: {}", s, e.what());
  }
}

void Samples::progress(std::string_view phase, size_t done) const {
  if (options.progress) options.progress(phase, done, inputs.size());
}

}  // namespace mlipc::ptq
