// mlipc inspect --json (issue 28): the output of every model in tests/data
// (and the digits example), compiled for c and "mrvl, c", of an int8 PTQ
// build and of a 2-PE mesh build validates against docs/inspect.schema.json,
// and reads the same data as the text (the text's MLIP regions, stages and
// arena are the JSON's). The validator below knows the subset of JSON
// Schema the schema uses and refuses any other keyword, so the schema
// cannot use one it would ignore.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "io/npz.h"
#include "ir/tensor_data.h"
#include "support/file_util.h"
#include "support/process.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace mlipc::test::e2e_inspect_json {
namespace {

const fs::path kSchema = fs::path(MLIPC_EXAMPLES).parent_path() / "docs" / "inspect.schema.json";

// The subset of JSON Schema 2020-12 docs/inspect.schema.json uses: $ref
// into #/$defs, anyOf, const, enum, type (a name or a list), minimum,
// minItems, maxItems, required, properties, additionalProperties: false,
// items. Returns the first violation ("<path>: why"), empty when `v` is valid.
class Validator {
 public:
  explicit Validator(json root) : root_(std::move(root)) {}

  std::string check(const json& v) const { return check(root_, v, "$"); }

 private:
  static bool has_type(const json& v, const std::string& t) {
    if (t == "object") return v.is_object();
    if (t == "array") return v.is_array();
    if (t == "string") return v.is_string();
    if (t == "integer") return v.is_number_integer();
    if (t == "number") return v.is_number();
    if (t == "boolean") return v.is_boolean();
    if (t == "null") return v.is_null();
    throw std::runtime_error("unknown type '" + t + "' in the schema");
  }

  std::string check(const json& s, const json& v, const std::string& at) const {
    static const std::set<std::string> known = {"$schema", "$id", "title", "description", "$defs", "$ref",
                                                "anyOf", "const", "enum", "type", "minimum", "minItems",
                                                "maxItems", "required", "properties", "additionalProperties", "items"};
    for (const auto& [k, _] : s.items())
      if (!known.count(k)) throw std::runtime_error("the test's validator does not know the keyword '" + k + "'");
    if (s.contains("$ref")) {
      const std::string ref = s["$ref"];
      const std::string prefix = "#/$defs/";
      if (ref.rfind(prefix, 0) != 0 || !root_["$defs"].contains(ref.substr(prefix.size())))
        throw std::runtime_error("unresolved $ref " + ref);
      if (auto e = check(root_["$defs"][ref.substr(prefix.size())], v, at); !e.empty()) return e;
    }
    if (s.contains("anyOf")) {
      std::vector<std::string> why;  // each branch's first violation
      for (const json& b : s["anyOf"]) {
        why.push_back(check(b, v, at));
        if (why.back().empty()) break;
      }
      if (!why.back().empty()) return fmt::format("{}: matches none of anyOf [{}]", at, fmt::join(why, " | "));
    }
    if (s.contains("const") && v != s["const"]) return fmt::format("{}: {} is not {}", at, v.dump(), s["const"].dump());
    if (s.contains("enum") && std::find(s["enum"].begin(), s["enum"].end(), v) == s["enum"].end())
      return fmt::format("{}: {} is not one of {}", at, v.dump(), s["enum"].dump());
    if (s.contains("type")) {
      const json types = s["type"].is_array() ? s["type"] : json::array({s["type"]});
      if (std::none_of(types.begin(), types.end(), [&](const json& t) { return has_type(v, t.get<std::string>()); }))
        return fmt::format("{}: {} is not of type {}", at, v.dump().substr(0, 80), s["type"].dump());
    }
    if (s.contains("minimum") && v.is_number() && v.get<double>() < s["minimum"].get<double>())
      return fmt::format("{}: {} is below {}", at, v.dump(), s["minimum"].dump());
    if (v.is_array()) {
      if (s.contains("minItems") && v.size() < s["minItems"].get<size_t>()) return at + ": too few items";
      if (s.contains("maxItems") && v.size() > s["maxItems"].get<size_t>()) return at + ": too many items";
      if (s.contains("items"))
        for (size_t i = 0; i < v.size(); ++i)
          if (auto e = check(s["items"], v[i], fmt::format("{}[{}]", at, i)); !e.empty()) return e;
    }
    if (v.is_object()) {
      for (const json& k : s.value("required", json::array()))
        if (!v.contains(k.get<std::string>())) return fmt::format("{}: no key '{}'", at, k.get<std::string>());
      const json props = s.value("properties", json::object());
      for (const auto& [k, x] : v.items()) {
        if (props.contains(k)) {
          if (auto e = check(props[k], x, at + "." + k); !e.empty()) return e;
        } else if (s.contains("additionalProperties") && s["additionalProperties"] == false) {
          return fmt::format("{}: key '{}' is not in the schema", at, k);
        }
      }
    }
    return "";
  }

