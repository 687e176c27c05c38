#include "mlip/json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>

#include "mlip/activation.h"
#include "mlip/layer_kind.h"

namespace mlipc::mlip {

namespace {

// The importer refuses names that are not UTF-8; should one get here anyway,
// nlohmann replaces the bad bytes instead of throwing type_error 316 (which
// aborted the compiler under fuzz_onnx before the import check existed).
std::string dump(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string base64(const uint8_t* p, size_t n) {
  static const char* tab = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string s;
  s.reserve((n + 2) / 3 * 4);
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = static_cast<uint32_t>(p[i]) << 16;
    if (i + 1 < n) v |= static_cast<uint32_t>(p[i + 1]) << 8;
    if (i + 2 < n) v |= p[i + 2];
    s += tab[(v >> 18) & 63];
    s += tab[(v >> 12) & 63];
    s += i + 1 < n ? tab[(v >> 6) & 63] : '=';
    s += i + 2 < n ? tab[v & 63] : '=';
  }
  return s;
}

nlohmann::json shape_of(const RTensor& t) {
  if (t.h * t.w == 1 && !t.flat) return {t.n, t.c};
  return t.planar ? nlohmann::json{t.n, t.c, t.h, t.w} : nlohmann::json{t.n, t.h, t.w, t.c};
}

}  // namespace

std::string nodes_json(const LoweredRegion& r) {
  nlohmann::json nodes = nlohmann::json::array();
  for (int t : r.inputs) nodes.push_back({{"op", "input"}, {"name", r.tensors[t].name}, {"attrs", {{"shape", shape_of(r.tensors[t])}, {"dtype", "float32"}}}});
  for (const RLayer& l : r.layers) {
    const LayerKind& kind = layer_kind(l.kind);
    nlohmann::json a;
    a["layer_name"] = kind.json_name;
    a["func_name"] = r.name;
    a["composite_name"] = kind.composite;
    a["onnx_nodes"] = l.origins;
    const RTensor& out = r.tensors[l.output];
    const RTensor& in = r.tensors[l.inputs.front()];
    a["data_layout"] = in.planar ? "NCHW" : "NHWC";
    a["out_layout"] = out.planar ? "NCHW" : "NHWC";
    a["data_layout_shape"] = shape_of(in);
    a["out_layout_shape"] = shape_of(out);
    if (kind.json) kind.json(l, a);
    a["activation_type"] = activation_name(l.act);
    nodes.push_back({{"op", "tvm_op"}, {"name", r.name}, {"attrs", a}});
  }
  nlohmann::json j;
  j["nodes"] = nodes;
  j["batch_size"] = r.inputs.empty() ? 1 : r.tensors[r.inputs.front()].n;
  j["num_subgraph_inputs"] = r.inputs.size();
  j["num_subgraph_outputs"] = r.outputs.size();
  return dump(j);
}

std::string consts_json(const LoweredRegion& r) {
  nlohmann::json j = nlohmann::json::object();
  for (const ConstInfo& c : r.consts) {
    float lo = c.values.empty() ? 0.0f : *std::min_element(c.values.begin(), c.values.end());
    float hi = c.values.empty() ? 0.0f : *std::max_element(c.values.begin(), c.values.end());
    std::vector<uint8_t> bytes(c.values.size() * sizeof(float));
    if (!bytes.empty()) std::memcpy(bytes.data(), c.values.data(), bytes.size());
    j[c.name] = {{"shape", c.shape}, {"dtype", "float32"}, {"min", lo}, {"max", hi},
                 {"data_base64", base64(bytes.data(), bytes.size())}};
  }
  return dump(j);
}

}  // namespace mlipc::mlip
