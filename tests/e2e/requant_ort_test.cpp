// --requant ort (docs/user-guide.md, "Requantization modes"): the suite's
// quantized models (tests/data/models/quant_qdq_*, quant_qop_*: Conv,
// MatMul/Gemm, Add, Mul, pools, Relu/Clip, tables) give onnxruntime-node's
// outputs bit for bit, on --target c and on "mrvl, c" -quantize=int8 (the
// simulator); the generated C gives the reference evaluator's bits in that
// mode too; metadata.json records the mode, and an unknown one is refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdio>
#include <cstring>

#include "driver/compile.h"
#include "frontend/tensor_proto.h"
#include "host/host_model.h"
#include "models.h"
#include "ops/evaluator.h"
#include "support/error.h"
#include "testlib/model_runner.h"
#include "testlib/reference.h"
#include "testlib/tensors.h"

namespace fs = std::filesystem;

namespace mlipc::test::e2e_requant_ort {
namespace {

class RequantOrt : public ::testing::TestWithParam<ModelCase> {};

io::NamedTensors inputs_of(const Graph& g, const fs::path& dir) {
  io::NamedTensors in;
  for (size_t i = 0; i < g.inputs.size(); ++i)
    in.emplace_back(g.inputs[i].name, frontend::load_tensor_pb(dir / fmt::format("test_data_set_0/input_{}.pb", i)));
  return in;
}

// Elements whose bytes equal onnxruntime's, of all; prints the count.
int64_t equal_elements(const ModelCase& m, const char* target, const io::NamedTensors& got,
                       const std::vector<TensorData>& want, int64_t* total) {
  int64_t eq = 0;
  *total = 0;
  EXPECT_EQ(got.size(), want.size()) << m.name;
  for (size_t k = 0; k < got.size() && k < want.size(); ++k) {
    const TensorData& g = got[k].second;
    const TensorData& w = want[k];
    EXPECT_EQ(g.dtype(), w.dtype()) << m.name;
    EXPECT_EQ(g.shape(), w.shape()) << m.name;
    if (g.dtype() != w.dtype() || g.nbytes() != w.nbytes()) continue;
    const size_t eb = g.nbytes() / static_cast<size_t>(g.numel());
    const auto* gb = static_cast<const unsigned char*>(g.raw());
    const auto* wb = static_cast<const unsigned char*>(w.raw());
    for (int64_t i = 0; i < g.numel(); ++i) eq += std::memcmp(gb + i * eb, wb + i * eb, eb) == 0;
    *total += g.numel();
  }
  std::printf("[ requant ort ] %s on %s: %lld of %lld elements bit-identical to onnxruntime\n", m.name.c_str(),
              target, static_cast<long long>(eq), static_cast<long long>(*total));
  return eq;
}

driver::CompileOptions ort_options() {
  driver::CompileOptions o;
  o.requant = "ort";
  return o;
}

TEST_P(RequantOrt, TargetCBitIdenticalToOnnxruntimeAndTheEvaluator) {
  const ModelCase& m = GetParam();
  driver::CompileResult r;
  const io::NamedTensors in = inputs_of(driver::compile_model(m.dir / "model.onnx", {}).graph, m.dir);
  const io::NamedTensors got = compile_and_run(m.dir / "model.onnx", in, ort_options(), &r);
  int64_t total = 0;
  EXPECT_EQ(equal_elements(m, "c", got, expected_outputs(m.dir), &total), total) << m.name;
  EXPECT_THAT(r.files.at("metadata.json"), ::testing::HasSubstr("\"requant\": \"ort\""));
  std::vector<TensorData> ins;
  for (const auto& [name, t] : in) ins.push_back(t);
  const std::vector<TensorData> want = evaluate(r.graph, ins);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) EXPECT_EQ(compare(got[k].second, want[k], 0, 0), "") << m.name;
}

TEST_P(RequantOrt, MlipBitIdenticalToOnnxruntime) {
  const ModelCase& m = GetParam();
  driver::CompileOptions o = ort_options();
  o.target = "mrvl, c";
  o.mlip.num_tiles = 4;
  o.mlip.wb_pin_ocm = true;
  o.mlip.quantize = "int8";
  const driver::CompileResult r = driver::compile_model(m.dir / "model.onnx", o);
  const fs::path tar = scratch_dir() / fmt::format("{}_requant_ort.tar", m.name);
  driver::write_tarball(r, tar);
  host::BuildOptions bo = test_build_options();
  const host::RunResult run = host::HostModel::build(tar, bo).run(inputs_of(r.graph, m.dir));
  int64_t total = 0;
  EXPECT_EQ(equal_elements(m, "mrvl", run.outputs, expected_outputs(m.dir), &total), total) << m.name;
}

INSTANTIATE_TEST_SUITE_P(Models, RequantOrt, ::testing::ValuesIn(quantized_model_cases()),
                         [](const auto& info) { return model_case_name(info.param); });

TEST(RequantOrtOption, UnknownModeIsRefused) {
  driver::CompileOptions o;
  o.requant = "tflite";
  const ModelCase& m = quantized_model_cases().front();
  try {
    driver::compile_model(m.dir / "model.onnx", o);
    FAIL() << "--requant tflite accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("--requant 'tflite' (allowed: fixed, ort)"));
  }
}

}  // namespace
}  // namespace mlipc::test::e2e_requant_ort
