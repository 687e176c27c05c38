#include "mlf/metadata.h"

#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <set>

#include "mlf/archive.h"
#include "support/error.h"
#include "support/text.h"

namespace mlipc::mlf {

using nlohmann::json;

namespace {

// Module keys TVM writes; everything else in a module object belongs to `extra`.
const std::set<std::string> kTvmModuleKeys = {"model_name", "export_datetime", "target", "executors",
                                              "style", "external_dependencies", "memory"};

constexpr const char* kCrtDependency = "tvm_standalone_crt";

std::string first_word(std::string_view s) {
  size_t end = s.find(' ');
  return std::string(s.substr(0, end));
}

std::string utc_now_or_epoch() {
  // Honour SOURCE_DATE_EPOCH like the archive writer, so metadata.json is reproducible too.
  const char* env = std::getenv("SOURCE_DATE_EPOCH");
  std::time_t t = (env && *env) ? static_cast<std::time_t>(archive_time()) : std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%SZ", &tm);
  return buf;
}

json tensors_to_json(const std::vector<TensorInfo>& list, const char* what, json* order) {
  json obj = json::object();
  *order = json::array();
  for (const TensorInfo& t : list) {
    if (t.name.empty()) fail("metadata.json: an {} has an empty name", what);
    if (obj.contains(t.name)) fail("metadata.json: two {}s are named '{}'", what, t.name);
    if (t.dtype == DType::Undefined) fail("metadata.json: {} '{}' has no dtype", what, t.name);
    for (int64_t d : t.shape)
      if (d < 0) fail("metadata.json: {} '{}' has a negative dimension in {}", what, t.name, shape_str(t.shape));
    size_t want = static_cast<size_t>(numel(t.shape)) * dtype_size(t.dtype);
    if (t.size_bytes != want)
      fail("metadata.json: {} '{}' is {} bytes but {} {} needs {}", what, t.name, t.size_bytes,
           dtype_name(t.dtype), shape_str(t.shape), want);
    obj[t.name] = {{"size", t.size_bytes}, {"dtype", std::string(dtype_name(t.dtype))}, {"shape", t.shape}};
    order->push_back(t.name);
  }
  return obj;
}

// ---------------------------------------------------------------- reading helpers

const json& member(const json& obj, const std::string& key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) fail("metadata.json: missing key '{}'", where.empty() ? key : where + "." + key);
  return *it;
}

std::string join(const std::string& where, const std::string& key) { return where.empty() ? key : where + "." + key; }

const json& need_object(const json& obj, const std::string& key, const std::string& where) {
  const json& v = member(obj, key, where);
  if (!v.is_object()) fail("metadata.json: '{}' must be an object", join(where, key));
  return v;
}

const json& need_array(const json& obj, const std::string& key, const std::string& where) {
  const json& v = member(obj, key, where);
  if (!v.is_array()) fail("metadata.json: '{}' must be an array", join(where, key));
  return v;
}

std::string need_string(const json& obj, const std::string& key, const std::string& where) {
  const json& v = member(obj, key, where);
  if (!v.is_string()) fail("metadata.json: '{}' must be a string", join(where, key));
  return v.get<std::string>();
}

size_t need_size(const json& obj, const std::string& key, const std::string& where) {
  const json& v = member(obj, key, where);
  if (!v.is_number_unsigned() || v.get<uint64_t>() > std::numeric_limits<size_t>::max())
    fail("metadata.json: '{}' must be a non-negative integer", join(where, key));
  return v.get<size_t>();
}

std::vector<std::string> need_strings(const json& obj, const std::string& key, const std::string& where) {
  std::vector<std::string> out;
  for (const json& s : need_array(obj, key, where)) {
    if (!s.is_string()) fail("metadata.json: '{}' must be an array of strings", join(where, key));
    out.push_back(s.get<std::string>());
  }
  return out;
}

std::vector<TensorInfo> tensors_from_json(const json& fn, const std::string& key, const std::string& order_key,
                                          const std::string& where) {
  const json& obj = need_object(fn, key, where);
  const std::string base = join(where, key);
  std::vector<std::string> names;
  if (fn.contains(order_key)) {
    names = need_strings(fn, order_key, where);
    std::set<std::string> unique(names.begin(), names.end());
    bool same = unique.size() == names.size() && names.size() == obj.size();
    for (const std::string& n : names) same = same && obj.contains(n);
    if (!same) fail("metadata.json: '{}' does not list the same names as '{}'", join(where, order_key), base);
  } else {
    for (const auto& item : obj.items()) names.push_back(item.key());  // sorted: TVM's order is lost
  }
  std::vector<TensorInfo> out;
  for (const std::string& name : names) {
    const json& t = obj.at(name);
    const std::string here = base + "." + name;
    if (!t.is_object()) fail("metadata.json: '{}' must be an object", here);
    TensorInfo info;
    info.name = name;
    info.size_bytes = need_size(t, "size", here);
    std::string dtype = need_string(t, "dtype", here);
    info.dtype = dtype_from_name(dtype);
    if (info.dtype == DType::Undefined) fail("metadata.json: '{}.dtype' is '{}', not a known dtype", here, dtype);
    size_t elem = dtype_size(info.dtype);
    if (t.contains("shape")) {
      for (const json& d : need_array(t, "shape", here)) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0)
          fail("metadata.json: '{}.shape' must be an array of non-negative integers", here);
        info.shape.push_back(d.get<int64_t>());
      }
      // Overflow-safe element count before comparing with the size.
      uint64_t n = 1;
      for (int64_t d : info.shape) {
        if (d != 0 && n > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(d) / elem)
          fail("metadata.json: '{}.shape' {} is too large", here, shape_str(info.shape));
        n *= static_cast<uint64_t>(d);
      }
      if (n * elem != info.size_bytes)
        fail("metadata.json: '{}.size' is {} but {} {} needs {} bytes", here, info.size_bytes, dtype,
             shape_str(info.shape), n * elem);
    } else {
      // TVM writes no shape: the best we know is a flat array of `size` bytes.
      if (info.size_bytes % elem != 0)
        fail("metadata.json: '{}.size' {} is not a multiple of the {} element size", here, info.size_bytes, dtype);
      info.shape = {static_cast<int64_t>(info.size_bytes / elem)};
    }
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace

std::string tvm_target_string(std::string_view kind) {
  if (kind.find(' ') != std::string_view::npos) return std::string(kind);  // already a full target string
  // Target kinds whose default keys are {"cpu"} in TVM's target_kind.cc.
  if (kind == "c" || kind == "llvm") return std::string(kind) + " -keys=cpu ";
  return std::string(kind) + " ";
}

std::string metadata_to_json(const Metadata& m) {
  if (m.module_name.empty()) fail("metadata.json: empty module name");
  json targets = json::array();
  for (const std::string& t : m.targets) {
    if (t.empty() || t.front() == ' ') fail("metadata.json: empty target kind");
    targets.push_back(tvm_target_string(t));
  }
  json input_order, output_order;
  json inputs = tensors_to_json(m.inputs, "input", &input_order);
  json outputs = tensors_to_json(m.outputs, "output", &output_order);
  size_t io = 0;
  for (const auto* list : {&m.inputs, &m.outputs})
    for (const TensorInfo& t : *list) io += t.size_bytes;

  json main_fn = {
      {"device", 1},  // kDLCPU, as TVM writes for the host target
      {"workspace_size_bytes", m.workspace_size_bytes},
      {"constants_size_bytes", m.constants_size_bytes},
      {"io_size_bytes", io},
      {"inputs", std::move(inputs)},
      {"outputs", std::move(outputs)},
      {"input_order", std::move(input_order)},
      {"output_order", std::move(output_order)},
      {"workspace_alignment", m.workspace_alignment},
  };
  json module = {
      {"model_name", m.model_name},
      {"export_datetime", m.export_datetime.empty() ? utc_now_or_epoch() : m.export_datetime},
      {"target", std::move(targets)},
      {"executors", json::array({"aot"})},
      {"style", "full-model"},
      {"external_dependencies", json::array({{{"short_name", kCrtDependency},
                                              {"url", "./runtime"},
                                              {"url_type", "mlf_path"},
                                              {"version_spec", m.version_spec}}})},
      {"memory", {{"functions", {{"main", json::array({std::move(main_fn)})},
                                 {"operator_functions", json::array()}}}}},
  };
  if (!m.extra.is_null()) {
    if (!m.extra.is_object()) fail("metadata.json: extra metadata must be a JSON object");
    for (const auto& item : m.extra.items()) {
      if (kTvmModuleKeys.count(item.key()))
        fail("metadata.json: extra key '{}' collides with a TVM key", item.key());
      module[item.key()] = item.value();
    }
  }
  json root = {{"version", kMlfVersion}, {"modules", {{m.module_name, std::move(module)}}}};
  // ensure_ascii like Python's json.dump; invalid UTF-8 is replaced, not thrown.
  return root.dump(2, ' ', true, json::error_handler_t::replace) + "\n";
}

// mlipc writes only whole numbers into its own keys. Readers convert them
// with get<int>() / get<uint64_t>(), which for a fraction out of range is
// undefined behaviour: a damaged value is refused here instead. Iterative,
// so a deeply nested value cannot exhaust the stack.
static void check_whole_numbers(const json& root, const std::string& where) {
  std::vector<const json*> todo = {&root};
  while (!todo.empty()) {
    const json* j = todo.back();
    todo.pop_back();
    if (j->is_number_float())
      fail("metadata.json: '{}' holds the number {}, where mlipc writes whole numbers only", where, j->dump());
    if (j->is_structured())
      for (const json& child : *j) todo.push_back(&child);
  }
}

std::string json_error_reason(const nlohmann::json::exception& e) {
  std::string_view w = e.what();
  if (size_t close = w.find("] "); w.rfind("[json.exception", 0) == 0 && close != std::string_view::npos)
    w.remove_prefix(close + 2);
  return std::string(w);
}

// The JSON library copies and prints nested values recursively: a damaged
// file nested thousands deep would exhaust the stack. mlipc writes depth 8 or so.
void check_json_nesting(std::string_view text, int max_depth, std::string_view file) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) fail("{}: nested deeper than {} levels", file, max_depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

Metadata metadata_from_json(std::string_view text) {
  check_json_nesting(text, 64, "metadata.json");
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    fail("metadata.json: not valid JSON ({})", e.what());
  }
  if (!root.is_object()) fail("metadata.json: the top level must be an object");
  const json& version = member(root, "version", "");
  if (!version.is_number_integer()) fail("metadata.json: 'version' must be an integer");
  if (version.get<int64_t>() != kMlfVersion)
    fail("metadata.json: version {} is not supported (expected {})", version.get<int64_t>(), kMlfVersion);
  const json& modules = need_object(root, "modules", "");
  if (modules.size() != 1) fail("metadata.json: 'modules' has {} entries, expected exactly one", modules.size());

  Metadata m;
  m.module_name = modules.begin().key();
  // The name becomes part of C symbols (tvmgen_<m>_run): anything else is damage, or an attempt to inject code.
  if (!is_c_identifier(m.module_name))
    fail("metadata.json: module name '{}' is not a C identifier", printable(m.module_name));
  const std::string where = "modules." + m.module_name;
  const json& mod = modules.begin().value();
  if (!mod.is_object()) fail("metadata.json: '{}' must be an object", where);

  m.model_name = need_string(mod, "model_name", where);
  m.export_datetime = need_string(mod, "export_datetime", where);
  for (const std::string& t : need_strings(mod, "target", where)) {
    std::string kind = first_word(t);
    m.targets.push_back(!kind.empty() && tvm_target_string(kind) == t ? kind : t);
  }
  std::vector<std::string> executors = need_strings(mod, "executors", where);
  if (executors != std::vector<std::string>{"aot"})
    fail("metadata.json: '{}.executors' must be [\"aot\"] (only AOT archives are supported)", where);
  std::string style = need_string(mod, "style", where);
  if (style != "full-model") fail("metadata.json: '{}.style' is '{}', expected 'full-model'", where, style);

  m.version_spec.clear();
  if (mod.contains("external_dependencies")) {
    for (const json& dep : need_array(mod, "external_dependencies", where)) {
      if (!dep.is_object()) fail("metadata.json: '{}.external_dependencies' must hold objects", where);
      auto name = dep.find("short_name");
      auto spec = dep.find("version_spec");
      if (name != dep.end() && *name == kCrtDependency && spec != dep.end() && spec->is_string())
        m.version_spec = spec->get<std::string>();
    }
  }

  const std::string mem_where = where + ".memory";
  const json& functions = need_object(need_object(mod, "memory", where), "functions", mem_where);
  const std::string fn_where = mem_where + ".functions";
  const json& mains = need_array(functions, "main", fn_where);
  if (mains.empty()) fail("metadata.json: '{}.main' is empty", fn_where);
  const std::string main_where = fn_where + ".main[0]";
  const json& fn = mains.front();
  if (!fn.is_object()) fail("metadata.json: '{}' must be an object", main_where);
  m.workspace_size_bytes = need_size(fn, "workspace_size_bytes", main_where);
  m.constants_size_bytes = need_size(fn, "constants_size_bytes", main_where);
  need_size(fn, "io_size_bytes", main_where);
  if (fn.contains("workspace_alignment")) {
    m.workspace_alignment = need_size(fn, "workspace_alignment", main_where);
    if (m.workspace_alignment == 0 || (m.workspace_alignment & (m.workspace_alignment - 1)) != 0)
      fail("metadata.json: '{}.workspace_alignment' {} is not a power of two", main_where, m.workspace_alignment);
  }
  m.inputs = tensors_from_json(fn, "inputs", "input_order", main_where);
  m.outputs = tensors_from_json(fn, "outputs", "output_order", main_where);

  m.extra = json::object();
  for (const auto& item : mod.items())
    if (!kTvmModuleKeys.count(item.key())) m.extra[item.key()] = item.value();
  check_whole_numbers(m.extra, where);
  return m;
}

}  // namespace mlipc::mlf
