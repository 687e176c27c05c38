#include "models.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "frontend/tensor_proto.h"
#include "testlib/suite_mode.h"

namespace mlipc::test {

const std::vector<ModelCase>& model_cases() {
  static const std::vector<ModelCase> cases = {
      {"seed_digits_cnn", std::filesystem::path(MLIPC_EXAMPLES) / "digits"},
      {"kws_dscnn", std::filesystem::path(MLIPC_TEST_DATA) / "models/mlperf_tiny_kws_dscnn"},
      {"vww_mobilenet_v1_025", std::filesystem::path(MLIPC_TEST_DATA) / "models/mlperf_tiny_vww_mobilenet_v1_025"},
      {"ic_resnet8", std::filesystem::path(MLIPC_TEST_DATA) / "models/mlperf_tiny_ic_resnet8"},
      {"ad_fc_autoencoder", std::filesystem::path(MLIPC_TEST_DATA) / "models/mlperf_tiny_ad_fc_autoencoder"},
  };
  return cases;
}

namespace {

// The tests/data/models folders whose name starts with `prefix`, in name order.
std::vector<ModelCase> cases_with_prefix(const std::string& prefix) {
  std::vector<ModelCase> out;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(MLIPC_TEST_DATA) / "models")) {
    const std::string name = e.path().filename().string();
    if (e.is_directory() && name.rfind(prefix, 0) == 0) out.push_back({name, e.path()});
  }
  std::sort(out.begin(), out.end(), [](const ModelCase& a, const ModelCase& b) { return a.name < b.name; });
  return out;
}

}  // namespace

const std::vector<ModelCase>& generated_model_cases() {
  static const std::vector<ModelCase> cases = cases_with_prefix("torch_");
  return cases;
}

const std::vector<ModelCase>& quantized_model_cases() {
  static const std::vector<ModelCase> cases = cases_with_prefix("quant_");
  return cases;
}

const std::vector<ModelCase>& int8_network_cases() {
  static const std::vector<ModelCase> cases = cases_with_prefix("int8_");
  return cases;
}

float output_step(const Graph& g, size_t k) {
  const auto producers = g.producers();
  const int p = producers[static_cast<size_t>(g.outputs[k].value)];
  if (p < 0) return NAN;
  const Node& n = g.nodes[static_cast<size_t>(p)];
  if (n.op != "DequantizeLinear" || !g.value(n.inputs[1]).is_constant()) return NAN;
  return g.value(n.inputs[1]).constant->data<float>()[0];
}

StepCounts step_counts(const TensorData& got, const TensorData& want, float step) {
  const std::vector<double> g = got.as_double(), w = want.as_double();
  StepCounts c;
  c.n = static_cast<int64_t>(g.size());
  for (size_t i = 0; i < g.size() && i < w.size(); ++i) {
    const double steps = std::fabs(g[i] - w[i]) / static_cast<double>(step);
    c.worst = std::max(c.worst, steps);
    if (steps <= 1.0 + 1e-4) ++c.one;
    if (steps <= 2.0 + 1e-4) ++c.two;
  }
  return c;
}

std::vector<TensorData> expected_outputs(const std::filesystem::path& dir) {
  std::vector<TensorData> out;
  for (size_t k = 0;; ++k) {
    const std::filesystem::path f = dir / fmt::format("test_data_set_0/output_{}.pb", k);
    if (!std::filesystem::exists(f)) return out;
    out.push_back(frontend::load_tensor_pb(f));
  }
}

std::vector<Tiling> tilings() {
  if (!full_suite()) return {{1, false}, {2, true}, {8, false}};
  std::vector<Tiling> all;
  for (int tiles : {1, 2, 4, 8})
    for (bool pin : {false, true}) all.push_back({tiles, pin});
  return all;
}

std::string model_case_name(const ModelCase& m) { return m.name; }

void PrintTo(const ModelCase& m, std::ostream* os) { *os << m.name; }

}  // namespace mlipc::test
