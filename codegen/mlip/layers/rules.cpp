#include "mlip/layers/rules.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace mlipc::mlip::layers {

bool is_float4d(const Graph& g, ValueId v) {
  return v != kNoValue && g.value(v).dtype == DType::Float32 && g.value(v).shape.size() == 4;
}

int only_consumer(const Graph& g, const std::vector<std::vector<int>>& consumers, ValueId v) {
  if (g.is_graph_output(v) || consumers[v].size() != 1) return -1;
  return consumers[v][0];
}

bool is_const(const Graph& g, const Node& n, size_t i) { return n.has_input(i) && g.value(n.inputs[i]).is_constant(); }

std::string batch_reason(int64_t batch) {
  if (batch <= kMaxBatch) return "";
  return fmt::format("batch size {} above the MLIP's {}", batch, kMaxBatch);
}

std::string window_reason(const ops::Geometry& geo, const TargetInfo& t, bool dilation) {
  for (int64_t v : geo.kernel)
    if (v > t.max_kernel) return fmt::format("kernel {} exceeds the {} maximum of {}", v, t.mcpu, t.max_kernel);
  for (int64_t v : geo.strides)
    if (v > t.max_stride) return fmt::format("stride {} exceeds the {} maximum of {}", v, t.mcpu, t.max_stride);
  for (int64_t v : geo.dilations)
    if (v != 1 && !(dilation && t.dilation)) return fmt::format("dilation {} is not supported on {}", v, t.mcpu);
  return "";
}

void json_weights(const RLayer& l, const char* kernel_layout, nlohmann::json& a) {
  a["kernel_layout"] = kernel_layout;
  a["kernel_const_name"] = l.weight_name;
  if (l.has_bias()) {
    a["bias_const_name"] = l.bias_name;
    a["bias_layout"] = "-O";
  }
}

Window window_of(const ops::Geometry& geo, int64_t kh, int64_t kw) {
  Window w;
  w.kh = kh;
  w.kw = kw;
  w.sh = geo.strides[0];
  w.sw = geo.strides[1];
  w.dh = geo.dilations[0];
  w.dw = geo.dilations[1];
  w.pt = geo.pad_begin(0);
  w.pl = geo.pad_begin(1);
  w.pb = geo.pad_end(0);
  w.pr = geo.pad_end(1);
  return w;
}

void json_window(const Window& w, nlohmann::json& a) {
  a["padding"] = {w.pt, w.pl, w.pb, w.pr};
  a["strides"] = {w.sh, w.sw};
  a["pool_size"] = {w.kh, w.kw};
}

}  // namespace mlipc::mlip::layers
