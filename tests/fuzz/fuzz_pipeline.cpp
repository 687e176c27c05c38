// libFuzzer target: pipeline.json, the manifest of a mesh tarball, as
// `mlipc inspect` and `mlipc run` read it (codegen/mesh/manifest_read.cpp,
// then the check against the stage modules and the inspect report), and
// the runtime's own checks of a manifest in C form (runtime/pipeline:
// mlip_pipeline_check, mlip_pipeline_check_stage) on whatever the JSON says,
// indices and counts included. Any input may be refused (mlipc::Error, a
// status); nothing else is acceptable, and:
//   - a manifest the reader accepts is written back to the same text's
//     meaning (read(write(m)) writes the same) and passes the runtime's
//     checks in C form, each stage against a module that matches it;
//   - the runtime refuses a stage against a module of another name.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/inspect.h"
#include "cli/mesh_cmd.h"
#include "mesh/manifest.h"
#include "mlf/metadata.h"
#include "mlip/pipeline.h"
#include "support/error.h"

namespace {

using nlohmann::json;

[[noreturn]] void broken(const char* what) {
  std::fprintf(stderr, "fuzz_pipeline: %s\n", what);
  std::abort();
}

// The C form of a manifest, in memory (what mesh::manifest_to_c writes as
// text), with every array the size its count says.
struct CPipeline {
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::vector<int32_t>> lists;
  std::vector<std::string> names;
  std::vector<mlip_pipe_tensor> tensors;
  std::vector<mlip_pipe_stage> stages;
  std::vector<int32_t> inputs, outputs;
  mlip_pipeline p{};

