// The shared and the generated models compiled for the CPU and compared with onnxruntime; the
// arena plan of each checked for overlaps independently of the planner.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "driver/compile.h"
#include "frontend/tensor_proto.h"
#include "host/host_model.h"
#include "models.h"
#include "support/file_util.h"
#include "testlib/model_runner.h"

namespace fs = std::filesystem;

namespace mlipc::test::e2e_models {
namespace {

class Models : public ::testing::TestWithParam<ModelCase> {};

io::NamedTensors load_inputs(const Graph& g, const fs::path& dir) {
  io::NamedTensors in;
  for (size_t i = 0; i < g.inputs.size(); ++i)
    in.emplace_back(g.inputs[i].name, frontend::load_tensor_pb(dir / fmt::format("test_data_set_0/input_{}.pb", i)));
  return in;
}

TEST_P(Models, MatchesOnnxruntime) {
  const ModelCase& m = GetParam();
  driver::CompileResult r = driver::compile_model(m.dir / "model.onnx", {});
  io::NamedTensors inputs = load_inputs(r.graph, m.dir);
  // mlipc run's own build (-O3), what users run.
  io::NamedTensors got = compile_and_run(m.dir / "model.onnx", inputs, {}, nullptr, host::host_flags());
  const std::vector<TensorData> want = expected_outputs(m.dir);
  ASSERT_EQ(got.size(), want.size()) << m.name << ": outputs produced vs stored";
  ASSERT_EQ(got.size(), r.graph.outputs.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(compare(got[i].second, want[i], 1e-4, 1e-5), "") << m.name << " output " << got[i].first;
}

TEST_P(Models, ReferenceEvaluatorMatchesOnnxruntime) {
  const ModelCase& m = GetParam();
  driver::CompileResult r = driver::compile_model(m.dir / "model.onnx", {});
  io::NamedTensors got = reference_run(m.dir / "model.onnx", load_inputs(r.graph, m.dir));
  const std::vector<TensorData> want = expected_outputs(m.dir);
  ASSERT_EQ(got.size(), want.size()) << m.name << ": outputs produced vs stored";
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(compare(got[i].second, want[i], 1e-4, 1e-5), "") << m.name;
}

// Every pair of arena buffers that are live at the same step must not share
// a byte; checked here from the liveness and the offsets, for every planner.
TEST_P(Models, ArenaNeverOverlapsLiveTensors) {
  const ModelCase& m = GetParam();
  for (const char* planner : {"greedy_by_size", "greedy_by_conflicts", "hill_climb", "linear"}) {
    driver::CompileOptions opt;
    opt.codegen.memory_planner = planner;
    driver::CompileResult r = driver::compile_model(m.dir / "model.onnx", opt);
    const auto& bufs = r.module.liveness.buffers;
    const auto& off = r.module.plan.offsets;
    ASSERT_EQ(bufs.size(), off.size());
    for (size_t a = 0; a < bufs.size(); ++a) {
      EXPECT_EQ(off[a] % 16, 0u) << planner;
      EXPECT_LE(off[a] + bufs[a].size, r.module.workspace_size) << planner;
      for (size_t b = a + 1; b < bufs.size(); ++b) {
        bool live_together = bufs[a].first <= bufs[b].last && bufs[b].first <= bufs[a].last;
        bool bytes_overlap = off[a] < off[b] + bufs[b].size && off[b] < off[a] + bufs[a].size;
        EXPECT_FALSE(live_together && bytes_overlap && bufs[a].size && bufs[b].size)
            << planner << ": " << bufs[a].name << " and " << bufs[b].name;
      }
    }
    EXPECT_GE(r.module.workspace_size, r.module.workspace_lower_bound) << planner;
  }
}

INSTANTIATE_TEST_SUITE_P(Shared, Models, ::testing::ValuesIn(model_cases()),
                         [](const auto& info) { return model_case_name(info.param); });
INSTANTIATE_TEST_SUITE_P(Generated, Models, ::testing::ValuesIn(generated_model_cases()),
                         [](const auto& info) { return model_case_name(info.param); });

}  // namespace
}  // namespace mlipc::test::e2e_models
