// report: the model's graph. Every ONNX node that runs is a box (the source
// nodes of the CPU layers and of the MLIP layers), coloured by where it
// runs, each MLIP region a cluster; Graphviz's dot lays it out (libgvc) and
// this file draws the SVG from the positions it computed, so that every
// string is escaped here and every box carries its node's name
// (data-node) for the page's script and the tests.
#include <gvc.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "cli/format.h"
#include "cli/report.h"
#include "support/error.h"

namespace mlipc::cli {

namespace {

// Graphviz reports through agerr; the last message names the failure.
std::string& gv_last_error() {
  static std::string e;
  return e;
}
int gv_error_sink(char* msg) {
  gv_last_error() = msg ? msg : "";
  return 0;
}

struct GvcFree {
  void operator()(GVC_t* g) const { gvFreeContext(g); }
};
struct GraphFree {
  void operator()(Agraph_t* g) const { agclose(g); }
};

// What dot sizes a label by, and what the box shows: printable ASCII (the
// full name, escaped, is in the box's title and data-node), its end when
// long (exporters' names differ at the end: /features.1/conv/Conv). A
// backslash is doubled: dot reads \n, \N ... in labels.
std::string label_text(const std::string& s, size_t max_len) {
  std::string r;
  for (const char c : s) r += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (r.size() > max_len) r = "..." + r.substr(r.size() - (max_len - 3));
  return r;
}
std::string dot_escape(const std::string& s) {
  std::string r;
  for (const char c : s) r += c == '\\' ? std::string("\\\\") : std::string(1, c);
  return r;
}

// One context for the process: Graphviz 2.43's text layout plugin keeps a
// pointer into the first context's font table, so a second context after
// the first was freed reads freed memory (ASan found it on a mesh's second
// stage). Freed at exit.
GVC_t* gv_context() {
  static std::unique_ptr<GVC_t, GvcFree> gvc(gvContext());
  return gvc.get();
}

void set(void* obj, const char* key, const std::string& value) {
  agsafeset(obj, const_cast<char*>(key), const_cast<char*>(value.c_str()), const_cast<char*>(""));
}

struct Box {
  std::string name, op, label, cls, title;
  bool synthetic = false;  // a CPU layer no ONNX node names (not counted as one)
  Agnode_t* node = nullptr;
};

}  // namespace

std::pair<std::string, std::string> split_origin(const std::string& origin) {
  // "NAME (Op)": the name may hold " (" itself, the op never does.
  if (origin.size() > 3 && origin.back() == ')') {
    const size_t open = origin.rfind(" (");
    if (open != std::string::npos) return {origin.substr(0, open), origin.substr(open + 2, origin.size() - open - 3)};
  }
  return {origin, ""};
}

std::string graph_svg(const InspectModel& m) {
  GVC_t* gvc = gv_context();
  agseterrf(gv_error_sink);
  agseterr(AGERR);
  std::unique_ptr<Agraph_t, GraphFree> g(agopen(const_cast<char*>("model"), Agdirected, nullptr));
  if (!gvc || !g) fail("report: Graphviz could not start");
  set(g.get(), "rankdir", "TB");
  set(g.get(), "nodesep", "0.18");
  set(g.get(), "ranksep", "0.28");
  set(g.get(), "fontname", "Helvetica");
  set(g.get(), "fontsize", "10");

  std::vector<Box> boxes;
  std::map<std::string, size_t> by_origin;  // an ONNX node is one box, whatever layers name it
  std::vector<std::vector<size_t>> step_boxes(m.schedule.size());
  std::vector<Agraph_t*> clusters;
  auto add_box = [&](Agraph_t* parent, const std::string& origin, const std::string& cls, const std::string& where,
                     bool synthetic) -> size_t {
    if (!synthetic) {
      auto it = by_origin.find(origin);
      if (it != by_origin.end()) return it->second;
    }
    Box b;
    std::tie(b.name, b.op) = synthetic ? std::make_pair(origin, std::string()) : split_origin(origin);
    b.cls = cls;
    b.synthetic = synthetic;
    b.label = label_text(b.name, 28);
    b.title = b.op.empty() ? b.name : b.name + " (" + b.op + ")";
    b.title += "\n" + where;
    const std::string id = fmt::format("n{}", boxes.size());
    b.node = agnode(parent, const_cast<char*>(id.c_str()), 1);
    set(b.node, "shape", "box");
    set(b.node, "fontname", "Helvetica");
    set(b.node, "fontsize", "10");
    set(b.node, "height", "0.32");
    set(b.node, "margin", "0.08,0.03");
    set(b.node, "label", dot_escape(b.op.empty() ? b.label : b.label + "\\n" + label_text(b.op, 28)));
    if (!synthetic) by_origin[origin] = boxes.size();
    boxes.push_back(std::move(b));
    return boxes.size() - 1;
  };

  // A step's boxes in the order its nodes first appear: an int8 layer
  // lists a node again for each Q/DQ pair it folded, and a chain through
  // the repeat would point back up.
  auto push_once = [](std::vector<size_t>& v, size_t box) {
    if (std::find(v.begin(), v.end(), box) == v.end()) v.push_back(box);
  };
  for (size_t k = 0; k < m.schedule.size(); ++k) {
    const InspectStep& s = m.schedule[k];
    if (s.region < 0) {
      std::string where = fmt::format("CPU, step {}: {} ({})", k, s.op, s.function);
      if (s.macs) where += fmt::format(", {} MACs", with_commas(s.macs));
      if (s.cpu_reason) where += "\nleft on the CPU: " + *s.cpu_reason;
      const std::string cls = s.cpu_reason ? "cpu left" : "cpu";
      if (s.onnx_nodes.empty()) {
        step_boxes[k].push_back(add_box(g.get(), s.op, cls, where, true));
        continue;
      }
      for (const std::string& o : s.onnx_nodes) push_once(step_boxes[k], add_box(g.get(), o, cls, where, false));
      continue;
    }
    const mlip::RegionReport& r = m.mlip.regions[static_cast<size_t>(s.region)];
    const std::string cname = fmt::format("cluster_{}", clusters.size());
    Agraph_t* c = agsubg(g.get(), const_cast<char*>(cname.c_str()), 1);
    set(c, "label", dot_escape(label_text("MLIP " + r.name, 60)));
    set(c, "fontname", "Helvetica");
    set(c, "fontsize", "10");
    set(c, "margin", "10");
    clusters.push_back(c);
    for (const mlip::LayerReport& l : r.layers)
      for (const std::string& o : l.origins) {
        const std::string where = fmt::format("MLIP region {}, step {}: layer {} ({}), {} MACs, {} est. cycles, {}",
                                              r.name, k, l.name, l.kind, with_commas(l.macs),
                                              with_commas(l.est_cycles), l.dtype);
        push_once(step_boxes[k], add_box(c, o, "mlip", where, false));
      }
  }

  // The compiled graph's nodes that are no layer (views: Reshape, Flatten
  // ... whose output is their input's buffer) run no code but are ONNX
  // nodes too: a box each, between the layers they connect.
  std::map<std::string, std::vector<size_t>> node_boxes;  // compiled graph node -> its boxes
  for (size_t k = 0; k < m.schedule.size(); ++k) node_boxes[m.schedule[k].node] = step_boxes[k];
  std::vector<std::vector<size_t>> chains = step_boxes;
  for (const InspectGraphNode& n : m.graph) {
    if (node_boxes.count(n.name)) continue;
    std::vector<size_t>& v = node_boxes[n.name];
    for (const std::string& o : n.origins)
      push_once(v, add_box(g.get(), o, "cpu view", "not a layer: no code of its own (a view of its input's buffer)", false));
    chains.push_back(v);
  }

  // Edges: inside a step, its nodes in order (a layer's fused nodes, a
  // region's layers in command order: the report does not record a
  // region's internal data flow); between steps, the compiled graph's
  // values from their producer to each consumer.
  std::set<std::pair<Agnode_t*, Agnode_t*>> edges;
  auto edge = [&](size_t a, size_t b) {
    if (a == b || !edges.insert({boxes[a].node, boxes[b].node}).second) return;
    agedge(g.get(), boxes[a].node, boxes[b].node, nullptr, 1);
  };
  for (const auto& v : chains)
    for (size_t i = 1; i < v.size(); ++i) edge(v[i - 1], v[i]);
  std::map<std::string, std::string> producer;  // value -> compiled graph node
  for (const InspectGraphNode& n : m.graph)
    for (const std::string& o : n.outputs) producer[o] = n.name;
  if (!m.graph.empty()) {
    for (const InspectGraphNode& n : m.graph) {
      const auto& to = node_boxes[n.name];
      for (const std::string& in : n.inputs) {
        auto p = producer.find(in);
        if (p == producer.end() || to.empty() || node_boxes[p->second].empty()) continue;
        edge(node_boxes[p->second].back(), to.front());
      }
    }
  } else {  // no graph recorded: the schedule's order
    std::vector<size_t> prev;
    for (const auto& v : step_boxes) {
      if (v.empty()) continue;
      if (!prev.empty()) edge(prev.back(), v.front());
      prev = v;
    }
  }

  gv_last_error().clear();
  if (gvLayout(gvc, g.get(), "dot") != 0)
    fail("report: Graphviz could not lay the graph out ({})", gv_last_error().empty() ? "no reason given" : gv_last_error());
  const boxf bb = GD_bb(g.get());
  const double pad = 4, width = bb.UR.x - bb.LL.x + 2 * pad, height = bb.UR.y - bb.LL.y + 2 * pad;
  auto X = [&](double x) { return x - bb.LL.x + pad; };
  auto Y = [&](double y) { return bb.UR.y - y + pad; };  // dot's y grows upwards

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"graph\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "viewBox=\"0 0 {:.0f} {:.0f}\" role=\"img\" aria-label=\"model graph\">\n"
      "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" "
      "orient=\"auto-start-reverse\"><path d=\"M0,0L10,5L0,10z\" class=\"arrowhead\"/></marker></defs>\n",
      width, height, width, height);
  auto out = std::back_inserter(svg);
  for (size_t i = 0; i < clusters.size(); ++i) {
    const boxf cb = GD_bb(clusters[i]);
    const textlabel_t* lab = GD_label(clusters[i]);
    fmt::format_to(out,
                   "<g class=\"cluster\"><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" rx=\"6\"/>",
                   X(cb.LL.x), Y(cb.UR.y), cb.UR.x - cb.LL.x, cb.UR.y - cb.LL.y);
    if (lab)
      fmt::format_to(out, "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", X(lab->pos.x),
                     Y(lab->pos.y) + 3, html_escape(lab->text ? lab->text : ""));
    svg += "</g>\n";
  }
  for (Agnode_t* n = agfstnode(g.get()); n; n = agnxtnode(g.get(), n))
    for (Agedge_t* e = agfstout(g.get(), n); e; e = agnxtout(g.get(), e)) {
      const splines* sp = ED_spl(e);
      if (!sp || sp->size < 1 || sp->list[0].size < 1) continue;
      const bezier& bz = sp->list[0];
      std::string d = fmt::format("M{:.1f},{:.1f}", X(bz.list[0].x), Y(bz.list[0].y));
      for (int i = 1; i + 2 < bz.size; i += 3)
        d += fmt::format("C{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}", X(bz.list[i].x), Y(bz.list[i].y),
                         X(bz.list[i + 1].x), Y(bz.list[i + 1].y), X(bz.list[i + 2].x), Y(bz.list[i + 2].y));
      if (bz.eflag) d += fmt::format("L{:.1f},{:.1f}", X(bz.ep.x), Y(bz.ep.y));
      fmt::format_to(out, "<path class=\"edge\" d=\"{}\" marker-end=\"url(#arrow)\"/>\n", d);
    }
  for (const Box& b : boxes) {
    const pointf c = ND_coord(b.node);
    const double w = ND_width(b.node) * 72, h = ND_height(b.node) * 72;
    fmt::format_to(out,
                   "<g class=\"{} {}\" data-node=\"{}\" data-op=\"{}\"><title>{}</title>"
                   "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" rx=\"3\"/>",
                   b.synthetic ? "layer" : "node", b.cls, html_escape(b.name), html_escape(b.op), html_escape(b.title), X(c.x) - w / 2,
                   Y(c.y) - h / 2, w, h);
    if (b.op.empty()) {
      fmt::format_to(out, "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>", X(c.x), Y(c.y) + 3.5, html_escape(b.label));
    } else {
      fmt::format_to(out, "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text><text class=\"op\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>",
                     X(c.x), Y(c.y) - 1.5, html_escape(b.label), X(c.x), Y(c.y) + 9, html_escape(label_text(b.op, 28)));
    }
    svg += "</g>\n";
  }
  svg += "</svg>\n";
  gvFreeLayout(gvc, g.get());
  return svg;
}