  const int32_t* keep(std::vector<int32_t> v) {
    lists.push_back(std::move(v));
    return lists.back().empty() ? nullptr : lists.back().data();
  }
};

int32_t as_i32(const json& v, int32_t fallback) {
  if (!v.is_number_integer()) return fallback;
  const int64_t x = v.is_number_unsigned() ? static_cast<int64_t>(v.get<uint64_t>() & 0x7fffffff) : v.get<int64_t>();
  return x < INT32_MIN || x > INT32_MAX ? fallback : static_cast<int32_t>(x);
}

std::vector<int32_t> i32_list(const json& j, size_t max) {
  std::vector<int32_t> v;
  if (j.is_array())
    for (size_t k = 0; k < j.size() && k < max; ++k) v.push_back(as_i32(j[k], 0));
  return v;
}

// Leniently, whatever the JSON holds: indices as given (names resolved to
// their tensor's index, unknown ones to -2), so the runtime's checks see
// out-of-range and inconsistent values.
void fill_lenient(const json& j, CPipeline& c) {
  // Reserved: the structs point into these vectors.
  c.lists.reserve(4096);
  c.shapes.reserve(256);
  c.names.reserve(512);
  const json tensors = j.value("tensors", json::array());
  const json stages = j.value("stages", json::array());
  if (!tensors.is_array() || !stages.is_array() || tensors.size() > 256 || stages.size() > 256) return;
  auto index_of = [&](const json& name) -> int32_t {
    if (!name.is_string()) return as_i32(name, -2);
    for (size_t t = 0; t < tensors.size(); ++t)
      if (tensors[t].is_object() && tensors[t].value("name", json()) == name) return static_cast<int32_t>(t);
    return -2;
  };
  auto refs = [&](const json& list) {
    std::vector<int32_t> v;
    if (list.is_array())
      for (size_t k = 0; k < list.size() && k < 128; ++k) v.push_back(index_of(list[k]));
    return v;
  };
  for (const json& t : tensors) {
    mlip_pipe_tensor d{};
    const json o = t.is_object() ? t : json::object();
    c.names.push_back(o.value("name", json()).is_string() ? o.at("name").get<std::string>() : "");
    d.name = c.names.back().c_str();
    const json dt = o.value("dtype", json());
    const mlipc::DType type = dt.is_string() ? mlipc::dtype_from_name(dt.get<std::string>()) : mlipc::DType::Undefined;
    d.dtype_code = type == mlipc::DType::Undefined ? 0 : mlipc::dtype_dlpack_code(type);
    d.dtype_bits = type == mlipc::DType::Undefined ? 0 : mlipc::dtype_bits(type);
    std::vector<int64_t> shape;
    const json s = o.value("shape", json::array());
    if (s.is_array())
      for (size_t k = 0; k < s.size() && k < 16; ++k)
        shape.push_back(s[k].is_number_integer() ? s[k].get<int64_t>() : -1);
    c.shapes.push_back(shape);
    d.ndim = static_cast<int32_t>(shape.size());
    d.shape = c.shapes.back().empty() ? nullptr : c.shapes.back().data();
    d.size_bytes = o.value("bytes", json(0)).is_number_unsigned() ? o.at("bytes").get<uint64_t>() : 0;
    d.producer = as_i32(o.value("producer", json(-1)), -1);
    const std::vector<int32_t> consumers = i32_list(o.value("consumers", json::array()), 128);
    d.num_consumers = static_cast<int32_t>(consumers.size());
    d.consumers = c.keep(consumers);
    c.tensors.push_back(d);
  }
  for (const json& s : stages) {
    mlip_pipe_stage d{};
    const json o = s.is_object() ? s : json::object();
    c.names.push_back(o.value("module", json()).is_string() ? o.at("module").get<std::string>() : "");
    d.module_name = c.names.back().c_str();
    d.pe = as_i32(o.value("pe", json(0)), 0);
    const std::vector<int32_t> in = refs(o.value("inputs", json::array()));
    const std::vector<int32_t> out = refs(o.value("outputs", json::array()));
    d.num_inputs = static_cast<int32_t>(in.size());
    d.inputs = c.keep(in);
    d.num_outputs = static_cast<int32_t>(out.size());
    d.outputs = c.keep(out);
    c.stages.push_back(d);
  }
  c.inputs = refs(j.value("inputs", json::array()));
  c.outputs = refs(j.value("outputs", json::array()));
  c.p = {as_i32(j.value("version", json(1)), 1), static_cast<int32_t>(c.stages.size()),
         c.stages.empty() ? nullptr : c.stages.data(), static_cast<int32_t>(c.tensors.size()),
         c.tensors.empty() ? nullptr : c.tensors.data(), static_cast<int32_t>(c.inputs.size()),
         c.inputs.empty() ? nullptr : c.inputs.data(), static_cast<int32_t>(c.outputs.size()),
         c.outputs.empty() ? nullptr : c.outputs.data()};
}

// Exactly manifest_to_c's form of an accepted manifest.
void fill_exact(const mlipc::mesh::Manifest& m, CPipeline& c) {
  c.lists.reserve(2 * m.tensors.size() + 2 * m.stages.size() + 2);
  c.shapes.reserve(m.tensors.size());
  for (const mlipc::mesh::PipeTensor& t : m.tensors) {
    mlip_pipe_tensor d{};
    d.name = t.name.c_str();
    d.dtype_code = mlipc::dtype_dlpack_code(t.dtype);
    d.dtype_bits = mlipc::dtype_bits(t.dtype);
    c.shapes.push_back(t.shape);
    d.ndim = static_cast<int32_t>(t.shape.size());
    d.shape = c.shapes.back().empty() ? nullptr : c.shapes.back().data();
    d.size_bytes = t.bytes;
    d.producer = t.producer;
    d.num_consumers = static_cast<int32_t>(t.consumers.size());
    d.consumers = c.keep({t.consumers.begin(), t.consumers.end()});
    c.tensors.push_back(d);
  }
  for (const mlipc::mesh::PipeStage& s : m.stages) {
    mlip_pipe_stage d{};
    d.module_name = s.module.c_str();
    d.pe = s.pe;
    d.num_inputs = static_cast<int32_t>(s.inputs.size());
    d.inputs = c.keep({s.inputs.begin(), s.inputs.end()});
    d.num_outputs = static_cast<int32_t>(s.outputs.size());
    d.outputs = c.keep({s.outputs.begin(), s.outputs.end()});
    c.stages.push_back(d);
  }
  c.inputs.assign(m.inputs.begin(), m.inputs.end());
  c.outputs.assign(m.outputs.begin(), m.outputs.end());
  c.p = {m.version, static_cast<int32_t>(c.stages.size()), c.stages.data(), static_cast<int32_t>(c.tensors.size()),
         c.tensors.data(), static_cast<int32_t>(c.inputs.size()), c.inputs.empty() ? nullptr : c.inputs.data(),
         static_cast<int32_t>(c.outputs.size()), c.outputs.data()};
}

int32_t no_run(void* const*, void* const*) { return 0; }

// Every stage of an accepted manifest against a module that matches it
// (and, renamed, one that does not).
void check_stages(const CPipeline& c) {
  for (int32_t s = 0; s < c.p.num_stages; ++s) {
    const mlip_pipe_stage& st = c.p.stages[s];
    std::vector<mlip_tensor_desc> ins, outs;
    for (int32_t k = 0; k < st.num_inputs + st.num_outputs; ++k) {
      const mlip_pipe_tensor& t = c.p.tensors[k < st.num_inputs ? st.inputs[k] : st.outputs[k - st.num_inputs]];
      mlip_tensor_desc d{};
      d.name = t.name;
      d.dtype_code = t.dtype_code;
      d.dtype_bits = t.dtype_bits;
      d.dtype_lanes = 1;
      d.ndim = t.ndim;
      d.shape = t.shape;
      d.size_bytes = t.size_bytes;
      (k < st.num_inputs ? ins : outs).push_back(d);
    }
    mlip_model model{};
    model.module_name = st.module_name;
    model.num_inputs = st.num_inputs;
    model.num_outputs = st.num_outputs;
    model.inputs = ins.empty() ? nullptr : ins.data();
    model.outputs = outs.data();
    model.run = no_run;
    mlip_pipe_error err{};
    if (mlip_pipeline_check_stage(&c.p, s, &model, &err) != MLIP_OK)
      broken("an accepted manifest fails the runtime's check against a matching module");
    const std::string other = std::string(st.module_name) + "_other";
    model.module_name = other.c_str();
    if (mlip_pipeline_check_stage(&c.p, s, &model, &err) == MLIP_OK || err.field == nullptr)
      broken("the runtime accepts a stage against a module of another name, or names no field");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // What inspect reads: the manifest, then the stage modules (absent here).
  try {
    mlipc::cli::InspectData d;
    d.mesh = mlipc::cli::mesh_inspect_data({{"pipeline.json", text}}, "fuzz.tar");
    (void)mlipc::cli::render_mesh_inspect(*d.mesh);
    (void)mlipc::cli::render_inspect_json(d);
  } catch (const mlipc::Error&) {
  }
  bool accepted = false;
  mlipc::mesh::Manifest m;
  try {
    m = mlipc::mesh::manifest_from_json(text);
    accepted = true;
  } catch (const mlipc::Error&) {
  }
  if (accepted) {
    const std::string again = mlipc::mesh::manifest_to_json(m);
    try {
      if (mlipc::mesh::manifest_to_json(mlipc::mesh::manifest_from_json(again)) != again)
        broken("an accepted manifest does not read back as written");
    } catch (const mlipc::Error&) {
      broken("an accepted manifest, written again, is refused");
    }
    (void)mlipc::mesh::manifest_to_c(m);
    CPipeline c;
    fill_exact(m, c);
    mlip_pipe_error err{};
    if (mlip_pipeline_check(&c.p, &err) != MLIP_OK) broken("an accepted manifest fails the runtime's check");
    check_stages(c);
  }
  // The runtime's checks on whatever the JSON says.
  json j;
  try {
    mlipc::mlf::check_json_nesting(text, 64, "pipeline.json");
    j = json::parse(text, nullptr, false);
  } catch (const mlipc::Error&) {
  }
  if (j.is_object()) {
    CPipeline c;
    fill_lenient(j, c);
    mlip_pipe_error err{};
    const mlip_status st = mlip_pipeline_check(&c.p, &err);
    if (st == MLIP_OK) check_stages(c);
    if (st == MLIP_ERR_INVALID_ARG && err.field == nullptr) broken("the runtime refuses a manifest naming no field");
  }
  return 0;
}
