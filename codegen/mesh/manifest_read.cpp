// pipeline.json read back (inspect, run): the manifest is checked
// completely as it is read, every field against what mlipc writes (its type,
// its range, and its agreement with the other fields), so that a damaged or
// edited manifest is one line naming the field before anything is printed,
// built or run. The rules are the runtime's (mlip_pipeline_check) and more:
// the stages in order on their own PEs, named and placed as compile names
// and places them, the data flowing forward only, every tensor's size its
// shape's, the estimates the stages' own.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mesh/manifest.h"
#include "mlf/metadata.h"
#include "mlip/pipeline.h"
#include "support/error.h"
#include "support/limits.h"
#include "support/text.h"

namespace mlipc::mesh {

namespace {

using nlohmann::json;

// Cycle counts and byte counts: far above anything compile writes, low
// enough that their sums over every stage stay exact in uint64 and double.
constexpr uint64_t kMaxCount = uint64_t{1} << 52;
constexpr size_t kMaxRank = 32;

[[noreturn]] void bad(const std::string& what) { fail("pipeline.json: {}", what); }

std::string kind_of(const json& v) {
  if (v.is_number_float()) return fmt::format("the number {}", v.dump());
  if (v.is_number()) return fmt::format("the number {}", v.dump());
  return fmt::format("a {}", v.type_name());
}

// The object `j` has exactly `keys` (no other, none missing).
void exactly(const json& j, std::initializer_list<const char*> keys, const std::string& where) {
  if (!j.is_object()) bad(fmt::format("{} holds {}, where mlipc writes an object", where, kind_of(j)));
  for (const char* k : keys)
    if (!j.contains(k)) bad(fmt::format("{} has no \"{}\"", where, k));
  for (const auto& item : j.items()) {
    const std::string& k = item.key();  // a structured binding cannot be captured in C++17 (clang refuses)
    if (std::find_if(keys.begin(), keys.end(), [&](const char* x) { return k == x; }) == keys.end())
      bad(fmt::format("{} has the key '{}', which mlipc does not write", where, printable(k)));
  }
}

std::string path(const std::string& where, const char* key) {
  return where.empty() ? std::string(key) : where + "." + key;
}

// A whole number from lo to hi (a JSON integer: not 1.5, not 1e3).
int64_t whole(const json& j, const char* key, const std::string& where, int64_t lo, int64_t hi) {
  const json& v = j.at(key);
  const std::string at = path(where, key);
  if (!v.is_number_integer()) bad(fmt::format("{} holds {}, where mlipc writes a whole number", at, kind_of(v)));
  if (v.is_number_unsigned() ? v.get<uint64_t>() > static_cast<uint64_t>(hi) : v.get<int64_t>() < lo || v.get<int64_t>() > hi)
    bad(fmt::format("{} is {}, not from {} to {}", at, v.dump(), lo, hi));
  return v.get<int64_t>();
}

uint64_t count(const json& j, const char* key, const std::string& where) {
  return static_cast<uint64_t>(whole(j, key, where, 0, static_cast<int64_t>(kMaxCount)));
}

double real(const json& j, const char* key, const std::string& where) {
  const json& v = j.at(key);
  if (!v.is_number()) bad(fmt::format("{} holds {}, where mlipc writes a number", path(where, key), kind_of(v)));
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < 0) bad(fmt::format("{} is {}, not a finite number of 0 or more", path(where, key), v.dump()));
  return d;
}

std::string text(const json& j, const char* key, const std::string& where) {
  const json& v = j.at(key);
  if (!v.is_string()) bad(fmt::format("{} holds {}, where mlipc writes a string", path(where, key), kind_of(v)));
  return v.get<std::string>();
}

const json& list(const json& j, const char* key, const std::string& where, size_t max) {
  const json& v = j.at(key);
  const std::string at = path(where, key);
  if (!v.is_array()) bad(fmt::format("{} holds {}, where mlipc writes a list", at, kind_of(v)));
  if (v.size() > max) bad(fmt::format("{} has {} entries, more than {}", at, v.size(), max));
  return v;
}

// A list of tensor names, each in "tensors" and named once.
std::vector<int> tensor_refs(const json& j, const char* key, const std::string& where,
                             const std::map<std::string, int>& index) {
  const std::string at = path(where, key);
  std::vector<int> v;
  const json& names = list(j, key, where, index.size());
  for (size_t i = 0; i < names.size(); ++i) {
    const json& n = names[i];
    if (!n.is_string()) bad(fmt::format("{}[{}] holds {}, not a tensor name", at, i, kind_of(n)));
    auto it = index.find(n.get<std::string>());
    if (it == index.end())
      bad(fmt::format("{} names '{}', which is not in \"tensors\"", at, printable(n.get<std::string>())));
    if (std::find(v.begin(), v.end(), it->second) != v.end())
      bad(fmt::format("{} names '{}' twice", at, printable(n.get<std::string>())));
    v.push_back(it->second);
  }
  return v;
}

std::string who(int s) { return s == kHost ? std::string("-1 (the host)") : fmt::format("stage {}", s); }

bool lists(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

PipeTensor read_tensor(const json& t, const std::string& where, int64_t num_stages) {
  exactly(t, {"name", "dtype", "shape", "bytes", "producer", "consumers"}, where);
  PipeTensor p;
  p.name = text(t, "name", where);
  if (p.name.empty()) bad(fmt::format("{}.name is empty", where));
  if (!is_utf8(p.name)) bad(fmt::format("{}.name '{}' is not valid UTF-8", where, printable(p.name)));
  const std::string dt = text(t, "dtype", where);
  p.dtype = dtype_from_name(dt);
  if (p.dtype == DType::Undefined) bad(fmt::format("{}.dtype '{}' is not a known dtype", where, printable(dt)));
  const json& shape = list(t, "shape", where, kMaxRank);
  uint64_t bytes = dtype_size(p.dtype);
  for (size_t k = 0; k < shape.size(); ++k) {
    const std::string at = fmt::format("{}.shape[{}]", where, k);
    if (!shape[k].is_number_integer() || (!shape[k].is_number_unsigned() && shape[k].get<int64_t>() < 0))
      bad(fmt::format("{} holds {}, not a dimension (a whole number of 0 or more)", at, kind_of(shape[k])));
    const uint64_t d = shape[k].get<uint64_t>();
    if (d > limits::max_tensor_bytes() || (d > 0 && bytes > limits::max_tensor_bytes() / d))
      bad(fmt::format("{} makes the tensor larger than mlipc's limit for one tensor ({} bytes)", at,
                      limits::max_tensor_bytes()));
    bytes *= d;
    p.shape.push_back(static_cast<int64_t>(d));
  }
  p.bytes = count(t, "bytes", where);
  if (p.bytes != bytes)
    bad(fmt::format("{}.bytes is {}, but {} {} holds {} bytes", where, p.bytes, dt, shape_str(p.shape), bytes));
  p.producer = static_cast<int>(whole(t, "producer", where, kHost, num_stages - 1));
  const json& consumers = list(t, "consumers", where, static_cast<size_t>(num_stages) + 1);
  if (consumers.empty()) bad(fmt::format("{}.consumers is empty: nothing reads the tensor", where));
  for (size_t k = 0; k < consumers.size(); ++k) {
    const std::string at = fmt::format("{}.consumers[{}]", where, k);
    if (!consumers[k].is_number_integer())
      bad(fmt::format("{} holds {}, not a stage or -1 (the host)", at, kind_of(consumers[k])));
    const int64_t c = consumers[k].is_number_unsigned() && consumers[k].get<uint64_t>() > kMaxCount
                          ? num_stages
                          : consumers[k].get<int64_t>();
    if (c < kHost || c >= num_stages) bad(fmt::format("{} is {}, not a stage or -1 (the host)", at, consumers[k].dump()));
    if (lists(p.consumers, static_cast<int>(c))) bad(fmt::format("{} names {} twice", at, who(static_cast<int>(c))));
    // Data flows forward only: a stage feeds later stages or the host.
    if (c != kHost && c <= p.producer)
      bad(fmt::format("{} is stage {}, not after the tensor's producer ({}): data flows to later stages only", at, c,
                      who(p.producer)));
    p.consumers.push_back(static_cast<int>(c));
  }
  return p;
}

PipeStage read_stage(const json& s, size_t i, const std::string& module_name, const std::map<std::string, int>& index) {
  const std::string where = fmt::format("stages[{}]", i);
  exactly(s, {"index", "pe", "module", "path", "layers", "inputs", "outputs", "est_cycles", "memory"}, where);
  const int64_t idx = whole(s, "index", where, 0, limits::kMaxPes - 1);
  if (idx != static_cast<int64_t>(i)) bad(fmt::format("{}.index is {}, not its place in \"stages\" ({})", where, idx, i));
  PipeStage p;
  p.pe = static_cast<int>(whole(s, "pe", where, 0, limits::kMaxPes - 1));
  if (p.pe != static_cast<int>(i)) bad(fmt::format("{}.pe is {}: mlipc runs stage {} on PE {}", where, p.pe, i, i));
  p.module = text(s, "module", where);
  const std::string want = fmt::format("{}_stage{}", module_name, i);
  if (p.module != want)
    bad(fmt::format("{}.module '{}' is not the stage's module '{}'", where, printable(p.module), want));
  const std::string dir = text(s, "path", where);
  if (dir != stage_dir(p))
    bad(fmt::format("{}.path '{}' is not the stage's folder '{}'", where, printable(dir), stage_dir(p)));
  const json& layers = list(s, "layers", where, static_cast<size_t>(limits::kMaxNodes) * 4);
  for (size_t k = 0; k < layers.size(); ++k) {
    if (!layers[k].is_string()) bad(fmt::format("{}.layers[{}] holds {}, not a line of text", where, k, kind_of(layers[k])));
    p.layers.push_back(layers[k].get<std::string>());
  }
  p.inputs = tensor_refs(s, "inputs", where, index);
  p.outputs = tensor_refs(s, "outputs", where, index);
  if (p.outputs.empty()) bad(fmt::format("{}.outputs is empty: a stage computes at least one tensor", where));
  if (p.inputs.size() + p.outputs.size() > MLIP_PIPE_MAX_IO)
    bad(fmt::format("{} has {} inputs and outputs, more than the runtime's {} (MLIP_PIPE_MAX_IO)", where,
                    p.inputs.size() + p.outputs.size(), MLIP_PIPE_MAX_IO));
  p.est_cycles = count(s, "est_cycles", where);
  if (p.est_cycles == 0) bad(fmt::format("{}.est_cycles is 0: every stage takes time", where));
  const std::string mw = where + ".memory";
  exactly(s.at("memory"), {"workspace_bytes", "constants_bytes", "io_bytes", "runtime_bytes", "total_bytes"}, mw);
  const json& mem = s.at("memory");
  p.memory.workspace = count(mem, "workspace_bytes", mw);
  p.memory.constants = count(mem, "constants_bytes", mw);
  p.memory.io = count(mem, "io_bytes", mw);
  p.memory.runtime = count(mem, "runtime_bytes", mw);
  const uint64_t total = count(mem, "total_bytes", mw);
  if (total != p.memory.total())
    bad(fmt::format("{}.total_bytes is {}, not the sum of the others ({})", mw, total, p.memory.total()));
  return p;
}

// Every edge of the data flow said twice, and the same both times: a
// tensor's producer lists it among its outputs, each consumer among its
// inputs (the host: the model's inputs and outputs), and the reverse.
void check_flow(const Manifest& m) {
  for (int t : m.inputs)
    if (m.tensors[static_cast<size_t>(t)].producer != kHost)
      bad(fmt::format("inputs names '{}', which {} produces, not the host", printable(m.tensors[static_cast<size_t>(t)].name),
                      who(m.tensors[static_cast<size_t>(t)].producer)));
  for (int t : m.outputs)
    if (!lists(m.tensors[static_cast<size_t>(t)].consumers, kHost))
      bad(fmt::format("outputs names '{}', whose \"consumers\" do not include -1 (the host)",
                      printable(m.tensors[static_cast<size_t>(t)].name)));
  for (size_t s = 0; s < m.stages.size(); ++s) {
    const PipeStage& st = m.stages[s];
    for (int t : st.inputs)
      if (!lists(m.tensors[static_cast<size_t>(t)].consumers, static_cast<int>(s)))
        bad(fmt::format("stages[{}].inputs names '{}', whose \"consumers\" do not list stage {}", s,
                        printable(m.tensors[static_cast<size_t>(t)].name), s));
    for (int t : st.outputs)
      if (m.tensors[static_cast<size_t>(t)].producer != static_cast<int>(s))
        bad(fmt::format("stages[{}].outputs names '{}', whose producer is {}", s,
                        printable(m.tensors[static_cast<size_t>(t)].name), who(m.tensors[static_cast<size_t>(t)].producer)));
  }
  for (size_t t = 0; t < m.tensors.size(); ++t) {
    const PipeTensor& d = m.tensors[t];
    const std::string where = fmt::format("tensors[{}] '{}'", t, printable(d.name));
    const int ti = static_cast<int>(t);
    if (d.producer == kHost ? !lists(m.inputs, ti) : !lists(m.stages[static_cast<size_t>(d.producer)].outputs, ti))
      bad(fmt::format("{}: its producer, {}, does not list it among {}", where, who(d.producer),
                      d.producer == kHost ? "the model's \"inputs\"" : "its \"outputs\""));
    for (int c : d.consumers)
      if (c == kHost ? !lists(m.outputs, ti) : !lists(m.stages[static_cast<size_t>(c)].inputs, ti))
        bad(fmt::format("{}: its consumer, {}, does not list it among {}", where, who(c),
                        c == kHost ? "the model's \"outputs\"" : "its \"inputs\""));
  }
}

// Equal within the rounding of a double written with 17 digits.
bool same(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)); }

