#include "testlib/model_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "host/host_model.h"
#include "mlf/archive.h"
#include "support/file_util.h"
#include "support/process.h"
#include "testlib/suite_mode.h"

namespace fs = std::filesystem;

namespace mlipc::test {

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
                                 const driver::CompileOptions& options, driver::CompileResult* compiled,
                                 const std::vector<std::string>& cc_flags) {
  static int counter = 0;
  driver::CompileResult r = driver::compile_model(onnx, options);
  fs::path tar = scratch_dir() / fmt::format("model{}.tar", counter++);
  driver::write_tarball(r, tar);
  host::BuildOptions bo = test_build_options();
  if (!cc_flags.empty()) bo.flags = cc_flags;
  host::HostModel m = host::HostModel::build(tar, bo);
  io::NamedTensors out = m.run(inputs).outputs;
  if (compiled) *compiled = std::move(r);
  return out;
}

std::vector<std::string> operator_test_flags() {
  const char* v = std::getenv("MLIPC_TEST_OP_OPT");
  const std::string level = v && *v ? v : "-O1";
  std::vector<std::string> flags = host::host_flags();
  std::replace(flags.begin(), flags.end(), std::string("-O3"), level);
  return flags;
}

std::vector<std::string> test_build_flags() { return full_suite() ? host::host_flags() : operator_test_flags(); }

host::BuildOptions test_build_options() {
  host::BuildOptions bo;
  bo.cache_dir = fs::path(MLIPC_BUILD_DIR) / "test-cache";
  bo.flags = test_build_flags();
  return bo;
}

std::vector<std::string> width_variant_flags(const std::vector<std::string>& extra) {
  std::vector<std::string> flags = host::host_flags();
  if (!full_suite()) std::replace(flags.begin(), flags.end(), std::string("-O3"), std::string("-O0"));
  flags.insert(flags.end(), extra.begin(), extra.end());
  return flags;
}

io::NamedTensors run_width_variant(const fs::path& tar, const io::NamedTensors& inputs,
                                   const std::vector<std::string>& extra) {
  host::BuildOptions bo = test_build_options();
  bo.flags = extra.empty() ? host::host_flags() : width_variant_flags(extra);
  return host::HostModel::build(tar, bo).run(inputs).outputs;
}

io::NamedTensors compile_and_run(const fs::path& onnx, const io::NamedTensors& inputs) {
  return compile_and_run(onnx, inputs, driver::CompileOptions{});
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

void expect_matches_reference(const fs::path& onnx, const io::NamedTensors& inputs, double rtol, double atol) {
  expect_matches_reference(onnx, inputs, rtol, atol, driver::CompileOptions{});
}

driver::CompileOptions mrvl_options(int tiles, bool pin, const std::string& mcpu) {
  driver::CompileOptions o;
  o.target = "mrvl, c";
  o.mlip.num_tiles = tiles;
  o.mlip.wb_pin_ocm = pin;
  o.mlip.mcpu = mcpu;
  return o;
}

std::vector<std::string> layer_kinds(const driver::CompileResult& r, size_t region) {
  std::vector<std::string> kinds;
  for (const auto& l : r.mlip.regions.at(region)->report.layers) kinds.push_back(l.kind);
  return kinds;
}

bool stored_channels_last(const driver::CompileResult& r, const std::string& name) {
  const ValueId v = r.graph.find(name);
  EXPECT_NE(v, kNoValue) << name;
  return v != kNoValue && r.module.channels_last[static_cast<size_t>(v)];
}

}  // namespace mlipc::test
