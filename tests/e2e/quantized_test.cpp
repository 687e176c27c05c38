// The quantized models of tests/gen/gen_quantized.py (tests/data/models/
// quant_qdq_*, quant_qop_*) compiled for the CPU: passes/fold_qdq makes them
// integer operators. Each output within one quantization step of
// onnxruntime's on at least 99% of the elements and two steps on all (the
// counts are printed); the generated C gives the bits of the reference
// evaluator run on the folded graph; the arena and the constants of each
// int8 build beside its fp32 source's (printed).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "driver/compile.h"
#include "frontend/tensor_proto.h"
#include "ir/evaluator.h"
#include "models.h"
#include "support/error.h"
#include "testlib/model_runner.h"

namespace fs = std::filesystem;

namespace mlipc::test::e2e_quantized {
namespace {

std::vector<ModelCase> quantized_cases() {
  std::vector<ModelCase> out;
  for (const auto& e : fs::directory_iterator(fs::path(MLIPC_TEST_DATA) / "models")) {
    const std::string name = e.path().filename().string();
    if (e.is_directory() && name.rfind("quant_", 0) == 0) out.push_back({name, e.path()});
  }
  std::sort(out.begin(), out.end(), [](const ModelCase& a, const ModelCase& b) { return a.name < b.name; });
  return out;
}

class Quantized : public ::testing::TestWithParam<ModelCase> {};

io::NamedTensors load_inputs(const Graph& g, const fs::path& dir) {
  io::NamedTensors in;
  for (size_t i = 0; i < g.inputs.size(); ++i)
    in.emplace_back(g.inputs[i].name, frontend::load_tensor_pb(dir / fmt::format("test_data_set_0/input_{}.pb", i)));
  return in;
}

// The quantization step of graph output k: the scale of the DequantizeLinear writing it.
float output_step(const Graph& g, size_t k) {
  const auto producers = g.producers();
  const int p = producers[static_cast<size_t>(g.outputs[k].value)];
  if (p < 0) return NAN;
  const Node& n = g.nodes[static_cast<size_t>(p)];
  if (n.op != "DequantizeLinear" || !g.value(n.inputs[1]).is_constant()) return NAN;
  return g.value(n.inputs[1]).constant->data<float>()[0];
}

TEST_P(Quantized, WithinOneStepOfOnnxruntime) {
  const ModelCase& m = GetParam();
  driver::CompileResult r;
  const io::NamedTensors inputs = load_inputs(driver::compile_model(m.dir / "model.onnx", {}).graph, m.dir);
  const io::NamedTensors got = compile_and_run(m.dir / "model.onnx", inputs, {}, &r);
  const std::vector<TensorData> want = expected_outputs(m.dir);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    const float step = output_step(r.graph, k);
    ASSERT_TRUE(std::isfinite(step)) << "output " << got[k].first << " is not written by a DequantizeLinear";
    ASSERT_EQ(got[k].second.shape(), want[k].shape());
    const std::vector<double> g = got[k].second.as_double(), w = want[k].as_double();
    int64_t one = 0, two = 0;
    double worst = 0;
    for (size_t i = 0; i < g.size(); ++i) {
      const double steps = std::fabs(g[i] - w[i]) / step;
      worst = std::max(worst, steps);
      // A difference of k steps is k * scale up to float rounding of the dequantization.
      if (steps <= 1.0 + 1e-4) ++one;
      if (steps <= 2.0 + 1e-4) ++two;
    }
    const int64_t n = static_cast<int64_t>(g.size());
    std::printf("[ quantized ] %s output %s: %lld elements, %lld within 1 step, %lld within 2 steps (step %g, worst %.3f)\n",
                m.name.c_str(), got[k].first.c_str(), static_cast<long long>(n), static_cast<long long>(one),
                static_cast<long long>(two), static_cast<double>(step), worst);
    EXPECT_GE(one * 100, n * 99) << m.name;
    EXPECT_EQ(two, n) << m.name;
  }
}

// Every quantized model folds to integer operators: at most the border
// QuantizeLinear/DequantizeLinear and the nodes inspect reports stay float.
TEST_P(Quantized, GeneratedCGivesTheFoldedReferenceBits) {
  const ModelCase& m = GetParam();
  driver::CompileResult r;
  const io::NamedTensors inputs = load_inputs(driver::compile_model(m.dir / "model.onnx", {}).graph, m.dir);
  const io::NamedTensors got = compile_and_run(m.dir / "model.onnx", inputs, {}, &r);
  std::vector<TensorData> ins;
  for (const auto& [name, t] : inputs) ins.push_back(t);
  const std::vector<TensorData> want = evaluate(r.graph, ins);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) EXPECT_EQ(compare(got[k].second, want[k], 0, 0), "") << m.name;
}

