// mlipc report: one self-contained HTML page of a compiled tarball (issue
// 28): the summary, the graph laid out by Graphviz with the partition, the
// memory plan, per-layer bars, the PTQ errors and a mesh's stages. It
// renders InspectData, the structure `mlipc inspect` prints (text or
// --json), so the three never disagree; `run --profile --report` adds the
// host times it measured. docs/user-guide.md shows it, docs/architecture.md
// says how it is built.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/inspect_data.h"

namespace mlipc::cli {

// Host times `run --profile` measured, per schedule step (a CPU layer or
// an MLIP region) and per MLIP layer; nanoseconds per run.
struct ReportTimes {
  std::vector<std::optional<double>> step_ns;          // by InspectModel::schedule index
  std::map<std::pair<int, int>, double> mlip_layer_ns;  // (region, layer)
};

// The page for `d` (`times` when measured). Throws Error when the layout
// engine fails.
std::string render_report(const InspectData& d, const ReportTimes* times = nullptr);

// Checks, before any work, that the page can be written to `path`: its
// folder exists, and check_output_path's rules (`option` names the flag).
void check_report_path(const std::filesystem::path& path, const std::vector<std::filesystem::path>& inputs,
                       std::string_view option);

// Writes `html` to `path` through a temporary file in the same folder,
// renamed into place: never a half-written page (callers have checked the
// path with check_output_path before any work).
void write_report(const std::filesystem::path& path, const std::string& html);

// --- the pieces, one file each (report_*.cpp) ---

// HTML/XML text: & < > " ' escaped, control characters replaced.
std::string html_escape(std::string_view s);

// "<svg ...>" of the model's graph: one <g class="node" data-node="NAME">
// per ONNX node that runs (CPU layers' and MLIP layers' source nodes),
// MLIP regions as clusters, laid out by Graphviz's dot.
std::string graph_svg(const InspectModel& m);
// "<svg ...>" of the ONNX nodes that folded away at compile time (origins
// "NAME (Op)"): one <g class="node folded" data-node="NAME"> each, in a grid.
std::string folded_svg(const std::vector<std::string>& origins);
// The ONNX node name of an origin "NAME (Op)" and its operator.
std::pair<std::string, std::string> split_origin(const std::string& origin);

// "<svg ...>" of the arena: one <rect class="buf"> per buffer of the memory
// plan (x: schedule step, y: offset), the lower bound as a line.
std::string memory_svg(const InspectModel& m);
// OCM use per tile of each MLIP region (empty without MLIP).
std::string ocm_html(const InspectModel& m);

// The per-layer table with bars: MACs, estimated cycles, measured host time.
std::string layers_html(const InspectModel& m, const ReportTimes* times);
// The per-layer SQNR of a PTQ build (empty without quantization).
std::string sqnr_html(const InspectModel& m);

}  // namespace mlipc::cli
