// report: the page. templates/report/report.html (mustache, HTML escaping
// on) holds the structure, the style and the script; this file fills it
// from InspectData: the summary, one section per model (a mesh: per stage)
// with the pieces report_graph, report_memory and report_layers draw.
#include <kainjow/mustache.hpp>

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/format.h"
#include "cli/report.h"
#include "driver/compile.h"
#include "driver/quantization.h"
#include "resources/resources.h"
#include "support/error.h"
#include "support/file_util.h"

namespace mlipc::cli {

namespace {

using kainjow::mustache::data;
using kainjow::mustache::mustache;

data row(const std::string& key, const std::string& value) {
  data d;
  d.set("key", key);
  d.set("value", value);
  return d;
}

std::string percent_over(uint64_t v, uint64_t base) {
  return base ? fmt::format("{:+.1f}%", 100.0 * (static_cast<double>(v) - static_cast<double>(base)) / static_cast<double>(base))
              : std::string("-");
}

// The summary rows of one model (a whole tarball, or a mesh's stage).
data model_summary(const InspectModel& m) {
  data rows{data::type::list};
  rows << row("model", fmt::format("{} (module {})", m.model_name, m.module_name));
  rows << row("target", m.target);
  for (const InspectIo& io : m.inputs)
    rows << row("input", fmt::format("{} {}{}", io.name, dtype_name(io.dtype), shape_str(io.shape)));
  for (const InspectIo& io : m.outputs)
    rows << row("output", fmt::format("{} {}{}", io.name, dtype_name(io.dtype), shape_str(io.shape)));
  if (m.has_mlip) {
    const mlip::Options& o = m.mlip.options;
    rows << row("MLIP options", fmt::format("{} ({} mode), {} of {} tiles, weights pinned in OCM: {}", o.mcpu,
                                            o.hardware ? "hw" : "sim", o.num_tiles, m.mlip.target.max_tiles,
                                            o.wb_pin_ocm ? "yes" : "no"));
    rows << row("quantization", m.quantize_line);
  }
  if (m.quantization)
    rows << row("int8 PTQ", fmt::format("{} calibration, {} samples, layers below {} dB stay float",
                                        m.quantization->method.value_or("?"), m.quantization->samples,
                                        m.quantization->min_sqnr_db.value_or("?")));
  else if (!m.has_mlip)
    rows << row("quantization", "none (the model's own types on the CPU)");
  rows << row("arena", fmt::format("{} bytes; lower bound {} bytes ({} over it); planner {}", with_commas(m.arena_bytes),
                                   with_commas(m.lower_bound_bytes), percent_over(m.arena_bytes, m.lower_bound_bytes),
                                   m.memory_planner));
  rows << row("constants", fmt::format("{} bytes", with_commas(m.constants_bytes)));
  uint64_t cycles = 0, bin = 0, weights = 0, cpu_macs = 0;
  for (const mlip::RegionReport& r : m.mlip.regions) cycles += r.est_cycles, bin += r.bin_size, weights += r.weight_bytes;
  for (const InspectStep& s : m.schedule) cpu_macs += s.region < 0 ? s.macs : 0;
  if (m.has_mlip) {
    rows << row("code size", fmt::format("MLIP command buffers {} bytes (weights {} of them); the C code's size "
                                         "depends on the toolchain that builds it",
                                         with_commas(bin), with_commas(weights)));
    const double mhz = m.mlip.target.clock_mhz;
    rows << row("estimated MLIP cycles",
                fmt::format("{} ({:.1f} us at {:.0f} MHz; the CPU layers are not estimated)", with_commas(cycles),
                            mhz > 0 ? static_cast<double>(cycles) / mhz : 0.0, mhz));
    rows << row("MACs", fmt::format("{}; on the CPU {}", mac_share_line(m.macs_mlip, m.macs_total),
                                    with_commas(m.macs_total - m.macs_mlip)));
  } else {
    rows << row("code size", "the C code's size depends on the toolchain that builds it");
    rows << row("MACs", fmt::format("{} on the CPU (no MLIP in this target)", with_commas(cpu_macs)));
  }
  return rows;
}

// The ONNX nodes graph_svg draws: the layers' and the views'.
std::set<std::string> drawn_origins(const InspectModel& m) {
  std::set<std::string> o;
  for (const InspectGraphNode& n : m.graph) o.insert(n.origins.begin(), n.origins.end());
  for (const InspectStep& s : m.schedule) {
    if (s.region < 0) {
      o.insert(s.onnx_nodes.begin(), s.onnx_nodes.end());
      continue;
    }
    for (const mlip::LayerReport& l : m.mlip.regions[static_cast<size_t>(s.region)].layers)
      o.insert(l.origins.begin(), l.origins.end());
  }
  return o;
}

data model_section(const InspectModel& m, const std::string& heading, const ReportTimes* times) {
  data d;
  if (!heading.empty()) {
    d.set("heading", heading);
    data s;
    s.set("rows", model_summary(m));
    d.set("stage_summary", s);
  }
  d.set("graph", graph_svg(m));
  const size_t drawn = drawn_origins(m).size();
  std::string note = fmt::format("{} ONNX nodes drawn, the nodes that run (views included).", drawn);
  // A mesh stage's metadata counts the whole model's nodes.
  if (heading.empty() && m.onnx_node_count > drawn)
    note = fmt::format("{} ONNX nodes drawn, the nodes that run (views included); of the model's {}, {} folded "
                       "at compile time (constants, shape arithmetic, identities){}.",
                       drawn, m.onnx_node_count, m.onnx_node_count - drawn,
                       m.onnx_node_names.empty() ? "" : ", shown under \"Folded at compile time\"");
  if (m.has_mlip) note += " Inside an MLIP region the arrows follow the command order.";
  d.set("graph_note", note);
  data reasons{data::type::list};
  for (const mlip::CpuNode& c : m.mlip.cpu_nodes) {
    data r;
    std::vector<std::string> names;
    std::string origins;
    for (const std::string& o : c.origins) {
      names.push_back(split_origin(o).first);
      origins += (origins.empty() ? "" : ", ") + o;
    }
    r.set("ref", nlohmann::json(names).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    r.set("node", c.node);
    r.set("op", c.op);
    r.set("origins", origins);
    r.set("reason", c.reason);
    reasons << r;
  }
  d.set("has_reasons", !m.mlip.cpu_nodes.empty());
  d.set("reasons", reasons);
  d.set("memory", memory_svg(m));
  d.set("memory_note", fmt::format("{} buffers in an arena of {} bytes ({} planner); the dashed line is the lower "
                                   "bound, the most bytes live at one step ({}).",
                                   m.memory_plan.size(), with_commas(m.arena_bytes), m.memory_planner,
                                   with_commas(m.lower_bound_bytes)));
  d.set("ocm", ocm_html(m));
  d.set("layers", layers_html(m, times));
  d.set("layers_note", std::string("One row per MLIP layer and per CPU layer, in schedule order. Cycles are the MLIP "
                                   "cycle model's estimate; ") +
                           (times ? "host times were measured by run --profile (the MLIP's in the simulator)."
                                  : "run --profile --report adds measured host times."));
  const std::string sq = sqnr_html(m);
  d.set("has_sqnr", !sq.empty());
  d.set("sqnr", sq);
  return d;
}

// The model's ONNX nodes that no graph of the page draws, in the model's
// order (a mesh's stages each record the whole model's nodes).
std::vector<std::string> folded_origins(const std::vector<const InspectModel*>& models) {
  std::set<std::string> drawn;
  for (const InspectModel* m : models) {
    const std::set<std::string> o = drawn_origins(*m);
    drawn.insert(o.begin(), o.end());
  }
  std::vector<std::string> folded;
  if (models.empty()) return folded;
  for (const std::string& o : models.front()->onnx_node_names)
    if (drawn.insert(o).second) folded.push_back(o);
  return folded;
}

std::string mesh_html(const InspectMesh& d) {
  const mesh::Manifest& m = d.manifest;
  uint64_t max_cycles = 1;
  for (const mesh::PipeStage& st : m.stages) max_cycles = std::max(max_cycles, st.est_cycles);
  std::string h = "<h2>Pipeline stages</h2>\n<table class=\"bars stages\"><tr><th>stage</th><th>PE</th><th>module</th>"
                  "<th>layers</th><th>est. cycles</th><th>memory (bytes)</th></tr>\n";
  auto out = std::back_inserter(h);
  int i = 0;
  for (const mesh::PipeStage& st : m.stages) {
    std::string layers;
    for (const std::string& l : st.layers) layers += (layers.empty() ? "" : "; ") + l;
    fmt::format_to(out,
                   "<tr class=\"stage-row\"><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td "
                   "class=\"nodes\">{}</td><td class=\"bar\"><div class=\"b-cycles\" style=\"width:{:.1f}%\"></div>"
                   "<span>{}</span></td><td class=\"num\">{}</td></tr>\n",
                   i++, st.pe, html_escape(st.module), html_escape(layers),
                   100.0 * static_cast<double>(st.est_cycles) / static_cast<double>(max_cycles),
                   with_commas(st.est_cycles), with_commas(st.memory.total()));
  }
  h += "</table>\n";
  fmt::format_to(out,
                 "<p class=\"note\">slowest stage {} cycles: {:.0f} samples/s at {:.0f} MHz; latency {} cycles; one PE "
                 "alone {} cycles ({:.0f} samples/s), speedup {:.2f}x.</p>\n",
                 with_commas(m.slowest_stage_cycles()), m.throughput(), m.clock_mhz, with_commas(m.latency_cycles()),
                 with_commas(m.single_pe_cycles), m.single_pe_throughput(),
                 m.single_pe_throughput() > 0 ? m.throughput() / m.single_pe_throughput() : 0.0);
  return h;
}

}  // namespace

std::string render_report(const InspectData& d, const ReportTimes* times) {
  data page;
  page.set("generator", driver::version_string());
  data models{data::type::list};
  data summary{data::type::list};
  if (d.model) {
    page.set("title", d.model->model_name);
    page.set("tarball", d.model->tarball);
    summary = model_summary(*d.model);
    models << model_section(*d.model, "", times);
    page.set("mesh", "");
  } else {
    const InspectMesh& m = *d.mesh;
    page.set("title", m.manifest.model_name);
    page.set("tarball", m.tarball);
    summary << row("model", fmt::format("{} (module {})", m.manifest.model_name, m.manifest.module_name));
    summary << row("target", m.manifest.target);
    summary << row("pipeline", fmt::format("{} stage(s) on {} PE(s) asked for{}", m.manifest.stages.size(),
                                           m.manifest.pes_requested,
                                           m.manifest.fewer_note.empty() ? "" : "; " + m.manifest.fewer_note));
    if (m.has_mlip) {
      summary << row("quantization", driver::quantize_line(m.mlip_options));
      summary << row("MACs", mac_share_line(m.macs_mlip, m.macs_total));
    }
    summary << row("estimated cycles", fmt::format("slowest stage {}, latency {}", with_commas(m.manifest.slowest_stage_cycles()),
                                                   with_commas(m.manifest.latency_cycles())));
    page.set("mesh", mesh_html(m));
    for (size_t i = 0; i < m.stages.size(); ++i)
      models << model_section(m.stages[i],
                              fmt::format("Stage {} (PE {}): {}", i, m.manifest.stages[i].pe, m.manifest.stages[i].module),
                              nullptr);
  }
  std::vector<const InspectModel*> drawn;
  if (d.model) drawn.push_back(&*d.model);
  if (d.mesh)
    for (const InspectModel& m : d.mesh->stages) drawn.push_back(&m);
  const std::vector<std::string> folded = folded_origins(drawn);
  page.set("has_folded", !folded.empty());
  if (!folded.empty()) {
    page.set("folded", folded_svg(folded));
    page.set("folded_note", fmt::format("{} ONNX node(s) of the model became no code and no buffer: constants "
                                        "folded, shape arithmetic computed, identities removed.",
                                        folded.size()));
  }
  page.set("summary", summary);
  page.set("models", models);
  page.set("times", times != nullptr);
  mustache tmpl{std::string(resources::get("templates/report/report.html"))};
  if (!tmpl.is_valid()) fail("report: templates/report/report.html: {}", tmpl.error_message());
  return tmpl.render(page);
}

void check_report_path(const std::filesystem::path& path, const std::vector<std::filesystem::path>& inputs,
                       std::string_view option) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    fail("{} {}: folder {} does not exist", option, path.string(), dir.string());
  check_output_path(path, inputs, option);
}

void write_report(const std::filesystem::path& path, const std::string& html) {
  write_file_atomic(path, html);
}

}  // namespace mlipc::cli
