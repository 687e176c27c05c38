// The models the end-to-end tests run, each with an input and onnxruntime's
// output in the ONNX backend-test layout: the four MLPerf Tiny architectures
// and the digits CNN of the default example (model_cases), and the models
// tests/gen builds with PyTorch (generated_model_cases).
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/tensor_data.h"

namespace mlipc::test {

struct ModelCase {
  std::string name;
  std::filesystem::path dir;  // model.onnx, test_data_set_0/
};

const std::vector<ModelCase>& model_cases();

// Every tests/data/models/torch_* folder (written by tests/gen/gen_*.py),
// in name order.
const std::vector<ModelCase>& generated_model_cases();

// Every tests/data/models/quant_* folder (tests/gen/gen_quantized*.py), in
// name order.
const std::vector<ModelCase>& quantized_model_cases();

// tests/data/models/int8_*: issue 30's networks quantized (tests/gen/
// gen_mlip_int8.py), float operators between their pairs: QuantizedMlip and
// Quantized take them, not the quant_* suites that assume all-integer models.
const std::vector<ModelCase>& int8_network_cases();

// How far a quantized model's output is from onnxruntime's, in output
// quantization steps: elements within one step and within two (a
// difference of k steps is k * step up to the dequantization's float
// rounding), and the largest difference.
struct StepCounts {
  int64_t n = 0, one = 0, two = 0;
  double worst = 0;
};
StepCounts step_counts(const TensorData& got, const TensorData& want, float step);
// The quantization step of graph output k of a compiled quantized model:
// the scale of the DequantizeLinear writing it (NaN when none does).
float output_step(const Graph& g, size_t k);

// The reference outputs stored with a case: test_data_set_0/output_<k>.pb for
// k = 0, 1, ... as long as they exist. Tests compare their count with the
// outputs a run produced before comparing values, so a missing output fails.
std::vector<TensorData> expected_outputs(const std::filesystem::path& dir);

// The MLIP configurations the bit-identity sweeps compare: with
// MLIPC_TEST_FULL=1 every num_tiles 1, 2, 4, 8 with weights streamed and
// pinned in OCM; by default three that take every path of the tile split
// and the weight placement once: 1 tile streamed (no split), 2 tiles with
// pinned weights, 8 tiles streamed (the largest split; the configuration
// the fp16 accuracy tests build, so its host build is shared).
struct Tiling {
  int tiles;
  bool pin;
};
std::vector<Tiling> tilings();

// gtest parameter names.
std::string model_case_name(const ModelCase& m);
// How gtest prints a case (and so how ctest names it).
void PrintTo(const ModelCase& m, std::ostream* os);

}  // namespace mlipc::test