// The tarball names the nodes that folded away but not their edges (the
// ONNX file is not in it), so there is no graph to lay out: a grid in the
// model's order.
std::string folded_svg(const std::vector<std::string>& origins) {
  constexpr int kCols = 6;
  constexpr double kW = 150, kH = 30, kGap = 8;
  const size_t rows = (origins.size() + kCols - 1) / kCols;
  const size_t cols = std::min<size_t>(origins.size(), kCols);
  const double width = static_cast<double>(cols) * (kW + kGap) + kGap;
  const double height = static_cast<double>(rows) * (kH + kGap) + kGap;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"graph folded\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "viewBox=\"0 0 {:.0f} {:.0f}\" role=\"img\" aria-label=\"nodes folded at compile time\">\n",
      width, height, width, height);
  auto out = std::back_inserter(svg);
  for (size_t i = 0; i < origins.size(); ++i) {
    const auto [name, op] = split_origin(origins[i]);
    const double x = kGap + static_cast<double>(i % kCols) * (kW + kGap);
    const double y = kGap + static_cast<double>(i / kCols) * (kH + kGap);
    fmt::format_to(out,
                   "<g class=\"node folded\" data-node=\"{}\" data-op=\"{}\"><title>{}\nfolded at compile time: no "
                   "code, no buffer</title><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" rx=\"3\"/>"
                   "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text><text class=\"op\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text></g>\n",
                   html_escape(name), html_escape(op), html_escape(origins[i]), x, y, kW, kH, x + kW / 2, y + 13,
                   html_escape(label_text(name, 26)), x + kW / 2, y + 24, html_escape(label_text(op, 26)));
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace mlipc::cli
