#include "mlip/report.h"

#include <fmt/format.h>

#include "mlip/layer_kind.h"
#include "support/error.h"

namespace mlipc::mlip {

namespace {

using nlohmann::json;

json region_json(const RegionReport& r) {
  json layers = json::array();
  for (const LayerReport& l : r.layers) {
    json ranges = json::array();
    for (const auto& [a, b] : l.ranges) ranges.push_back({a, b});
    layers.push_back({{"name", l.name}, {"kind", l.kind}, {"composite", l.composite}, {"onnx_nodes", l.origins},
                      {"macs", l.macs}, {"est_cycles", l.est_cycles}, {"split", l.split}, {"tile_ranges", ranges},
                      {"passes", l.passes}, {"weights_pinned", l.pinned}, {"dtype", l.dtype}});
  }
  return {{"name", r.name}, {"inputs", r.inputs}, {"outputs", r.outputs}, {"layers", layers},
          {"ocm_bytes_per_tile", r.ocm_used}, {"ocm_size", r.ocm_size}, {"ocm_pinned_offset", r.pinned_offset},
          {"scratch_bytes", r.scratch_size}, {"pinned_layers", r.pinned}, {"streamed_layers", r.streamed},
          {"pinned_bytes_total", r.pinned_bytes}, {"weight_bytes", r.weight_bytes}, {"est_cycles", r.est_cycles},
          {"command_buffer_bytes", r.bin_size}};
}

// Field `key` of object `j` as a T; `where` names the object in the message.
template <class T>
T field(const json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) fail("metadata.json: {} has no \"{}\"", where, key);
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    fail("metadata.json: {} \"{}\" has the wrong type ({})", where, key, j.at(key).type_name());
  }
}

LayerReport layer_from_json(const json& j, const std::string& where) {
  LayerReport l;
  l.name = field<std::string>(j, "name", where);
  l.kind = field<std::string>(j, "kind", where);
  l.composite = field<std::string>(j, "composite", where);
  l.origins = field<std::vector<std::string>>(j, "onnx_nodes", where);
  l.macs = field<uint64_t>(j, "macs", where);
  l.est_cycles = field<uint64_t>(j, "est_cycles", where);
  l.split = field<std::string>(j, "split", where);
  l.ranges = field<std::vector<std::pair<int64_t, int64_t>>>(j, "tile_ranges", where);
  l.passes = field<int64_t>(j, "passes", where);
  l.pinned = field<bool>(j, "weights_pinned", where);
  l.dtype = j.contains("dtype") ? field<std::string>(j, "dtype", where) : "fp16";  // tarballs before int8: fp16
  return l;
}

RegionReport region_from_json(const json& j, const std::string& where) {
  RegionReport r;
  r.name = field<std::string>(j, "name", where);
  const std::string here = where + " '" + r.name + "'";
  r.inputs = field<std::vector<std::string>>(j, "inputs", here);
  r.outputs = field<std::vector<std::string>>(j, "outputs", here);
  const json layers = field<json>(j, "layers", here);
  if (!layers.is_array()) fail("metadata.json: {} \"layers\" is not a list", here);
  for (size_t i = 0; i < layers.size(); ++i) r.layers.push_back(layer_from_json(layers[i], fmt::format("{} layer {}", here, i)));
  r.ocm_used = field<std::vector<uint32_t>>(j, "ocm_bytes_per_tile", here);
  r.ocm_size = field<uint32_t>(j, "ocm_size", here);
  r.pinned_offset = field<uint32_t>(j, "ocm_pinned_offset", here);
  r.scratch_size = field<uint32_t>(j, "scratch_bytes", here);
  r.pinned = field<std::vector<std::string>>(j, "pinned_layers", here);
  r.streamed = field<std::vector<std::string>>(j, "streamed_layers", here);
  r.pinned_bytes = field<uint64_t>(j, "pinned_bytes_total", here);
  r.weight_bytes = field<uint64_t>(j, "weight_bytes", here);
  r.est_cycles = field<uint64_t>(j, "est_cycles", here);
  r.bin_size = field<size_t>(j, "command_buffer_bytes", here);
  return r;
}

}  // namespace

