#include "host/host_program.h"

#include <algorithm>
#include <sstream>

#include <kainjow/mustache.hpp>

#include "resources/resources.h"
#include "support/error.h"
#include "support/text.h"

namespace mlipc::host::steps {

std::string render_model_c(const mlf::Metadata& md) {
  kainjow::mustache::mustache tmpl{std::string(resources::get("templates/host/model.c"))};
  tmpl.set_custom_escape([](const std::string& s) { return s; });
  kainjow::mustache::data d;
  d.set("module", md.module_name);
  kainjow::mustache::data regions{kainjow::mustache::data::type::list};
  const nlohmann::json& mlip = md.extra.value("mlip", nlohmann::json::object());
  const nlohmann::json& layers = md.extra.value("mlipc", nlohmann::json::object()).value("layers", nlohmann::json::array());
  if (mlip.contains("regions")) {
    int index = 0;
    for (const auto& reg : mlip.at("regions")) {
      std::string function;
      for (const auto& l : layers)
        if (l.value("node", "") == reg.value("name", "")) function = l.value("function", "");
      if (function.empty()) fail("metadata.json: MLIP region '{}' has no C function", printable(reg.value("name", "")));
      if (!is_c_identifier(function))
        fail("metadata.json: MLIP region function '{}' is not a C identifier", printable(function));
      size_t n = reg.at("layers").size() + (reg.at("pinned_layers").empty() ? 0 : 1);
      kainjow::mustache::data r;
      r.set("symbol", function + "_stats");
      r.set("num_layers", std::to_string(n));
      r.set("index", std::to_string(index++));
      regions.push_back(r);
    }
  }
  d.set("regions", regions);
  return tmpl.render(d);
}

void read_timings(const std::string& out, RunResult& result) {
  std::istringstream lines(out);
  std::string tag;
  while (lines >> tag) {
    if (tag == "mlipc-total-ns") {
      double ns = 0;
      lines >> ns;
      result.run_ns.push_back(ns);
    } else if (tag == "mlipc-layer") {
      LayerTime lt{};
      lines >> lt.layer >> lt.ns;
      result.layers.push_back(lt);
    } else if (tag == "mlipc-mlip-layer") {
      MlipLayerTime mt{};
      double count = 0;
      lines >> mt.region >> mt.layer >> mt.cycles >> mt.ns >> count;
      if (count > 0) {
        mt.cycles /= count;
        mt.ns /= count;
      }
      result.mlip_layers.push_back(mt);
    } else if (tag == "mlipc-mlip-region") {
      MlipRegionTime rt{};
      double count = 0;
      lines >> rt.region >> rt.cycles >> rt.ns >> count;
      if (count > 0) {
        rt.cycles /= count;
        rt.ns /= count;
      }
      result.mlip_regions.push_back(rt);
    }
  }
  if (!result.run_ns.empty()) {
    std::vector<double> sorted = result.run_ns;
    std::sort(sorted.begin(), sorted.end());
    result.total_ns = sorted[sorted.size() / 2];
  }
}

}  // namespace mlipc::host::steps
