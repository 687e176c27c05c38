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
#include <set>

#include "driver/compile.h"
#include "frontend/tensor_proto.h"
#include "ops/evaluator.h"
#include "ops/qlinear.h"
#include "models.h"
#include "support/error.h"
#include "testlib/model_runner.h"

namespace fs = std::filesystem;

namespace mlipc::test::e2e_quantized {
namespace {

class Quantized : public ::testing::TestWithParam<ModelCase> {};

io::NamedTensors load_inputs(const Graph& g, const fs::path& dir) {
  io::NamedTensors in;
  for (size_t i = 0; i < g.inputs.size(); ++i)
    in.emplace_back(g.inputs[i].name, frontend::load_tensor_pb(dir / fmt::format("test_data_set_0/input_{}.pb", i)));
  return in;
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
    const StepCounts c = step_counts(got[k].second, want[k], step);
    std::printf("[ quantized ] %s output %s: %lld elements, %lld within 1 step (%.2f%%), %lld within 2 steps "
                "(step %g, worst %.3f)\n",
                m.name.c_str(), got[k].first.c_str(), static_cast<long long>(c.n), static_cast<long long>(c.one),
                100.0 * static_cast<double>(c.one) / static_cast<double>(c.n), static_cast<long long>(c.two),
                static_cast<double>(step), c.worst);
    EXPECT_GE(c.one * 100, c.n * 99) << m.name;
    EXPECT_EQ(c.two, c.n) << m.name;
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

// The cases whose fp32 source the suite stores (the five shared models and
// the block; the small models of gen_quantized_mlip.py have none).
std::vector<ModelCase> sized_cases() {
  std::vector<ModelCase> out;
  for (const ModelCase& m : quantized_model_cases())
    if (!fp32_source(m.name).empty()) out.push_back(m);
  return out;
}

class QuantizedSize : public ::testing::TestWithParam<ModelCase> {};

// Bytes of the 256-entry lookup tables among a compiled graph's constants:
// the activations the fp32 build computes in float (Sigmoid, HardSwish,
// LeakyRelu ...), and the requantization of a Concat input. The fp32 build
// has no counterpart to them, so they are set apart in the comparison.
int64_t table_bytes(const Graph& g) {
  std::set<ValueId> seen;
  int64_t bytes = 0;
  for (const Node& n : g.nodes)
    if (n.op == ops::kQLookupOp && seen.insert(n.inputs[1]).second)
      bytes += static_cast<int64_t>(g.value(n.inputs[1]).constant->nbytes());
  return bytes;
}

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
  const int64_t tables = table_bytes(q.graph);
  const double consts_wo_tables = static_cast<double>(static_cast<int64_t>(q.module.constants_size) - tables) /
                                  static_cast<double>(f.module.constants_size);
  std::printf("[ quantized ] %s: arena %zu bytes (fp32 %zu, ratio %.3f), constants %zu bytes (fp32 %zu, ratio %.3f; "
              "%lld bytes of lookup tables, ratio %.3f without them)\n",
              m.name.c_str(), static_cast<size_t>(q.module.workspace_size), static_cast<size_t>(f.module.workspace_size),
              arena, static_cast<size_t>(q.module.constants_size), static_cast<size_t>(f.module.constants_size),
              consts, static_cast<long long>(tables), consts_wo_tables);
  EXPECT_LE(consts_wo_tables, 0.30) << "int8 weights with int32 biases are about a quarter of fp32";
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

INSTANTIATE_TEST_SUITE_P(Models, Quantized, ::testing::ValuesIn(quantized_model_cases()),
                         [](const auto& info) { return model_case_name(info.param); });
INSTANTIATE_TEST_SUITE_P(Int8Networks, Quantized, ::testing::ValuesIn(int8_network_cases()),
                         [](const auto& info) { return model_case_name(info.param); });
INSTANTIATE_TEST_SUITE_P(Models, QuantizedSize, ::testing::ValuesIn(sized_cases()),
                         [](const auto& info) { return model_case_name(info.param); });

}  // namespace
}  // namespace mlipc::test::e2e_quantized