json to_json(const MlipReport& rep) {
  const Options& o = rep.options;
  const TargetInfo& t = rep.target;
  json regions = json::array();
  for (const RegionReport& r : rep.regions) regions.push_back(region_json(r));
  json cpu = json::array();
  for (const CpuNode& n : rep.cpu_nodes)
    cpu.push_back({{"node", n.node}, {"op", n.op}, {"onnx_nodes", n.origins}, {"reason", n.reason}});
  json fp16 = json::array();
  for (const Fp16Decision& d : rep.fp16_decisions)
    fp16.push_back({{"node", d.node}, {"op", d.op}, {"decision", d.decision}, {"why", d.why}});
  return {{"mcpu", o.mcpu},
          {"num_tiles", o.num_tiles},
          {"mode", o.hardware ? "hw" : "sim"},
          {"quantize", o.quantize},
          {"quantize_why", o.quantize_why},
          {"wb_pin_ocm", o.wb_pin_ocm},
          {"target", {{"tiles", t.max_tiles}, {"ocm_bytes_per_tile", t.ocm_bytes}, {"ocm_page_bytes", t.ocm_page},
                      {"dma_align_bytes", t.dma_align}, {"macs_per_cycle", t.macs_per_cycle},
                      {"dma_bytes_per_cycle", t.dma_bytes_per_cycle}, {"eltwise_per_cycle", t.eltwise_per_cycle},
                      {"cmd_overhead_cycles", t.cmd_overhead_cycles}, {"clock_mhz", t.clock_mhz},
                      {"sources", t.sources}}},
          {"regions", regions},
          {"cpu_nodes", cpu},
          {"fp16_decisions", fp16}};
}

uint64_t RegionReport::border_cycles() const {
  uint64_t c = 0;
  for (const LayerReport& l : layers)
    if (l.kind == layer_kind(MLIP_LAYER_CONVERT_IN).name || l.kind == layer_kind(MLIP_LAYER_CONVERT_OUT).name)
      c += l.est_cycles;
  return c;
}

uint64_t RegionReport::macs() const {
  uint64_t m = 0;
  for (const LayerReport& l : layers) m += l.macs;
  return m;
}

MlipReport report_from_json(const json& j) {
  const std::string where = "the \"mlip\" key";
  MlipReport rep{};
  rep.options.mcpu = field<std::string>(j, "mcpu", where);
  rep.options.num_tiles = field<int>(j, "num_tiles", where);
  rep.options.hardware = field<std::string>(j, "mode", where) == "hw";
  rep.options.quantize = field<std::string>(j, "quantize", where);
  // Tarballs written before the driver said why have no "quantize_why".
  rep.options.quantize_why = j.value("quantize_why", std::string());
  rep.options.wb_pin_ocm = field<bool>(j, "wb_pin_ocm", where);
  const json t = field<json>(j, "target", where);
  const std::string tw = where + " \"target\"";
  rep.target.mcpu = rep.options.mcpu;
  rep.target.max_tiles = field<int>(t, "tiles", tw);
  rep.target.ocm_bytes = field<uint32_t>(t, "ocm_bytes_per_tile", tw);
  rep.target.ocm_page = field<uint32_t>(t, "ocm_page_bytes", tw);
  rep.target.dma_align = field<uint32_t>(t, "dma_align_bytes", tw);
  rep.target.macs_per_cycle = field<uint32_t>(t, "macs_per_cycle", tw);
  rep.target.dma_bytes_per_cycle = field<uint32_t>(t, "dma_bytes_per_cycle", tw);
  rep.target.eltwise_per_cycle = field<uint32_t>(t, "eltwise_per_cycle", tw);
  rep.target.cmd_overhead_cycles = field<uint32_t>(t, "cmd_overhead_cycles", tw);
  rep.target.clock_mhz = field<uint32_t>(t, "clock_mhz", tw);
  rep.target.sources = field<std::vector<std::string>>(t, "sources", tw);
  const json regions = field<json>(j, "regions", where);
  if (!regions.is_array()) fail("metadata.json: {} \"regions\" is not a list", where);
  for (size_t i = 0; i < regions.size(); ++i)
    rep.regions.push_back(region_from_json(regions[i], fmt::format("{} region {}", where, i)));
  const json cpu = field<json>(j, "cpu_nodes", where);
  if (!cpu.is_array()) fail("metadata.json: {} \"cpu_nodes\" is not a list", where);
  for (size_t i = 0; i < cpu.size(); ++i) {
    const std::string cw = fmt::format("{} CPU node {}", where, i);
    rep.cpu_nodes.push_back({field<std::string>(cpu[i], "node", cw), field<std::string>(cpu[i], "op", cw),
                             field<std::vector<std::string>>(cpu[i], "onnx_nodes", cw),
                             field<std::string>(cpu[i], "reason", cw)});
  }
  // Tarballs written before the fp16 decisions were recorded have none.
  const json fp16 = j.value("fp16_decisions", json::array());
  if (!fp16.is_array()) fail("metadata.json: {} \"fp16_decisions\" is not a list", where);
  for (size_t i = 0; i < fp16.size(); ++i) {
    const std::string dw = fmt::format("{} fp16 decision {}", where, i);
    rep.fp16_decisions.push_back({field<std::string>(fp16[i], "node", dw), field<std::string>(fp16[i], "op", dw),
                                  field<std::string>(fp16[i], "decision", dw), field<std::string>(fp16[i], "why", dw)});
  }
  return rep;
}

}  // namespace mlipc::mlip
