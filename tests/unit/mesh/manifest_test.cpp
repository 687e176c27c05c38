// pipeline.json (codegen/mesh/manifest.h): written, read back, refused when
// damaged with the field named; its C form.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include <nlohmann/json.hpp>

#include "mesh/manifest.h"
#include "mlf/metadata.h"
#include "support/error.h"
#include "support/file_util.h"

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
  EXPECT_THAT(refused(p), HasSubstr("pipeline.json: tensors[1].producer is 5, not from -1 to 1"));
  std::string mod = text;
  mod.replace(mod.find("\"default_stage1\""), 16, "\"stage 1\"");
  EXPECT_THAT(refused(mod), HasSubstr("stages[1].module 'stage 1' is not the stage's module 'default_stage1'"));
}

// Issue 26, item 10: every field with its type, its range and its agreement
// with the others, as the manifest is read (inspect and run print nothing
// and build nothing before).
TEST(MeshManifest, EveryFieldIsCheckedAsItIsRead) {
  const nlohmann::json base = nlohmann::json::parse(manifest_to_json(two_stages()));
  struct Case {
    std::function<void(nlohmann::json&)> edit;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](auto& j) { j["stages"][0]["est_cycles"] = -100; },
       "stages[0].est_cycles is -100, not from 0 to 4503599627370496"},  // was 18,446,744,073,709,551,516
      {[](auto& j) { j["stages"][1]["index"] = 1.5; }, "stages[1].index holds the number 1.5, where mlipc writes a whole number"},
      {[](auto& j) { j["stages"][1]["pe"] = 1.0; }, "stages[1].pe holds the number 1.0, where mlipc writes a whole number"},
      {[](auto& j) { j["stages"][1]["path"] = "../../etc/"; },
       "stages[1].path '../../etc/' is not the stage's folder 'default_stage1/'"},
      {[](auto& j) { std::swap(j["stages"][0], j["stages"][1]); }, "stages[0].index is 1, not its place in \"stages\" (0)"},
      {[](auto& j) { j["clock_mhz"] = 0; }, "clock_mhz is 0, not from 1 to 1000000"},
      {[](auto& j) { j["outputs"] = nlohmann::json::array(); }, "\"outputs\" is empty"},
      {[](auto& j) { j["tensors"][1]["consumers"] = {0}; },
       "tensors[1].consumers[0] is stage 0, not after the tensor's producer (stage 0)"},
      {[](auto& j) { j["tensors"][2]["consumers"] = {-1, -1}; }, "tensors[2].consumers[1] names -1 (the host) twice"},
      {[](auto& j) { j["tensors"][1]["shape"] = {1, -8}; }, "tensors[1].shape[1] holds the number -8, not a dimension"},
      {[](auto& j) { j["tensors"][1]["bytes"] = 31; }, "tensors[1].bytes is 31, but float32 [1,8] holds 32 bytes"},
      {[](auto& j) { j["tensors"][0]["producer"] = 0; j["tensors"][0]["consumers"] = {1}; },
       "inputs names 'x', which stage 0 produces, not the host"},
      {[](auto& j) { j["outputs"] = {"mid"}; }, "outputs names 'mid', whose \"consumers\" do not include -1 (the host)"},
      {[](auto& j) { j["inputs"] = nlohmann::json::array(); },
       "tensors[0] 'x': its producer, -1 (the host), does not list it among the model's \"inputs\""},
      {[](auto& j) { j["stages"][0]["memory"]["total_bytes"] = 7; }, "stages[0].memory.total_bytes is 7, not the sum of the others (0)"},
      {[](auto& j) { j["estimates"]["latency_cycles"] = 1; }, "estimates.latency_cycles is 1, not the stages' est_cycles summed (800)"},
      {[](auto& j) { j["estimates"]["throughput_samples_per_s"] = 1e300; }, "estimates.throughput_samples_per_s is 1e+300, not 2000000"},
      {[](auto& j) { j["pe_memory_bytes"] = "512KiB"; }, "pe_memory_bytes holds a string, where mlipc writes a whole number"},
      {[](auto& j) { j["extra"] = 1; }, "the manifest has the key 'extra', which mlipc does not write"},
      {[](auto& j) { j.erase("fewer_pes_note"); }, "the manifest has no \"fewer_pes_note\""},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    SCOPED_TRACE(cases[k].message);
    nlohmann::json j = base;
    cases[k].edit(j);
    try {
      manifest_from_json(j.dump(2));
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("pipeline.json: " + cases[k].message));
    }
  }
}

// The damaged manifests kept in tests/data/robustness/pipeline (made from
// kws_dscnn's at 2 PEs by make_cases.py; also fuzz_pipeline's regressions).
TEST(MeshManifest, DamagedManifestsOfTheRobustnessDataAreRefused) {
  const std::filesystem::path dir = std::filesystem::path(MLIPC_TEST_DATA) / "robustness" / "pipeline";
  const Manifest ok = manifest_from_json(read_file(dir / "kws_pes2.json"));
  EXPECT_EQ(ok.stages.size(), 2u);
  size_t damaged = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".json" || e.path().filename() == "kws_pes2.json") continue;
    SCOPED_TRACE(e.path().filename().string());
    ++damaged;
    try {
      manifest_from_json(read_file(e.path()));
      ADD_FAILURE() << "accepted";
    } catch (const Error& err) {
      EXPECT_THAT(err.what(), ::testing::StartsWith("pipeline.json: "));
    }
  }
  EXPECT_GE(damaged, 8u);
}

// The manifest against the stage modules' metadata.json.
TEST(MeshManifest, StagesAreCheckedAgainstTheirModules) {
  const Manifest m = two_stages();
  auto module = [&](const std::string& name, const std::vector<int>& ins, const std::vector<int>& outs) {
    mlf::Metadata md;
    md.module_name = name;
    md.targets = {"c"};
    for (int t : ins) md.inputs.push_back({m.tensors[t].name, m.tensors[t].dtype, m.tensors[t].shape, m.tensors[t].bytes});
    for (int t : outs) md.outputs.push_back({m.tensors[t].name, m.tensors[t].dtype, m.tensors[t].shape, m.tensors[t].bytes});
    return mlf::metadata_to_json(md);
  };
  mlf::FileMap files = {{"default_stage0/metadata.json", module("default_stage0", {0}, {1})},
                        {"default_stage1/metadata.json", module("default_stage1", {1}, {2})}};
  EXPECT_NO_THROW(check_stage_modules(m, files));
  auto refused = [&](const mlf::FileMap& f) {
    try {
      check_stage_modules(m, f);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  mlf::FileMap other = files;
  other["default_stage1/metadata.json"] = module("default_stage1", {0}, {2});
  EXPECT_THAT(refused(other), HasSubstr("pipeline.json: stages[1].inputs[0] is 'mid' float32 [1,8], but module "
                                        "default_stage1's input 0 is 'x' float32 [1,4]"));
  other["default_stage1/metadata.json"] = module("default_stage0", {1}, {2});
  EXPECT_THAT(refused(other), HasSubstr("stages[1].module 'default_stage1', but default_stage1/metadata.json is module "
                                        "'default_stage0'"));
  other.erase("default_stage1/metadata.json");
  EXPECT_THAT(refused(other), HasSubstr("stages[1].path 'default_stage1/': the tarball has no default_stage1/metadata.json"));
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
