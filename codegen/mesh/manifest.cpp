#include "mesh/manifest.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "c/kernel.h"
#include "mlf/metadata.h"
#include "support/error.h"
#include "support/text.h"

namespace mlipc::mesh {

namespace {

using nlohmann::json;

json memory_json(const StageMemory& m) {
  return {{"workspace_bytes", m.workspace}, {"constants_bytes", m.constants}, {"io_bytes", m.io},
          {"runtime_bytes", m.runtime}, {"total_bytes", m.total()}};
}

// Field `key` of `j` as a T, or an Error naming pipeline.json's path.
template <class T>
T get(const json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) fail("pipeline.json: {} has no \"{}\"", where, key);
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    fail("pipeline.json: {}.{} has the wrong type ({})", where, key, j.at(key).type_name());
  }
}

std::vector<int> tensor_refs(const json& names, const std::map<std::string, int>& index, const std::string& where) {
  if (!names.is_array()) fail("pipeline.json: {} is not a list", where);
  std::vector<int> v;
  for (const json& n : names) {
    if (!n.is_string()) fail("pipeline.json: {} holds a {}, not a tensor name", where, n.type_name());
    auto it = index.find(n.get<std::string>());
    if (it == index.end()) fail("pipeline.json: {} names '{}', which is not in \"tensors\"", where, printable(n.get<std::string>()));
    v.push_back(it->second);
  }
  return v;
}

}  // namespace

uint64_t Manifest::slowest_stage_cycles() const {
  uint64_t w = 0;
  for (const PipeStage& s : stages) w = std::max(w, s.est_cycles);
  return w;
}

uint64_t Manifest::latency_cycles() const {
  uint64_t t = 0;
  for (const PipeStage& s : stages) t += s.est_cycles;
  return t;
}

double Manifest::throughput() const {
  const uint64_t w = slowest_stage_cycles();
  return w ? clock_mhz * 1e6 / static_cast<double>(w) : 0.0;
}

double Manifest::single_pe_throughput() const {
  return single_pe_cycles ? clock_mhz * 1e6 / static_cast<double>(single_pe_cycles) : 0.0;
}

std::string stage_dir(const PipeStage& s) { return s.module + "/"; }

std::string manifest_to_json(const Manifest& m) {
  json stages = json::array();
  for (size_t i = 0; i < m.stages.size(); ++i) {
    const PipeStage& s = m.stages[i];
    std::vector<std::string> ins, outs;
    for (int t : s.inputs) ins.push_back(m.tensors[static_cast<size_t>(t)].name);
    for (int t : s.outputs) outs.push_back(m.tensors[static_cast<size_t>(t)].name);
    stages.push_back({{"index", i}, {"pe", s.pe}, {"module", s.module}, {"path", stage_dir(s)}, {"layers", s.layers},
                      {"inputs", ins}, {"outputs", outs}, {"est_cycles", s.est_cycles},
                      {"memory", memory_json(s.memory)}});
  }
  json tensors = json::array();
  for (const PipeTensor& t : m.tensors)
    tensors.push_back({{"name", t.name}, {"dtype", std::string(dtype_name(t.dtype))}, {"shape", t.shape},
                       {"bytes", t.bytes}, {"producer", t.producer}, {"consumers", t.consumers}});
  std::vector<std::string> ins, outs;
  for (int t : m.inputs) ins.push_back(m.tensors[static_cast<size_t>(t)].name);
  for (int t : m.outputs) outs.push_back(m.tensors[static_cast<size_t>(t)].name);
  const double us = m.clock_mhz > 0 ? 1.0 / m.clock_mhz : 0.0;
  json j = {
      {"version", m.version},
      {"generator", m.generator},
      {"model_name", m.model_name},
      {"module_name", m.module_name},
      {"target", m.target},
      {"pes_requested", m.pes_requested},
      {"pe_memory_bytes", m.pe_memory_limit},
      {"clock_mhz", m.clock_mhz},
      {"fewer_pes_note", m.fewer_note},
      {"stages", stages},
      {"tensors", tensors},
      {"inputs", ins},
      {"outputs", outs},
      {"estimates",
       {{"single_pe_cycles", m.single_pe_cycles},
        {"single_pe_memory_bytes", m.single_pe_memory},
        {"slowest_stage_cycles", m.slowest_stage_cycles()},
        {"latency_cycles", m.latency_cycles()},
        {"latency_us", static_cast<double>(m.latency_cycles()) * us},
        {"throughput_samples_per_s", m.throughput()},
        {"single_pe_throughput_samples_per_s", m.single_pe_throughput()}}},
  };
  return j.dump(2) + "\n";
}

