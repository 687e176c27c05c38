// mlipc inspect model.tar: what a tarball holds, from its metadata.json:
// the partition (regions with their layers and ONNX nodes, CPU nodes and
// why they stayed there), tile splits, OCM per tile, pinned weights and the
// memory plan.
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "cli/format.h"
#include "mlf/archive.h"
#include "mlf/metadata.h"
#include "support/error.h"

namespace mlipc::cli {

namespace {

using nlohmann::json;

std::string origins(const json& list) {
  std::vector<std::string> v;
  for (const auto& o : list) v.push_back(o.get<std::string>());
  return fmt::format("{}", fmt::join(v, ", "));
}

void print_region(const json& reg, const json& target) {
  fmt::print("  MLIP region {}  (inputs: {}; outputs: {})\n", reg["name"].get<std::string>(), origins(reg["inputs"]),
             origins(reg["outputs"]));
  fmt::print("    {:>3}  {:<15} {:>12} {:>10}  {:<9} {:<34}  {}\n", "#", "layer", "MACs", "est.cyc", "split",
             "tile ranges", "ONNX nodes");
  int i = 0;
  for (const auto& l : reg["layers"]) {
    std::vector<std::string> ranges;
    for (const auto& r : l["tile_ranges"]) ranges.push_back(fmt::format("[{},{})", r[0].get<int64_t>(), r[1].get<int64_t>()));
    std::string rs = fmt::format("{}", fmt::join(ranges, " "));
    if (rs.size() > 34) rs = rs.substr(0, 31) + "...";
    fmt::print("    {:>3}  {:<15} {:>12} {:>10}  {:<9} {:<34}  {}{}\n", i++, l["kind"].get<std::string>(),
               with_commas(l["macs"].get<uint64_t>()), with_commas(l["est_cycles"].get<uint64_t>()),
               l["split"].get<std::string>(), rs, origins(l["onnx_nodes"]),
               l["weights_pinned"].get<bool>() ? "  [weights pinned]" : "");
  }
  const double mhz = target.value("clock_mhz", 1000.0);
  const uint64_t cyc = reg["est_cycles"].get<uint64_t>();
  fmt::print("    estimated {} cycles = {:.1f} us at {:.0f} MHz\n", with_commas(cyc), cyc / mhz, mhz);
  std::vector<std::string> ocm;
  for (const auto& b : reg["ocm_bytes_per_tile"]) ocm.push_back(with_commas(b.get<uint64_t>()));
  fmt::print("    OCM per tile (bytes): {}  (command buffer uses {} per tile; pinned range from {})\n",
             fmt::join(ocm, " | "), with_commas(reg["ocm_size"].get<uint64_t>()),
             with_commas(reg["ocm_pinned_offset"].get<uint64_t>()));
  fmt::print("    pinned weights: {}\n",
             reg["pinned_layers"].empty() ? std::string("none")
                                          : fmt::format("{} ({} bytes)", origins(reg["pinned_layers"]),
                                                        with_commas(reg["pinned_bytes_total"].get<uint64_t>())));
  if (!reg["streamed_layers"].empty()) fmt::print("    streamed weights: {}\n", origins(reg["streamed_layers"]));
  fmt::print("    DDR scratch {} bytes, weights {} bytes, command buffer {} bytes\n",
             with_commas(reg["scratch_bytes"].get<uint64_t>()), with_commas(reg["weight_bytes"].get<uint64_t>()),
             with_commas(reg["command_buffer_bytes"].get<uint64_t>()));
}

void run_inspect(const std::string& tarball) {
  mlf::FileMap files = mlf::read_tar(tarball);
  auto it = files.find("metadata.json");
  if (it == files.end()) fail("{}: not an mlipc model library (no metadata.json)", tarball);
  mlf::Metadata md = mlf::metadata_from_json(it->second);
  const json& info = md.extra.value("mlipc", json::object());
  const json& mlip = md.extra.value("mlip", json::object());
  fmt::print("{}: model '{}', module '{}', target {}\n", tarball, md.model_name, md.module_name,
             info.value("target", std::string("?")));
  for (const auto& in : md.inputs)
    fmt::print("  input  {} {} {}\n", in.name, dtype_name(in.dtype), shape_str(in.shape));
  for (const auto& out : md.outputs)
    fmt::print("  output {} {} {}\n", out.name, dtype_name(out.dtype), shape_str(out.shape));
  if (!mlip.empty()) {
    const json& t = mlip["target"];
    fmt::print("MLIP: {} ({} mode), {} of {} tiles, quantize {}, wb_pin_ocm={}; OCM {} bytes/tile, page {}, DMA align {}\n",
               mlip["mcpu"].get<std::string>(), mlip["mode"].get<std::string>(), mlip["num_tiles"].get<int>(),
               t["tiles"].get<int>(), mlip["quantize"].get<std::string>(), mlip["wb_pin_ocm"].get<bool>() ? 1 : 0,
               with_commas(t["ocm_bytes_per_tile"].get<uint64_t>()), with_commas(t["ocm_page_bytes"].get<uint64_t>()),
               t["dma_align_bytes"].get<int>());
    fmt::print("  cycle model: {} MACs/cycle, {} DMA bytes/cycle, {} elements/cycle, {} cycles per command, {} MHz\n",
               t["macs_per_cycle"].get<int>(), t["dma_bytes_per_cycle"].get<int>(), t["eltwise_per_cycle"].get<int>(),
               t["cmd_overhead_cycles"].get<int>(), t["clock_mhz"].get<int>());
  }
  fmt::print("partition (schedule order):\n");
  std::map<std::string, json> regions, cpu_nodes;
  if (mlip.contains("regions"))
    for (const auto& r : mlip["regions"]) regions[r["name"].get<std::string>()] = r;
  if (mlip.contains("cpu_nodes"))
    for (const auto& c : mlip["cpu_nodes"]) cpu_nodes[c["node"].get<std::string>()] = c;
  for (const auto& l : info.value("layers", json::array())) {
    std::string node = l.value("node", "");
    if (regions.count(node)) {
      print_region(regions[node], mlip["target"]);
      continue;
    }
    std::string why = cpu_nodes.count(node) ? "  -- on the CPU: " + cpu_nodes[node]["reason"].get<std::string>() : "";
    fmt::print("  CPU  {:<18} {:<40} {}{}\n", l["op"].get<std::string>(), l["function"].get<std::string>(),
               origins(l["onnx_nodes"]), why);
  }
  fmt::print("memory plan ({}): arena {} bytes, lower bound {} bytes, constants {} bytes\n",
             info.value("memory_planner", std::string("?")), with_commas(md.workspace_size_bytes),
             with_commas(info.value("workspace_lower_bound_bytes", uint64_t{0})), with_commas(md.constants_size_bytes));
  for (const auto& b : info.value("memory_plan", json::array()))
    fmt::print("  [{:>9}, {:>9})  {:>9} bytes  live {:>3}..{:<3}  {}\n", with_commas(b["offset"].get<uint64_t>()),
               with_commas(b["offset"].get<uint64_t>() + b["size"].get<uint64_t>()), with_commas(b["size"].get<uint64_t>()),
               b["first"].get<int>(), b["last"].get<int>(), b["name"].get<std::string>());
}

}  // namespace

void add_inspect(CLI::App& app) {
  auto tarball = std::make_shared<std::string>();
  CLI::App* c = app.add_subcommand("inspect", "show the partition, tiling, OCM use and memory plan of a tarball");
  c->add_option("tarball", *tarball, "the tarball written by mlipc compile")->required();
  c->callback([tarball] { run_inspect(*tarball); });
}

}  // namespace mlipc::cli
