// inspect_data: metadata.json (or a mesh's pipeline.json) read into the
// structure both renderings of `mlipc inspect` print.
#include "cli/inspect_data.h"

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/mesh_cmd.h"
#include "driver/quantization.h"
#include "mlf/archive.h"
#include "mlf/metadata.h"
#include "support/error.h"
#include "support/text.h"

namespace mlipc::cli {

namespace {

using nlohmann::json;

ReportText text_of(const json& j, const char* key) {
  if (!j.contains(key)) return std::nullopt;
  return j.at(key).get<std::string>();
}

InspectQuantization quantization_of(const json& q) {
  InspectQuantization r;
  r.method = text_of(q, "method");
  r.percentile = text_of(q, "percentile");
  r.min_sqnr_db = text_of(q, "min_sqnr_db");
  r.samples = q.value("samples", uint64_t{0});
  for (const auto& o : q.value("outputs", json::array()))
    r.outputs.push_back({text_of(o, "name"), text_of(o, "sqnr_db"), text_of(o, "max_abs_error")});
  for (const auto& l : q.value("layers", json::array())) {
    InspectQuantLayer x;
    x.node = text_of(l, "node");
    x.op = text_of(l, "op");
    x.precision = text_of(l, "precision");
    x.sqnr_db = text_of(l, "sqnr_db");
    x.max_abs_error = text_of(l, "max_abs_error");
    x.model_sqnr_db = text_of(l, "model_sqnr_db");
    x.model_max_abs_error = text_of(l, "model_max_abs_error");
    x.why = l.value("why", std::string());
    x.onnx_nodes = l.value("onnx_nodes", json::array()).get<std::vector<std::string>>();
    x.bias_raised_channels = l.value("bias_raised_channels", json::array()).get<std::vector<int64_t>>();
    r.layers.push_back(std::move(x));
  }
  return r;
}

// The value a line "    in  %NAME: float32[1,2] const" names; constants
// (weights, command buffers) are not edges. The name is everything between
// '%' and the last ": " (names may hold both).
bool value_of_line(const std::string& line, const char* prefix, std::string& name) {
  if (line.rfind(prefix, 0) != 0) return false;
  const size_t colon = line.rfind(": ");
  if (colon == std::string::npos || colon < std::char_traits<char>::length(prefix)) return false;
  if (line.size() >= 6 && line.compare(line.size() - 6, 6, " const") == 0) return false;
  name = line.substr(std::char_traits<char>::length(prefix), colon - std::char_traits<char>::length(prefix));
  return true;
}

// src/<module>.graph (ir graph_to_text): its nodes and their values. A line
// it does not know is skipped: the graph is what the report draws edges
// from, not what the model runs.
std::vector<InspectGraphNode> graph_of(const std::string& text) {
  std::vector<InspectGraphNode> nodes;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    std::string v;
    if (line.rfind("  node ", 0) == 0) {
      const std::string rest = line.substr(7);
      const size_t sp = rest.rfind(' ');
      if (sp == std::string::npos) continue;
      nodes.push_back({rest.substr(0, sp), rest.substr(sp + 1), {}, {}, {}});
    } else if (!nodes.empty() && value_of_line(line, "    in  %", v)) {
      nodes.back().inputs.push_back(v);
    } else if (!nodes.empty() && value_of_line(line, "    out %", v)) {
      nodes.back().outputs.push_back(v);
    } else if (!nodes.empty() && line.rfind("    from ", 0) == 0) {
      nodes.back().origins.push_back(line.substr(9));
    }
  }
  return nodes;
}

InspectModel model_of(const std::string& tarball, const mlf::Metadata& md, const mlf::FileMap& files,
                      const std::string& dir) {
  InspectModel m;
  const json& info = md.extra.value("mlipc", json::object());
  m.tarball = tarball;
  m.model_name = md.model_name;
  m.module_name = md.module_name;
  m.target = info.value("target", std::string("?"));
  m.has_mlip = md.extra.contains("mlip");
  if (m.has_mlip) {
    m.mlip = mlip::report_from_json(md.extra["mlip"]);
    m.quantize_line = driver::quantize_line(m.mlip.options);
  }
  // --io-dtype int8: the parameters of a tensor the entry takes quantized.
  auto io = [&](const mlf::TensorInfo& t, const std::string& kind) {
    InspectIo r{t.name, t.dtype, t.shape, std::nullopt, 0};
    for (const auto& q : info.value("quantized_io", json::array()))
      if (q.value("name", std::string()) == t.name && q.value("kind", std::string()) == kind) {
        r.scale = q.value("scale", std::string("?"));
        r.zero_point = q.value("zero_point", int64_t{0});
        break;
      }
    return r;
  };
  for (const auto& in : md.inputs) m.inputs.push_back(io(in, "input"));
  for (const auto& o : md.outputs) m.outputs.push_back(io(o, "output"));

  std::map<std::string, int> regions;
  std::map<std::string, const mlip::CpuNode*> cpu_nodes;
  for (size_t i = 0; i < m.mlip.regions.size(); ++i) regions[m.mlip.regions[i].name] = static_cast<int>(i);
  for (const mlip::CpuNode& c : m.mlip.cpu_nodes) cpu_nodes[c.node] = &c;
  for (const auto& l : info.value("layers", json::array())) {
    const std::string node = l.value("node", "");
    InspectStep s;
    s.node = node;
    if (regions.count(node)) {
      s.region = regions[node];
      m.macs_mlip += m.mlip.regions[static_cast<size_t>(s.region)].macs();
    } else {
      // Tarballs written before the CPU layers' MACs were recorded have none.
      s.macs = l.value("macs", uint64_t{0});
      m.macs_total += s.macs;
      s.op = l.at("op").get<std::string>();
      s.function = l.at("function").get<std::string>();
      s.onnx_nodes = l.at("onnx_nodes").get<std::vector<std::string>>();
      if (cpu_nodes.count(node)) s.cpu_reason = cpu_nodes[node]->reason;
    }
    m.schedule.push_back(std::move(s));
  }
  m.macs_total += m.macs_mlip;
  for (const auto& f : info.value("float_dequantize", json::array()))
    m.float_dequantize.push_back(
        {f.value("node", std::string()), f.value("op", std::string()), f.value("why", std::string())});
  if (info.contains("quantization")) m.quantization = quantization_of(info.at("quantization"));
  m.memory_planner = info.value("memory_planner", std::string("?"));
  m.arena_bytes = md.workspace_size_bytes;
  m.lower_bound_bytes = info.value("workspace_lower_bound_bytes", uint64_t{0});
  m.constants_bytes = md.constants_size_bytes;
  for (const auto& b : info.value("memory_plan", json::array()))
    m.memory_plan.push_back({b.at("name").get<std::string>(), b.at("offset").get<uint64_t>(),
                             b.at("size").get<uint64_t>(), b.at("first").get<int>(), b.at("last").get<int>()});
  m.onnx_node_count = info.value("onnx_nodes", uint64_t{0});
  m.onnx_node_names = info.value("onnx_node_names", std::vector<std::string>());
  auto graph = files.find(dir + "src/" + md.module_name + ".graph");
  if (graph != files.end()) m.graph = graph_of(graph->second);
  return m;
}

}  // namespace