  json root_;
};

const Validator& validator() {
  static const Validator v(json::parse(read_file(kSchema)));
  return v;
}

ProcessResult mlipc(std::vector<std::string> args, const fs::path& cwd) {
  args.insert(args.begin(), MLIPC_BINARY);
  return run_process(args, cwd, 600);
}

std::string with_commas(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

size_t count_lines(const std::string& text, const std::string& start) {
  size_t n = 0, pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    if (text.compare(pos, start.size(), start) == 0) ++n;
    pos = end + 1;
  }
  return n;
}

// Compiles `args` into dir/name.tar, runs inspect and inspect --json, checks
// the JSON against the schema and against the text; returns the JSON.
json compile_and_inspect(const fs::path& dir, const std::string& name, std::vector<std::string> args) {
  const fs::path tar = dir / (name + ".tar");
  args.insert(args.begin(), "compile");
  args.insert(args.end(), {"-o", tar.string()});
  const ProcessResult c = mlipc(args, dir);
  EXPECT_EQ(c.exit_code, 0) << name << ": " << c.err;
  const ProcessResult text = mlipc({"inspect", tar.string()}, dir);
  const ProcessResult js = mlipc({"inspect", "--json", tar.string()}, dir);
  EXPECT_EQ(text.exit_code, 0) << name << ": " << text.err;
  EXPECT_EQ(js.exit_code, 0) << name << ": " << js.err;
  if (c.exit_code || text.exit_code || js.exit_code) return nullptr;
  const json j = json::parse(js.out);
  EXPECT_EQ(validator().check(j), "") << name;
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["tarball"], tar.string());
  EXPECT_EQ(j["model_name"].get<std::string>().empty(), false) << name;
  if (j["kind"] == "model") {
    size_t regions = 0;
    for (const json& s : j["schedule"]) regions += s["where"] == "mlip";
    EXPECT_EQ(count_lines(text.out, "  MLIP region "), regions) << name;
    EXPECT_EQ(count_lines(text.out, "  CPU  "), j["schedule"].size() - regions) << name;
    EXPECT_NE(text.out.find(fmt::format("arena {} bytes, lower bound {} bytes",
                                        with_commas(j["memory"]["arena_bytes"].get<uint64_t>()),
                                        with_commas(j["memory"]["lower_bound_bytes"].get<uint64_t>()))),
              std::string::npos)
        << name;
    EXPECT_EQ(count_lines(text.out, "  ["), j["memory"]["buffers"].size()) << name;
  } else {
    EXPECT_EQ(count_lines(text.out, "stage "), j["stages"].size()) << name;
  }
  if (!j["mlip"].is_null()) {
    const uint64_t mlip = j["macs"]["mlip"], total = j["macs"]["total"];
    EXPECT_NE(text.out.find(fmt::format("MACs on the MLIP: {} of {} ", with_commas(mlip), with_commas(total))),
              std::string::npos)
        << name;
  }
  return j;
}

// Every folder of tests/data/models, and the digits example.
std::vector<std::string> model_names() {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(fs::path(MLIPC_TEST_DATA) / "models"))
    if (fs::exists(e.path() / "model.onnx")) v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  v.push_back("digits");
  return v;
}

fs::path model_onnx(const std::string& name) {
  return name == "digits" ? fs::path(MLIPC_EXAMPLES) / "digits" / "model.onnx"
                          : fs::path(MLIPC_TEST_DATA) / "models" / name / "model.onnx";
}

TEST(InspectJson, ValidatorRejectsWhatTheSchemaForbids) {
  const json good = {{"schema_version", 1}, {"kind", "mesh"}};  // not a full document
  EXPECT_NE(validator().check(good), "");  // required keys missing
  TempDir dir("mlipc-inspect-json");
  json j = compile_and_inspect(dir.path(), "digits_c", {model_onnx("digits").string(), "--target", "c"});
  ASSERT_FALSE(j.is_null());
  ASSERT_EQ(validator().check(j), "");
  json bad = j;
  bad.erase("schema_version");
  EXPECT_NE(validator().check(bad).find("no key 'schema_version'"), std::string::npos);
  bad = j;
  bad["schema_version"] = 2;
  EXPECT_NE(validator().check(bad), "");
  bad = j;
  bad["memory"]["arena"] = 1;
  EXPECT_NE(validator().check(bad).find("key 'arena' is not in the schema"), std::string::npos);
  bad = j;
  bad["memory"]["buffers"][0]["size"] = -1;
  EXPECT_NE(validator().check(bad), "");
  bad = j;
  bad["schedule"][0]["where"] = "gpu";
  EXPECT_NE(validator().check(bad).find("anyOf"), std::string::npos);
}

