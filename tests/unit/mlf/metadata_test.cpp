#include "mlf/metadata.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>

#include "support/error.h"

namespace mlipc::mlf::unit_mlf_metadata {
namespace {

using nlohmann::json;

std::string error_of(std::string_view text) {
  try {
    metadata_from_json(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

Metadata sample() {
  Metadata m;
  m.model_name = "seed_digits_cnn";
  m.targets = {"mrvl", "c"};
  m.export_datetime = "2025-01-02 03:04:05Z";
  m.workspace_size_bytes = 250880;
  m.constants_size_bytes = 1234;
  // Call order differs from sorted order on purpose.
  m.inputs = {{"zz_input", DType::Float32, {1, 1, 28, 28}, 3136}, {"aa_mask", DType::UInt8, {4}, 4}};
  m.outputs = {{"output1", DType::Int8, {2, 5}, 10}, {"output0", DType::Float32, {1, 10}, 40}};
  m.workspace_alignment = 64;
  m.extra["mlipc"] = {{"compiler", "mlipc"}, {"options", {"-O2"}}};
  m.extra["mlip"] = {{"regions", json::array({{{"name", "mrvl_0"}, {"tiles", 8}}})}};
  return m;
}

void expect_same(const Metadata& a, const Metadata& b) {
  EXPECT_EQ(a.module_name, b.module_name);
  EXPECT_EQ(a.model_name, b.model_name);
  EXPECT_EQ(a.targets, b.targets);
  EXPECT_EQ(a.export_datetime, b.export_datetime);
  EXPECT_EQ(a.workspace_size_bytes, b.workspace_size_bytes);
  EXPECT_EQ(a.constants_size_bytes, b.constants_size_bytes);
  EXPECT_EQ(a.inputs, b.inputs);
  EXPECT_EQ(a.outputs, b.outputs);
  EXPECT_EQ(a.workspace_alignment, b.workspace_alignment);
  EXPECT_EQ(a.version_spec, b.version_spec);
  EXPECT_EQ(a.extra, b.extra);
}

TEST(Metadata, RoundTripKeepsOrderAndExtra) {
  Metadata m = sample();
  std::string text = metadata_to_json(m);
  Metadata back = metadata_from_json(text);
  expect_same(m, back);
  EXPECT_EQ(metadata_to_json(back), text);
  // A full target string that is not a default form survives unchanged.
  m.targets = {"c -keys=cpu -mcpu=cortex-m55"};
  EXPECT_EQ(metadata_from_json(metadata_to_json(m)).targets, m.targets);
}

TEST(Metadata, TvmV7KeyLayout) {
  std::string text = metadata_to_json(sample());
  json j = json::parse(text);
  EXPECT_EQ(j["version"], 7);
  ASSERT_EQ(j["modules"].size(), 1u);
  const json& mod = j["modules"]["default"];
  EXPECT_EQ(mod["model_name"], "seed_digits_cnn");
  EXPECT_EQ(mod["export_datetime"], "2025-01-02 03:04:05Z");
  EXPECT_EQ(mod["target"], json({"mrvl ", "c -keys=cpu "}));  // str(tvm.target.Target(kind))
  EXPECT_EQ(mod["executors"], json({"aot"}));
  EXPECT_EQ(mod["style"], "full-model");
  ASSERT_EQ(mod["external_dependencies"].size(), 1u);
  const json& dep = mod["external_dependencies"][0];
  EXPECT_EQ(dep["short_name"], "tvm_standalone_crt");
  EXPECT_EQ(dep["url"], "./runtime");
  EXPECT_EQ(dep["url_type"], "mlf_path");
  EXPECT_EQ(dep["version_spec"], std::string(kMlipcVersion));
  EXPECT_EQ(mod["memory"]["functions"]["operator_functions"], json::array());
  const json& fn = mod["memory"]["functions"]["main"][0];
  EXPECT_EQ(fn["device"], 1);
  EXPECT_EQ(fn["workspace_size_bytes"], 250880);
  EXPECT_EQ(fn["constants_size_bytes"], 1234);
  EXPECT_EQ(fn["io_size_bytes"], 3136 + 4 + 10 + 40);
  EXPECT_EQ(fn["inputs"]["zz_input"], json({{"size", 3136}, {"dtype", "float32"}, {"shape", {1, 1, 28, 28}}}));
  EXPECT_EQ(fn["outputs"]["output1"]["dtype"], "int8");
  EXPECT_EQ(fn["input_order"], json({"zz_input", "aa_mask"}));
  EXPECT_EQ(fn["output_order"], json({"output1", "output0"}));
  EXPECT_EQ(mod["mlipc"]["compiler"], "mlipc");
  EXPECT_EQ(mod["mlip"]["regions"][0]["tiles"], 8);
  // json.dump(indent=2, sort_keys=True) text shape.
  EXPECT_EQ(text.rfind("{\n  \"modules\": {\n    \"default\": {\n", 0), 0u) << text;
  EXPECT_NE(text.find("\n  \"version\": 7\n}"), std::string::npos);
  EXPECT_LT(text.find("\"executors\""), text.find("\"export_datetime\""));
  EXPECT_EQ(text.back(), '\n');
}

TEST(Metadata, FillsExportDatetime) {
  const char* old = std::getenv("SOURCE_DATE_EPOCH");
  std::string saved = old ? old : "";
  setenv("SOURCE_DATE_EPOCH", "0", 1);
  Metadata m = sample();
  m.export_datetime.clear();
  EXPECT_EQ(metadata_from_json(metadata_to_json(m)).export_datetime, "1970-01-01 00:00:00Z");
  unsetenv("SOURCE_DATE_EPOCH");
  std::string now = metadata_from_json(metadata_to_json(m)).export_datetime;
  EXPECT_EQ(now.size(), 20u);
  EXPECT_EQ(now.back(), 'Z');
  if (old) setenv("SOURCE_DATE_EPOCH", saved.c_str(), 1);
}

TEST(Metadata, WriterRejectsBadInput) {
  auto err = [](const Metadata& m) {
    try {
      metadata_to_json(m);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("<no error>");
  };
  Metadata m = sample();
  m.inputs.push_back(m.inputs[0]);
  EXPECT_NE(err(m).find("two inputs are named 'zz_input'"), std::string::npos) << err(m);
  m = sample();
  m.outputs[0].size_bytes = 11;
  EXPECT_NE(err(m).find("output 'output1' is 11 bytes"), std::string::npos) << err(m);
  m = sample();
  m.inputs[0].dtype = DType::Undefined;
  EXPECT_NE(err(m).find("no dtype"), std::string::npos) << err(m);
  m = sample();
  m.extra["memory"] = 1;
  EXPECT_NE(err(m).find("extra key 'memory' collides"), std::string::npos) << err(m);
  m = sample();
  m.extra = json::array();
  EXPECT_NE(err(m).find("must be a JSON object"), std::string::npos) << err(m);
}

TEST(Metadata, ReadsTvmWrittenJson) {
  // What TVM v0.18 writes for an AOT/CRT model: no shapes, no order lists.
  const char* tvm = R"({
  "modules": {
    "default": {
      "executors": ["aot"],
      "export_datetime": "2024-11-30 10:00:00Z",
      "external_dependencies": [{"short_name": "tvm_standalone_crt", "url": "./runtime",
                                 "url_type": "mlf_path", "version_spec": "0.18.0"}],
      "memory": {"functions": {"main": [{"constants_size_bytes": 10, "device": 1,
          "inputs": {"Input3": {"dtype": "float32", "size": 3136}},
          "io_size_bytes": 3176,
          "outputs": {"output": {"dtype": "float32", "size": 40}},
          "workspace_size_bytes": 250880}],
        "operator_functions": [{"function_name": "f", "workspace": [{"device": 1, "workspace_size_bytes": 0}]}]}},
      "model_name": "default",
      "style": "full-model",
      "target": ["c -keys=cpu "]
    }
  },
  "version": 7
})";
  Metadata m = metadata_from_json(tvm);
  EXPECT_EQ(m.targets, std::vector<std::string>{"c"});
  EXPECT_EQ(m.version_spec, "0.18.0");
  ASSERT_EQ(m.inputs.size(), 1u);
  EXPECT_EQ(m.inputs[0], (TensorInfo{"Input3", DType::Float32, {784}, 3136}));
  EXPECT_EQ(m.outputs[0].name, "output");
  EXPECT_EQ(m.workspace_alignment, 16u);
  EXPECT_EQ(m.extra, json::object());
}

// Each validation error, produced by editing a valid document.
TEST(Metadata, ValidationErrors) {
  const json good = json::parse(metadata_to_json(sample()));
  auto edited = [&](auto&& edit) {
    json j = good;
    edit(j);
    return error_of(j.dump());
  };
  auto main_fn = [](json& j) -> json& { return j["modules"]["default"]["memory"]["functions"]["main"][0]; };
  struct Case {
    std::string expect;
    std::function<void(json&)> edit;
  };
  std::vector<Case> cases = {
      {"version 5 is not supported", [](json& j) { j["version"] = 5; }},
      {"'version' must be an integer", [](json& j) { j["version"] = "7"; }},
      {"missing key 'version'", [](json& j) { j.erase("version"); }},
      {"missing key 'modules'", [](json& j) { j.erase("modules"); }},
      {"'modules' has 2 entries", [](json& j) { j["modules"]["other"] = j["modules"]["default"]; }},
      {"'modules' has 0 entries", [](json& j) { j["modules"] = json::object(); }},
      {"'modules.default' must be an object", [](json& j) { j["modules"]["default"] = 3; }},
      {"missing key 'modules.default.model_name'", [](json& j) { j["modules"]["default"].erase("model_name"); }},
      {"'modules.default.model_name' must be a string", [](json& j) { j["modules"]["default"]["model_name"] = 1; }},
      {"'modules.default.target' must be an array", [](json& j) { j["modules"]["default"]["target"] = "c"; }},
      {"'modules.default.target' must be an array of strings",
       [](json& j) { j["modules"]["default"]["target"] = {1}; }},
      {"executors' must be [\"aot\"]", [](json& j) { j["modules"]["default"]["executors"] = {"graph"}; }},
      {"style' is 'operator'", [](json& j) { j["modules"]["default"]["style"] = "operator"; }},
      {"missing key 'modules.default.memory'", [](json& j) { j["modules"]["default"].erase("memory"); }},
      {"'modules.default.memory.functions.main' is empty",
       [](json& j) { j["modules"]["default"]["memory"]["functions"]["main"] = json::array(); }},
      {"workspace_size_bytes' must be a non-negative integer",
       [&](json& j) { main_fn(j)["workspace_size_bytes"] = -1; }},
      {"constants_size_bytes' must be a non-negative integer",
       [&](json& j) { main_fn(j)["constants_size_bytes"] = 1.5; }},
      {"missing key 'modules.default.memory.functions.main[0].io_size_bytes'",
       [&](json& j) { main_fn(j).erase("io_size_bytes"); }},
      {"inputs' must be an object", [&](json& j) { main_fn(j)["inputs"] = json::array(); }},
      {"inputs.zz_input.dtype' is 'complex64', not a known dtype",
       [&](json& j) { main_fn(j)["inputs"]["zz_input"]["dtype"] = "complex64"; }},
      {"missing key 'modules.default.memory.functions.main[0].outputs.output0.size'",
       [&](json& j) { main_fn(j)["outputs"]["output0"].erase("size"); }},
      {"outputs.output0.size' is 44 but float32 [1,10] needs 40 bytes",
       [&](json& j) { main_fn(j)["outputs"]["output0"]["size"] = 44; }},
      {"shape' must be an array of non-negative integers",
       [&](json& j) { main_fn(j)["inputs"]["aa_mask"]["shape"] = {-4}; }},
      {"'modules.default.memory.functions.main[0].input_order' does not list the same names",
       [&](json& j) { main_fn(j)["input_order"] = {"zz_input"}; }},
      {"output_order' does not list the same names",
       [&](json& j) { main_fn(j)["output_order"] = {"output0", "output0"}; }},
      {"workspace_alignment' 12 is not a power of two", [&](json& j) { main_fn(j)["workspace_alignment"] = 12; }},
  };
  for (const Case& c : cases) {
    std::string msg = edited(c.edit);
    EXPECT_EQ(msg.rfind("metadata.json: ", 0), 0u) << msg;
    EXPECT_NE(msg.find(c.expect), std::string::npos) << "want '" << c.expect << "', got: " << msg;
  }
  EXPECT_NE(error_of("{not json").find("metadata.json: not valid JSON"), std::string::npos);
  EXPECT_NE(error_of("[1, 2]").find("metadata.json: the top level must be an object"), std::string::npos);
  EXPECT_EQ(error_of("{not json").find('\n'), std::string::npos);
}

}  // namespace
}  // namespace mlipc::mlf::unit_mlf_metadata
