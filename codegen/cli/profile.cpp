#include "cli/profile.h"

#include <algorithm>
#include <iterator>
#include <map>

#include <fmt/format.h>

#include "cli/format.h"
#include "mlip/layer_kind.h"
#include "mlip/report.h"
#include "support/text.h"

namespace mlipc::cli {

namespace {

std::string join_names(const std::vector<std::string>& list, size_t max_len = 48) {
  std::string s;
  for (const std::string& o : list) s += (s.empty() ? "" : ", ") + printable(o);
  if (s.size() > max_len) s = s.substr(0, max_len - 3) + "...";
  return s;
}

}  // namespace

Profile profile_of(const mlf::Metadata& md, const host::RunResult& r) {
  using nlohmann::json;
  Profile p;
  const json& layers = md.extra.value("mlipc", json::object()).value("layers", json::array());
  p.has_mlip = md.extra.contains("mlip");
  const mlip::MlipReport mlip = p.has_mlip ? mlip::report_from_json(md.extra.at("mlip")) : mlip::MlipReport{};
  std::map<std::string, std::pair<int, const mlip::RegionReport*>> regions;
  int ri = 0;
  for (const mlip::RegionReport& reg : mlip.regions) regions[reg.name] = {ri++, &reg};
  std::map<std::pair<int, int>, host::MlipLayerTime> stats;
  for (const auto& m : r.mlip_layers) stats[{m.region, m.layer}] = m;
  for (size_t k = 0; k < layers.size(); ++k) {
    const json& l = layers[k];
    double host_ns = k < r.layers.size() ? r.layers[k].ns : 0.0;
    auto it = regions.find(l.value("node", ""));
    if (it == regions.end()) {
      ProfileRow row{"cpu", l.at("op").get<std::string>(), l.at("onnx_nodes").get<std::vector<std::string>>(), {}, {},
                     host_ns / 1000.0};
      // Tarballs written before the CPU layers' MACs were recorded: unset.
      if (l.contains("macs")) row.macs = l.value("macs", uint64_t{0});
      p.cpu_macs += row.macs.value_or(0);
      p.rows.push_back(std::move(row));
      continue;
    }
    p.mlip_macs += it->second.second->macs();
    const auto& [index, reg] = it->second;
    int j = 0;
    for (const mlip::LayerReport& ml : reg->layers) {
      const host::MlipLayerTime* st = stats.count({index, j}) ? &stats[{index, j}] : nullptr;
      uint64_t cycles = st ? static_cast<uint64_t>(st->cycles) : ml.est_cycles;
      p.total_cycles += cycles;
      if (ml.kind == mlip::layer_kind(MLIP_LAYER_CONVERT_IN).name || ml.kind == mlip::layer_kind(MLIP_LAYER_CONVERT_OUT).name)
        p.border_cycles += cycles;
      p.rows.push_back({reg->name, ml.kind, ml.origins, ml.macs, cycles, st ? st->ns / 1000.0 : 0.0});
      ++j;
    }
    if (!reg->pinned.empty() && stats.count({index, j}))
      p.rows.push_back({reg->name, "load_weights", {}, {}, static_cast<uint64_t>(stats[{index, j}].cycles),
                        stats[{index, j}].ns / 1000.0, true});
  }
  // The least run, as each CPU layer's time is its least (templates/host/main.c).
  p.runs = static_cast<int>(r.run_ns.size());
  p.total_us = (r.run_ns.empty() ? 0.0 : *std::min_element(r.run_ns.begin(), r.run_ns.end())) / 1000.0;
  if (p.has_mlip) {
    p.clock_mhz = mlip.target.clock_mhz;
    p.mcpu = mlip.options.mcpu;
    p.num_tiles = mlip.options.num_tiles;
  }
  return p;
}

// One row per layer: region (or cpu), MLIP layer or CPU op, ONNX source
// nodes, MACs, estimated MLIP cycles, measured host time.
void print_profile(std::string& text, const Profile& p) {
  auto out = std::back_inserter(text);
  if (p.runs > 1)
    fmt::format_to(out,
                   "profile ({} runs: each CPU layer's least host time, the MLIP layers' mean, the least run's total; "
                   "MLIP cycles from the cycle model):\n",
                   p.runs);
  else
    fmt::format_to(out, "profile (one run; MLIP cycles from the cycle model, host time measured):\n");
  fmt::format_to(out, "  {:<20} {:<16} {:<48} {:>12} {:>12} {:>10}\n", "region", "layer / op", "ONNX nodes", "MACs",
             "est. cycles", "host us");
  for (const ProfileRow& row : p.rows) {
    fmt::format_to(out, "  {:<20} {:<16} {:<48} {:>12} {:>12} {:>10.1f}\n", printable(row.region), row.layer,
                   row.at_load ? "(once, at load)" : join_names(row.onnx_nodes), row.macs ? with_commas(*row.macs) : "-",
                   row.cycles ? with_commas(*row.cycles) : "-", row.host_us);
  }
  fmt::format_to(out, "  {:<20} {:<16} {:<48} {:>12} {:>12} {:>10.1f}\n", "total", "", "", "", with_commas(p.total_cycles),
             p.total_us);
  if (p.has_mlip) {
    const double mhz = p.clock_mhz;
    fmt::format_to(out, "  estimated MLIP time {:.1f} us at {:.0f} MHz ({} on {} tile(s)); border conversions {:.1f}%\n",
               p.total_cycles / mhz, mhz, p.mcpu, p.num_tiles,
               p.total_cycles ? 100.0 * static_cast<double>(p.border_cycles) / static_cast<double>(p.total_cycles) : 0.0);
    fmt::format_to(out, "  {}\n", mac_share_line(p.mlip_macs, p.mlip_macs + p.cpu_macs));
  }
}

}  // namespace mlipc::cli
