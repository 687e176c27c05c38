// The calibration samples and how each step of post-training quantization
// runs them: the fp32 graph by the reference evaluator (an error names the
// sample), and the progress calls the CLI draws its bar from.
#pragma once

#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "ptq/options.h"

namespace mlipc::ptq {

struct Samples {
  const std::vector<std::vector<TensorData>>& inputs;  // each the graph's inputs, in graph-input order
  const QuantizeOptions& options;

  size_t size() const { return inputs.size(); }
  // Every value of g on sample s (ops/evaluator.h, evaluate_values).
  std::vector<TensorData> run_fp32(const Graph& g, size_t s) const;
  void progress(std::string_view phase, size_t done) const;
};

}  // namespace mlipc::ptq
