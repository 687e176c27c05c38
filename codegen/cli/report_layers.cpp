// report: per-layer bars (MACs, estimated MLIP cycles, measured host time,
// the border conversions highlighted) and the per-layer SQNR of a PTQ build.
#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "cli/format.h"
#include "cli/report.h"
#include "mlip/layer_kind.h"

namespace mlipc::cli {

namespace {

struct Row {
  std::string where, layer, nodes;
  uint64_t macs = 0;
  std::optional<uint64_t> cycles;
  std::optional<double> ns;
  bool border = false, cpu = false;
};

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string bar(double v, double max, const char* cls) {
  return fmt::format("<div class=\"{}\" style=\"width:{:.1f}%\"></div>", cls, max > 0 ? 100.0 * v / max : 0.0);
}

}  // namespace

std::string layers_html(const InspectModel& m, const ReportTimes* times) {
  std::vector<Row> rows;
  const std::string convert_in = mlip::layer_kind(MLIP_LAYER_CONVERT_IN).name;
  const std::string convert_out = mlip::layer_kind(MLIP_LAYER_CONVERT_OUT).name;
  for (size_t k = 0; k < m.schedule.size(); ++k) {
    const InspectStep& s = m.schedule[k];
    if (s.region < 0) {
      Row r{"CPU", s.op, joined(s.onnx_nodes), s.macs, std::nullopt, std::nullopt, false, true};
      if (times && k < times->step_ns.size()) r.ns = times->step_ns[k];
      rows.push_back(std::move(r));
      continue;
    }
    const mlip::RegionReport& reg = m.mlip.regions[static_cast<size_t>(s.region)];
    for (size_t j = 0; j < reg.layers.size(); ++j) {
      const mlip::LayerReport& l = reg.layers[j];
      Row r{reg.name, l.kind + " " + l.name, joined(l.origins), l.macs, l.est_cycles, std::nullopt,
            l.kind == convert_in || l.kind == convert_out, false};
      if (times) {
        auto it = times->mlip_layer_ns.find({s.region, static_cast<int>(j)});
        if (it != times->mlip_layer_ns.end()) r.ns = it->second;
      }
      rows.push_back(std::move(r));
    }
  }
  double max_macs = 0, max_cycles = 0, max_ns = 0;
  bool any_ns = false;
  for (const Row& r : rows) {
    max_macs = std::max(max_macs, static_cast<double>(r.macs));
    if (r.cycles) max_cycles = std::max(max_cycles, static_cast<double>(*r.cycles));
    if (r.ns) max_ns = std::max(max_ns, *r.ns), any_ns = true;
  }
  std::string h = fmt::format(
      "<table class=\"bars layers\"><tr><th>#</th><th>where</th><th>layer</th><th>ONNX nodes</th><th>MACs</th>"
      "<th>est. cycles (MLIP)</th>{}</tr>\n",
      any_ns ? "<th>host time (us, measured)</th>" : "");
  auto out = std::back_inserter(h);
  int i = 0;
  for (const Row& r : rows) {
    fmt::format_to(out,
                   "<tr class=\"layer-row{}{}\"><td class=\"num\">{}</td><td>{}</td><td>{}</td><td class=\"nodes\">{}</td>"
                   "<td class=\"bar\">{}<span>{}</span></td><td class=\"bar\">{}<span>{}</span></td>",
                   r.border ? " border" : "", r.cpu ? " cpu" : " mlip", i++, html_escape(r.where),
                   html_escape(r.layer), html_escape(r.nodes), bar(static_cast<double>(r.macs), max_macs, "b-macs"),
                   with_commas(r.macs), r.cycles ? bar(static_cast<double>(*r.cycles), max_cycles, "b-cycles") : "",
                   r.cycles ? with_commas(*r.cycles) : "-");
    if (any_ns)
      fmt::format_to(out, "<td class=\"bar\">{}<span>{}</span></td>", r.ns ? bar(*r.ns, max_ns, "b-host") : "",
                     r.ns ? fmt::format("{:.1f}", *r.ns / 1000.0) : "-");
    h += "</tr>\n";
  }
  h += "</table>\n";
  return h;
}

std::string sqnr_html(const InspectModel& m) {
  if (!m.quantization) return "";
  const InspectQuantization& q = *m.quantization;
  auto num = [](const ReportText& t) -> std::optional<double> {
    if (!t || *t == "-" || t->empty()) return std::nullopt;
    if (*t == "inf") return 1e300;
    char* end = nullptr;
    const double v = std::strtod(t->c_str(), &end);
    if (end == t->c_str() || *end != '\0') return std::nullopt;
    return v;
  };
  double max_db = 1;
  for (const InspectQuantLayer& l : q.layers)
    for (const ReportText* t : {&l.sqnr_db, &l.model_sqnr_db})
      if (auto v = num(*t); v && *v < 1e300) max_db = std::max(max_db, *v);
  std::string h = fmt::format(
      "<p>{} calibration on {} samples; layers below {} dB SQNR stay float.</p>\n"
      "<table class=\"bars sqnr\"><tr><th>layer</th><th>op</th><th>precision</th><th>SQNR dB (layer alone)</th>"
      "<th>SQNR dB (in the model)</th><th>why float</th></tr>\n",
      html_escape(q.method.value_or("?")), q.samples, html_escape(q.min_sqnr_db.value_or("?")));
  auto out = std::back_inserter(h);
  auto cell = [&](const ReportText& t) {
    const auto v = num(t);
    if (!v) return std::string("<td class=\"bar\"><span>-</span></td>");
    return fmt::format("<td class=\"bar\">{}<span>{}</span></td>",
                       bar(std::max(0.0, std::min(*v, max_db)), max_db, "b-sqnr"), html_escape(*t));
  };
  for (const InspectQuantLayer& l : q.layers)
    fmt::format_to(out, "<tr class=\"sqnr-row{}\"><td>{}</td><td>{}</td><td>{}</td>{}{}<td>{}</td></tr>\n",
                   l.precision.value_or("") == "int8" || l.precision.value_or("") == "16x8" ? "" : " float", html_escape(l.node.value_or("?")),
                   html_escape(l.op.value_or("?")), html_escape(l.precision.value_or("?")), cell(l.sqnr_db),
                   cell(l.model_sqnr_db), html_escape(l.why));
  h += "</table>\n";
  for (const auto& o : q.outputs)
    fmt::format_to(out, "<p>output {}: SQNR {} dB, max abs error {}</p>\n", html_escape(o.name.value_or("?")),
                   html_escape(o.sqnr_db.value_or("?")), html_escape(o.max_abs_error.value_or("?")));
  return h;
}

}  // namespace mlipc::cli