void check_estimates(const Manifest& m, const json& est) {
  const std::string w = "estimates";
  if (count(est, "slowest_stage_cycles", w) != m.slowest_stage_cycles())
    bad(fmt::format("estimates.slowest_stage_cycles is {}, not the slowest stage's est_cycles ({})",
                    est.at("slowest_stage_cycles").dump(), m.slowest_stage_cycles()));
  if (count(est, "latency_cycles", w) != m.latency_cycles())
    bad(fmt::format("estimates.latency_cycles is {}, not the stages' est_cycles summed ({})",
                    est.at("latency_cycles").dump(), m.latency_cycles()));
  const struct {
    const char* key;
    double want;
  } derived[] = {{"latency_us", static_cast<double>(m.latency_cycles()) / m.clock_mhz},
                 {"throughput_samples_per_s", m.throughput()},
                 {"single_pe_throughput_samples_per_s", m.single_pe_throughput()}};
  for (const auto& d : derived)
    if (!same(real(est, d.key, w), d.want))
      bad(fmt::format("estimates.{} is {}, not {} (from the cycles and clock_mhz)", d.key, est.at(d.key).dump(), d.want));
}

}  // namespace

Manifest manifest_from_json(const std::string& source) {
  mlf::check_json_nesting(source, 64, "pipeline.json");
  json j;
  try {
    j = json::parse(source);
  } catch (const json::exception&) {
    fail("pipeline.json: not valid JSON");
  }
  if (!j.is_object()) fail("pipeline.json: not a JSON object");
  exactly(j, {"version", "generator", "model_name", "module_name", "target", "pes_requested", "pe_memory_bytes",
              "clock_mhz", "fewer_pes_note", "stages", "tensors", "inputs", "outputs", "estimates"},
          "the manifest");
  Manifest m;
  if (!j.at("version").is_number_integer() || j.at("version") != kManifestVersion)
    bad(fmt::format("version {} (this mlipc reads version {})", j.at("version").dump(), kManifestVersion));
  m.version = kManifestVersion;
  m.generator = text(j, "generator", "");
  m.model_name = text(j, "model_name", "");
  m.module_name = text(j, "module_name", "");
  if (!is_c_identifier(m.module_name))
    bad(fmt::format("module_name '{}' is not a C identifier", printable(m.module_name)));
  m.target = text(j, "target", "");
  m.pes_requested = static_cast<int>(whole(j, "pes_requested", "", 1, limits::kMaxPes));
  m.pe_memory_limit = count(j, "pe_memory_bytes", "");
  m.clock_mhz = real(j, "clock_mhz", "");
  if (m.clock_mhz < 1 || m.clock_mhz > 1e6) bad(fmt::format("clock_mhz is {}, not from 1 to 1000000", j.at("clock_mhz").dump()));
  m.fewer_note = text(j, "fewer_pes_note", "");

  const json& stages = list(j, "stages", "", limits::kMaxPes);
  if (stages.empty()) bad("\"stages\" is empty");
  if (stages.size() > static_cast<size_t>(m.pes_requested))
    bad(fmt::format("stages has {} entries, more than pes_requested ({})", stages.size(), m.pes_requested));
  const json& tensors = list(j, "tensors", "", static_cast<size_t>(m.pes_requested) * MLIP_PIPE_MAX_IO);
  if (tensors.empty()) bad("\"tensors\" is empty");
  const int64_t num_stages = static_cast<int64_t>(stages.size());
  std::map<std::string, int> index;
  for (size_t i = 0; i < tensors.size(); ++i) {
    PipeTensor t = read_tensor(tensors[i], fmt::format("tensors[{}]", i), num_stages);
    if (!index.emplace(t.name, static_cast<int>(i)).second)
      bad(fmt::format("tensors[{}].name '{}' is the name of an earlier tensor", i, printable(t.name)));
    m.tensors.push_back(std::move(t));
  }
  for (size_t i = 0; i < stages.size(); ++i) m.stages.push_back(read_stage(stages[i], i, m.module_name, index));
  m.inputs = tensor_refs(j, "inputs", "", index);
  m.outputs = tensor_refs(j, "outputs", "", index);
  if (m.outputs.empty()) bad("\"outputs\" is empty: the model has at least one output");
  check_flow(m);
  const json& est = j.at("estimates");
  exactly(est, {"single_pe_cycles", "single_pe_memory_bytes", "slowest_stage_cycles", "latency_cycles", "latency_us",
                "throughput_samples_per_s", "single_pe_throughput_samples_per_s"},
          "estimates");
  m.single_pe_cycles = count(est, "single_pe_cycles", "estimates");
  if (m.single_pe_cycles == 0) bad("estimates.single_pe_cycles is 0: the model takes time on one PE");
  m.single_pe_memory = count(est, "single_pe_memory_bytes", "estimates");
  check_estimates(m, est);
  return m;
}

