#include "mlip/json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>

namespace mlipc::mlip {

namespace {

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

const char* layer_name(uint32_t kind) {
  switch (kind) {
    case MLIP_LAYER_CONV2D: return "Conv2D";
    case MLIP_LAYER_FC: return "FC";
    case MLIP_LAYER_MAXPOOL: return "Maxpool2D";
    case MLIP_LAYER_AVGPOOL: return "Avgpool2D";
    case MLIP_LAYER_GLOBAL_AVGPOOL: return "GlobalAvgpool2D";
    case MLIP_LAYER_GLOBAL_MAXPOOL: return "GlobalMaxpool2D";
    case MLIP_LAYER_ADD: return "Sum";
    case MLIP_LAYER_CONCAT: return "Concat";
    case MLIP_LAYER_CONVERT_IN: return "Layout_transform_NCHW2NHWC";
    case MLIP_LAYER_CONVERT_OUT: return "Layout_transform_NHWC2NCHW";
    default: return "Unknown";
  }
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
    nlohmann::json a;
    a["layer_name"] = layer_name(l.kind);
    a["func_name"] = r.name;
    a["composite_name"] = l.composite;
    a["onnx_nodes"] = l.origins;
    const RTensor& out = r.tensors[l.output];
    const RTensor& in = r.tensors[l.inputs.front()];
    a["data_layout"] = in.planar ? "NCHW" : "NHWC";
    a["out_layout"] = out.planar ? "NCHW" : "NHWC";
    a["data_layout_shape"] = shape_of(in);
    a["out_layout_shape"] = shape_of(out);
    if (l.kind == MLIP_LAYER_CONV2D || l.kind == MLIP_LAYER_FC) {
      a["kernel_layout"] = l.kind == MLIP_LAYER_CONV2D ? "OHWI" : "OI";
      a["kernel_const_name"] = l.weight_name;
      if (l.bias_offset >= 0) {
        a["bias_const_name"] = l.bias_name;
        a["bias_layout"] = "-O";
      }
    }
    if (l.kind == MLIP_LAYER_CONV2D || l.kind == MLIP_LAYER_MAXPOOL || l.kind == MLIP_LAYER_AVGPOOL) {
      a["padding"] = {l.pt, l.pl, l.pb, l.pr};
      a["strides"] = {l.sh, l.sw};
      a["pool_size"] = {l.kh, l.kw};
      if (l.kind == MLIP_LAYER_CONV2D) {
        a["dilation"] = {l.dh, l.dw};
        a["groups"] = l.groups;
      }
    }
    a["activation_type"] = l.act.kind == MLIP_ACT_RELU ? "relu" : (l.act.kind == MLIP_ACT_CLIP ? (l.act.lo == 0.0f && l.act.hi == 6.0f ? "relu6" : "clip") : "none");
    nodes.push_back({{"op", "tvm_op"}, {"name", r.name}, {"attrs", a}});
  }
  nlohmann::json j;
  j["nodes"] = nodes;
  j["batch_size"] = r.inputs.empty() ? 1 : r.tensors[r.inputs.front()].n;
  j["num_subgraph_inputs"] = r.inputs.size();
  j["num_subgraph_outputs"] = r.outputs.size();
  return j.dump(2) + "\n";
}

std::string consts_json(const LoweredRegion& r) {
  nlohmann::json j = nlohmann::json::object();
  for (const ConstInfo& c : r.consts) {
    float lo = c.values.empty() ? 0.0f : *std::min_element(c.values.begin(), c.values.end());
    float hi = c.values.empty() ? 0.0f : *std::max_element(c.values.begin(), c.values.end());
    std::vector<uint8_t> bytes(c.values.size() * 4);
    if (!bytes.empty()) std::memcpy(bytes.data(), c.values.data(), bytes.size());
    j[c.name] = {{"shape", c.shape}, {"dtype", "float32"}, {"min", lo}, {"max", hi},
                 {"data_base64", base64(bytes.data(), bytes.size())}};
  }
  return j.dump(2) + "\n";
}

}  // namespace mlipc::mlip
