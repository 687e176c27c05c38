// report: the memory plan as an SVG (each arena buffer a rectangle, x its
// live schedule steps, y its offset; the lower bound a line; its title the
// tensor, producer and consumers) and each MLIP region's OCM per tile.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "cli/format.h"
#include "cli/report.h"

namespace mlipc::cli {

namespace {

// "name (op)" of the compiled graph's nodes writing / reading `value`.
void users(const InspectModel& m, const std::string& value, std::string& producer, std::string& consumers) {
  for (const InspectGraphNode& n : m.graph) {
    const std::string who = n.name + " (" + n.op + ")";
    if (std::find(n.outputs.begin(), n.outputs.end(), value) != n.outputs.end())
      producer += (producer.empty() ? "" : ", ") + who;
    if (std::find(n.inputs.begin(), n.inputs.end(), value) != n.inputs.end())
      consumers += (consumers.empty() ? "" : ", ") + who;
  }
}

}  // namespace

std::string memory_svg(const InspectModel& m) {
  const double L = 112, R = 12, T = 14, B = 30, pw = 860, ph = 260;
  // int64: a damaged metadata.json may give any int as a step.
  int64_t steps = static_cast<int64_t>(m.schedule.size());
  uint64_t top = std::max<uint64_t>({m.arena_bytes, m.lower_bound_bytes, 1});
  for (const InspectBuffer& b : m.memory_plan) {
    steps = std::max<int64_t>(steps, int64_t{b.last} + 1);
    top = std::max(top, b.offset + b.size);
  }
  steps = std::max<int64_t>(steps, 1);
  auto X = [&](double step) { return L + step * pw / static_cast<double>(steps); };
  auto Y = [&](double off) { return T + ph - off * ph / static_cast<double>(top); };
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"memory\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "viewBox=\"0 0 {:.0f} {:.0f}\" role=\"img\" aria-label=\"memory plan\">\n"
      "<rect class=\"plot\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\"/>\n",
      L + pw + R, T + ph + B, L + pw + R, T + ph + B, L, T, pw, ph);
  auto out = std::back_inserter(svg);
  size_t i = 0;
  for (const InspectBuffer& b : m.memory_plan) {
    std::string producer, consumers;
    users(m, b.name, producer, consumers);
    const std::string title = fmt::format(
        "{}\n{} bytes at [{}, {})\nlive from step {} to step {}\nproducer: {}\nconsumers: {}", b.name,
        with_commas(b.size), with_commas(b.offset), with_commas(b.offset + b.size), b.first, b.last,
        producer.empty() ? "(the model's input or not recorded)" : producer,
        consumers.empty() ? "(the model's output or not recorded)" : consumers);
    const double x0 = X(b.first), x1 = X(static_cast<double>(b.last) + 1), y0 = Y(static_cast<double>(b.offset + b.size)),
                 y1 = Y(static_cast<double>(b.offset));
    // Golden-angle hues: neighbours differ.
    fmt::format_to(out,
                   "<rect class=\"buf\" data-name=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                   "style=\"fill:hsl({},60%,72%)\"><title>{}</title></rect>\n",
                   html_escape(b.name), x0, y0, std::max(x1 - x0, 1.0), std::max(y1 - y0, 0.5),
                   (i++ * 137) % 360, html_escape(title));
  }
  const double lb = Y(static_cast<double>(m.lower_bound_bytes)), ar = Y(static_cast<double>(m.arena_bytes));
  fmt::format_to(out,
                 "<line class=\"arena\" x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\"/>"
                 "<text class=\"axis\" x=\"{3:.1f}\" y=\"{4:.1f}\" text-anchor=\"end\">arena {5}</text>\n"
                 "<line class=\"lower-bound\" x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{6:.1f}\" y2=\"{6:.1f}\">"
                 "<title>lower bound: the most bytes live at one step</title></line>"
                 "<text class=\"axis lb\" x=\"{3:.1f}\" y=\"{7:.1f}\" text-anchor=\"end\">bound {8}</text>\n",
                 L, L + pw, ar, L - 4, ar + 4, with_commas(m.arena_bytes), lb, lb + (std::abs(lb - ar) < 12 ? 14 : 4),
                 with_commas(m.lower_bound_bytes));
  fmt::format_to(out, "<text class=\"axis\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">0</text>\n", L - 4, Y(0) + 4);
  const int64_t every = std::max<int64_t>(1, steps / 16);
  for (int64_t s = 0; s < steps; s += every)
    fmt::format_to(out, "<text class=\"axis\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                   (X(static_cast<double>(s)) + X(static_cast<double>(s) + 1)) / 2, T + ph + 14, s);
  fmt::format_to(out, "<text class=\"axis\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">schedule step</text>\n",
                 L + pw / 2, T + ph + 27);
  svg += "</svg>\n";
  return svg;
}

std::string ocm_html(const InspectModel& m) {
  if (!m.has_mlip || m.mlip.regions.empty()) return "";
  const uint64_t cap = std::max<uint64_t>(m.mlip.target.ocm_bytes, 1);
  std::string h;
  auto out = std::back_inserter(h);
  for (const mlip::RegionReport& r : m.mlip.regions) {
    fmt::format_to(out,
                   "<h4>OCM per tile: {}</h4>\n<p class=\"note\">{} bytes per tile; the command buffer takes {} of "
                   "each, pinned weights start at {}</p>\n<table class=\"bars ocm\"><tr><th>tile</th><th>used "
                   "bytes</th><th></th></tr>\n",
                   html_escape(r.name), with_commas(m.mlip.target.ocm_bytes), with_commas(r.ocm_size),
                   with_commas(r.pinned_offset));
    for (size_t t = 0; t < r.ocm_used.size(); ++t)
      fmt::format_to(out,
                     "<tr class=\"tile\"><td>{}</td><td class=\"num\">{}</td><td class=\"bar\"><div "
                     "style=\"width:{:.1f}%\"></div></td></tr>\n",
                     t, with_commas(r.ocm_used[t]), std::min(100.0, 100.0 * r.ocm_used[t] / static_cast<double>(cap)));
    h += "</table>\n";
  }
  return h;
}

}  // namespace mlipc::cli