void check_stage_modules(const Manifest& m, const mlf::FileMap& files) {
  for (size_t s = 0; s < m.stages.size(); ++s) {
    const PipeStage& st = m.stages[s];
    const std::string where = fmt::format("stages[{}]", s);
    auto it = files.find(stage_dir(st) + "metadata.json");
    if (it == files.end())
      bad(fmt::format("{}.path '{}': the tarball has no {}metadata.json", where, stage_dir(st), stage_dir(st)));
    mlf::Metadata md;
    try {
      md = mlf::metadata_from_json(it->second);
    } catch (const Error& e) {
      fail("{}{}", stage_dir(st), e.what());
    }
    if (md.module_name != st.module)
      bad(fmt::format("{}.module '{}', but {}metadata.json is module '{}'", where, st.module, stage_dir(st),
                      printable(md.module_name)));
    const auto match = [&](const char* key, const std::vector<int>& refs, const std::vector<mlf::TensorInfo>& io) {
      if (refs.size() != io.size())
        bad(fmt::format("{}.{} lists {} tensor(s); module {} has {}", where, key, refs.size(), st.module, io.size()));
      for (size_t k = 0; k < refs.size(); ++k) {
        const PipeTensor& t = m.tensors[static_cast<size_t>(refs[k])];
        const mlf::TensorInfo& d = io[k];
        if (t.name != d.name || t.dtype != d.dtype || t.shape != d.shape)
          bad(fmt::format("{}.{}[{}] is '{}' {} {}, but module {}'s {} {} is '{}' {} {}", where, key, k,
                          printable(t.name), dtype_name(t.dtype), shape_str(t.shape), st.module,
                          key[0] == 'i' ? "input" : "output", k, printable(d.name), dtype_name(d.dtype),
                          shape_str(d.shape)));
      }
    };
    match("inputs", st.inputs, md.inputs);
    match("outputs", st.outputs, md.outputs);
  }
}

}  // namespace mlipc::mesh
