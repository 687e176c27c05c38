// pipeline.json (codegen/mesh/manifest.h): written, read back, refused when
// damaged with the field named; its C form.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "mesh/manifest.h"
#include "support/error.h"

using ::testing::HasSubstr;

namespace mlipc::mesh::unit_mesh_manifest {
namespace {

Manifest two_stages() {
  Manifest m;
  m.generator = "mlipc test";
  m.model_name = "net";
  m.module_name = "default";
  m.target = "mrvl, c";
  m.pes_requested = 2;
  m.pe_memory_limit = 524288;
  m.clock_mhz = 1000;
  m.tensors = {{"x", DType::Float32, {1, 4}, 16, kHost, {0}},
               {"mid", DType::Float32, {1, 8}, 32, 0, {1}},
               {"y", DType::Int8, {1, 2}, 2, 1, {kHost}}};
  PipeStage a, b;
  a.pe = 0;
  a.module = "default_stage0";
  a.inputs = {0};
  a.outputs = {1};
  a.est_cycles = 300;
  b.pe = 1;
  b.module = "default_stage1";
  b.inputs = {1};
  b.outputs = {2};
  b.est_cycles = 500;
  b.memory = {1, 2, 3, 4};
  m.stages = {a, b};
  m.inputs = {0};
  m.outputs = {2};
  m.single_pe_cycles = 700;
  return m;
}

TEST(MeshManifest, RoundTripsThroughJson) {
  const Manifest m = two_stages();
  const std::string text = manifest_to_json(m);
  const Manifest back = manifest_from_json(text);
  EXPECT_EQ(manifest_to_json(back), text);
  EXPECT_EQ(back.stages[1].memory.total(), 10u);
  EXPECT_EQ(back.tensors[2].dtype, DType::Int8);
  EXPECT_EQ(back.slowest_stage_cycles(), 500u);
  EXPECT_EQ(back.latency_cycles(), 800u);
  EXPECT_DOUBLE_EQ(back.throughput(), 2e6);
  EXPECT_DOUBLE_EQ(back.single_pe_throughput(), 1e9 / 700.0);
  EXPECT_THAT(text, HasSubstr("\"consumers\": [\n        -1\n      ]"));
}

TEST(MeshManifest, DamageIsOneLineNamingTheField) {
  std::string text = manifest_to_json(two_stages());
  auto refused = [](const std::string& t) {
    try {
      manifest_from_json(t);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_THAT(refused("{"), HasSubstr("pipeline.json: not valid JSON"));
  EXPECT_THAT(refused(std::string(100, '[')), HasSubstr("pipeline.json: nested deeper than 64 levels"));
  std::string v = text;
  v.replace(v.find("\"version\": 1"), 12, "\"version\": 2");
  EXPECT_THAT(refused(v), HasSubstr("pipeline.json: version 2 (this mlipc reads version 1)"));
  std::string s = text;
  s.replace(s.find("\"mid\"\n"), 5, "\"nope\"");
  EXPECT_THAT(refused(s), HasSubstr("pipeline.json: stages[0].outputs names 'nope', which is not in \"tensors\""));
  std::string p = text;
  p.replace(p.find("\"producer\": 0"), 13, "\"producer\": 5");
  EXPECT_THAT(refused(p), HasSubstr("pipeline.json: tensors[1].producer is 5, not a stage or -1"));
  std::string mod = text;
  mod.replace(mod.find("\"default_stage1\""), 16, "\"stage 1\"");
  EXPECT_THAT(refused(mod), HasSubstr("stages[1].module 'stage 1' is not a C identifier"));
}

TEST(MeshManifest, CFormDeclaresThePipelineAndTheStageModules) {
  const std::string c = manifest_to_c(two_stages());
  EXPECT_THAT(c, HasSubstr("#include \"mlip/pipeline.h\""));
  EXPECT_THAT(c, HasSubstr("{\"mid\", 2, 32, 2, tensor1_shape, 32u, 0, 1, tensor1_consumers},"));
  EXPECT_THAT(c, HasSubstr("{\"y\", 0, 8, 2, tensor2_shape, 2u, 1, 1, tensor2_consumers},"));
  EXPECT_THAT(c, HasSubstr("const mlip_pipeline mlipc_pipeline = {1, 2, stages, 3, tensors, 1, model_inputs, 1, model_outputs};"));
  EXPECT_THAT(c, HasSubstr("extern const mlip_model tvmgen_default_stage1_model;"));
  EXPECT_THAT(c, HasSubstr("    &tvmgen_default_stage0_model,\n"));
}

}  // namespace
}  // namespace mlipc::mesh::unit_mesh_manifest