InspectData inspect_data(const std::string& bytes, const std::string& tarball) {
  mlf::FileMap files = mlf::read_tar_bytes(bytes, tarball);
  InspectData d;
  if (is_mesh(files)) {
    d.mesh = mesh_inspect_data(files, tarball);
    // mesh_inspect_data has checked every stage's metadata.json.
    for (const mesh::PipeStage& st : d.mesh->manifest.stages) {
      auto md = files.find(st.module + "/metadata.json");
      if (md == files.end()) continue;
      try {
        d.mesh->stages.push_back(model_of(tarball, mlf::metadata_from_json(md->second), files, st.module + "/"));
      } catch (const nlohmann::json::exception& e) {
        fail("{}: {}/metadata.json is damaged ({})", tarball, printable(st.module), mlf::json_error_reason(e));
      } catch (const Error& e) {
        fail("{}: {}/metadata.json: {}", tarball, printable(st.module), e.what());
      }
    }
    return d;
  }
  auto it = files.find("metadata.json");
  if (it == files.end()) fail("{}: not an mlipc model library (no metadata.json, no pipeline.json)", tarball);
  try {
    d.model = model_of(tarball, mlf::metadata_from_json(it->second), files, "");
  } catch (const nlohmann::json::exception& e) {
    fail("{}: metadata.json is damaged ({})", tarball, mlf::json_error_reason(e));
  } catch (const Error& e) {
    fail("{}: {}", tarball, e.what());
  }
  return d;
}

}  // namespace mlipc::cli