Manifest manifest_from_json(const std::string& text) {
  mlf::check_json_nesting(text, 64, "pipeline.json");
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception&) {
    fail("pipeline.json: not valid JSON");
  }
  if (!j.is_object()) fail("pipeline.json: not a JSON object");
  Manifest m;
  m.version = get<int>(j, "version", "the manifest");
  if (m.version != kManifestVersion)
    fail("pipeline.json: version {} (this mlipc reads version {})", m.version, kManifestVersion);
  m.generator = get<std::string>(j, "generator", "the manifest");
  m.model_name = get<std::string>(j, "model_name", "the manifest");
  m.module_name = get<std::string>(j, "module_name", "the manifest");
  m.target = get<std::string>(j, "target", "the manifest");
  m.pes_requested = get<int>(j, "pes_requested", "the manifest");
  m.pe_memory_limit = get<uint64_t>(j, "pe_memory_bytes", "the manifest");
  m.clock_mhz = get<double>(j, "clock_mhz", "the manifest");
  m.fewer_note = get<std::string>(j, "fewer_pes_note", "the manifest");
  const json tensors = get<json>(j, "tensors", "the manifest");
  const json stages = get<json>(j, "stages", "the manifest");
  if (!tensors.is_array() || tensors.empty()) fail("pipeline.json: \"tensors\" is not a non-empty list");
  if (!stages.is_array() || stages.empty()) fail("pipeline.json: \"stages\" is not a non-empty list");
  const int num_stages = static_cast<int>(stages.size());
  std::map<std::string, int> index;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const std::string where = fmt::format("tensors[{}]", i);
    PipeTensor t;
    t.name = get<std::string>(tensors[i], "name", where);
    const std::string dt = get<std::string>(tensors[i], "dtype", where);
    t.dtype = dtype_from_name(dt);
    if (t.dtype == DType::Undefined) fail("pipeline.json: {}.dtype '{}' is not a known dtype", where, printable(dt));
    t.shape = get<Shape>(tensors[i], "shape", where);
    t.bytes = get<uint64_t>(tensors[i], "bytes", where);
    t.producer = get<int>(tensors[i], "producer", where);
    t.consumers = get<std::vector<int>>(tensors[i], "consumers", where);
    for (int s : t.consumers)
      if (s < kHost || s >= num_stages) fail("pipeline.json: {}.consumers holds {}, not a stage or -1", where, s);
    if (t.producer < kHost || t.producer >= num_stages)
      fail("pipeline.json: {}.producer is {}, not a stage or -1", where, t.producer);
    if (!index.emplace(t.name, static_cast<int>(i)).second)
      fail("pipeline.json: {} repeats the name '{}'", where, printable(t.name));
    m.tensors.push_back(std::move(t));
  }
  for (size_t i = 0; i < stages.size(); ++i) {
    const std::string where = fmt::format("stages[{}]", i);
    PipeStage s;
    s.pe = get<int>(stages[i], "pe", where);
    s.module = get<std::string>(stages[i], "module", where);
    if (!is_c_identifier(s.module)) fail("pipeline.json: {}.module '{}' is not a C identifier", where, printable(s.module));
    s.layers = get<std::vector<std::string>>(stages[i], "layers", where);
    s.inputs = tensor_refs(get<json>(stages[i], "inputs", where), index, where + ".inputs");
    s.outputs = tensor_refs(get<json>(stages[i], "outputs", where), index, where + ".outputs");
    s.est_cycles = get<uint64_t>(stages[i], "est_cycles", where);
    const json mem = get<json>(stages[i], "memory", where);
    s.memory.workspace = get<uint64_t>(mem, "workspace_bytes", where + ".memory");
    s.memory.constants = get<uint64_t>(mem, "constants_bytes", where + ".memory");
    s.memory.io = get<uint64_t>(mem, "io_bytes", where + ".memory");
    s.memory.runtime = get<uint64_t>(mem, "runtime_bytes", where + ".memory");
    m.stages.push_back(std::move(s));
  }
  m.inputs = tensor_refs(get<json>(j, "inputs", "the manifest"), index, "inputs");
  m.outputs = tensor_refs(get<json>(j, "outputs", "the manifest"), index, "outputs");
  const json est = get<json>(j, "estimates", "the manifest");
  m.single_pe_cycles = get<uint64_t>(est, "single_pe_cycles", "estimates");
  m.single_pe_memory = get<uint64_t>(est, "single_pe_memory_bytes", "estimates");
  return m;
}