// A file that is not a tarball: --json fails as the text does, one line on
// stderr and nothing on stdout.
TEST(InspectJson, BadTarballGivesTheTextsError) {
  TempDir dir("mlipc-inspect-json");
  write_file(dir.path() / "bad.tar", std::string(1024, 'x'));
  const ProcessResult text = mlipc({"inspect", "bad.tar"}, dir.path());
  const ProcessResult js = mlipc({"inspect", "--json", "bad.tar"}, dir.path());
  EXPECT_NE(text.exit_code, 0);
  EXPECT_EQ(js.exit_code, text.exit_code);
  EXPECT_EQ(js.err, text.err);
  EXPECT_EQ(js.out, "");
}

class InspectJsonModels : public ::testing::TestWithParam<std::string> {};

TEST_P(InspectJsonModels, ValidatesForCAndMrvl) {
  TempDir dir("mlipc-inspect-json");
  const std::string onnx = model_onnx(GetParam()).string();
  const json c = compile_and_inspect(dir.path(), "c", {onnx, "--target", "c"});
  ASSERT_FALSE(c.is_null());
  EXPECT_TRUE(c["mlip"].is_null());
  const json m = compile_and_inspect(dir.path(), "mrvl", {onnx, "--target", "mrvl, c"});
  ASSERT_FALSE(m.is_null());
  EXPECT_FALSE(m["mlip"].is_null());
}

INSTANTIATE_TEST_SUITE_P(All, InspectJsonModels, ::testing::ValuesIn(model_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

// The first 16 digits calibration samples, as dir/calib16.npz: the report
// is the subject here, not its accuracy (200 samples take 20 s, 16 under 2).
void write_calib16(const fs::path& dir) {
  io::NamedTensors calib;
  for (const auto& [name, t] : io::read_npz(fs::path(MLIPC_TEST_DATA) / "ptq" / "digits_calib200.npz")) {
    Shape shape = t.shape();
    ASSERT_GE(shape.at(0), 16);
    const size_t bytes = t.nbytes() / static_cast<size_t>(shape[0]) * 16;
    shape[0] = 16;
    const auto* raw = reinterpret_cast<const uint8_t*>(t.raw());
    calib.emplace_back(name, TensorData(t.dtype(), shape, std::vector<uint8_t>(raw, raw + bytes)));
  }
  io::write_npz(dir / "calib16.npz", calib);
}

// --quantize int16x8: every layer's precision is "16x8" (the schema's enum).
TEST(InspectJson, Ptq16x8Build) {
  TempDir dir("mlipc-inspect-json");
  write_calib16(dir.path());
  const json j = compile_and_inspect(dir.path(), "ptq16", {model_onnx("digits").string(), "--target", "c", "--quantize",
                                                          "int16x8", "--calibration",
                                                          (dir.path() / "calib16.npz").string()});
  ASSERT_FALSE(j.is_null());
  ASSERT_FALSE(j["quantization"]["layers"].empty());
  for (const json& l : j["quantization"]["layers"]) EXPECT_EQ(l["precision"], "16x8") << l["node"];
}

TEST(InspectJson, PtqInt8Build) {
  TempDir dir("mlipc-inspect-json");
  write_calib16(dir.path());
  const json j = compile_and_inspect(
      dir.path(), "ptq",
      {model_onnx("digits").string(), "--target", "mrvl, c", "--target-mrvl-mattr=sim -quantize=int8",
       "--calibration", (dir.path() / "calib16.npz").string(), "--io-dtype", "int8"});
  ASSERT_FALSE(j.is_null());
  ASSERT_FALSE(j["quantization"].is_null());
  EXPECT_FALSE(j["quantization"]["layers"].empty());
  EXPECT_EQ(j["mlip"]["options"]["quantize"], "int8");
  EXPECT_EQ(j["quantization"]["samples"], 16);
  // --io-dtype int8: the entry's tensors carry their quantization.
  ASSERT_TRUE(j["inputs"][0]["quantized"].is_object());
  EXPECT_TRUE(j["inputs"][0]["quantized"]["scale"].is_number());
  EXPECT_TRUE(j["outputs"][0]["quantized"].is_object());
}

TEST(InspectJson, MeshBuild) {
  TempDir dir("mlipc-inspect-json");
  const json j = compile_and_inspect(dir.path(), "mesh",
                                     {model_onnx("digits").string(), "--target", "mrvl, c", "--pes", "2"});
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["kind"], "mesh");
  EXPECT_EQ(j["pes_requested"], 2);
  EXPECT_EQ(j["stages"].size(), 2u);
  EXPECT_FALSE(j["mlip"].is_null());
}

}  // namespace
}  // namespace mlipc::test::e2e_inspect_json
