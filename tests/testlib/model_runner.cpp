#include "testlib/model_runner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <fmt/format.h>

#include "frontend/onnx_import.h"
#include "host/host_model.h"
#include "ops/evaluator.h"
#include "support/error.h"
#include "mlf/archive.h"
#include "support/file_util.h"
#include "support/process.h"

namespace fs = std::filesystem;

namespace mlipc::test {

fs::path scratch_dir() {
  static TempDir dir("mlipc-test");
  return dir.path();
}

std::string strict_c99_errors(const fs::path& onnx) {
  driver::CompileResult r = driver::compile_model(onnx, {});
  TempDir dir("mlipc-strict");
  driver::write_tarball(r, dir.path() / "model.tar");
  mlf::extract_tar(dir.path() / "model.tar", dir.path() / "x");
  ProcessResult p = run_process({"cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-ffp-contract=off",
                                 "-Icodegen/host/include", "-Iruntime/include", "-c",
                                 "codegen/host/src/default_lib1.c", "-o", "lib1.o"},
                                dir.path() / "x", 600);
  if (p.exit_code == 0) return "";
  return p.err.empty() ? fmt::format("cc exited with {}", p.exit_code) : p.err;
}

io::NamedTensors compile_and_run(const fs::path& onnx, const io::NamedTensors& inputs,
                                 const driver::CompileOptions& options, driver::CompileResult* compiled) {
  static int counter = 0;
  driver::CompileResult r = driver::compile_model(onnx, options);
  fs::path tar = scratch_dir() / fmt::format("model{}.tar", counter++);
  driver::write_tarball(r, tar);
  host::BuildOptions bo;
  bo.cache_dir = fs::path(MLIPC_BUILD_DIR) / "test-cache";
  host::HostModel m = host::HostModel::build(tar, bo);
  io::NamedTensors out = m.run(inputs).outputs;
  if (compiled) *compiled = std::move(r);
  return out;
}

std::string import_error(const fs::path& onnx) {
  try {
    frontend::import_onnx(onnx);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

io::NamedTensors reference_run(const fs::path& onnx, const io::NamedTensors& inputs) {
  Graph g = frontend::import_onnx(onnx);
  std::vector<TensorData> ins;
  for (const GraphIO& io : g.inputs) {
    auto it = std::find_if(inputs.begin(), inputs.end(), [&](const auto& p) { return p.first == io.name; });
    if (it == inputs.end()) fail("reference_run: input '{}' missing", io.name);
    ins.push_back(it->second);
  }
  std::vector<TensorData> outs = evaluate(g, ins);
  io::NamedTensors result;
  for (size_t i = 0; i < outs.size(); ++i) result.emplace_back(g.outputs[i].name, std::move(outs[i]));
  return result;
}

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

void expect_matches_reference(const fs::path& onnx, const io::NamedTensors& inputs, double rtol, double atol,
                              const driver::CompileOptions& options) {
  io::NamedTensors want = reference_run(onnx, inputs);
  io::NamedTensors got = compile_and_run(onnx, inputs, options);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].first, want[i].first);
    EXPECT_EQ(compare(got[i].second, want[i].second, rtol, atol), "") << "output '" << want[i].first << "'";
  }
}

}  // namespace mlipc::test