std::string manifest_to_c(const Manifest& m) {
  std::string c =
      "/* pipeline.json in C (codegen/mesh/manifest.cpp): the manifest the runtime\n"
      " * checks against the stage modules (mlip/pipeline.h). Generated by mlipc. */\n"
      "#include \"mlip/pipeline.h\"\n\n";
  auto list = [](const std::vector<int>& v) {
    std::string s;
    for (int x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
    return s;
  };
  // C forbids empty arrays: an empty list is NULL.
  auto array = [&](const std::string& name, const char* type, const std::string& items, std::string& out) {
    if (items.empty()) return std::string("NULL");
    out += fmt::format("static const {} {}[] = {{{}}};\n", type, name, items);
    return name;
  };
  std::string tensors;
  for (size_t i = 0; i < m.tensors.size(); ++i) {
    const PipeTensor& t = m.tensors[i];
    std::string dims;
    for (int64_t d : t.shape) dims += (dims.empty() ? "" : ", ") + c::c_int(d);
    const std::string shape = array(fmt::format("tensor{}_shape", i), "int64_t", dims, c);
    const std::string consumers = array(fmt::format("tensor{}_consumers", i), "int32_t", list(t.consumers), c);
    tensors += fmt::format("    {{\"{}\", {}, {}, {}, {}, {}u, {}, {}, {}}},\n", c::c_string(t.name),
                           static_cast<int>(dtype_dlpack_code(t.dtype)), static_cast<int>(dtype_bits(t.dtype)),
                           t.shape.size(), shape, t.bytes, t.producer, t.consumers.size(), consumers);
  }
  std::string stages;
  for (size_t i = 0; i < m.stages.size(); ++i) {
    const PipeStage& s = m.stages[i];
    const std::string ins = array(fmt::format("stage{}_inputs", i), "int32_t", list(s.inputs), c);
    const std::string outs = array(fmt::format("stage{}_outputs", i), "int32_t", list(s.outputs), c);
    stages += fmt::format("    {{\"{}\", {}, {}, {}, {}, {}}},\n", c::c_string(s.module), s.pe, s.inputs.size(), ins,
                          s.outputs.size(), outs);
  }
  const std::string ins = array("model_inputs", "int32_t", list(m.inputs), c);
  const std::string outs = array("model_outputs", "int32_t", list(m.outputs), c);
  c += fmt::format("\nstatic const mlip_pipe_tensor tensors[] = {{\n{}}};\n", tensors);
  c += fmt::format("static const mlip_pipe_stage stages[] = {{\n{}}};\n\n", stages);
  c += fmt::format("const mlip_pipeline mlipc_pipeline = {{{}, {}, stages, {}, tensors, {}, {}, {}, {}}};\n\n",
                   m.version, m.stages.size(), m.tensors.size(), m.inputs.size(), ins, m.outputs.size(), outs);
  std::string models;
  for (const PipeStage& s : m.stages) {
    if (!is_c_identifier(s.module)) fail("internal: stage module '{}' is not a C identifier", printable(s.module));
    c += fmt::format("extern const mlip_model tvmgen_{}_model;\n", s.module);
    models += fmt::format("    &tvmgen_{}_model,\n", s.module);
  }
  c += fmt::format("const mlip_model* const mlipc_pipeline_models[] = {{\n{}}};\n", models);
  return c;
}

}  // namespace mlipc::mesh