// The fp32 model a quantized case was made from, if the suite has it.
fs::path fp32_source(const std::string& name) {
  const std::string base = name.substr(std::string("quant_qdq_").size());
  if (base == "seed_digits_cnn") return fs::path(MLIPC_EXAMPLES) / "digits" / "model.onnx";
  const fs::path p = fs::path(MLIPC_TEST_DATA) / "models" / base / "model.onnx";
  return fs::exists(p) ? p : fs::path();
}

// The cases whose fp32 source the suite stores (the block model's is built
// by the generator only, so it has no size comparison).
std::vector<ModelCase> sized_cases() {
  std::vector<ModelCase> out;
  for (const ModelCase& m : quantized_cases())
    if (!fp32_source(m.name).empty()) out.push_back(m);
  return out;
}

class QuantizedSize : public ::testing::TestWithParam<ModelCase> {};

TEST_P(QuantizedSize, ArenaAndConstantsBesideFp32) {
  const ModelCase& m = GetParam();
  const fs::path src = fp32_source(m.name);
  const driver::CompileResult q = driver::compile_model(m.dir / "model.onnx", {});
  // The fp32 model with every tensor in its own buffer and no fused epilogues,
  // as the int8 one: the comparison is of element sizes.
  driver::CompileOptions separate;
  separate.codegen.arena_reuse = false;
  const driver::CompileResult f = driver::compile_model(src, separate);
  const double arena = static_cast<double>(q.module.workspace_size) / static_cast<double>(f.module.workspace_size);
  const double consts = static_cast<double>(q.module.constants_size) / static_cast<double>(f.module.constants_size);
  std::printf("[ quantized ] %s: arena %zu bytes (fp32 %zu, ratio %.3f), constants %zu bytes (fp32 %zu, ratio %.3f)\n",
              m.name.c_str(), static_cast<size_t>(q.module.workspace_size), static_cast<size_t>(f.module.workspace_size),
              arena, static_cast<size_t>(q.module.constants_size), static_cast<size_t>(f.module.constants_size),
              consts);
  EXPECT_LE(consts, 0.30) << "int8 weights with int32 biases are about a quarter of fp32";
  EXPECT_LT(arena, 1.0) << "int8 activations are smaller than fp32 ones";
  // With --io-dtype int8 the float copies of the input and output are gone:
  // every tensor in the arena is int8, a quarter of its fp32 size. (The
  // digits model pads its float input before quantizing it: refused, and
  // nothing more to compare.)
  driver::CompileOptions io8;
  io8.io_dtype = "int8";
  driver::CompileResult q8;
  try {
    q8 = driver::compile_model(m.dir / "model.onnx", io8);
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("is not quantized at the border")) << m.name;
    return;
  }
  const double arena8 = static_cast<double>(q8.module.workspace_size) / static_cast<double>(f.module.workspace_size);
  std::printf("[ quantized ] %s --io-dtype int8: arena %zu bytes (ratio %.3f), constants %zu bytes\n", m.name.c_str(),
              static_cast<size_t>(q8.module.workspace_size), arena8, static_cast<size_t>(q8.module.constants_size));
  EXPECT_LE(arena8, 0.30) << "an all-int8 arena is about a quarter of the fp32 one";
  EXPECT_LE(q8.module.workspace_size, q.module.workspace_size);
  EXPECT_LE(q8.module.constants_size, q.module.constants_size);
}

INSTANTIATE_TEST_SUITE_P(Models, Quantized, ::testing::ValuesIn(quantized_cases()),
                         [](const auto& info) { return model_case_name(info.param); });
INSTANTIATE_TEST_SUITE_P(Models, QuantizedSize, ::testing::ValuesIn(sized_cases()),
                         [](const auto& info) { return model_case_name(info.param); });

}  // namespace
}  // namespace mlipc::test::e2e_quantized
