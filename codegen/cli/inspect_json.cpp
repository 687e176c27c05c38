// mlipc inspect --json: the structure inspect_data() read, as JSON. Every
// key is documented in docs/inspect-json.md and checked by
// docs/inspect.schema.json (tests/e2e/inspect_json_test.cpp validates the
// output of every test model against it); a change here changes both, and
// kInspectSchemaVersion when a key changes meaning or goes away.
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "cli/inspect.h"
#include "cli/inspect_data.h"

namespace mlipc::cli {

namespace {

// Keys in the order written (schema_version first), not sorted.
using json = nlohmann::ordered_json;

json shape_json(const Shape& s) {
  json v = json::array();
  for (int64_t d : s) v.push_back(d);
  return v;
}

json text_or_null(const ReportText& t) { return t ? json(*t) : json(nullptr); }

// A number of the quantization report: metadata.json holds it as text ("-"
// when undefined, "inf" for an error-free layer): a JSON number, null
// (undefined or not recorded), or the string "inf" / "-inf".
json report_number(const ReportText& t) {
  if (!t || *t == "-" || t->empty()) return nullptr;
  if (*t == "inf" || *t == "-inf") return *t;
  char* end = nullptr;
  const double v = std::strtod(t->c_str(), &end);
  if (end == t->c_str() || *end != '\0') return nullptr;
  return v;
}

json io_json(const InspectIo& io) {
  json q = nullptr;
  if (io.scale) q = {{"scale", report_number(io.scale)}, {"zero_point", io.zero_point}};
  return {{"name", io.name}, {"dtype", std::string(dtype_name(io.dtype))}, {"shape", shape_json(io.shape)},
          {"quantized", q}};
}

json region_json(const mlip::RegionReport& r, const mlip::TargetInfo& t) {
  json layers = json::array();
  int i = 0;
  for (const mlip::LayerReport& l : r.layers) {
    json ranges = json::array();
    for (const auto& [a, b] : l.ranges) ranges.push_back({a, b});
    layers.push_back({{"index", i++},
                      {"name", l.name},
                      {"kind", l.kind},
                      {"composite", l.composite},
                      {"onnx_nodes", l.origins},
                      {"macs", l.macs},
                      {"est_cycles", l.est_cycles},
                      {"split", l.split},
                      {"tile_ranges", ranges},
                      {"passes", l.passes},
                      {"weights_pinned", l.pinned},
                      {"dtype", l.dtype}});
  }
  return {{"name", r.name},
          {"inputs", r.inputs},
          {"outputs", r.outputs},
          {"layers", layers},
          {"macs", r.macs()},
          {"est_cycles", r.est_cycles},
          {"est_us", t.clock_mhz ? static_cast<double>(r.est_cycles) / t.clock_mhz : 0.0},
          {"border_cycles", r.border_cycles()},
          {"ocm_used_bytes", r.ocm_used},
          {"ocm_command_buffer_bytes", r.ocm_size},
          {"pinned_offset", r.pinned_offset},
          {"pinned_weights", r.pinned},
          {"pinned_bytes", r.pinned_bytes},
          {"streamed_weights", r.streamed},
          {"scratch_bytes", r.scratch_size},
          {"weight_bytes", r.weight_bytes},
          {"command_buffer_bytes", r.bin_size}};
}

json options_json(const mlip::Options& o) {
  return {{"mcpu", o.mcpu},
          {"mode", o.hardware ? "hw" : "sim"},
          {"num_tiles", o.num_tiles},
          {"quantize", o.quantize.empty() ? "fp16" : o.quantize},
          {"quantize_why", o.quantize_why.empty() ? "-quantize" : o.quantize_why},
          {"wb_pin_ocm", o.wb_pin_ocm}};
}

json macs_json(uint64_t mlip, uint64_t total) { return {{"mlip", mlip}, {"total", total}}; }

json model_json(const InspectModel& m) {
  json j = {{"schema_version", kInspectSchemaVersion}, {"kind", "model"},   {"tarball", m.tarball},
            {"model_name", m.model_name},               {"module_name", m.module_name}, {"target", m.target}};
  j["inputs"] = json::array();
  for (const InspectIo& io : m.inputs) j["inputs"].push_back(io_json(io));
  j["outputs"] = json::array();
  for (const InspectIo& io : m.outputs) j["outputs"].push_back(io_json(io));
  j["mlip"] = nullptr;
  if (m.has_mlip) {
    const mlip::TargetInfo& t = m.mlip.target;
    j["mlip"] = {{"options", options_json(m.mlip.options)},
                 {"target",
                  {{"mcpu", t.mcpu},
                   {"max_tiles", t.max_tiles},
                   {"ocm_bytes", t.ocm_bytes},
                   {"ocm_page", t.ocm_page},
                   {"dma_align", t.dma_align},
                   {"macs_per_cycle", t.macs_per_cycle},
                   {"dma_bytes_per_cycle", t.dma_bytes_per_cycle},
                   {"eltwise_per_cycle", t.eltwise_per_cycle},
                   {"cmd_overhead_cycles", t.cmd_overhead_cycles},
                   {"clock_mhz", t.clock_mhz}}}};
  }
  json schedule = json::array();
  for (const InspectStep& s : m.schedule) {
    if (s.region >= 0) {
      schedule.push_back(
          {{"where", "mlip"}, {"region", region_json(m.mlip.regions[static_cast<size_t>(s.region)], m.mlip.target)}});
      continue;
    }
    schedule.push_back({{"where", "cpu"},
                        {"op", s.op},
                        {"function", s.function},
                        {"onnx_nodes", s.onnx_nodes},
                        {"macs", s.macs},
                        {"cpu_reason", s.cpu_reason ? json(*s.cpu_reason) : json(nullptr)}});
  }
  j["schedule"] = schedule;
  j["macs"] = macs_json(m.macs_mlip, m.macs_total);
  j["fp16_decisions"] = json::array();
  for (const mlip::Fp16Decision& d : m.mlip.fp16_decisions)
    j["fp16_decisions"].push_back({{"node", d.node}, {"op", d.op}, {"decision", d.decision}, {"why", d.why}});
  j["float_dequantize"] = json::array();
  for (const InspectNote& f : m.float_dequantize)
    j["float_dequantize"].push_back({{"node", f.node}, {"op", f.op}, {"why", f.why}});
  j["quantization"] = nullptr;
  if (m.quantization) {
    const InspectQuantization& q = *m.quantization;
    json outputs = json::array(), layers = json::array();
    for (const auto& o : q.outputs)
      outputs.push_back({{"name", text_or_null(o.name)},
                         {"sqnr_db", report_number(o.sqnr_db)},
                         {"max_abs_error", report_number(o.max_abs_error)}});
    for (const InspectQuantLayer& l : q.layers)
      layers.push_back({{"node", text_or_null(l.node)},
                        {"op", text_or_null(l.op)},
                        {"precision", text_or_null(l.precision)},
                        {"sqnr_db", report_number(l.sqnr_db)},
                        {"max_abs_error", report_number(l.max_abs_error)},
                        {"model_sqnr_db", report_number(l.model_sqnr_db)},
                        {"model_max_abs_error", report_number(l.model_max_abs_error)},
                        {"why", l.why},
                        {"onnx_nodes", l.onnx_nodes},
                        {"bias_raised_channels", l.bias_raised_channels}});
    j["quantization"] = {{"method", text_or_null(q.method)},
                         {"percentile", report_number(q.percentile)},
                         {"min_sqnr_db", report_number(q.min_sqnr_db)},
                         {"samples", q.samples},
                         {"outputs", outputs},
                         {"layers", layers}};
  }
  json buffers = json::array();
  for (const InspectBuffer& b : m.memory_plan)
    buffers.push_back({{"name", b.name}, {"offset", b.offset}, {"size", b.size}, {"first", b.first}, {"last", b.last}});
  j["memory"] = {{"planner", m.memory_planner},
                 {"arena_bytes", m.arena_bytes},
                 {"lower_bound_bytes", m.lower_bound_bytes},
                 {"constants_bytes", m.constants_bytes},
                 {"buffers", buffers}};
  return j;
}

json mesh_json(const InspectMesh& d) {
  const mesh::Manifest& m = d.manifest;
  json j = {{"schema_version", kInspectSchemaVersion},
            {"kind", "mesh"},
            {"tarball", d.tarball},
            {"model_name", m.model_name},
            {"module_name", m.module_name},
            {"target", m.target},
            {"pes_requested", m.pes_requested},
            {"note", m.fewer_note.empty() ? json(nullptr) : json(m.fewer_note)},
            {"mlip", d.has_mlip ? json({{"options", options_json(d.mlip_options)}}) : json(nullptr)},
            {"macs", macs_json(d.macs_mlip, d.macs_total)},
            {"pe_memory_limit", m.pe_memory_limit ? json(m.pe_memory_limit) : json(nullptr)},
            {"clock_mhz", m.clock_mhz},
            {"inputs", m.inputs},
            {"outputs", m.outputs}};
  json stages = json::array();
  for (const mesh::PipeStage& st : m.stages)
    stages.push_back({{"pe", st.pe},
                      {"module", st.module},
                      {"layers", st.layers},
                      {"inputs", st.inputs},
                      {"outputs", st.outputs},
                      {"est_cycles", st.est_cycles},
                      {"memory",
                       {{"workspace", st.memory.workspace},
                        {"constants", st.memory.constants},
                        {"io", st.memory.io},
                        {"runtime", st.memory.runtime},
                        {"total", st.memory.total()}}},
                      {"fits", !m.pe_memory_limit || st.memory.total() <= m.pe_memory_limit}});
  j["stages"] = stages;
  json tensors = json::array();
  for (const mesh::PipeTensor& t : m.tensors)
    tensors.push_back({{"name", t.name},
                       {"dtype", std::string(dtype_name(t.dtype))},
                       {"shape", shape_json(t.shape)},
                       {"bytes", t.bytes},
                       {"producer", t.producer},
                       {"consumers", t.consumers}});
  j["tensors"] = tensors;
  j["estimates"] = {
      {"slowest_stage_cycles", m.slowest_stage_cycles()},
      {"samples_per_second", m.throughput()},
      {"latency_cycles", m.latency_cycles()},
      {"latency_us", m.clock_mhz > 0 ? static_cast<double>(m.latency_cycles()) / m.clock_mhz : 0.0},
      {"single_pe_cycles", m.single_pe_cycles},
      {"single_pe_samples_per_second", m.single_pe_throughput()},
      {"single_pe_memory_bytes", m.single_pe_memory},
      {"speedup", m.single_pe_throughput() > 0 ? m.throughput() / m.single_pe_throughput() : 0.0}};
  return j;
}

}  // namespace

std::string render_inspect_json(const InspectData& d) {
  // Names and texts from the model are any bytes: replaced, not thrown on.
  return (d.mesh ? mesh_json(*d.mesh) : model_json(*d.model)).dump(2, ' ', false, json::error_handler_t::replace) +
         "\n";
}

}  // namespace mlipc::cli
